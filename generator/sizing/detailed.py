"""The detailed sizing of one model: weights, formats, KV cache, setups per GPU, speed, cost.

Pure: records and bytes in, dataclasses of numbers out (seed 000 worked by hand for Kimi-K3).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from decimal import Decimal
from typing import Callable, Mapping

from generator.sizing.checkpoints import ServedWeights, listed_weights, published_weights
from generator.sizing.formats import FORMATS, Format, FormatSize, bytes_by_component, format_table, published_formats
from generator.sizing.kv_cache import SHORT_CONTEXT, KvCache, KvRoom, default_context, kv_cache, kv_room
from generator.sizing.engine_sglang import SGLANG, pool_idle_layers
from generator.sizing.engine_vllm import VLLM
from generator.sizing.engine_vllm_compressed import PAGE_ALIGNMENT, row_bytes
from generator.sizing.layer_kinds import CompressedLayers, layer_kinds
from generator.sizing.planner import Plan, PlanRequest, plan, plan_that_starts
from generator.sizing.workloads import WorkloadCost, reference_context, workload_costs
from generator.sizing.setups import MAX_MACHINES, Setup, cheapest, gpus_for_weights, smallest_setup
from generator.sizing.stock import Offered, cheapest_in_stock, offered_setup
from generator.catalog.records import Gpu, Model
from generator.sizing.headline import SERVING_BITS, serving_bytes
from generator.sizing.size_report import PRECISIONS
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


PAGE_ENGINE = VLLM.key  # the engine a page's setups follow


@dataclass(frozen=True)
class HeadlineCheck:
    """The headline rule's setup for one precision (parameters × bytes + 20 %, whatever the context),
    asked of vLLM with its default flags at the model's full context: whether it starts there, and
    the longest context one sequence gets on it (`plan.max_context`; 0: it does not start)."""

    bits: int
    plan: Plan


@dataclass(frozen=True)
class Serving:
    """A setup on which vLLM starts with one sequence at the full context (planner.py), the same
    flags at the short context, and SGLang on the same GPUs."""

    plan: Plan
    short: Plan  # the same setup and flags at SHORT_CONTEXT: users at once there
    sglang: Plan
    cheaper_group: Plan | None = None  # a group of machines of the GPU rows that costs less per hour

    @property
    def setup(self) -> Setup:
        return self.plan.setup

    @property
    def tensor_parallel_ok(self) -> bool:
        """Whether the heads split over every GPU of one machine (else fewer, and pipeline stages)."""
        return self.plan.split.tensor == self.setup.gpus_per_machine

    @property
    def global_kv_heads_copied(self) -> bool:
        """Whether the global layers' KV heads (Gemma 4's fewer ones) are fewer than the tensor-parallel
        GPUs, so that each GPU keeps a copy of one (vllm/config/model.py get_num_kv_heads)."""
        return self.plan.model.architecture.attention.global_layers.kv_heads < self.plan.split.tensor

    @property
    def runtime_bytes(self) -> int:
        """Per GPU: what the engine keeps for anything but weights and KV cache."""
        return sum(self.plan.non_kv_bytes.values())


@dataclass(frozen=True)
class GpuRow:
    gpu: Gpu
    for_weights: dict[str, int]  # format key -> GPUs whose memory adds up to the weights
    plan: Plan | None  # the fewest GPUs of this type on which vLLM starts at the full context
    gpu_reason: str | None = None  # vLLM's kernels for the model's attention here are not modelled, or none (Engine.gpu_reason)

    @property
    def tensor_parallel_ok(self) -> bool:
        return self.plan is None or self.plan.split.tensor == self.plan.setup.gpus_per_machine


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
class CheckpointRow:
    """One checkpoint a reader can serve (the published one first), and its weights as stored."""

    weights: ServedWeights
    bytes: int


def checkpoint_rows(model: Model) -> tuple[CheckpointRow, ...]:
    """The published checkpoint, then the quantized ones of the catalog in its order."""
    served = [published_weights(model), *(listed_weights(model, c) for c in model.checkpoints)]
    return tuple(CheckpointRow(w, sum(bytes_by_component(model, w.stored).values())) for w in served)


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
    headline_checks: tuple[HeadlineCheck, ...]  # 16, 8 and 4 bits, those with a setup on the market
    serving: Serving | None  # None: no priced GPU type starts it within MAX_MACHINES machines
    # With the operator's stock (stock.py): whether `serving` is a setup in stock (else nothing in
    # stock starts it and `serving` is the market's), and the market's own choice, shown beside it.
    # Without one, `in_stock` is None: every setup is the market's.
    gpu_rows: tuple[GpuRow, ...]
    speed: Speed | None  # None: the setup's bandwidth is not published
    in_stock: bool | None = None
    market_serving: Serving | None = None
    stock_checks: tuple[HeadlineCheck, ...] = ()  # the headline checks on the setups in stock
    short_context: int = SHORT_CONTEXT
    max_machines: int = MAX_MACHINES
    engine_name: str = VLLM.name  # of the setups' plans
    format_specs: Mapping[str, Format] = field(default_factory=lambda: FORMATS)  # what the formats table's rows are made of
    checkpoints: tuple[CheckpointRow, ...] = ()
    sglang_pool_layers: int = 0  # the layers SGLang's token pool keeps a slot for, attention or not
    sglang_version: str = SGLANG.version
    compressed: tuple[CompressedLayers, ...] = ()  # DeepSeek-V4: the layers of each compression ratio
    vllm_row_bytes: int = 0  # DeepSeek-V4: one row as vLLM stores it (fp8_ds_mla)
    vllm_page_alignment: int = PAGE_ALIGNMENT  # and the multiple its pages are padded to
    vllm_version: str = VLLM.version
    workloads: tuple[WorkloadCost, ...] = ()  # the page's named workloads, each with its cheapest setup
    reference_context: int = SHORT_CONTEXT  # what the page's speeds and prices are for (workloads.py)

    @property
    def headline_short_of_context(self) -> bool:
        """Whether one of the requirement table's setups does not start at the full context."""
        return any(not check.plan.starts for check in self.table_checks)

    @property
    def table_checks(self) -> tuple[HeadlineCheck, ...]:
        """The checks of the requirement table's setups: the stock's where there is one, else the market's."""
        return self.stock_checks if self.in_stock is not None else self.headline_checks

    @property
    def native_bytes(self) -> int:
        return sum(self.native_bytes_by_component.values())

    @property
    def starts_in_stock(self) -> bool:
        """With the operator's stock: whether vLLM starts on a setup in stock (_starts_in_stock)."""
        return _starts_in_stock(self.stock_checks, self.serving if self.in_stock else None)


def _starting(model: Model, gpu: Gpu, count: int, context: int) -> Plan | None:
    """vLLM on `count` GPUs with the flags that make it start at `context` (never shorter), or None."""
    result = plan_that_starts(model, gpu, count, PlanRequest(engine=PAGE_ENGINE, context=context), shorter=False)
    return result if result.starts else None


def _fewest_that_start(model: Model, gpu: Gpu, context: int, joined: bool = True) -> Plan | None:
    """vLLM on the fewest GPUs of this type that start with one sequence of `context` tokens: each
    machine shape, then (where machines are `joined`) machines of the largest shape, from 2 to
    MAX_MACHINES. More machines give each GPU fewer layers, so once some number starts every larger
    one does: bisect it."""
    for count in gpu.machine_shapes:
        found = _starting(model, gpu, count, context)
        if found:
            return found
    if not joined:
        return None
    largest = gpu.machine_shapes[-1]
    found = _starting(model, gpu, largest * MAX_MACHINES, context)
    if found is None:
        return None
    low, high = 1, MAX_MACHINES  # `low` machines do not start, `high` do
    while high - low > 1:
        middle = (low + high) // 2
        plan = _starting(model, gpu, largest * middle, context)
        if plan:
            high, found = middle, plan
        else:
            low = middle
    return found


Choice = Callable[[list[tuple[Setup, Plan]]], Plan | None]  # setups.cheapest, or stock.cheapest_in_stock


def _serving(model: Model, plans: list[Plan], context: int, choose: Choice = cheapest) -> Serving | None:
    """The cheapest of the setups that start (`choose`: one machine when one starts it), with its
    short-context and SGLang plans, and the cheapest group of machines among them when it costs
    less per hour."""
    chosen = choose([(p.setup, p) for p in plans])
    if chosen is None:
        return None
    count, flags = chosen.setup.total_gpus, chosen.request
    short = plan_that_starts(model, chosen.gpu, count, replace(flags, context=min(SHORT_CONTEXT, context)))
    sglang = plan_that_starts(model, chosen.gpu, count, PlanRequest(engine=SGLANG.key, context=context))
    groups = [p for p in plans if p.setup.machines > 1 and p.setup.price_per_hour is not None
              and p.setup.price_per_hour < chosen.setup.price_per_hour]
    cheaper = min(groups, key=lambda p: (p.setup.price_per_hour, p.setup.total_gpus), default=None)
    return Serving(chosen, short, sglang, cheaper)


def _headline_checks(model: Model, choose: Callable[[int], Setup | None], context: int) -> tuple[HeadlineCheck, ...]:
    """vLLM on the setup the headline chooses (`choose`: the market's smallest_setup, or the stock's
    offered_setup) for each precision's serving memory."""
    checks = []
    for bits in SERVING_BITS:
        setup = choose(serving_bytes(model.params, bits))
        if setup is not None:
            request = PlanRequest(engine=PAGE_ENGINE, context=context, precision=PRECISIONS[str(bits)])
            checks.append(HeadlineCheck(bits, plan(model, setup.gpu, setup.total_gpus, request)))
    return tuple(checks)


def _headline_room(model: Model, bits: int, weights: int, cache: KvCache, context: int) -> HeadlineRoom:
    serving = serving_bytes(model.params, bits)
    return HeadlineRoom(bits, serving, weights, kv_room(cache, serving - weights, context))


def _speed(model: Model, setup: Setup, cache: KvCache, context: int) -> Speed | None:
    bandwidth = setup.bandwidth_per_machine
    if bandwidth is None:
        return None
    short = min(SHORT_CONTEXT, context)
    read = token_read(model, bytes_by_component(model, published_formats(model), prediction=False), cache, short)
    tokens_per_second = decode_tokens_per_second(read.total, bandwidth)
    offload = {}
    if model.architecture.moe is not None:
        offload = {
            where: tuple(offloaded_tokens_per_second(read, bandwidth, link) for link in links)
            for where, links in OFFLOAD_BANDWIDTHS.items()
        }
    price = setup.price_per_hour
    return Speed(
        read=read,
        context=short,
        tokens_per_second=tokens_per_second,
        offload=offload,
        offload_bandwidths=OFFLOAD_BANDWIDTHS,
        price_per_hour=price,
        price_per_million_tokens=None if price is None else price_per_million_tokens(price, tokens_per_second),
    )


def _stock_serving(model: Model, offered: Offered, context: int) -> Serving | None:
    """The cheapest setup in stock on which vLLM starts with the full context (cheapest_in_stock)."""
    plans = [_fewest_that_start(model, gpu, context, joined) for gpu, joined in offered if VLLM.gpu_reason(model, gpu) is None]
    return _serving(model, [p for p in plans if p is not None], context, cheapest_in_stock)


def _starts_in_stock(checks: tuple[HeadlineCheck, ...], stock_serving: Serving | None) -> bool:
    """vLLM starts on a setup in stock: on the headline's setup in stock at some precision, with some
    context, or on the setup in stock that serves the full context (the deploy link's rule)."""
    return stock_serving is not None or any(check.plan.max_context > 0 for check in checks)


def starts_in_stock(model: Model, offered: Offered) -> bool:
    """DetailedSizing.starts_in_stock without the rest of the sizing (the models index's filter)."""
    context = default_context(model)
    checks = _headline_checks(model, partial(offered_setup, offered=offered), context)
    # the headline's setups first; the search for one that serves the full context only if none starts
    return _starts_in_stock(checks, None) or _stock_serving(model, offered, context) is not None


def detailed_sizing(model: Model, gpus: tuple[Gpu, ...], offered: Offered | None = None) -> DetailedSizing:
    """The whole sizing over the market's GPUs; with `offered` (the operator's stock, stock.stock_gpus)
    the headline's setups and the setup to serve it are the stock's where it has one."""
    arch = model.architecture
    context = default_context(model)
    formats = format_table(model)
    native = next(f for f in formats if f.key == "native")
    kv16, kv8 = kv_cache(arch, 16), kv_cache(arch, 8)
    by_key = {f.key: f.bytes for f in formats}
    rows = tuple(
        GpuRow(
            gpu=gpu,
            for_weights={key: gpus_for_weights(by_key[key], gpu) for key in GPU_TABLE_FORMATS},
            plan=_fewest_that_start(model, gpu, context) if reason is None else None,
            gpu_reason=reason,
        )
        for gpu, reason in ((gpu, VLLM.gpu_reason(model, gpu)) for gpu in gpus)
    )
    market = _serving(model, [row.plan for row in rows if row.plan is not None], context)
    in_stock, serving, stock_checks = None, market, ()
    if offered is not None:
        stocked = _stock_serving(model, offered, context)
        in_stock, serving = stocked is not None, stocked or market
        stock_checks = _headline_checks(model, partial(offered_setup, offered=offered), context)
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
        headline_checks=_headline_checks(model, partial(smallest_setup, gpus=gpus), context),
        serving=serving,
        in_stock=in_stock,
        market_serving=market if offered is not None else None,
        stock_checks=stock_checks,
        gpu_rows=rows,
        speed=_speed(model, serving.setup, kv16, context) if serving else None,
        checkpoints=checkpoint_rows(model),
        sglang_pool_layers=model.architecture.attention_layers + pool_idle_layers(model.architecture),
        compressed=tuple(kind for kind in layer_kinds(arch) if isinstance(kind, CompressedLayers)),
        vllm_row_bytes=row_bytes(arch) if arch.attention.kind == "compressed" else 0,
        workloads=workload_costs(model, gpus, offered),
        reference_context=reference_context(model),
    )

