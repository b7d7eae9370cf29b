"""The cheapest setup for a workload: the GPU type, count, engine and checkpoint that start at the
context, hold every user at once and give each the tokens per second asked. Pure.

For each GPU type, engine (vLLM, SGLang, llama.cpp) and precision (the checkpoints a plan serves, or
a GGUF file with every layer on the GPUs: offloading to RAM serves, but at a few tokens per second),
the fewest GPUs that answer: more GPUs of one type only cost more. One machine is tried first;
machines joined into one setup (pipeline stages, vLLM and SGLang) only where no single machine of any
type answers, as the pages choose (setups.cheapest). Of the options on one setup (a GPU type and
count), the fastest for each user stands for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Iterator

from generator.catalog.records import Gpu, Model
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.fit import precisions_largest_first
from generator.sizing.gguf import gguf_sizable, page_quants
from generator.sizing.llama_cpp import LLAMA_CPP, LlamaCppPlan, LlamaCppRequest, every_layer, llama_cpp_plan
from generator.sizing.plan_speed import llama_cpp_throughput, serving_throughput
from generator.sizing.planner import Plan, PlanRequest, plan_that_starts
from generator.sizing.setups import MACHINE_SIZE, MAX_MACHINES
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
    speed: Throughput

    @property
    def engine(self) -> str:
        return LLAMA_CPP.key if isinstance(self.plan, LlamaCppPlan) else self.plan.engine

    @property
    def price_per_hour(self) -> Decimal | None:
        return self.plan.price_per_hour

    @property
    def gpus(self) -> int:
        return self.plan.count if isinstance(self.plan, LlamaCppPlan) else self.plan.setup.total_gpus

    @property
    def machines(self) -> int:
        return 1 if isinstance(self.plan, LlamaCppPlan) else self.plan.setup.machines


def _meets(speed: Throughput | None, question: Question) -> bool:
    floor = question.min_tokens_per_second
    return speed is not None and speed.batch >= question.workload.users and (
        floor is None or speed.output_tokens_per_second_per_user >= floor)


def _serving_option(model: Model, gpu: Gpu, count: int, request: PlanRequest, question: Question) -> Option | None:
    found = plan_that_starts(model, gpu, count, request, shorter=False)
    if not found.starts or found.max_users < question.workload.users:
        return None
    speed = serving_throughput(found, question.workload)
    return Option(found, speed) if _meets(speed, question) else None


def _llama_cpp_option(model: Model, gpu: Gpu, count: int, quant: str, question: Question) -> Option | None:
    request = LlamaCppRequest(quant=quant, context=question.context, users=question.workload.users)
    found = llama_cpp_plan(model, gpu, count, request)
    if not found.starts or found.n_gpu_layers < every_layer(model) or found.n_cpu_moe:
        return None
    speed = llama_cpp_throughput(found, question.workload)
    return Option(found, speed) if _meets(speed, question) else None


def _fewest(counts: tuple[int, ...], option) -> Option | None:
    return next((found for found in map(option, counts) if found is not None), None)


def _serving_options(model: Model, gpu: Gpu, question: Question, counts: tuple[int, ...]) -> Iterator[Option]:
    """vLLM and SGLang at each precision they serve, on the fewest of `counts` GPUs that answer."""
    for engine in SERVING_ENGINES.values():
        if engine.runs(model) and not gpu.unified_memory:
            for precision in precisions_largest_first(model, engine.key):
                request = PlanRequest(engine=engine.key, context=question.context, users=question.workload.users,
                                      precision=precision)
                found = _fewest(counts, lambda count: _serving_option(model, gpu, count, request, question))
                if found is not None:
                    yield found


def _one_machine_options(model: Model, gpu: Gpu, question: Question) -> Iterator[Option]:
    shapes = gpu.machine_shapes
    yield from _serving_options(model, gpu, question, shapes)
    if gguf_sizable(model):
        quants = LLAMA_CPP_QUANTS + tuple(q for q in page_quants(model) if q == "MXFP4_MOE")
        for quant in quants:
            found = _fewest(shapes, lambda count: _llama_cpp_option(model, gpu, count, quant, question))
            if found is not None:
                yield found


def _joined_options(model: Model, gpu: Gpu, question: Question) -> Iterator[Option]:
    largest = gpu.machine_shapes[-1]
    yield from _serving_options(model, gpu, question, tuple(largest * machines for machines in range(2, MAX_MACHINES + 1)))


def _rank(option: Option) -> tuple:
    """Priced first, cheapest first; then fewer GPUs, then faster for each user."""
    price = option.price_per_hour
    return (price is None, price or 0, option.gpus, -option.speed.output_tokens_per_second_per_user)


def cheapest_options(model: Model, gpus: tuple[tuple[Gpu, bool], ...], question: Question,
                     priced_only: bool = True) -> list[Option]:
    """The options over `gpus` (each GPU and whether its machines may be joined), cheapest first:
    single machines; only where none answers, joined machines. `priced_only`: a GPU without a price
    (the market's unpriced cards) is left out; the stock's on-request setups are kept, ranked last."""
    candidates = [(gpu, joined) for gpu, joined in gpus if not priced_only or gpu.price_per_gpu_hour is not None]
    options = [option for gpu, _ in candidates for option in _one_machine_options(model, gpu, question)]
    if not options:
        options = [option for gpu, joined in candidates if joined
                   for option in _joined_options(model, gpu, question)]
    setups: dict[tuple[str, int], Option] = {}
    for option in sorted(options, key=_rank):
        setups.setdefault((option.plan.gpu.slug, option.gpus), option)
    return list(setups.values())


def market_gpus(gpus: tuple[Gpu, ...]) -> tuple[tuple[Gpu, bool], ...]:
    """The market's GPUs, whose 8-GPU machines may be joined (setups.cheapest)."""
    return tuple((gpu, gpu.machine_shapes[-1] == MACHINE_SIZE) for gpu in gpus)
