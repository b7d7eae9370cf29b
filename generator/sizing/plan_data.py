"""The plan tables: what a plan needs of a model that the reader's free inputs do not change, as
plain data for the calculator. Pure.

Every value here is computed by the function the Python planner itself calls (tensor shares of
loaded_weights.py, layer kinds' bytes of layer_kinds.py, the activation peak of engine_vllm.py, the
bytes a token reads of speed.py, llama.cpp's layers of llama_cpp.py), for every tensor-parallel size,
format, KV type and batch tier the calculator offers. planner.js reads these tables and does only
what depends on the reader's inputs (context, users, memory share, GPU count): pipeline stages,
block layout, subtraction, the searches and the remedies, as planner.py does with the same values.
tests/test_planner_js.py holds the two to the same figures.
"""

from __future__ import annotations

from dataclasses import astuple
from fractions import Fraction

from generator.catalog.records import Architecture, Gpu, Model, Source
from generator.sizing.engine import KV_DTYPES, MAX_MEMORY_FRACTION, engine_memory_bytes, kv_dtype_bytes
from generator.sizing.engine_sglang import (
    SGLANG_BASELINE, SGLANG_DRAFT_HEADROOM, SGLANG_DRAFT_RESERVE_MIB, SGLANG_DRAFT_RUNNING_REQUESTS,
    SGLANG_LARGE_GPU_MIB, SGLANG_LARGE_GPU_RESERVE_MIB, SGLANG_MAMBA_SLOTS, draft_copy_bytes, pool_idle_layers, reserve_tiers,
)
from generator.sizing.engine_vllm import (
    VLLM_BASELINE, VLLM_BATCH_TIERS, VLLM_BLOCK_SIZE, VLLM_CUDA_GRAPHS, VLLM_NON_TORCH, VLLM_UTILIZATION,
    activation_peak, vllm_batch_tier, vllm_mxfp4_padding,
)
from generator.sizing.engine_vllm_compressed import attention_workspace, cache_specs
from generator.sizing.engines import ENGINES, SERVING_ENGINES
from generator.sizing.fit import precisions_largest_first
from generator.sizing.checkpoints import served_weights, sized_formats
from generator.sizing.gguf import gguf_sizable, page_quants
from generator.sizing.kv_cache import default_context
from generator.sizing.stock import Offered
from generator.sizing.layer_kinds import kind_bytes
from generator.sizing.llama_cpp import (
    AUTO_SLOTS, CACHE_TYPES, CONTEXT_PADDING, FIT_MARGIN, LLAMA_CPP, N_UBATCH, RAM_BANDWIDTH, cache_row_bytes, cell_bytes,
    compute_buffer_bytes, default_llama_cpp_context, layer_caches, llama_cpp_layers, sliding_window, state_bytes,
)
from generator.sizing.llama_cpp_compressed import layer_stores
from generator.sizing.loaded_weights import fullest_stage_attention_layers, layer_sizes, tensor_shares
from generator.sizing.setups import tensor_parallel_size
from generator.sizing.size_report import PRECISIONS
from generator.sizing.speed import kv_read_cache, weights_read_bytes
from generator.sizing.cheapest import LLAMA_CPP_QUANTS, OPTIONS_SHOWN
from generator.sizing.formats import bytes_by_component
from generator.sizing.plan_speed import attention_flops_per_token, compute_kind, flops_per_token, read_bytes
from generator.sizing.setups import MACHINE_SIZE, MAX_MACHINES
from generator.sizing.throughput import (
    ACTIVATION_BYTES, ALL_REDUCE_SECONDS, COMPUTE_SHARE, LLAMA_CPP_BANDWIDTH_SHARE, SERVING_BANDWIDTH_SHARE, WORKLOAD_TOKENS,
)

# The largest values the calculator accepts (the query string and its inputs), to keep every
# figure a finite number of tokens and bytes.
CALCULATOR_LIMITS = {"context": 100_000_000, "users": 100_000, "count": 512, "memory_gb": 100_000, "bandwidth_gbs": 1_000_000,
                     "layers": 10_000}
# The machine shapes of a GPU the reader types in.
CUSTOM_SHAPES = (1, 2, 4, 8)
# Every MXFP4 padding an engine applies on some GPU (engine_vllm.vllm_mxfp4_padding).
MXFP4_PADDINGS = ((64, 256), (128, 256), (256, 256))
# Formats a page's llama.cpp calculator offers (own_gpu.py: the page's quants).


def _fraction(value: Fraction) -> list[int]:
    return [value.numerator, value.denominator]


def largest_machine(gpus: tuple[Gpu, ...]) -> int:
    """The most GPUs one machine of the calculator can have: the catalog's, or a typed-in GPU's."""
    return max([CUSTOM_SHAPES[-1], *(gpu.machine_shapes[-1] for gpu in gpus)])


def _padding_key(padding: tuple[int, int] | None) -> str:
    return "none" if padding is None else f"{padding[0]}x{padding[1]}"


def model_tables(model: Model, largest_machine: int) -> dict:
    """One model's tables, for machines of up to `largest_machine` GPUs."""
    arch = model.architecture
    # GPUs per machine -> the tensor-parallel size (setups.py parallel_sizes), index 0 for 1 GPU
    tensor_for = [tensor_parallel_size(arch, gpus) for gpus in range(1, largest_machine + 1)]
    sizes = sorted(set(tensor_for))
    precisions = {}
    for key in PRECISIONS.values():
        # the weights a plan at this precision serves (checkpoints.py): the same for every engine
        # that serves one, as on-the-fly FP8 is offered only where no checkpoint is; where none
        # does, the formats table's figures, for a plan that says so (planner.py)
        served = {engine.key: served_weights(model, key, engine) if engine.runs(model) else None
                  for engine in SERVING_ENGINES.values()}
        weights = next((w for w in served.values() if w is not None), None)
        stored = sized_formats(model, key)
        # [layers, embeddings, output head, vision tower, MTP draft] on one GPU (loaded_weights.TensorShares),
        # per tensor-parallel size, for each padding
        # of MXFP4 experts an engine applies (only where the format has MXFP4 routed experts)
        paddings = [None]
        if stored.format_of("routed_experts") == "mxfp4":
            paddings += MXFP4_PADDINGS
        resident, experts = read_bytes(model, stored)
        precisions[key] = {
            # throughput.py: what a decode step reads (once, and of all the routed experts), the
            # tensor-core type the matrices run in, and every byte of the weights (cheapest.py)
            "resident_bytes": resident, "expert_bytes": experts, "compute": compute_kind(model, stored),
            "total_bytes": sum(bytes_by_component(model, stored).values()),
            "weights": {_padding_key(padding): {str(tp): list(tensor_shares(model, stored, tp, padding)) for tp in sizes}
                        for padding in paddings},
            "read_bytes": weights_read_bytes(model, stored),
            "repo": weights and weights.repo, "flags": [list(flag) for flag in weights.flags] if weights else [],
            "engines": [engine for engine, w in served.items() if w is not None],
            # the served checkpoint's own KV cache type, which --kv-cache-dtype auto takes (checkpoints.cache_dtype)
            "kv_cache_dtype": weights.kv_cache_dtype if weights else None,
        }
    kinds, kinds_drafting, reads = {}, {}, {}
    for kv_dtype in KV_DTYPES:
        kinds[kv_dtype] = {str(tp): [list(kind) for kind in kind_bytes(arch, tp, kv_dtype_bytes(kv_dtype))] for tp in sizes}
        if arch.extra_layers:
            kinds_drafting[kv_dtype] = {str(tp): [list(kind) for kind in kind_bytes(arch, tp, kv_dtype_bytes(kv_dtype), arch.extra_layers)]
                                        for tp in sizes}
        cache = kv_read_cache(arch, kv_dtype)
        reads[kv_dtype] = [cache.bytes_per_token, cache.window_bytes_per_token, cache.window_tokens, cache.state_bytes]
    return {
        "slug": model.slug, "id": model.id, "name": model.name, "family": model.family,
        "window": default_context(model), "context_window": model.context_window, "layers": arch.layers,
        "attention_kind": arch.attention.kind,
        "tensor_for": tensor_for,
        "precisions": precisions,
        "runs": [key for key, engine in SERVING_ENGINES.items() if engine.runs(model)],  # engines whose version runs it
        # per engine, fit.py's order: the first that fits is the best
        "precision_order": {key: list(precisions_largest_first(model, key)) for key in SERVING_ENGINES},
        "kinds": kinds,  # per KV type and tensor-parallel size: [layers, bytes, window, per sequence]
        "kinds_drafting": kinds_drafting or None,  # with the MTP layers' cache (models that have them)
        # where layers differ (Nemotron-NAS): each layer's size, which pipeline stages split the layer
        # bytes by, and the attention layers of the fullest stage per pipeline size (loaded_weights.py)
        "layer_sizes": list(layer_sizes(arch)) or None,
        "stage_attention_layers": {str(pp): fullest_stage_attention_layers(arch, pp) for pp in range(2, arch.layers + 1)}
        if arch.attention_free_layers else None,
        "sglang_idle_layers": pool_idle_layers(arch),  # layers without attention SGLang's pool counts (engine_sglang.py)
        # SGLang's draft builds its own embedding and head before it shares the target's, per TP size
        "sglang_draft_copies": {str(tp): draft_copy_bytes(model, tp) for tp in sizes} if arch.extra_layers else None,
        "vision": arch.vision is not None,  # a vision tower, which engines with text-only flags leave on disk
        "kv_read": reads,  # per KV type: [per token, per window token, window, state] (kv_cache.py)
        # throughput.py ModelWork: the routed experts a token picks (k of E), FLOPs per token and per
        # token attended to, the all-reduces of a step under tensor parallelism, the hidden width
        "work": {"expert_share": [model.experts_per_token, model.experts] if arch.moe else [0, 1],
                 "flops_per_token": flops_per_token(model), "attention_flops_per_token": attention_flops_per_token(arch),
                 "all_reduces": 2 * arch.layers, "hidden_size": arch.hidden_size},
        # vLLM's profile-run peak per tensor-parallel size and batch tier (VLLM_BATCH_TIERS)
        "activation_peak": {str(tp): [activation_peak(model, tp, tokens, sequences) for _, tokens, sequences in VLLM_BATCH_TIERS]
                            for tp in sizes},
        **_compressed_tables(arch),
        "llama_cpp": _llama_cpp_tables(model) if gguf_sizable(model) else None,
        # past the config's length, the flags each engine takes for the card's rope scaling
        "rope_override": None if model.rope_scaling is None else {
            "native": model.rope_scaling.native_context,
            "flags": {key: [list(flag) for flag in engine.rope_override(model.rope_scaling)] for key, engine in ENGINES.items()},
        },
    }


def _llama_cpp_tables(model: Model) -> dict:
    """Per quant: the file's tensor bytes, values and bytes on disk, the embeddings, and each offload layer (the output
    layer last) as an index into the quant's distinct layers [weights, experts, read, experts read];
    per cache type the bytes of one cell of one layer (llama_cpp.py)."""
    quants = {}
    for quant in page_quants(model):
        tables = llama_cpp_layers(model, quant)
        distinct = sorted(set(tables.layers))
        quants[quant] = {"file": [tables.file.tensor_bytes, tables.file.values, tables.file.file_bytes],
                         "embeddings": tables.embeddings,
                         "layer_bytes": [list(layer) for layer in distinct],
                         "layers": [distinct.index(layer) for layer in tables.layers]}
    arch = model.architecture
    return {
        "quants": quants,
        "cell_bytes": {cache_type: cell_bytes(model, cache_type) for cache_type in CACHE_TYPES},
        "sliding_window": sliding_window(model), "layer_caches": layer_caches(model), "state_bytes": state_bytes(model),
        "compressed": _llama_cpp_compressed(model),
        "compute_buffer": compute_buffer_bytes(arch.vocab_size, arch.hidden_size),
        "default_context": default_llama_cpp_context(model), "experts": arch.moe is not None,
        "tied_embeddings": arch.tied_embeddings,
    }


def quant_tables(models: list[dict], quant: str) -> dict:
    """The fit page's llama.cpp tables of one GGUF quant: per model slug, its llama.cpp tables with
    that quant alone (none where the model has no file at it: planner.js says so). Models llama.cpp is
    not planned for are left out."""
    return {data["slug"]: dict(data["llama_cpp"], quants={key: value for key, value in data["llama_cpp"]["quants"].items()
                                                          if key == quant})
            for data in models if data["llama_cpp"] is not None}


def _llama_cpp_compressed(model: Model) -> dict | None:
    """DeepSeek-V4's stores by layer letter (llama_cpp_compressed.py): per cache type each store's
    [bytes a cell, ratio (None: the window's)], and each letter's FP32 state. None for other models."""
    arch = model.architecture
    if arch.attention.kind != "compressed":
        return None
    stores = layer_stores(arch)
    return {
        "stores": {cache_type: {letter: [[cache_row_bytes(store.values, cache_type), store.ratio] for store in s.stores]
                                for letter, s in stores.items()} for cache_type in CACHE_TYPES},
        "states": {letter: s.state_bytes for letter, s in stores.items()},
    }


def _compressed_tables(arch: Architecture) -> dict:
    """DeepSeek-V4's vLLM caches (engine_vllm_compressed.py): each spec [layers, page bytes, block
    size, window], without and with the MTP layers drafting; the profile's attention workspace,
    without and with drafting, per batch tier [bytes a compressed row, ratio, constant]. None for
    other models."""
    if arch.attention.kind != "compressed":
        return {"vllm_specs": None, "attention_workspace": None}
    return {
        "vllm_specs": [[list(astuple(spec)) for spec in cache_specs(arch, drafting)] for drafting in (0, arch.extra_layers)],
        "attention_workspace": [[list(astuple(attention_workspace(arch, tokens, drafting))) for _, tokens, _ in VLLM_BATCH_TIERS]
                                for drafting in (False, True)],
    }


def _first_url(source: Source | None) -> str | None:
    return next((text for text, is_url in source.parts if is_url), None) if source else None


def gpu_tables(gpu: Gpu) -> dict:
    return {
        "slug": gpu.slug,
        "name": gpu.name,
        "memory_bytes": engine_memory_bytes(gpu),
        "gpu_memory_bytes": gpu.gpu_memory_bytes,  # the datasheet's (its share on unified memory): cheapest.py's bound
        "shapes": list(gpu.machine_shapes),
        "bandwidth_bytes_per_second": gpu.bandwidth_bytes_per_second,
        "price_per_gpu_hour": None if gpu.price_per_gpu_hour is None else str(gpu.price_per_gpu_hour),
        "price_provider": gpu.price_provider,
        "price_date": gpu.price_date,
        "price_stale": gpu.price_stale,  # read over 90 days before site.yaml's prices_date
        "unified_memory": gpu.unified_memory,  # engine.py Engine.plans_machine: llama.cpp only
        "price_source": _first_url(gpu.sources.get("price_per_gpu_hour")),
        "vllm_batch_tier": vllm_batch_tier(gpu, engine_memory_bytes(gpu)),
        # NVIDIA's compute capability (major), which engine.py Engine.gpu_reason reads; None elsewhere
        "compute_capability_major": int(gpu.compute_capability) if gpu.vendor == "NVIDIA" and gpu.compute_capability else None,
        "mxfp4_padding": _padding_key(vllm_mxfp4_padding(gpu)),
        "tensor_flops": dict(gpu.tensor_flops),  # dense FLOP/s by compute type (throughput.py)
        "peer_link": gpu.peer_link, "peer_bandwidth": gpu.peer_bandwidth_bytes_per_second,
    }


def shared_tables(gpus: tuple[Gpu, ...], offered: Offered | None = None) -> dict:
    """The tables every calculator reads; `offered`: the operator's stock (stock.stock_gpus), each GPU
    type with its shapes in stock, its price and whether its machines join (None: no stock)."""
    return {
        "engines": {key: engine.as_data() for key, engine in SERVING_ENGINES.items()},
        "max_memory_fraction": _fraction(MAX_MEMORY_FRACTION),
        "vllm": {
            "utilization": _fraction(VLLM_UTILIZATION), "block_size": VLLM_BLOCK_SIZE,
            "baseline": [VLLM_BASELINE[1], VLLM_BASELINE[2]], "non_torch": [VLLM_NON_TORCH[1], VLLM_NON_TORCH[2]],
            "cuda_graphs": VLLM_CUDA_GRAPHS, "batch_tiers": [list(tier) for tier in VLLM_BATCH_TIERS],
        },
        "sglang": {
            "baseline": SGLANG_BASELINE, "mamba_slots": SGLANG_MAMBA_SLOTS, "reserve_tiers": reserve_tiers(),
            "large_gpu_mib": SGLANG_LARGE_GPU_MIB, "large_gpu_reserve_mib": SGLANG_LARGE_GPU_RESERVE_MIB,
            "draft_reserve_mib": SGLANG_DRAFT_RESERVE_MIB, "draft_headroom": SGLANG_DRAFT_HEADROOM,
            "draft_running_requests": SGLANG_DRAFT_RUNNING_REQUESTS,
        },
        "llama_cpp": {
            "key": LLAMA_CPP.key, "version": LLAMA_CPP.version, "cache_types": list(CACHE_TYPES), "fit_margin": FIT_MARGIN,
            "context_padding": CONTEXT_PADDING, "ram_bandwidth": RAM_BANDWIDTH, "auto_slots": AUTO_SLOTS,
            "n_ubatch": N_UBATCH,
        },
        "throughput": {  # throughput.py's measured efficiencies, and what the cheapest search tries (cheapest.py)
            "serving_share": _fraction(SERVING_BANDWIDTH_SHARE), "llama_cpp_share": _fraction(LLAMA_CPP_BANDWIDTH_SHARE),
            "compute_share": _fraction(COMPUTE_SHARE), "activation_bytes": ACTIVATION_BYTES,
            "all_reduce_seconds": {link: _fraction(seconds) for link, seconds in ALL_REDUCE_SECONDS.items()},
            "workload_tokens": WORKLOAD_TOKENS, "llama_cpp_quants": list(LLAMA_CPP_QUANTS), "options_shown": OPTIONS_SHOWN,
            "engines": list(SERVING_ENGINES),  # the order the search tries them in (the files sort their keys)
            "max_machines": MAX_MACHINES, "machine_size": MACHINE_SIZE,
        },
        # a GPU the reader types in: NVIDIA's usual MXFP4 padding, batch defaults by its memory alone
        "custom_gpu": {"shapes": list(CUSTOM_SHAPES), "mxfp4_padding": _padding_key(MXFP4_PADDINGS[1])},
        "gpus": [gpu_tables(gpu) for gpu in gpus],
        "stock": None if offered is None else [{**gpu_tables(gpu), "multi_node": joined} for gpu, joined in offered],
    }
