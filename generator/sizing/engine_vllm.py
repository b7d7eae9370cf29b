"""vLLM (V1) 0.33.0: its record, constants and memory accounting. Pure.

Each constant names the vLLM file it comes from (read from the released wheel), or the public
start-up logs it is measured from (tests/data/engine_logs.yaml).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from math import ceil, floor
from typing import Sequence

from generator.catalog.records import Gpu, Model, RopeScaling
from generator.sizing.engine import (
    CONTEXT_DOES_NOT_FIT, GIB, MAX_MEMORY_FRACTION, MEMORY_IN_USE, NO_KV_MEMORY, WEIGHTS_DO_NOT_FIT, Accounting,
    CommandTemplate, Engine, PlanRequest, cdiv, drafting_layers, engine_memory_bytes, kv_dtype_bytes, largest, per_tensor_parallel,
    plain_number,
)
from generator.sizing.engine_registries import VLLM_0_33_0
from generator.sizing.engine_vllm_compressed import (
    INDEXER_LOGITS_BYTES, CacheSpec, attention_workspace, cache_specs, packed_groups,
)
from generator.sizing.layer_kinds import KindBytes, kind_bytes
from generator.sizing.loaded_weights import fullest_stage_attention_layers, stage_ranges
from generator.sizing.setups import ParallelSplit

# vllm/config/cache.py: gpu_memory_utilization = 0.9; the block size of the KV cache (16 tokens,
# CacheConfig.DEFAULT_BLOCK_SIZE).
VLLM_UTILIZATION = Fraction(9, 10)
VLLM_BLOCK_SIZE = 16
# Measured on H100 (llm-d-benchmark, empirical-vllm-memory-results.md): free memory at start-up
# 78.57 of 79.18 GiB with one GPU, 77.64 of 79.18 GiB with two (NCCL buffers).
VLLM_BASELINE = {1: round(Decimal("0.61") * GIB), 2: round(Decimal("1.54") * GIB)}
# Memory outside PyTorch that grows while loading and profiling (same source: "non-torch" 0.13 GiB
# at TP 1, 0.55 GiB at TP 2).
VLLM_NON_TORCH = {1: round(Decimal("0.13") * GIB), 2: round(Decimal("0.55") * GIB)}
# vLLM subtracts an estimate of the CUDA graphs' memory before sizing the KV cache (gpu_worker.py
# determine_available_memory, VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on by default since
# v0.21.0). Public logs show 0.17 to 1.03 GiB per GPU; the planner counts 0.5 GiB.
VLLM_CUDA_GRAPHS = GIB // 2
# The profile run samples one token for each of min(max_num_batched_tokens, max_num_seqs) requests
# with fp32 logits over the whole vocabulary, twice (gpu_model_runner.py _dummy_sampler_run). Its
# peak is measured per logit: 4.76 GiB for 1,024 × 128,256 logits (Llama-3.1-8B) and 7.38 GiB for
# 1,024 × 201,088 (gpt-oss), both 39 bytes (llm-d-benchmark, H100).
VLLM_SAMPLER_BYTES_PER_LOGIT = 39
# `vllm serve`'s batch defaults by GPU memory (vllm/engine/arg_utils.py get_batch_defaults):
# (at least this memory, max_num_batched_tokens, max_num_seqs), largest first; A100s take the last.
VLLM_BATCH_TIERS = ((160 * GIB, 16384, 1024), (70 * GIB, 8192, 1024), (0, 2048, 256))


@dataclass(frozen=True)
class BatchDefaults:
    max_num_batched_tokens: int
    max_num_seqs: int


def vllm_batch_tier(gpu: Gpu, memory_bytes: int) -> int:
    """The row of VLLM_BATCH_TIERS `vllm serve` takes its defaults from (vllm/engine/arg_utils.py
    get_batch_defaults): by memory, but an A100 of 80 GB keeps the small defaults."""
    return next(index for index, (least, _, _) in enumerate(VLLM_BATCH_TIERS)
                if memory_bytes >= least and (least != 70 * GIB or "A100" not in gpu.name))


def vllm_batch_defaults(gpu: Gpu, memory_bytes: int) -> BatchDefaults:
    """`vllm serve`'s defaults by GPU."""
    _, tokens, sequences = VLLM_BATCH_TIERS[vllm_batch_tier(gpu, memory_bytes)]
    return BatchDefaults(tokens, sequences)


def vllm_mxfp4_padding(gpu: Gpu) -> tuple[int, int]:
    """(intermediate, hidden) multiples vLLM pads MXFP4 experts to, by the MoE backend it picks
    (vllm/model_executor/layers/quantization/mxfp4.py mxfp4_round_up_hidden_size_and_intermediate_size):
    Blackwell data-centre GPUs (10.x) use FlashInfer TRT-LLM, 128 / 256; Hopper (9.x) the Triton
    kernels, 64 / unchanged in vLLM, but their swizzled layout takes the hidden width to a multiple
    of 256 as well (gpt-oss-120b loads as 64.38 GiB on H100, 60.77 GiB unpadded); other NVIDIA GPUs
    Marlin, 128 / 256; ROCm 256 / 256."""
    if gpu.vendor == "AMD":
        return (256, 256)
    capability = gpu.compute_capability
    if capability is not None and 9 <= capability < 10:
        return (64, 256)
    return (128, 256)


# ---- the KV cache in blocks (vllm/v1/core/kv_cache_utils.py, vllm/v1/kv_cache_interface.py) ----


@dataclass(frozen=True)
class BlockGroup:
    """`groups` KV cache groups of one layer kind, `block_size` tokens a block; a request of n tokens
    needs, in each, ceil(min(n, cap) / block_size) + extra blocks (cap None: every token)."""

    groups: int
    block_size: int
    cap: int | None
    extra: int

    def blocks(self, tokens: int) -> int:
        covered = tokens if self.cap is None else min(tokens, self.cap)
        return self.groups * (cdiv(covered, self.block_size) + self.extra)


@dataclass(frozen=True)
class BlockLayout:
    """Every group takes one block of `bytes_per_block` per block id; a request needs `blocks(n)` ids.
    `block_size`: the tokens of a block of the kind with the largest page per token."""

    block_size: int
    bytes_per_block: int
    groups: tuple[BlockGroup, ...]

    def blocks(self, tokens: int) -> int:
        return sum(group.blocks(tokens) for group in self.groups)

    def needed_bytes(self, tokens: int) -> int:
        return self.bytes_per_block * self.blocks(tokens)


def block_layout(kinds: Sequence[KindBytes], pipeline: int, batch_tokens: int, stage_layers: int | None = None) -> BlockLayout:
    """The layers of the fullest pipeline stage (a stage caches only its own layers), by kind, in
    vLLM's groups and blocks; `stage_layers`: the attention layers of the fullest stage where the
    stages hold unequal shares (loaded_weights.fullest_stage_attention_layers; one kind then)."""
    # Async scheduling keeps pp + 1 batches in flight (vllm/config/vllm.py max_concurrent_batches).
    in_flight = (pipeline + 1) * batch_tokens
    per_token = max(kind.bytes for kind in kinds if not kind.per_sequence)
    states = [kind.bytes for kind in kinds if kind.per_sequence]
    block_size = VLLM_BLOCK_SIZE
    if states:
        # Attention blocks grow until one holds a state (kv_cache_planning _align_hybrid_block_size);
        # the state's page is padded to the attention page.
        block_size = VLLM_BLOCK_SIZE * cdiv(max(states), VLLM_BLOCK_SIZE * per_token)
    counts = [stage_layers or cdiv(kind.layers, pipeline) for kind in kinds]
    if not states and all(kind.window is None for kind in kinds):
        # Every layer full attention, whatever its page (IndexShare's layers with and without an
        # indexer key): one group of all the layers, a page the sum of theirs (vLLM 0.33.0
        # kv_cache_planning.py get_kv_cache_groups: UniformTypeKVCacheSpecs, "Put all layers into
        # one group"; its page_size_bytes sums the layers')
        page = sum(layers * kind.bytes for kind, layers in zip(kinds, counts))
        return BlockLayout(block_size, block_size * page, (BlockGroup(1, block_size, None, 0),))
    group_size = min(counts)
    if max(counts) < 1.5 * group_size:
        group_size = max(counts)
    groups = []
    for kind, layers in zip(kinds, counts):
        tokens = block_size
        if kind.per_sequence:  # MambaSpec: one state block per request
            cap, extra = 0, 1
        else:
            # Every page is as large as the largest: a kind with a smaller page per token takes
            # proportionally more tokens a block where that divides evenly, else its page is padded
            # (kv_cache_planning.py unify_kv_cache_spec_page_size; Gemma 4's global layers).
            if per_token % kind.bytes == 0:
                tokens = block_size * (per_token // kind.bytes)
            if kind.window is not None:
                # SlidingWindowSpec: the window, the tokens in flight, one block more for a window
                # that straddles two blocks.
                cap, extra = kind.window - 1 + in_flight, 1
            else:
                cap, extra = None, 0
        groups.append(BlockGroup(cdiv(layers, group_size), tokens, cap, extra))
    return BlockLayout(block_size, group_size * block_size * per_token, tuple(groups))


def packed_layout(specs: Sequence[CacheSpec], layers: int, pipeline: int, batch_tokens: int) -> BlockLayout:
    """Specs with block sizes of their own (DeepSeek-V4: engine_vllm_compressed.py) in vLLM's packed
    groups of the whole model, each block id costing the fullest stage's widest group (the stages
    split the model's `layers` as vLLM does; layers past them, a drafting one, on the last); a
    sliding-window group covers its window and the tokens in flight, one block more."""
    in_flight = (pipeline + 1) * batch_tokens
    packed = packed_groups(specs)
    stages = stage_ranges(layers, pipeline)
    last = max(layer for spec in specs for layer in spec.layers) + 1
    stages[-1] = range(stages[-1].start, max(last, stages[-1].stop))
    groups = tuple(BlockGroup(count, block_size, None if window is None else window - 1 + in_flight, int(window is not None))
                   for count, block_size, window in packed.buckets)
    return BlockLayout(max(group.block_size for group in groups), max(map(packed.bytes_per_block, stages)), groups)


def vllm_block_layout(model: Model, split: ParallelSplit, request: PlanRequest, batch_tokens: int) -> BlockLayout:
    """The fullest stage's KV cache in vLLM's groups and blocks, at the request's cache type."""
    arch, drafting = model.architecture, drafting_layers(model, request)
    if arch.attention.kind == "compressed":
        return packed_layout(cache_specs(arch, drafting), arch.layers, split.pipeline, batch_tokens)
    kinds = kind_bytes(arch, split.tensor, kv_dtype_bytes(request.kv_dtype), drafting)
    return block_layout(kinds, split.pipeline, batch_tokens, fullest_stage_attention_layers(arch, split.pipeline))


def activation_peak(model: Model, tensor: int, tokens: int, sequences: int) -> int:
    """The profile run's peak: the larger of the forward pass over `tokens` tokens (the widest MLP
    activation plus a few hidden-size buffers, 16-bit) and the sampler's fp32 logits."""
    arch = model.architecture
    widths = []
    if arch.dense_mlp_layers:
        widths.append(arch.mlp_matrices * cdiv(arch.widest_ffn, tensor))
    if arch.moe is not None:
        widths.append(model.experts_per_token * (arch.mlp_matrices * cdiv(arch.moe.expert_intermediate_size, tensor)
                                                 + arch.hidden_size))
    forward = tokens * 2 * (max(widths, default=0) + 4 * arch.hidden_size)
    if arch.attention.kind == "compressed":
        forward += INDEXER_LOGITS_BYTES  # DeepSeek-V4's indexer, in the same pass (engine_vllm_compressed.py)
    sampler = VLLM_SAMPLER_BYTES_PER_LOGIT * min(tokens, sequences) * arch.vocab_size
    return max(forward, sampler)


def batch_of(gpu: Gpu, request: PlanRequest) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs): the flags asked, else the defaults for the GPU."""
    defaults = vllm_batch_defaults(gpu, engine_memory_bytes(gpu))
    return (request.max_num_batched_tokens or defaults.max_num_batched_tokens,
            request.max_num_seqs or defaults.max_num_seqs)


def account(model: Model, gpu: Gpu, split: ParallelSplit, request: PlanRequest, weights: int, context: int,
            window: int, draft_weights: int = 0) -> Accounting:
    """vllm/v1/worker/gpu_worker.py determine_available_memory, then kv_cache_utils.py's blocks. An
    MTP draft is loaded with the target (gpu_model_runner.py load_model: "Loading drafter model...",
    inside the same memory profiler), so `weights` holds it already (`draft_weights` of them)."""
    tensor, total = split.tensor, engine_memory_bytes(gpu)
    fraction = request.memory_fraction or VLLM_UTILIZATION
    batch_tokens, sequences = batch_of(gpu, request)
    requested = ceil(total * fraction)
    non_kv = {
        "activation_peak": activation_peak(model, tensor, batch_tokens, sequences),
        "cuda_graphs": VLLM_CUDA_GRAPHS,
        "non_torch": per_tensor_parallel(VLLM_NON_TORCH, tensor),
    }
    # DeepSeek-V4's workspace grows with --max-model-len: a longer context takes it from the KV cache
    workspace = None
    if model.architecture.attention.kind == "compressed":
        workspace = attention_workspace(model.architecture, batch_tokens, bool(drafting_layers(model, request)))
        non_kv["attention_workspace"] = workspace.bytes(context)

    def workspace_growth(tokens: int) -> int:
        return workspace.bytes(tokens) - workspace.bytes(context) if workspace else 0

    available = requested - weights - sum(non_kv.values())
    layout = vllm_block_layout(model, split, request, batch_tokens)
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
        largest(lambda tokens: layout.needed_bytes(tokens) + workspace_growth(tokens) <= usable, window)
    return Accounting(
        fraction, non_kv, available, cdiv(layout.needed_bytes(context), context), int(concurrency * context),
        concurrency, reason, max_context, min(floor(concurrency), sequences) if reason is None else 0,
    )


def sequence_kv_bytes(model: Model, gpu: Gpu, split: ParallelSplit, request: PlanRequest, tokens: int) -> int:
    return vllm_block_layout(model, split, request, batch_of(gpu, request)[0]).needed_bytes(tokens)


def fitting_fraction(total: int, tensor: int, asked: Fraction) -> Fraction:
    """What is free once CUDA is up, in hundredths, at most 0.95 (less than asked when the share
    asked for is not free)."""
    free = total - per_tensor_parallel(VLLM_BASELINE, tensor)
    return min(MAX_MEMORY_FRACTION, Fraction(free * 100 // total, 100))


def rope_override(rope: RopeScaling) -> tuple[tuple[str, str], ...]:
    """The rope parameters as a config override: vLLM's `--rope-scaling` flag is gone, the rope
    parameters (rope_theta included) go in `--hf-overrides` (docs.vllm.ai/en/stable/features/
    context_extension: `--hf-overrides '{"rope_parameters": {"factor": 4.0,
    "original_max_position_embeddings": 32768, "rope_theta": 1000000, "rope_type": "yarn"}}'`)."""
    parameters = (f'{{"rope_parameters": {{"factor": {plain_number(rope.factor)}, "original_max_position_embeddings": '
                  f'{rope.original_max_position_embeddings}, "rope_theta": {plain_number(rope.rope_theta)}, '
                  f'"rope_type": "{rope.rope_type}"}}}}')
    return (("--hf-overrides", f"'{parameters}'"),)


VLLM = Engine(
    key="vllm", name="vLLM", version="0.33.0", context_flag="--max-model-len",
    command=CommandTemplate(start=("vllm serve {model}",), tensor="--tensor-parallel-size {tensor}",
                            pipeline="--pipeline-parallel-size {pipeline}", context="--max-model-len {context}"),
    memory_fraction_flag="--gpu-memory-utilization", memory_fraction_name="gpu_memory_utilization",
    kv_cache_dtype_flag="--kv-cache-dtype", fp8_kv_value="fp8",
    batch_flags=(("max_num_batched_tokens", "--max-num-batched-tokens"), ("max_num_seqs", "--max-num-seqs")),
    accounting=account, sequence_kv_bytes=sequence_kv_bytes, fitting_fraction=fitting_fraction, pads_mxfp4=True,
    on_the_fly_fp8=(("--quantization", "fp8"),),
    # vllm/model_executor/models: qwen3_next.py, kimi_linear.py, granitemoehybrid.py (Mamba2 hybrids)
    config_classes=VLLM_0_33_0,
    recurrent_kinds=("gated_deltanet", "kimi_delta", "mamba2"),
    global_attention_heads=True,
    # engine/arg_utils.py resolve_kv_cache_dtype_string: "auto" becomes the checkpoint's KV cache type
    # (utils/torch_utils.py get_kv_cache_quant_algo_string: a modelopt kv_cache_scheme of 8-bit floats is fp8)
    checkpoint_kv_dtype=True,  # vllm/model_executor/models/gemma4.py: per_layer_config head_dim, num_key_value_heads
    rope_override=rope_override,
    # vllm/config/multimodal.py language_model_only: "disables all multimodal inputs by setting all
    # modality limits to 0"; interfaces.py _mark_tower_model: tower components "are automatically
    # skipped when --limit-mm-per-prompt is set to zero for all of their modalities" (not loaded), and
    # gpu_model_runner.py profile_run profiles the encoder only where a modality is allowed
    text_only_flags=(("--language-model-only", ""),),
    # the draft runs with one pipeline stage of its own, on the target's last (speculative.py
    # create_draft_parallel_config: pipeline_parallel_size=1; gpu_model_runner.py loads it there)
    speculative_with_pipeline=True,
    # vllm/config/speculative.py (0.33.0): "mtp" drafts with the target checkpoint's own MTP layers
    # (deepseek_mtp, glm4_moe_mtp, qwen3_next_mtp are deprecated names of it); one token ahead, as
    # the GLM-4.5 recipe recommends ("num_speculative_tokens 1 for optimal throughput")
    # models/deepseek_v4/sparse_mla.py DeepseekV4FlashMLABackend.supports_compute_capability: major in
    # [9, 10]; nvidia/model.py _select_dsv4_attn_cls: SM12 takes FlashInfer's class instead
    attention_gpus=(("compressed", (9, 10), (12,)),),
    speculative_flags=(("--speculative-config", '\'{"method": "mtp", "num_speculative_tokens": 1}\''),),
)
