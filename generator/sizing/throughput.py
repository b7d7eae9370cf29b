"""How fast a plan serves a workload: N users at once, each sending `input_tokens` and reading
`output_tokens`. Pure: a roofline per engine step, with measured efficiencies.

A decode step reads the weights once for the whole batch (for MoE: the experts the batch's tokens
touch), each user's KV cache, and computes 2 FLOPs per active parameter per token; it takes the
longer of the read and the compute, plus the tensor-parallel all-reduces (two per layer). A prompt
is computed at once (prefill). Each user's prompt stalls the batch once per `output_tokens` tokens,
so N users together produce N × O tokens in O decode steps and N prefills.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from generator.sizing.kv_cache import KvCache

# NOTE: the share of a GPU's datasheet memory bandwidth a decode step reaches, measured at batch 1:
# gpt-fast on an A100 80GB 68.5 % (Llama-2-7B: 1,397.31 GB/s of 2,039; github.com/pytorch-labs/gpt-fast
# README), a hand-tuned engine on an RTX 3090 66.5 % (623 of 936.2 GB/s; ashalliants/ninfer-3090 PR 36),
# quantized GEMV on a DGX Spark 74 to 78 % (lablup/mlxcel PR 684): their median.
SERVING_BANDWIDTH_SHARE = Fraction(685, 1000)
# llama.cpp's decode reached 60.4 % of an RTX 3060's 360 GB/s (antonellof/ferrox issue 133).
LLAMA_CPP_BANDWIDTH_SHARE = Fraction(604, 1000)
# The share of the dense tensor peak a large matrix product reaches: cuBLASLt FP8 8192³ on an H100
# 1,290.1 of 1,979 TFLOPS (65.2 %), FP8 16384³ on an H200 1,366.3 (69.0 %), FP16 on an A100 256.5 of
# 312 (82.2 %), hipBLASLt FP8 on an MI300X 1,159.23 of 2,614.9 (44.3 %) (Azure AI-benchmarking-guide
# results, ND H100/H200/A100/MI300X v5): their median.
COMPUTE_SHARE = Fraction(671, 1000)
# One all-reduce of a decode step's activations: vLLM's custom all-reduce on H100s over NVLink,
# 32,768 bytes, 2 GPUs: 0.0087 ms (sgl-project/sglang PR 2904); NCCL over PCIe, 8 × RTX 4090, 8 bytes:
# 42.14 µs (NVIDIA/nccl issue 1530). Infinity Fabric is taken as NVLink.
ALL_REDUCE_SECONDS = {"nvlink": Fraction(87, 10**7), "infinity_fabric": Fraction(87, 10**7), "pcie": Fraction(4214, 10**8)}
ACTIVATION_BYTES = 2  # the hidden state an all-reduce sums is 16-bit
WORKLOAD_TOKENS = 1024  # the default prompt and answer: the 1k / 1k of the engines' own benchmark recipes


@dataclass(frozen=True)
class Workload:
    users: int
    input_tokens: int
    output_tokens: int


def workload_at(context: int, users: int, input_tokens: int | None = None, output_tokens: int | None = None) -> Workload:
    """The workload asked, its prompt and answer by default WORKLOAD_TOKENS each, or less to fit the
    context (the answer half of it at most); the caller checks that what it asked fits."""
    output = output_tokens or min(WORKLOAD_TOKENS, max(context // 2, 1))
    prompt = input_tokens or min(WORKLOAD_TOKENS, max(context - output, 1))
    return Workload(users, prompt, output)


@dataclass(frozen=True)
class Hardware:
    """What the plan runs on, as time sees it."""

    bandwidth: int  # bytes/s, one GPU's memory
    flops: int  # dense tensor FLOP/s of one GPU at the compute type of the weights
    tensor: int  # GPUs that split every layer: they read and compute side by side
    bandwidth_share: Fraction  # of `bandwidth`, what the engine's decode reaches
    peer_link: str | None = None  # between the tensor-parallel GPUs ("nvlink", "pcie"...)
    peer_bandwidth: int | None = None  # bytes/s, one direction
    ram_bandwidth: int | None = None  # llama.cpp: what the CPU reads the layers it keeps at


@dataclass(frozen=True)
class ModelWork:
    """What serving the model reads and computes, at the plan's formats (all GPUs together)."""

    resident_bytes: int  # read once a step, whatever the batch: attention, dense layers, head...
    expert_bytes: int  # every routed expert on the GPUs
    expert_share: Fraction  # experts a token picks, of all (0: no MoE)
    cache: KvCache  # what a sequence reads of its cache (at the KV type kept)
    flops_per_token: int  # 2 per active matrix parameter
    attention_flops_per_token: int  # per token and per earlier token it attends to (QKᵀ and PV)
    all_reduces_per_step: int  # 2 per layer under tensor parallelism
    hidden_size: int
    ram_bytes: int = 0  # llama.cpp: resident weights the CPU reads per step
    ram_expert_bytes: int = 0  # llama.cpp: routed experts kept in RAM


@dataclass(frozen=True)
class Throughput:
    output_tokens_per_second: float  # all users together
    output_tokens_per_second_per_user: float
    ttft_seconds: float  # a prompt's prefill and the first decode step
    tpot_seconds: float  # between two output tokens of one user, others' prefills included
    prefill_seconds: float  # one prompt
    batch: int  # users decoding at once


def experts_touched(share: Fraction, tokens: int) -> float:
    """The share of the routed experts `tokens` tokens pick between them, routing taken as uniform:
    1 − (1 − k/E)^tokens (one token: k/E)."""
    return 1 - (1 - float(share)) ** tokens


def _all_reduces(work: ModelWork, hardware: Hardware, tokens: int) -> float:
    if hardware.tensor == 1:
        return 0.0
    latency = float(ALL_REDUCE_SECONDS[hardware.peer_link or "pcie"])
    # a ring all-reduce sends 2 (t − 1) / t of the buffer over each GPU's link
    moved = 2 * (hardware.tensor - 1) / hardware.tensor * tokens * work.hidden_size * ACTIVATION_BYTES
    per_call = latency + (moved / hardware.peer_bandwidth if hardware.peer_bandwidth else 0.0)
    return work.all_reduces_per_step * per_call


def _gpu_seconds(work: ModelWork, hardware: Hardware, read_bytes: float, flops: float) -> float:
    read = read_bytes / (hardware.tensor * hardware.bandwidth * float(hardware.bandwidth_share))
    compute = flops / (hardware.tensor * hardware.flops * float(COMPUTE_SHARE))
    return max(read, compute)


def _ram_seconds(work: ModelWork, hardware: Hardware, touched: float) -> float:
    ram_bytes = work.ram_bytes + work.ram_expert_bytes * touched
    return ram_bytes / hardware.ram_bandwidth if ram_bytes and hardware.ram_bandwidth else 0.0


def decode_step_seconds(work: ModelWork, hardware: Hardware, batch: int, tokens: int) -> float:
    """One step of `batch` sequences, each `tokens` long so far."""
    touched = experts_touched(work.expert_share, batch)
    read = work.resident_bytes + work.expert_bytes * touched + batch * work.cache.sequence_bytes(tokens)
    flops = batch * (work.flops_per_token + work.attention_flops_per_token * tokens)
    return (_gpu_seconds(work, hardware, read, flops) + _ram_seconds(work, hardware, touched)
            + _all_reduces(work, hardware, batch))


def prefill_seconds(work: ModelWork, hardware: Hardware, tokens: int) -> float:
    """One prompt of `tokens` tokens, computed at once (causal: each token attends to those before)."""
    touched = experts_touched(work.expert_share, tokens)
    read = work.resident_bytes + work.expert_bytes * touched
    flops = tokens * work.flops_per_token + work.attention_flops_per_token * tokens * tokens / 2
    return (_gpu_seconds(work, hardware, read, flops) + _ram_seconds(work, hardware, touched)
            + _all_reduces(work, hardware, tokens))


def throughput(work: ModelWork, hardware: Hardware, workload: Workload, batch: int) -> Throughput:
    """`workload` with `batch` of its users decoding at once (what the KV cache holds); the others wait
    their turn, so all users together get the batch's speed and each user a share of it."""
    batch = max(1, min(batch, workload.users))
    output = workload.output_tokens
    step = decode_step_seconds(work, hardware, batch, workload.input_tokens + output // 2)
    prefill = prefill_seconds(work, hardware, workload.input_tokens)
    cycle = output * step + batch * prefill  # O tokens for each of the batch's users, and their prompts
    total = batch * output / cycle
    return Throughput(
        output_tokens_per_second=total,
        output_tokens_per_second_per_user=total / workload.users,
        ttft_seconds=prefill + step,
        tpot_seconds=step + (batch - 1) * prefill / output,
        prefill_seconds=prefill,
        batch=batch,
    )
