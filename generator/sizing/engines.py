"""The serving engines the planner follows, and the constants of their memory accounting.

Each constant names the engine file it comes from (vLLM 0.33.0 and SGLang 0.5.3rc2, read from
their released wheels), or the public start-up logs it is measured from (tests/engine_logs.yaml).
Pure values and small rules over a GPU record; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from generator.catalog.records import Gpu

GIB = 2**30
MIB = 2**20

VLLM = "vllm"
SGLANG = "sglang"
ENGINES = (VLLM, SGLANG)
ENGINE_NAMES = {VLLM: "vLLM", SGLANG: "SGLang"}
ENGINE_VERSIONS = {VLLM: "0.33.0", SGLANG: "0.5.3rc2"}
KV_DTYPES = ("auto", "fp8")

# ---- vLLM 0.33.0 ------------------------------------------------------------------------------
# vllm/config/cache.py: gpu_memory_utilization = 0.9; the block size of the KV cache (16 tokens,
# CacheConfig.DEFAULT_BLOCK_SIZE).
VLLM_UTILIZATION = Fraction(9, 10)
VLLM_BLOCK_SIZE = 16
# The highest share of GPU memory a plan suggests to either engine: above it the CUDA context and
# NCCL buffers, made before vLLM measures free memory, may not fit ("Free memory on device ... is
# less than desired GPU memory utilization", vllm/v1/worker/utils.py request_memory).
MAX_MEMORY_FRACTION = Fraction(95, 100)
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


@dataclass(frozen=True)
class BatchDefaults:
    max_num_batched_tokens: int
    max_num_seqs: int


def vllm_batch_defaults(gpu: Gpu, memory_bytes: int) -> BatchDefaults:
    """`vllm serve`'s defaults by GPU (vllm/engine/arg_utils.py get_batch_defaults)."""
    if memory_bytes >= 160 * GIB:
        return BatchDefaults(16384, 1024)
    if memory_bytes >= 70 * GIB and "A100" not in gpu.name:
        return BatchDefaults(8192, 1024)
    return BatchDefaults(2048, 256)


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


# ---- SGLang 0.5.3rc2 --------------------------------------------------------------------------
# Memory CUDA and NCCL take before SGLang measures the free memory its fraction applies to:
# 21.63 GiB free of 21.95 GiB on L4 at TP 4 (sgl-project/sglang issue log, tests/engine_logs.yaml).
SGLANG_BASELINE = round(Decimal("0.32") * GIB)
# Linear-attention (Mamba-style) states SGLang reserves: 512 requests (model_runner.py
# max_mamba_cache_size default).
SGLANG_MAMBA_SLOTS = 512


def sglang_mem_fraction_static(memory_bytes: int, tensor: int, pipeline: int) -> Fraction:
    """SGLang's default --mem-fraction-static (sglang/srt/server_args.py _handle_gpu_memory_settings):
    GPU memory in MiB less a reserve for activations of the chunked prefill, CUDA graphs and
    communication, at least 10 GiB on GPUs over 60 GiB, rounded to 3 decimals."""
    memory = memory_bytes / MIB
    if memory < 20 * 1024:
        chunk, graphs = 2048, 8
    elif memory < 35 * 1024:
        chunk, graphs = 2048, 16 if tensor < 4 else 80
    elif memory < 60 * 1024:
        chunk, graphs = 4096, 32 if tensor < 4 else 160
    elif memory < 160 * 1024:
        chunk, graphs = 8192, 256 if tensor < 4 else 512
    else:
        chunk, graphs = 16384, 512
    reserved = 512 + max(chunk, 2048) * 1.5 + graphs * 2 + tensor * pipeline / 8 * 1024
    if memory > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return Fraction(round((memory - reserved) / memory, 3)).limit_denominator(1000)


def engine_memory_bytes(gpu: Gpu) -> int:
    """The total an engine sees (cudaMemGetInfo); the datasheet figure when the catalog lacks it."""
    return gpu.reported_memory_bytes or gpu.memory_bytes


def per_tensor_parallel(table: dict[int, int], tensor: int) -> int:
    """A measured figure for one GPU or for several (the key 2 stands for any TP > 1)."""
    return table[1] if tensor == 1 else table[2]


def kv_dtype_bytes(kv_dtype: str) -> int:
    """Bytes per cached value: the model's 16 bits, or 1 with --kv-cache-dtype fp8."""
    return 1 if kv_dtype == "fp8" else 2


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def round_up(value: int, multiple: int) -> int:
    return cdiv(value, multiple) * multiple
