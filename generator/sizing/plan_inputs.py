"""The planner's inputs as plain data, for the calculator that runs the same plan in the browser. Pure.

`model_inputs` is what a plan needs of one model: its tensors (shape, component, how tensor
parallelism cuts them), the format of each component in every precision row, and the figures the
KV cache, the activation peak and the decode bound read. `shared_inputs` is written once: the
formats' layouts, the engines' constants and every GPU as the engines see it. The JavaScript
planner (site_templates/overrides/assets/javascripts/planner.js) computes from these exactly what
planner.py computes; tests/test_calculator_planner.py holds the two to the same figures.
"""

from __future__ import annotations

from fractions import Fraction

from generator.catalog.records import Gpu, Model, Source
from generator.sizing.engines import (
    ENGINE_NAMES,
    ENGINE_VERSIONS,
    MAX_MEMORY_FRACTION,
    SGLANG_BASELINE,
    SGLANG_MAMBA_SLOTS,
    VLLM_BASELINE,
    VLLM_BLOCK_SIZE,
    VLLM_CUDA_GRAPHS,
    VLLM_NON_TORCH,
    VLLM_SAMPLER_BYTES_PER_LOGIT,
    VLLM_UTILIZATION,
    engine_memory_bytes,
    vllm_batch_defaults,
    vllm_mxfp4_padding,
)
from generator.sizing.fit import precisions_largest_first
from generator.sizing.gguf import FALLBACK, GGML_TYPES, PAGE_QUANTS, PRESETS, gguf_facts, gguf_sizable, gguf_tensors
from generator.sizing.llama_cpp import CACHE_TYPES, CONTEXT_PADDING, FIT_MARGIN, LLAMA_CPP_VERSION, N_UBATCH, RAM_BANDWIDTH
from generator.sizing.formats import FORMATS, KEPT_FORMAT, format_plan
from generator.sizing.kv_cache import SHORT_CONTEXT, default_context
from generator.sizing.loaded_weights import NOT_LOADED, VOCAB_COMPONENTS, VOCAB_PADDING
from generator.sizing.setups import tensor_parallel_fits
from generator.sizing.size_report import PRECISIONS
from generator.sizing.speed import NOT_READ
from generator.sizing.weights import tensors

# The largest values the calculator accepts (the query string and its inputs), to keep every
# figure a finite number of tokens and bytes.
CALCULATOR_LIMITS = {"context": 100_000_000, "users": 100_000, "count": 512, "memory_gb": 100_000, "bandwidth_gbs": 1_000_000,
                     "layers": 10_000}
# GPU counts the calculator offers, as far as a GPU's machines go (plan_setup: one machine up to
# its largest shape, then whole machines).
CALCULATOR_COUNTS = (1, 2, 4, 8, 16, 32, 64)


def _fraction(value: Fraction) -> list[int]:
    return [value.numerator, value.denominator]


def model_inputs(model: Model) -> dict:
    arch = model.architecture
    attention, linear, moe = arch.attention, arch.linear_attention, arch.moe
    precisions = {}
    for key in PRECISIONS.values():
        formats, default = format_plan(model, key)
        precisions[key] = {"formats": dict(sorted(formats.items())), "default": default}
    return {
        "slug": model.slug,
        "id": model.id,
        "name": model.name,
        "family": model.family,
        "params": model.params,
        "window": default_context(model),
        "layers": arch.layers,
        "hidden_size": arch.hidden_size,
        "vocab_size": arch.vocab_size,
        "tied_embeddings": arch.tied_embeddings,
        "intermediate_size": arch.intermediate_size if arch.dense_mlp_layers else None,
        "expert_intermediate_size": moe.expert_intermediate_size if moe else None,
        "experts": model.experts if moe else None,
        "experts_per_token": model.experts_per_token if moe else None,
        "attention": {
            "kind": attention.kind,
            "heads": attention.heads,
            "kv_heads": attention.kv_heads,
            "head_dim": attention.head_dim,
            "kv_lora_rank": attention.kv_lora_rank,
            "qk_rope_head_dim": attention.qk_rope_head_dim,
            "indexer_head_dim": attention.indexer_head_dim,
            "layers": arch.attention_layers,
            "sliding_window": attention.sliding_window,
            "sliding_window_layers": attention.sliding_window_layers,
        },
        "linear_attention": None if linear is None else {
            "layers": linear.layers,
            "key_heads": linear.key_heads,
            "value_heads": linear.value_heads,
            "key_head_dim": linear.key_head_dim,
            "value_head_dim": linear.value_head_dim,
            "conv_kernel": linear.conv_kernel,
        },
        # [component, rows, cols, count, shards] (weights.py Tensors)
        "tensors": [[t.component, t.rows, t.cols, t.count, t.shards] for t in tensors(model)],
        "precisions": precisions,
        "precision_order": list(precisions_largest_first(model)),  # fit.py: the first that fits is the best
        "tensor_parallel": [size for size in range(1, max(CALCULATOR_COUNTS) + 1) if tensor_parallel_fits(arch, size)],
        "gguf": _gguf_inputs(model) if gguf_sizable(model) else None,
    }


def _gguf_inputs(model: Model) -> dict:
    """The GGUF file's tensors (gguf.py), runs of layers with the same tensor as one entry
    [name, row, rows, source, experts, first layer, last layer] (-1 for the tensors outside the
    blocks), and what llama-quantize reads of the model."""
    runs: list[list] = []
    for tensor in gguf_tensors(model):
        layer = -1 if tensor.layer is None else tensor.layer
        shape = [tensor.name, tensor.row, tensor.rows, tensor.source, tensor.experts]
        previous = next((run for run in reversed(runs) if run[:5] == shape), None)
        if previous is not None and layer >= 0 and previous[6] == layer - 1:
            previous[6] = layer
        else:
            runs.append([*shape, layer, layer])
    facts = gguf_facts(model)
    return {
        "tensors": runs, "layers": facts.layers, "n_expert": facts.n_expert, "n_gqa": facts.n_gqa,
        "is_70b": facts.is_70b, "has_output": facts.has_output, "norms_per_layer": model.architecture.norms_per_layer,
    }


def _first_url(source: Source | None) -> str | None:
    return next((text for text, is_url in source.parts if is_url), None) if source else None


def gpu_inputs(gpu: Gpu) -> dict:
    total = engine_memory_bytes(gpu)
    defaults = vllm_batch_defaults(gpu, total)
    return {
        "slug": gpu.slug,
        "name": gpu.name,
        "memory_bytes": total,
        "shapes": list(gpu.machine_shapes),
        "bandwidth_bytes_per_second": gpu.bandwidth_bytes_per_second,
        "price_per_gpu_hour": None if gpu.price_per_gpu_hour is None else str(gpu.price_per_gpu_hour),
        "price_provider": gpu.price_provider,
        "price_date": gpu.price_date,
        "price_source": _first_url(gpu.sources.get("price_per_gpu_hour")),
        "vllm_batch": [defaults.max_num_batched_tokens, defaults.max_num_seqs],
        "vllm_mxfp4_padding": list(vllm_mxfp4_padding(gpu)),
    }


def shared_inputs(gpus: tuple[Gpu, ...]) -> dict:
    return {
        "engines": {
            "names": ENGINE_NAMES,
            "versions": ENGINE_VERSIONS,
            "vllm_utilization": _fraction(VLLM_UTILIZATION),
            "max_memory_fraction": _fraction(MAX_MEMORY_FRACTION),
            "vllm_block_size": VLLM_BLOCK_SIZE,
            "vllm_baseline": [VLLM_BASELINE[1], VLLM_BASELINE[2]],
            "vllm_non_torch": [VLLM_NON_TORCH[1], VLLM_NON_TORCH[2]],
            "vllm_cuda_graphs": VLLM_CUDA_GRAPHS,
            "vllm_sampler_bytes_per_logit": VLLM_SAMPLER_BYTES_PER_LOGIT,
            "sglang_baseline": SGLANG_BASELINE,
            "sglang_mamba_slots": SGLANG_MAMBA_SLOTS,
        },
        "formats": {
            key: {"bits": fmt.bits, "group": list(fmt.group) if fmt.group else None, "scale_bytes": fmt.scale_bytes}
            for key, fmt in FORMATS.items()
        },
        "kept_format": KEPT_FORMAT,
        "vocab_padding": VOCAB_PADDING,
        "vocab_components": list(VOCAB_COMPONENTS),
        "not_loaded": list(NOT_LOADED),
        "not_read": list(NOT_READ),
        "counts": list(CALCULATOR_COUNTS),
        "llama_cpp": {
            "version": LLAMA_CPP_VERSION, "ggml_types": {k: list(v) for k, v in GGML_TYPES.items()},
            "presets": PRESETS, "page_quants": list(PAGE_QUANTS), "fallback": FALLBACK, "cache_types": list(CACHE_TYPES),
            "fit_margin": FIT_MARGIN, "n_ubatch": N_UBATCH, "context_padding": CONTEXT_PADDING,
            "ram_bandwidth": RAM_BANDWIDTH, "default_context": SHORT_CONTEXT,
        },
        "gpus": [gpu_inputs(gpu) for gpu in gpus],
    }
