"""The detailed sizing of one model: weights, formats, KV cache, setups per GPU, speed, cost.

Pure: records and bytes in, dataclasses of numbers out (seed 000 worked by hand for Kimi-K3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Mapping

from generator.sizing.formats import FORMATS, Format, FormatSize, format_table
from generator.sizing.kv_cache import SHORT_CONTEXT, KvCache, KvRoom, default_context, kv_cache, kv_room
from generator.sizing.setups import (
    RUNTIME_OVERHEAD,
    RUNTIME_OVERHEAD_RANGE,
    USABLE_SHARE,
    ParallelSplit,
    Setup,
    cheapest_setup,
    gpus_for_weights,
    machine_plan,
    parallel_sizes,
)
from generator.catalog.records import Gpu, Model
from generator.sizing.headline import serving_bytes
from generator.sizing.speed import (
    OFFLOAD_BANDWIDTHS,
    TokenRead,
    decode_tokens_per_second,
    offloaded_tokens_per_second,
    price_per_million_tokens,
    token_read,
)
from generator.sizing.weights import params_by_component

GPU_TABLE_FORMATS = ("bf16", "fp8", "native", "4bit")


@dataclass(frozen=True)
class Capacity:
    """One setup holding the published weights: the runtime's share, the room left, the split."""

    setup: Setup
    weights_bytes: int
    overhead_bytes: int
    room: KvRoom
    split: ParallelSplit

    @property
    def tensor_parallel_ok(self) -> bool:
        """Whether the heads split over every GPU of one machine (else fewer, and pipeline stages)."""
        return self.split.tensor == self.setup.gpus_per_machine


@dataclass(frozen=True)
class GpuRow:
    gpu: Gpu
    for_weights: dict[str, int]  # format key -> GPUs whose memory adds up to the weights
    plan: Setup  # native weights + overhead + one full-context sequence: one machine or several
    split: ParallelSplit

    @property
    def tensor_parallel_ok(self) -> bool:
        return self.split.tensor == self.plan.gpus_per_machine


@dataclass(frozen=True)
class HeadlineRoom:
    """What the headline's 20 % leaves for the KV cache once the real weights are in."""

    bits: int
    serving_bytes: int
    weights_bytes: int
    room: KvRoom


@dataclass(frozen=True)
class Speed:
    read: TokenRead  # at SHORT_CONTEXT (or the context window if shorter)
    context: int
    tokens_per_second: float
    offload: dict[str, tuple[float, float]]  # "ram"/"nvme" -> (slow, fast) tokens/s; MoE only
    offload_bandwidths: Mapping[str, tuple[int, int]]  # "ram"/"nvme" -> (slow, fast) bytes/s
    price_per_hour: Decimal | None
    price_per_million_tokens: Decimal | None


@dataclass(frozen=True)
class DetailedSizing:
    params_by_component: dict[str, int]
    native_bytes_by_component: dict[str, int]
    formats: tuple[FormatSize, ...]
    kv16: KvCache
    kv8: KvCache
    context: int
    kv16_full_context_bytes: int  # one sequence at the full context window
    kv8_full_context_bytes: int
    headline_rooms: tuple[HeadlineRoom, ...]
    capacity: Capacity | None  # None: no GPU in the catalog has a price
    gpu_rows: tuple[GpuRow, ...]
    speed: Speed | None  # None: the setup's bandwidth is not published
    runtime_overhead: Fraction = RUNTIME_OVERHEAD
    runtime_overhead_range: tuple[Fraction, Fraction] = RUNTIME_OVERHEAD_RANGE
    short_context: int = SHORT_CONTEXT
    format_specs: Mapping[str, Format] = field(default_factory=lambda: FORMATS)  # what the formats table's rows are made of

    @property
    def native_bytes(self) -> int:
        return sum(self.native_bytes_by_component.values())


def _capacity(model: Model, setup: Setup, weights: int, cache: KvCache, context: int) -> Capacity:
    overhead = round(setup.memory_bytes * RUNTIME_OVERHEAD)
    return Capacity(
        setup=setup,
        weights_bytes=weights,
        overhead_bytes=overhead,
        room=kv_room(cache, setup.memory_bytes - overhead - weights, context),
        split=parallel_sizes(model.architecture, setup),
    )


def _headline_room(model: Model, bits: int, weights: int, cache: KvCache, context: int) -> HeadlineRoom:
    serving = serving_bytes(model.params, bits)
    return HeadlineRoom(bits, serving, weights, kv_room(cache, serving - weights, context))


def _speed(model: Model, capacity: Capacity, native: dict[str, int], cache: KvCache, context: int) -> Speed | None:
    bandwidth = capacity.setup.bandwidth_per_machine
    if bandwidth is None:
        return None
    short = min(SHORT_CONTEXT, context)
    read = token_read(model, native, cache, short)
    tokens_per_second = decode_tokens_per_second(read, bandwidth)
    offload = {}
    if model.architecture.moe is not None:
        offload = {
            where: tuple(offloaded_tokens_per_second(read, bandwidth, link) for link in links)
            for where, links in OFFLOAD_BANDWIDTHS.items()
        }
    price = capacity.setup.price_per_hour
    return Speed(
        read=read,
        context=short,
        tokens_per_second=tokens_per_second,
        offload=offload,
        offload_bandwidths=OFFLOAD_BANDWIDTHS,
        price_per_hour=price,
        price_per_million_tokens=None if price is None else price_per_million_tokens(price, tokens_per_second),
    )


def detailed_sizing(model: Model, gpus: tuple[Gpu, ...]) -> DetailedSizing:
    arch = model.architecture
    context = default_context(model)
    formats = format_table(model)
    native = next(f for f in formats if f.key == "native")
    kv16, kv8 = kv_cache(arch, 16), kv_cache(arch, 8)
    # The serving setup: native weights plus one sequence at the full context, after overhead.
    need = native.bytes + kv16.sequence_bytes(context)
    setup = cheapest_setup(need, gpus, USABLE_SHARE, multi_node=True)
    capacity = _capacity(model, setup, native.bytes, kv16, context) if setup else None
    by_key = {f.key: f.bytes for f in formats}
    rows = tuple(
        GpuRow(
            gpu=gpu,
            for_weights={key: gpus_for_weights(by_key[key], gpu) for key in GPU_TABLE_FORMATS},
            plan=(plan := machine_plan(need, gpu, USABLE_SHARE)),
            split=parallel_sizes(arch, plan),
        )
        for gpu in gpus
    )
    rooms = (
        _headline_room(model, 16, by_key["bf16"], kv16, context),
        _headline_room(model, 4, by_key["4bit"], kv16, context),
    )
    return DetailedSizing(
        params_by_component=params_by_component(model),
        native_bytes_by_component=native.by_component,
        formats=formats,
        kv16=kv16,
        kv8=kv8,
        context=context,
        kv16_full_context_bytes=kv16.sequence_bytes(context),
        kv8_full_context_bytes=kv8.sequence_bytes(context),
        headline_rooms=rooms,
        capacity=capacity,
        gpu_rows=rows,
        speed=_speed(model, capacity, native.by_component, kv16, context) if capacity else None,
    )

