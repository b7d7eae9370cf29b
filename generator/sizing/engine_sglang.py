"""SGLang 0.5.3rc2: its record, constants and memory accounting. Pure.

Each constant names the SGLang file it comes from (read from the released wheel), or the public
start-up logs it is measured from (tests/data/engine_logs.yaml).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from math import floor
from typing import Sequence

from generator.catalog.records import Architecture, Gpu, Model, RopeScaling
from generator.sizing.engine import (
    CONTEXT_DOES_NOT_FIT, GIB, MAX_MEMORY_FRACTION, MIB, NO_KV_MEMORY, WEIGHTS_DO_NOT_FIT, Accounting, CommandTemplate,
    Engine, PlanRequest, cdiv, drafting_layers, engine_memory_bytes, kv_dtype_bytes, plain_number, round_up,
)
from generator.sizing.engine_registries import SGLANG_0_5_3RC2
from generator.sizing.layer_kinds import KindBytes, kind_bytes
from generator.sizing.loaded_weights import VOCAB_PADDING
from generator.sizing.setups import ParallelSplit

# Memory CUDA and NCCL take before SGLang measures the free memory its fraction applies to:
# 21.63 GiB free of 21.95 GiB on L4 at TP 4 (sgl-project/sglang issue log, tests/data/engine_logs.yaml).
SGLANG_BASELINE = round(Decimal("0.32") * GIB)
# Linear-attention (Mamba-style) states SGLang reserves: 512 requests (model_runner.py
# max_mamba_cache_size default).
SGLANG_MAMBA_SLOTS = 512
# sglang/srt/server_args.py _handle_gpu_memory_settings: by GPU memory (below this many MiB), the
# chunked-prefill size and the CUDA-graph batch size for TP below 4 and from 4.
SGLANG_MEMORY_TIERS = ((20 * 1024, 2048, 8, 8), (35 * 1024, 2048, 16, 80), (60 * 1024, 4096, 32, 160),
                       (160 * 1024, 8192, 256, 512), (None, 16384, 512, 512))
# GPUs over 60 GiB keep at least 10 GiB out of the static pool.
SGLANG_LARGE_GPU_MIB, SGLANG_LARGE_GPU_RESERVE_MIB = 60 * 1024, 10 * 1024
# With an EAGLE draft (MTP is one) 2 GiB more stay out: "reserved_mem += 2 * 1024" under "# eagle
# draft models and cuda graphs", after the 10 GiB minimum (_handle_gpu_memory_settings).
SGLANG_DRAFT_RESERVE_MIB = 2 * 1024
# The draft's flags here: one step, one candidate, two draft tokens (docs/basic_usage/deepseek_v3.md:
# "The minimum configuration"). With an EAGLE draft SGLang runs at most 48 requests at once
# (server_args.py _handle_speculative_decoding: "if self.max_running_requests is None:
# self.max_running_requests = 48"), and model_runner.py init_memory_pool gives both token pools a
# headroom of max_num_reqs × (steps × topk + draft tokens) + 100 tokens beyond the profiled ones
# ("both verify and draft tokens can be concurrently allocated").
SGLANG_DRAFT_STEPS, SGLANG_DRAFT_TOPK, SGLANG_DRAFT_TOKENS = 1, 1, 2
SGLANG_DRAFT_RUNNING_REQUESTS = 48
SGLANG_DRAFT_HEADROOM = SGLANG_DRAFT_RUNNING_REQUESTS * (SGLANG_DRAFT_STEPS * SGLANG_DRAFT_TOPK + SGLANG_DRAFT_TOKENS) + 100


def reserve_tiers() -> list[list]:
    """The MiB SGLang keeps out of its pool by GPU memory, before the communication share:
    [below MiB (None: any), TP below 4, TP from 4] (activations of the chunked prefill, CUDA graphs)."""
    return [[below, 512 + max(chunk, 2048) * 1.5 + small * 2, 512 + max(chunk, 2048) * 1.5 + large * 2]
            for below, chunk, small, large in SGLANG_MEMORY_TIERS]


def sglang_mem_fraction_static(memory_bytes: int, tensor: int, pipeline: int, drafting: bool = False) -> Fraction:
    """SGLang's default --mem-fraction-static: GPU memory in MiB less the tier's reserve and
    tp × pp / 8 GiB for communication, at least 10 GiB on GPUs over 60 GiB, and 2 GiB more when a
    draft speculates, rounded to 3 decimals. (adjust_mem_fraction_for_vlm lowers it further for a
    multimodal model, but 0.5.3rc2 turns multimodal off by default for Gemma 3 and Llama 4,
    configs/model_config.py mm_disabled_models, and lists no other class of the catalog's models
    with a vision tower in multimodal_model_archs.)"""
    memory = memory_bytes / MIB
    below, small, large = next(tier for tier in reserve_tiers() if tier[0] is None or memory < tier[0])
    reserved = (small if tensor < 4 else large) + tensor * pipeline / 8 * 1024
    if memory > SGLANG_LARGE_GPU_MIB:
        reserved = max(reserved, SGLANG_LARGE_GPU_RESERVE_MIB)
    if drafting:
        reserved += SGLANG_DRAFT_RESERVE_MIB
    return Fraction(round((memory - reserved) / memory, 3)).limit_denominator(1000)


def pool_bytes_per_token(kinds: Sequence[KindBytes], pipeline: int, idle_layers: int = 0) -> int:
    """Every softmax-attention layer of the stage keeps every token (0.5.3rc2 turns the
    sliding-window pool off for gpt-oss and Gemma), page size 1. `idle_layers`: layers without
    attention that get a slot all the same (pool_idle_layers)."""
    cached = [kind for kind in kinds if not kind.per_sequence]
    # layers of one width share a stage's slots (the idle ones the first width's)
    layers = {kind.bytes: 0 for kind in cached}
    for kind in cached:
        layers[kind.bytes] += kind.layers
    layers[cached[0].bytes] += idle_layers
    return sum(cdiv(count, pipeline) * width for width, count in layers.items())


def pool_idle_layers(arch: Architecture) -> int:
    """Nemotron-NAS layers whose attention is a no-op: 0.5.3rc2 sizes its token pool for every
    layer of a model that is not a hybrid (model_runner.py profile_max_num_token: cell_size over
    num_effective_layers; configs/model_config.py num_attention_layers = num_hidden_layers), and
    nemotron_nas.py builds no attention there, so their slots stay unused."""
    return len(arch.attention_free_layers)


def state_pool_bytes(kinds: Sequence[KindBytes], pipeline: int) -> int:
    """The recurrent states of the stage's linear-attention layers, for every slot."""
    return sum(SGLANG_MAMBA_SLOTS * cdiv(kind.layers, pipeline) * kind.bytes for kind in kinds if kind.per_sequence)


def draft_copy_bytes(model: Model, tensor: int) -> int:
    """The draft's own embedding and head on one GPU, 16-bit whatever the checkpoint (vocabulary
    padded to 64 rows and split): EAGLEWorker builds and loads the draft, its pool included, before
    set_embed_and_head frees them for the target's (speculative/eagle_worker.py), so they are
    there at the peak."""
    arch = model.architecture
    return 2 * cdiv(round_up(arch.vocab_size, VOCAB_PADDING), tensor) * arch.hidden_size * 2


def account(model: Model, gpu: Gpu, split: ParallelSplit, request: PlanRequest, weights: int, context: int,
            window: int, draft_weights: int = 0) -> Accounting:
    """sglang/srt/model_executor/model_runner.py profile_max_num_token: what is free after the
    weights, less the (1 - fraction) share of what was free before them, in tokens of every layer.
    An MTP draft (`draft_weights` of the `weights`) is built after the target's pool (scheduler.py:
    the TpWorker, then the EAGLEWorker): the target's tokens are profiled without it, both pools get
    the headroom, and the draft's weights, its pool and the target pool's headroom come out of the
    memory outside the static share (non_kv_bytes "draft_cache": the two pools' share there)."""
    total = engine_memory_bytes(gpu)
    before = total - SGLANG_BASELINE
    drafting = drafting_layers(model, request)
    fraction = request.memory_fraction or sglang_mem_fraction_static(total, split.tensor, split.pipeline, drafting > 0)
    kinds = kind_bytes(model.architecture, split.tensor, kv_dtype_bytes(request.kv_dtype))
    states = state_pool_bytes(kinds, split.pipeline)
    non_kv = {"cuda_context": SGLANG_BASELINE, "outside_fraction": round(before * (1 - fraction)), "states": states}
    available = floor(before * fraction) - (weights - draft_weights) - states
    idle = pool_idle_layers(model.architecture)
    per_token = pool_bytes_per_token(kinds, split.pipeline, idle)
    profiled = max(available, 0) // per_token
    kv_tokens = profiled
    if drafting and profiled > 0:
        kv_tokens += SGLANG_DRAFT_HEADROOM
        with_draft = pool_bytes_per_token(kind_bytes(model.architecture, split.tensor, kv_dtype_bytes(request.kv_dtype),
                                                     drafting), split.pipeline, idle)
        non_kv["draft_cache"] = kv_tokens * with_draft - profiled * per_token
        non_kv["outside_fraction"] -= draft_weights + non_kv["draft_cache"]
        per_token = with_draft
    concurrency = kv_tokens / context
    reason = None
    # the draft, at its peak, does not fit beside the static share
    peak_outside = non_kv["outside_fraction"] - (draft_copy_bytes(model, split.tensor) if drafting else 0)
    if weights > before or peak_outside < 0:
        reason = WEIGHTS_DO_NOT_FIT
    elif profiled <= 0:
        reason = NO_KV_MEMORY
    elif kv_tokens < context:
        reason = CONTEXT_DOES_NOT_FIT  # SGLang starts, but refuses any request this long
    max_context = min(kv_tokens, window) if reason in (None, CONTEXT_DOES_NOT_FIT) else 0
    users = floor(concurrency) if reason is None else 0
    if drafting:
        users = min(users, SGLANG_DRAFT_RUNNING_REQUESTS)
    return Accounting(fraction, non_kv, available, per_token, kv_tokens, concurrency, reason, max_context, users)


def sequence_kv_bytes(model: Model, gpu: Gpu, split: ParallelSplit, request: PlanRequest, tokens: int) -> int:
    kinds = kind_bytes(model.architecture, split.tensor, kv_dtype_bytes(request.kv_dtype), drafting_layers(model, request))
    return pool_bytes_per_token(kinds, split.pipeline, pool_idle_layers(model.architecture)) * tokens


def fitting_fraction(total: int, tensor: int, asked: Fraction) -> Fraction:
    """Five hundredths more than asked, at most 0.95."""
    return min(MAX_MEMORY_FRACTION, asked + Fraction(5, 100))


def rope_override(rope: RopeScaling) -> tuple[tuple[str, str], ...]:
    """The model card's rope scaling as a config override (Qwen3's card: `python -m
    sglang.launch_server ... --json-model-override-args '{"rope_scaling":{"rope_type":"yarn",
    "factor":4.0,"original_max_position_embeddings":32768}}'`)."""
    scaling = (f'{{"rope_scaling":{{"rope_type":"{rope.rope_type}","factor":{plain_number(rope.factor)},'
               f'"original_max_position_embeddings":{rope.original_max_position_embeddings}}}}}')
    return (("--json-model-override-args", f"'{scaling}'"),)


SGLANG = Engine(
    key="sglang", name="SGLang", version="0.5.3rc2", context_flag="--context-length",
    # NOTE: SGLang takes the same split as vLLM: --tp over the GPUs of a layer, --pp-size stages
    # (sglang/srt/server_args.py: "--pipeline-parallel-size", alias "--pp-size").
    command=CommandTemplate(start=("python -m sglang.launch_server", "--model-path {model}"), tensor="--tp {tensor}",
                            pipeline="--pp-size {pipeline}", context="--context-length {context}",
                            machines="--nnodes {machines} --node-rank 0 --dist-init-addr HEAD_NODE_IP:5000"),
    memory_fraction_flag="--mem-fraction-static", memory_fraction_name="mem_fraction_static",
    kv_cache_dtype_flag="--kv-cache-dtype", fp8_kv_value="fp8_e4m3",
    accounting=account, sequence_kv_bytes=sequence_kv_bytes, fitting_fraction=fitting_fraction,
    # SGLang derives its longest context from max_position_embeddings alone when the rope scaling
    # gives original_max_position_embeddings (hf_transformers_utils.py get_context_length), and
    # refuses a longer --context-length unless told to allow it (as public launch scripts that pass
    # this override with --context-length 131072 do).
    rope_override=rope_override, rope_env=("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",),
    # Gated DeltaNet (sglang/srt/models/qwen3_next.py); the 0.5.3rc2 wheel has no Kimi Delta Attention
    # (no kimi_linear.py), and Mamba2 hybrids (granitemoehybrid.py) came after this version, with
    # sgl-project/sglang PR #18040 (2026-01-31)
    config_classes=SGLANG_0_5_3RC2,
    recurrent_kinds=("gated_deltanet",),
    # no Gemma 4 in 0.5.3rc2 (sglang/srt/models has gemma3 only): global layers with heads of their own
    # are not run
    # docs/basic_usage/deepseek_v3.md: MTP is `--speculative-algorithm EAGLE` (NEXTN is its alias);
    # "The minimum configuration is --speculative-num-steps 1 --speculative-eagle-topk 1
    # --speculative-num-draft-tokens 2"; the draft path defaults to the model's own checkpoint
    speculative_flags=(("--speculative-algorithm", "EAGLE"), ("--speculative-num-steps", str(SGLANG_DRAFT_STEPS)),
                       ("--speculative-eagle-topk", str(SGLANG_DRAFT_TOPK)),
                       ("--speculative-num-draft-tokens", str(SGLANG_DRAFT_TOKENS))),
)
