"""The cheapest setup for a workload: the GPU type, count, engine and checkpoint that start at the
context, hold every user at once and give each the tokens per second asked. Pure.

Setups (a GPU type and a count of it) are tried cheapest first. On each, vLLM and SGLang at every
precision they serve a checkpoint of, and llama.cpp with a GGUF file whose every layer is on the GPUs
(offloading to RAM starts, but at a few tokens per second); the first that answers, in that order
(most bits first, as the fit page chooses), stands for the setup. A GPU type answers once, with its cheapest setup that does: the list runs through GPU types.
One machine first; machines joined into one setup (pipeline stages, vLLM and SGLang) only where no
single machine of any type answers, as the pages choose (setups.cheapest).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Iterable

from generator.catalog.records import Gpu, Model
from generator.sizing.checkpoints import served_weights
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.fit import precisions_largest_first
from generator.sizing.formats import bytes_by_component
from generator.sizing.gguf import gguf_sizable, page_quants
from generator.sizing.llama_cpp import (
    LLAMA_CPP, LlamaCppLayers, LlamaCppPlan, LlamaCppRequest, every_layer, llama_cpp_layers, llama_cpp_plan,
)
from generator.sizing.plan_speed import llama_cpp_throughput, serving_throughput
from generator.sizing.planner import Plan, PlanRequest, plan_that_starts
from generator.sizing.setups import MACHINE_SIZE, MAX_MACHINES, Setup
from generator.sizing.throughput import Throughput, Workload

# The GGUF files tried: 8 and 4 bits (the serving engines' FP8 and 4-bit checkpoints' peers), and the
# file that keeps MXFP4 experts as published where there is one (gguf.page_quants).
LLAMA_CPP_QUANTS = ("Q8_0", "Q4_K_M")
OPTIONS_SHOWN = 5  # the cheapest and the next few


@dataclass(frozen=True)
class Question:
    context: int  # each user's, the engine's --max-model-len (llama.cpp: a slot's)
    workload: Workload
    min_tokens_per_second: float | None = None  # each user's output tokens per second


@dataclass(frozen=True)
class Option:
    plan: Plan | LlamaCppPlan
    speed: Throughput | None  # None: the catalog lacks the GPU's tensor FLOPS (it starts and holds the users)

    @property
    def engine(self) -> str:
        return LLAMA_CPP.key if isinstance(self.plan, LlamaCppPlan) else self.plan.engine

    @property
    def price_per_hour(self) -> Decimal | None:
        return self.plan.price_per_hour

    @property
    def setup(self) -> Setup:
        """llama.cpp: one machine of the plan's GPUs."""
        return Setup(self.plan.gpu, self.plan.count) if isinstance(self.plan, LlamaCppPlan) else self.plan.setup

    @property
    def gpus(self) -> int:
        return self.setup.total_gpus

    @property
    def machines(self) -> int:
        return self.setup.machines


@dataclass(frozen=True)
class _Ways:
    """What can run the model, computed once: each serving engine's precisions with their weights'
    bytes, and each GGUF file's tables."""

    serving: tuple[tuple[str, str, int], ...]  # (engine, precision, weights bytes)
    gguf: tuple[LlamaCppLayers, ...]


def _ways(model: Model, engines: Iterable[str]) -> _Ways:
    serving = []
    for key in engines:
        engine = SERVING_ENGINES.get(key)
        if engine is not None and engine.runs(model):
            for precision in precisions_largest_first(model, key):
                stored = served_weights(model, precision, engine).stored
                serving.append((key, precision, sum(bytes_by_component(model, stored).values())))
    gguf = ()
    if LLAMA_CPP.key in engines and gguf_sizable(model):
        quants = LLAMA_CPP_QUANTS + tuple(q for q in page_quants(model) if q == "MXFP4_MOE")
        gguf = tuple(llama_cpp_layers(model, quant) for quant in quants)
    return _Ways(tuple(serving), gguf)


def _meets(speed: Throughput | None, question: Question) -> bool:
    """Every user decodes at once, at the speed asked; a speed not known meets no floor."""
    floor = question.min_tokens_per_second
    if speed is None:
        return floor is None
    return speed.batch >= question.workload.users and (floor is None or speed.output_tokens_per_second_per_user >= floor)


def _options_on(model: Model, gpu: Gpu, count: int, ways: _Ways, question: Question) -> list[Option]:
    """Every way that answers on `count` GPUs of `gpu`; a way whose weights alone pass the GPUs'
    memory is not planned."""
    memory, users = gpu.gpu_memory_bytes * count, question.workload.users
    found = []
    for engine, precision, weights in ways.serving:
        if weights > memory:
            continue
        request = PlanRequest(engine=engine, context=question.context, users=users, precision=precision)
        plan = plan_that_starts(model, gpu, count, request, shorter=False)
        if plan.starts and plan.max_users >= users:
            found.append(Option(plan, serving_throughput(plan, question.workload)))
    if count <= gpu.machine_shapes[-1]:  # llama.cpp runs on one machine
        for tables in ways.gguf:
            if tables.file.tensor_bytes > memory:
                continue
            request = LlamaCppRequest(quant=tables.file.preset, context=question.context, users=users)
            plan = llama_cpp_plan(model, gpu, count, request, tables)
            if plan.starts and plan.n_gpu_layers == every_layer(model) and not plan.n_cpu_moe:
                found.append(Option(plan, llama_cpp_throughput(plan, question.workload)))
    return [option for option in found if _meets(option.speed, question)]


def _by_price(setups: Iterable[tuple[Gpu, int]]) -> list[tuple[Gpu, int]]:
    """Priced setups cheapest first, then fewer GPUs, then the catalog's order; those priced on
    request last, fewest GPUs first."""
    def key(item: tuple[int, tuple[Gpu, int]]) -> tuple:
        order, (gpu, count) = item
        price = gpu.price_per_gpu_hour
        return (price is None, 0 if price is None else price * count, count, order)
    return [setup for _, setup in sorted(enumerate(setups), key=key)]


def _first_types(model: Model, setups: list[tuple[Gpu, int]], ways: _Ways, question: Question,
                 shown: int) -> list[Option]:
    """Through `setups` cheapest first, each GPU type's first setup that answers (its first way that
    does: vLLM, SGLang, then llama.cpp, most bits first), until `shown` types have answered."""
    chosen: dict[str, Option] = {}
    for gpu, count in _by_price(setups):
        if gpu.slug in chosen:
            continue
        options = _options_on(model, gpu, count, ways, question)
        if options:
            chosen[gpu.slug] = options[0]
            if len(chosen) == shown:
                break
    return list(chosen.values())


def cheapest_options(model: Model, gpus: tuple[tuple[Gpu, bool], ...], question: Question,
                     priced_only: bool = True, engines: Iterable[str] = (*SERVING_ENGINES, LLAMA_CPP.key),
                     shown: int = OPTIONS_SHOWN) -> list[Option]:
    """The cheapest setup of up to `shown` GPU types over `gpus` (each GPU and whether its machines may
    be joined), cheapest first. `priced_only`: a GPU without a price (the market's unpriced cards) is
    left out; the stock's setups on request are kept, ranked last."""
    candidates = [(gpu, joined) for gpu, joined in gpus if not priced_only or gpu.price_per_gpu_hour is not None]
    ways = _ways(model, tuple(engines))
    single = [(gpu, count) for gpu, _ in candidates for count in gpu.machine_shapes]
    options = _first_types(model, single, ways, question, shown)
    if options:
        return options
    joined = [(gpu, gpu.machine_shapes[-1] * machines) for gpu, can_join in candidates if can_join
              for machines in range(2, MAX_MACHINES + 1)]
    return _first_types(model, joined, ways, question, shown)


def market_gpus(gpus: tuple[Gpu, ...]) -> tuple[tuple[Gpu, bool], ...]:
    """The market's GPUs, whose 8-GPU machines may be joined (setups.cheapest)."""
    return tuple((gpu, gpu.machine_shapes[-1] == MACHINE_SIZE) for gpu in gpus)
