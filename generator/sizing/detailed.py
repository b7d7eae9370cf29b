"""The detailed sizing of one model: weights, formats, KV cache, setups per GPU, speed, cost.

Pure: records and bytes in, dataclasses of numbers out (seed 000 worked by hand for Kimi-K3).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from generator.sizing.formats import FormatSize, format_table
from generator.sizing.kv_cache import KvCache, kv_cache, sequences_that_fit, tokens_that_fit
from generator.sizing.setups import RUNTIME_OVERHEAD, Setup, cheapest_setup, gpus_for_weights, machine_plan, tensor_parallel_fits
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

SHORT_CONTEXT = 32_768  # the "32k tokens" users of the concurrency figures
USABLE = 1 - RUNTIME_OVERHEAD
GPU_TABLE_FORMATS = ("bf16", "fp8", "native", "4bit")


@dataclass(frozen=True)
class Capacity:
    """What the memory left beside the weights holds, on one setup, with 16-bit KV."""

    setup: Setup
    weights_bytes: int
    overhead_bytes: int
    kv_room_bytes: int
    tokens: int | None  # of one long sequence; None: any length (every layer has a window)
    users_full_context: int
    users_short_context: int
    tensor_parallel_ok: bool


@dataclass(frozen=True)
class GpuRow:
    gpu: Gpu
    for_weights: dict[str, int]  # format key -> GPUs whose memory adds up to the weights
    plan: Setup  # native weights + overhead + one full-context sequence: one machine or several
    tensor_parallel_ok: bool


@dataclass(frozen=True)
class HeadlineRoom:
    """What the headline's 20 % leaves for the KV cache once the real weights are in."""

    bits: int
    serving_bytes: int
    weights_bytes: int
    room_bytes: int  # negative: the headline does not even hold the real weights
    tokens: int | None
    users_full_context: int


@dataclass(frozen=True)
class Speed:
    read: TokenRead  # at SHORT_CONTEXT (or the context window if shorter)
    context: int
    tokens_per_second: float
    offload: dict[str, tuple[float, float]]  # "ram"/"nvme" -> (slow, fast) tokens/s; MoE only
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
    short_context: int = SHORT_CONTEXT

    @property
    def native_bytes(self) -> int:
        return sum(self.native_bytes_by_component.values())


def _capacity(model: Model, setup: Setup, weights: int, cache: KvCache, context: int) -> Capacity:
    overhead = round(setup.memory_bytes * RUNTIME_OVERHEAD)
    room = setup.memory_bytes - overhead - weights
    return Capacity(
        setup=setup,
        weights_bytes=weights,
        overhead_bytes=overhead,
        kv_room_bytes=room,
        tokens=tokens_that_fit(cache, room),
        users_full_context=sequences_that_fit(cache, room, context),
        users_short_context=sequences_that_fit(cache, room, min(SHORT_CONTEXT, context)),
        tensor_parallel_ok=tensor_parallel_fits(model.architecture, setup.count),
    )


def _headline_room(model: Model, bits: int, weights: int, cache: KvCache, context: int) -> HeadlineRoom:
    serving = serving_bytes(model.params, bits)
    room = serving - weights
    return HeadlineRoom(
        bits=bits,
        serving_bytes=serving,
        weights_bytes=weights,
        room_bytes=room,
        tokens=tokens_that_fit(cache, room),
        users_full_context=sequences_that_fit(cache, room, context),
    )


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
        price_per_hour=price,
        price_per_million_tokens=None if price is None else price_per_million_tokens(price, tokens_per_second),
    )


def detailed_sizing(model: Model, gpus: tuple[Gpu, ...]) -> DetailedSizing:
    arch = model.architecture
    context = model.context_window or SHORT_CONTEXT
    formats = format_table(model)
    native = next(f for f in formats if f.key == "native")
    kv16, kv8 = kv_cache(arch, 16), kv_cache(arch, 8)
    # The serving setup: native weights plus one sequence at the full context, after overhead.
    need = native.bytes + kv16.sequence_bytes(context)
    setup = cheapest_setup(need, gpus, USABLE, multi_node=True)
    capacity = _capacity(model, setup, native.bytes, kv16, context) if setup else None
    by_key = {f.key: f.bytes for f in formats}
    rows = tuple(
        GpuRow(
            gpu=gpu,
            for_weights={key: gpus_for_weights(by_key[key], gpu) for key in GPU_TABLE_FORMATS},
            plan=(plan := machine_plan(need, gpu, USABLE)),
            tensor_parallel_ok=tensor_parallel_fits(arch, plan.count),
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

