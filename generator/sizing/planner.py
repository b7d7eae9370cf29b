"""The engine-true plan: what vLLM or SGLang does with a model on N GPUs of one type. Pure.

Per GPU: the weights as loaded (loaded_weights.py), then the engine's own accounting (its record in
engines.py: the memory it keeps for anything but weights and KV cache, the KV memory left, how it
cuts it into blocks), and from that the tokens it holds, whether it starts at the asked context, the
longest context that starts and the users it serves at once. When the flags asked for do not start,
`plan_that_starts` tries the remedies, cheapest first.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction

from generator.catalog.records import Gpu, Model
from generator.sizing.checkpoints import ServedWeights, cache_dtype, served_weights, sized_formats
from generator.sizing.engine import (
    CONTEXT_BEYOND_WINDOW, CONTEXT_DOES_NOT_FIT, DRAFT_WITH_PIPELINE, ENGINE_DOES_NOT_RUN, GPU_NOT_PLANNED, GPU_WITHOUT_KERNELS,
    MEMORY_IN_USE, NO_CHECKPOINT, NO_KV_MEMORY, UNIFIED_MEMORY,
    WEIGHTS_DO_NOT_FIT, Engine, PlanRequest, drafting_layers, engine_memory_bytes, rope_scaling_at,
)
from generator.sizing.engine_vllm import vllm_mxfp4_padding
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.kv_cache import default_context
from generator.sizing.loaded_weights import loaded_bytes_per_gpu
from generator.sizing.setups import ParallelSplit, Setup, parallel_sizes
from generator.sizing.speed import decode_tokens_per_second, kv_read_cache, weights_read_bytes

__all__ = ["CONTEXT_BEYOND_WINDOW", "CONTEXT_DOES_NOT_FIT", "DRAFT_WITH_PIPELINE", "ENGINE_DOES_NOT_RUN", "GPU_NOT_PLANNED", "GPU_WITHOUT_KERNELS", "MEMORY_IN_USE", "NO_CHECKPOINT", "NO_KV_MEMORY", "UNIFIED_MEMORY", "WEIGHTS_DO_NOT_FIT", "Answer", "Plan", "PlanRequest",
           "answer", "plan", "plan_that_starts", "plan_setup", "memory_at"]


@dataclass(frozen=True)
class Plan:
    model: Model
    gpu: Gpu
    setup: Setup
    split: ParallelSplit
    request: PlanRequest
    context: int
    memory_fraction: Fraction
    total_memory_bytes: int  # one GPU, as the engine sees it
    weights_bytes: int  # on the fullest GPU
    non_kv_bytes: dict[str, int]  # one GPU, by part
    available_kv_bytes: int  # one GPU; negative: the weights and the rest do not fit
    kv_bytes_per_token: int  # one GPU, for a sequence of `context` tokens (windows and blocks included)
    kv_tokens: int
    max_concurrency: float  # sequences of `context` tokens the KV cache holds at once
    starts: bool
    reason: str | None
    max_context: int  # the longest context that starts (0: none)
    max_users: int  # at `context`
    decode_tokens_per_second: float | None  # one sequence, upper bound from memory bandwidth
    weights: ServedWeights | None  # what the command serves; None: no checkpoint of the precision asked
    changes: tuple[tuple[str, str], ...] = field(default=())  # flags added so that it starts
    refused: str | None = None  # why the flags asked for did not start, when `changes` are set

    @property
    def engine(self) -> str:
        return self.request.engine

    @property
    def engine_record(self) -> Engine:
        return SERVING_ENGINES[self.request.engine]

    @property
    def cache_dtype(self) -> str:
        """The KV cache type the engine keeps: the one asked, or the checkpoint's own for "auto"."""
        return cache_dtype(self.request.kv_dtype, self.weights, self.engine_record)

    @property
    def engine_version(self) -> str:
        return self.engine_record.version

    @property
    def price_per_hour(self) -> Decimal | None:
        return self.setup.price_per_hour

    @property
    def users_fit(self) -> bool:
        return self.starts and self.max_users >= self.request.users

    @property
    def command(self) -> str | None:
        """The launch command; None where no checkpoint of the precision asked exists."""
        if self.weights is None:
            return None
        split, engine = self.split, self.engine_record
        env = engine.rope_env if rope_scaling_at(self.model, self.context) else ()
        return engine.command.command(self.weights.repo, split.tensor, split.pipeline, self.setup.machines,
                                      self.context, self.flags, env)

    @property
    def flags(self) -> tuple[tuple[str, str], ...]:
        """The flags beyond the split and the context that this plan's options need."""
        request, engine = self.request, self.engine_record
        flags = list(self.weights.flags) if self.weights else []  # on-the-fly FP8
        if self.model.architecture.vision is not None:
            flags += engine.text_only_flags  # the pages plan text: the tower stays on disk
        rope = rope_scaling_at(self.model, self.context)
        if rope is not None:
            flags += engine.rope_override(rope)  # the window past the config's length, as the card says
        if request.memory_fraction is not None:
            flags.append((engine.memory_fraction_flag, _decimal_text(request.memory_fraction)))
        if request.kv_dtype == "fp8":
            flags.append((engine.kv_cache_dtype_flag, engine.fp8_kv_value))
        if request.speculative:
            flags += engine.speculative_flags
        for name, flag in engine.batch_flags:
            if getattr(request, name) is not None:
                flags.append((flag, str(getattr(request, name))))
        return tuple(flags)


def _decimal_text(value: Fraction) -> str:
    """The share's exact decimal, as the reader typed it (0.9005, not 0.9): shares are decimals
    (typed in, hundredths, or SGLang's thousandths), so the division ends."""
    digits = 0
    while (value * 10**digits).denominator != 1 and digits < 30:
        digits += 1
    text = str(value.numerator * 10**digits // value.denominator).rjust(digits + 1, "0")
    return (text[:-digits] + "." + text[-digits:]).rstrip("0").rstrip(".") if digits else text


def plan_setup(gpu: Gpu, count: int) -> Setup:
    """`count` GPUs: one machine up to the largest shape, else machines of the largest shape."""
    largest = gpu.machine_shapes[-1]
    if count <= largest:
        return Setup(gpu, count)
    return Setup(gpu, largest, count // largest)


def plan(model: Model, gpu: Gpu, count: int, request: PlanRequest = PlanRequest()) -> Plan:
    engine = SERVING_ENGINES[request.engine]
    setup = plan_setup(gpu, count)
    split = parallel_sizes(model.architecture, setup)
    context = request.context or default_context(model)
    runs = engine.runs(model)
    served = served_weights(model, request.precision, engine, request.checkpoint) if runs else None
    # no checkpoint of that precision: the figures are another engine's or the formats table's, and
    # the plan does not start
    stored = served.stored if served else sized_formats(model, request.precision)
    padding = vllm_mxfp4_padding(gpu) if engine.pads_mxfp4 else None
    vision = not engine.text_only_flags
    weights = loaded_bytes_per_gpu(model, stored, split.tensor, split.pipeline, padding, vision=vision)
    draft_weights = 0
    if drafting_layers(model, request):  # the MTP layers, loaded too
        draft_weights = loaded_bytes_per_gpu(model, stored, split.tensor, split.pipeline, padding, True, vision) - weights
        weights += draft_weights
    # the longest context a plan may offer: the model's window (a model whose window is not published: the context asked)
    window = model.context_window
    cached = replace(request, kv_dtype=cache_dtype(request.kv_dtype, served, engine))  # the KV cache the engine keeps
    account = engine.accounting(model, gpu, split, cached, weights, context, window or max(context, default_context(model)),
                                draft_weights)
    drafts_on_stages = request.speculative is not None and split.pipeline > 1 and not engine.speculative_with_pipeline
    gpu_reason = engine.gpu_reason(model, gpu)
    planned = gpu_reason is None
    reason = (ENGINE_DOES_NOT_RUN if not runs else NO_CHECKPOINT if served is None else gpu_reason if not planned
              else DRAFT_WITH_PIPELINE if drafts_on_stages
              else CONTEXT_BEYOND_WINDOW if window and context > window else account.reason)
    speed = None
    if gpu.bandwidth_bytes_per_second is not None and served is not None:
        read = weights_read_bytes(model, stored) + kv_read_cache(model.architecture, cached.kv_dtype).sequence_bytes(context)
        speed = decode_tokens_per_second(read, gpu.bandwidth_bytes_per_second * split.tensor)
    return Plan(
        model=model, gpu=gpu, setup=setup, split=split, request=request, context=context,
        memory_fraction=account.memory_fraction, total_memory_bytes=engine_memory_bytes(gpu), weights_bytes=weights,
        non_kv_bytes=account.non_kv_bytes, available_kv_bytes=account.available_kv_bytes,
        kv_bytes_per_token=account.kv_bytes_per_token, kv_tokens=account.kv_tokens,
        max_concurrency=account.max_concurrency, starts=reason is None, reason=reason,
        max_context=account.max_context if served and planned and not drafts_on_stages else 0, max_users=account.max_users if reason is None else 0,
        decode_tokens_per_second=speed, weights=served,
    )


def memory_at(plan: Plan, tokens: int, users: int) -> dict[str, int]:
    """What one GPU holds with `users` sequences of `tokens` tokens under the plan's flags: its
    weights, the engine's own memory and the KV cache as the engine lays it out (the chart's curve)."""
    kv = plan.engine_record.sequence_kv_bytes(plan.model, plan.gpu, plan.split, replace(plan.request, kv_dtype=plan.cache_dtype), tokens)
    return {"weights": plan.weights_bytes, "runtime": sum(plan.non_kv_bytes.values()), "kv": kv * users}


def _remedies(request: PlanRequest, fraction: Fraction, fitting: Fraction) -> list[PlanRequest]:
    """Changes to try, cheapest first: the share of the GPU that fits (more of it, or less when the
    share asked for is more than is free), then an 8-bit KV cache, then both."""
    tries = []
    if fraction != fitting:
        tries.append(replace(request, memory_fraction=fitting))
    if request.kv_dtype != "fp8":
        tries.append(replace(request, kv_dtype="fp8"))
        if fraction != fitting:
            tries.append(replace(request, memory_fraction=fitting, kv_dtype="fp8"))
    return tries


def plan_that_starts(model: Model, gpu: Gpu, count: int, request: PlanRequest = PlanRequest(),
                     shorter: bool = True) -> Plan:
    """The plan as asked when it starts; else the first change of flags that makes it start at the
    same context; else (when `shorter`) the same flags at the longest context that starts; else as
    asked."""
    asked = plan(model, gpu, count, request)
    if asked.starts or asked.weights is None:
        return asked
    tried = [asked]
    fitting = asked.engine_record.fitting_fraction(asked.total_memory_bytes, asked.split.tensor, asked.memory_fraction)
    for changed in _remedies(request, asked.memory_fraction, fitting):
        result = plan(model, gpu, count, changed)
        if result.starts:
            return replace(result, changes=_changed_flags(asked, result), refused=asked.reason)
        tried.append(result)
    if not shorter:
        return asked
    best = max(tried, key=lambda p: p.max_context)
    if best.max_context == 0:
        return asked
    result = plan(model, gpu, count, replace(best.request, context=best.max_context))
    return replace(result, changes=_changed_flags(asked, result), refused=asked.reason)


@dataclass(frozen=True)
class Answer:
    """What `plan` answers: the plan for the flags asked, and, when it does not start, the remedy
    (the plan with the flags that make it start, `changes` naming them), if any."""

    asked: Plan
    remedy: Plan | None


def answer(model: Model, gpu: Gpu, count: int, request: PlanRequest = PlanRequest()) -> Answer:
    asked = plan(model, gpu, count, request)
    if asked.starts:
        return Answer(asked, None)
    remedy = plan_that_starts(model, gpu, count, request)
    return Answer(asked, remedy if remedy.changes else None)


def _changed_flags(asked: Plan, result: Plan) -> tuple[tuple[str, str], ...]:
    changes = [flag for flag in result.flags if flag not in asked.flags]
    if result.context != asked.context:
        changes.append((result.engine_record.context_flag, str(result.context)))
    return tuple(changes)
