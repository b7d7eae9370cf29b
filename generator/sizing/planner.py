"""The engine-true plan: what vLLM or SGLang does with a model on N GPUs of one type. Pure.

Per GPU: the weights as loaded (loaded_weights.py), the memory the engine keeps for anything but
weights and KV cache, the KV memory left, how the engine cuts it into blocks, and from that the
tokens it holds, whether it starts at the asked context, the longest context that starts and the
users it serves at once. The rules follow the engines' code at the versions of engines.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from math import ceil, floor
from typing import Callable, NamedTuple

from generator.catalog.records import Architecture, Gpu, Model
from generator.sizing.engines import (
    ENGINE_VERSIONS,
    SGLANG_BASELINE,
    SGLANG_MAMBA_SLOTS,
    VLLM,
    VLLM_BASELINE,
    VLLM_BLOCK_SIZE,
    VLLM_CUDA_GRAPHS,
    MAX_MEMORY_FRACTION,
    VLLM_NON_TORCH,
    VLLM_SAMPLER_BYTES_PER_LOGIT,
    VLLM_UTILIZATION,
    cdiv,
    engine_memory_bytes,
    kv_dtype_bytes,
    per_tensor_parallel,
    sglang_mem_fraction_static,
    vllm_batch_defaults,
    vllm_mxfp4_padding,
)
from generator.sizing.formats import bytes_by_component, format_plan
from generator.sizing.kv_cache import default_context, kv_cache
from generator.sizing.launch_commands import serve_command
from generator.sizing.loaded_weights import loaded_bytes_per_gpu
from generator.sizing.setups import ParallelSplit, Setup, parallel_sizes
from generator.sizing.speed import decode_tokens_per_second, token_read

# Why a plan does not start (the pages and the CLI say each in words).
MEMORY_IN_USE = "memory_in_use"  # the fraction asks for more than is free once CUDA is up
WEIGHTS_DO_NOT_FIT = "weights_do_not_fit"
NO_KV_MEMORY = "no_kv_memory"  # the weights load, nothing is left for the KV cache
CONTEXT_DOES_NOT_FIT = "context_does_not_fit"  # KV memory, but not for one sequence of the context


@dataclass(frozen=True)
class PlanRequest:
    engine: str = VLLM
    context: int | None = None  # vLLM --max-model-len, SGLang --context-length; None: the model's window
    users: int = 1
    memory_fraction: Fraction | None = None  # --gpu-memory-utilization / --mem-fraction-static; None: default
    kv_dtype: str = "auto"  # or "fp8"
    precision: str = "native"  # a row of the formats table: native, bf16, fp8, 4bit
    max_num_batched_tokens: int | None = None  # vLLM; None: its default for the GPU
    max_num_seqs: int | None = None


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
    changes: tuple[tuple[str, str], ...] = field(default=())  # flags added so that it starts
    refused: str | None = None  # why the flags asked for did not start, when `changes` are set

    @property
    def engine(self) -> str:
        return self.request.engine

    @property
    def engine_version(self) -> str:
        return ENGINE_VERSIONS[self.request.engine]

    @property
    def price_per_hour(self) -> Decimal | None:
        return self.setup.price_per_hour

    @property
    def users_fit(self) -> bool:
        return self.starts and self.max_users >= self.request.users

    @property
    def command(self) -> str:
        return serve_command(self.model, self.split, self.setup.machines, self.engine, self.context, self.flags)

    @property
    def flags(self) -> tuple[tuple[str, str], ...]:
        """The flags beyond the split and the context that this plan's options need."""
        request, flags = self.request, []
        if request.memory_fraction is not None:
            name = "--gpu-memory-utilization" if self.engine == VLLM else "--mem-fraction-static"
            flags.append((name, _decimal_text(request.memory_fraction)))
        if request.kv_dtype == "fp8":
            flags.append(("--kv-cache-dtype", "fp8" if self.engine == VLLM else "fp8_e4m3"))
        if self.engine == VLLM and request.max_num_batched_tokens is not None:
            flags.append(("--max-num-batched-tokens", str(request.max_num_batched_tokens)))
        if self.engine == VLLM and request.max_num_seqs is not None:
            flags.append(("--max-num-seqs", str(request.max_num_seqs)))
        return tuple(flags)


def _decimal_text(value: Fraction) -> str:
    return f"{float(value):.3f}".rstrip("0").rstrip(".")


def plan_setup(gpu: Gpu, count: int) -> Setup:
    """`count` GPUs: one machine up to the largest shape, else machines of the largest shape."""
    largest = gpu.machine_shapes[-1]
    if count <= largest:
        return Setup(gpu, count)
    return Setup(gpu, largest, count // largest)


# ---- the KV cache as an engine lays it out on one GPU -----------------------------------------


@dataclass(frozen=True)
class _LayerKind:
    layers: int
    bytes_per_token: int  # one layer, one GPU; for a state: the whole state
    blocks: Callable[[int, int], int]  # (tokens, block size) -> blocks one request needs in one layer
    is_state: bool = False


def _attention_bytes_per_token(arch: Architecture, tensor: int, dtype_bytes: int) -> int:
    attention = arch.attention
    if attention.kind == "mla":
        # The latent is whole on every GPU (vllm/config/model.py get_num_kv_heads: 1 for MLA).
        return (attention.kv_lora_rank + attention.qk_rope_head_dim + (attention.indexer_head_dim or 0)) * dtype_bytes
    # KV heads split over the GPUs, one copy each when fewer than the GPUs (max(1, kv_heads // tp)).
    return 2 * max(1, attention.kv_heads // tensor) * attention.head_dim * dtype_bytes


def _state_bytes(arch: Architecture, tensor: int) -> int:
    """One linear-attention layer's state per sequence on one GPU (16-bit), heads split over GPUs."""
    linear = arch.linear_attention
    matrix = linear.value_heads // tensor * linear.key_head_dim * linear.value_head_dim
    conv = (linear.conv_kernel - 1) * (2 * linear.key_dim + linear.value_dim) // tensor
    return (matrix + conv) * 2


def _layer_kinds(arch: Architecture, split: ParallelSplit, dtype_bytes: int, in_flight: int) -> list[_LayerKind]:
    """The layers of the fullest pipeline stage, by kind (a stage caches only its own layers)."""
    attention, tensor = arch.attention, split.tensor
    per_token = _attention_bytes_per_token(arch, tensor, dtype_bytes)
    windowed = attention.sliding_window_layers
    window = attention.sliding_window or 0
    kinds = [_LayerKind(arch.attention_layers - windowed, per_token, lambda tokens, size: cdiv(tokens, size))]
    if windowed:
        # vllm/v1/kv_cache_interface.py SlidingWindowSpec: the window, the tokens in flight, one
        # block more for a window that straddles two blocks.
        kinds.append(_LayerKind(windowed, per_token,
                                lambda tokens, size: cdiv(min(window - 1 + in_flight, tokens), size) + 1))
    if arch.linear_attention:
        kinds.append(_LayerKind(arch.linear_attention.layers, _state_bytes(arch, tensor), lambda tokens, size: 1, True))
    return [replace(kind, layers=cdiv(kind.layers, split.pipeline)) for kind in kinds if kind.layers]


@dataclass(frozen=True)
class _BlockLayout:
    """vLLM's KV cache groups (vllm/v1/core/kv_cache_utils.py): every group takes one block of
    `bytes_per_block` per block id, and a request needs `blocks(tokens)` block ids."""

    block_size: int
    bytes_per_block: int
    groups: tuple[tuple[int, _LayerKind], ...]  # (groups of this kind, kind)

    def blocks(self, tokens: int) -> int:
        return sum(count * kind.blocks(tokens, self.block_size) for count, kind in self.groups)

    def needed_bytes(self, tokens: int) -> int:
        return self.bytes_per_block * self.blocks(tokens)


def _vllm_layout(kinds: list[_LayerKind]) -> _BlockLayout:
    block_size = VLLM_BLOCK_SIZE
    tokens = [kind for kind in kinds if not kind.is_state]
    states = [kind for kind in kinds if kind.is_state]
    page = block_size * max(kind.bytes_per_token for kind in tokens)
    if states:
        # Attention blocks grow until one holds a state (kv_cache_planning _align_hybrid_block_size);
        # the state's page is padded to the attention page.
        per_token = max(kind.bytes_per_token for kind in tokens)
        state = max(kind.bytes_per_token for kind in states)
        block_size = VLLM_BLOCK_SIZE * cdiv(state, VLLM_BLOCK_SIZE * per_token)
        page = block_size * per_token
    counts = [kind.layers for kind in kinds]
    group_size = min(counts)
    if max(counts) < 1.5 * group_size:
        group_size = max(counts)
    groups = tuple((cdiv(kind.layers, group_size), kind) for kind in kinds)
    return _BlockLayout(block_size, group_size * page, groups)


def largest(fits: Callable[[int], bool], high: int) -> int:
    """The largest n in [0, high] with fits(n) (fits is monotone); 0 when even 1 does not fit."""
    low = 0
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


# ---- memory that is neither weights nor KV --------------------------------------------------


def _activation_peak(model: Model, tensor: int, tokens: int, sequences: int) -> int:
    """vLLM's profile run: the larger of the forward pass over `tokens` tokens (the widest MLP
    activation plus a few hidden-size buffers, 16-bit) and the sampler's fp32 logits."""
    arch = model.architecture
    widths = []
    if arch.dense_mlp_layers:
        widths.append(3 * cdiv(arch.intermediate_size, tensor))
    if arch.moe is not None:
        widths.append(model.experts_per_token * (3 * cdiv(arch.moe.expert_intermediate_size, tensor) + arch.hidden_size))
    forward = tokens * 2 * (max(widths, default=0) + 4 * arch.hidden_size)
    sampler = VLLM_SAMPLER_BYTES_PER_LOGIT * min(tokens, sequences) * arch.vocab_size
    return max(forward, sampler)


# ---- the plan -------------------------------------------------------------------------------


class _Accounting(NamedTuple):
    """One engine's memory accounting on one GPU."""

    memory_fraction: Fraction
    non_kv_bytes: dict[str, int]
    available_kv_bytes: int
    kv_bytes_per_token: int
    kv_tokens: int
    max_concurrency: float
    reason: str | None
    max_context: int
    max_users: int


def _vllm(model: Model, gpu: Gpu, split: ParallelSplit, request: PlanRequest, weights: int, context: int,
          window: int) -> _Accounting:
    """vllm/v1/worker/gpu_worker.py determine_available_memory, then kv_cache_utils.py's blocks."""
    arch, tensor, total = model.architecture, split.tensor, engine_memory_bytes(gpu)
    fraction = request.memory_fraction or VLLM_UTILIZATION
    defaults = vllm_batch_defaults(gpu, total)
    batch_tokens = request.max_num_batched_tokens or defaults.max_num_batched_tokens
    sequences = request.max_num_seqs or defaults.max_num_seqs
    requested = ceil(total * fraction)
    non_kv = {
        "activation_peak": _activation_peak(model, tensor, batch_tokens, sequences),
        "cuda_graphs": VLLM_CUDA_GRAPHS,
        "non_torch": per_tensor_parallel(VLLM_NON_TORCH, tensor),
    }
    available = requested - weights - sum(non_kv.values())
    # Async scheduling keeps pp + 1 batches in flight (vllm/config/vllm.py max_concurrent_batches).
    kinds = _layer_kinds(arch, split, kv_dtype_bytes(request.kv_dtype), (split.pipeline + 1) * batch_tokens)
    layout = _vllm_layout(kinds)
    usable = available - layout.bytes_per_block  # one null block is kept aside
    concurrency = max(available, 0) // layout.bytes_per_block / layout.blocks(context)
    free_at_start = total - per_tensor_parallel(VLLM_BASELINE, tensor)
    reason = None
    if requested > free_at_start:
        reason = MEMORY_IN_USE
    elif weights > free_at_start or weights >= requested:
        reason = WEIGHTS_DO_NOT_FIT
    elif usable <= 0:
        reason = NO_KV_MEMORY
    elif layout.needed_bytes(context) > usable:
        reason = CONTEXT_DOES_NOT_FIT
    max_context = 0 if reason in (MEMORY_IN_USE, WEIGHTS_DO_NOT_FIT, NO_KV_MEMORY) else \
        largest(lambda tokens: layout.needed_bytes(tokens) <= usable, window)
    return _Accounting(
        fraction, non_kv, available, cdiv(layout.needed_bytes(context), context), int(concurrency * context),
        concurrency, reason, max_context, min(floor(concurrency), sequences) if reason is None else 0,
    )


def _sglang(model: Model, gpu: Gpu, split: ParallelSplit, request: PlanRequest, weights: int, context: int,
            window: int) -> _Accounting:
    """sglang/srt/model_executor/model_runner.py profile_max_num_token: what is free after the
    weights, less the (1 - fraction) share of what was free before them, in tokens of every layer."""
    arch, tensor = model.architecture, split.tensor
    total = engine_memory_bytes(gpu)
    before = total - SGLANG_BASELINE
    fraction = request.memory_fraction or sglang_mem_fraction_static(total, tensor, split.pipeline)
    states = 0
    if arch.linear_attention:
        states = SGLANG_MAMBA_SLOTS * cdiv(arch.linear_attention.layers, split.pipeline) * _state_bytes(arch, tensor)
    non_kv = {"cuda_context": SGLANG_BASELINE, "outside_fraction": round(before * (1 - fraction)), "states": states}
    available = floor(before * fraction) - weights - states
    # Every softmax-attention layer keeps every token (0.5.3rc2 turns the sliding-window pool off
    # for gpt-oss and Gemma), page size 1.
    per_token = cdiv(arch.attention_layers, split.pipeline) * _attention_bytes_per_token(
        arch, tensor, kv_dtype_bytes(request.kv_dtype))
    kv_tokens = max(available, 0) // per_token
    concurrency = kv_tokens / context
    reason = None
    if weights > before:
        reason = WEIGHTS_DO_NOT_FIT
    elif kv_tokens <= 0:
        reason = NO_KV_MEMORY
    elif kv_tokens < context:
        reason = CONTEXT_DOES_NOT_FIT  # SGLang starts, but refuses any request this long
    max_context = min(kv_tokens, window) if reason in (None, CONTEXT_DOES_NOT_FIT) else 0
    return _Accounting(fraction, non_kv, available, per_token, kv_tokens, concurrency, reason, max_context,
                       floor(concurrency) if reason is None else 0)


def plan(model: Model, gpu: Gpu, count: int, request: PlanRequest = PlanRequest()) -> Plan:
    arch = model.architecture
    setup = plan_setup(gpu, count)
    split = parallel_sizes(arch, setup)
    context = request.context or default_context(model)
    formats, default = format_plan(model, request.precision)
    vllm = request.engine == VLLM
    padding = vllm_mxfp4_padding(gpu) if vllm else None
    weights = loaded_bytes_per_gpu(model, formats, default, split.tensor, split.pipeline, padding)
    account = (_vllm if vllm else _sglang)(model, gpu, split, request, weights, context, max(context, default_context(model)))
    speed = None
    if gpu.bandwidth_bytes_per_second is not None:
        kv = kv_cache(arch, 8 * kv_dtype_bytes(request.kv_dtype))
        read = token_read(model, bytes_by_component(model, formats, default), kv, context)
        speed = decode_tokens_per_second(read, gpu.bandwidth_bytes_per_second * split.tensor)
    return Plan(
        model=model, gpu=gpu, setup=setup, split=split, request=request, context=context,
        memory_fraction=account.memory_fraction, total_memory_bytes=engine_memory_bytes(gpu), weights_bytes=weights,
        non_kv_bytes=account.non_kv_bytes, available_kv_bytes=account.available_kv_bytes,
        kv_bytes_per_token=account.kv_bytes_per_token, kv_tokens=account.kv_tokens,
        max_concurrency=account.max_concurrency, starts=account.reason is None, reason=account.reason,
        max_context=account.max_context, max_users=account.max_users, decode_tokens_per_second=speed,
    )


def _fitting_fraction(asked: Plan) -> Fraction:
    """The share of each GPU a plan suggests: vLLM what is free once CUDA is up, in hundredths, at
    most 0.95 (less than asked when the share asked for is not free); SGLang five hundredths more
    than asked, at most 0.95."""
    if asked.engine != VLLM:
        return min(MAX_MEMORY_FRACTION, asked.memory_fraction + Fraction(5, 100))
    total = asked.total_memory_bytes
    free = total - per_tensor_parallel(VLLM_BASELINE, asked.split.tensor)
    return min(MAX_MEMORY_FRACTION, Fraction(free * 100 // total, 100))


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
    if asked.starts:
        return asked
    tried = [asked]
    for changed in _remedies(request, asked.memory_fraction, _fitting_fraction(asked)):
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


def _changed_flags(asked: Plan, result: Plan) -> tuple[tuple[str, str], ...]:
    changes = [flag for flag in result.flags if flag not in asked.flags]
    if result.context != asked.context:
        changes.append(("--max-model-len" if result.engine == VLLM else "--context-length", str(result.context)))
    return tuple(changes)
