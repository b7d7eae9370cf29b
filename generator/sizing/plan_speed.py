"""A plan at a workload: its weights, cache and GPUs as throughput.py sees them. Pure."""

from __future__ import annotations

from fractions import Fraction

from generator.catalog.records import Architecture, Gpu, Model
from generator.sizing.formats import StoredFormats, bytes_by_component
from generator.sizing.kv_cache import KvCache, kv_cache
from generator.sizing.llama_cpp import RAM_BANDWIDTH, LlamaCppPlan
from generator.sizing.planner import Plan, memory_at
from generator.sizing.speed import kv_read_cache, token_read
from generator.sizing.throughput import (
    LLAMA_CPP_BANDWIDTH_SHARE, SERVING_BANDWIDTH_SHARE, Hardware, ModelWork, Throughput, Workload, throughput,
)
from generator.sizing.weights import params_by_component

# The tensor-core type a format's matrices are multiplied in, where the GPU has it (else BF16): FP8
# weights with FP8 activations (vLLM's fp8 linear methods), FP4 weights on GPUs with FP4 tensor cores.
COMPUTE_TYPE = {"fp8_block128": "fp8", "fp8_block128_e8m0": "fp8", "fp8_channel": "fp8", "fp8_tensor": "fp8",
                "nvfp4": "fp4", "mxfp4": "fp4"}
# Components a generated token multiplies through (the embedding lookup is a read; the vision tower
# and the prediction layers do not run).
MULTIPLIED = ("attention", "dense_mlp", "shared_experts", "router_and_norms", "output_head")


def expert_share(model: Model) -> Fraction:
    return Fraction(model.experts_per_token, model.experts) if model.architecture.moe else Fraction(0)


def compute_kind(model: Model, stored: StoredFormats) -> str:
    """The tensor-core type the weights' largest matrices are multiplied in (where the GPU has it)."""
    largest = "routed_experts" if model.architecture.moe else "dense_mlp"
    return COMPUTE_TYPE.get(stored.format_of(largest), "bf16")


def compute_flops(gpu: Gpu, stored: StoredFormats, model: Model) -> int | None:
    """The GPU's dense tensor FLOP/s in the type its largest matrices run in, else in BF16."""
    return gpu.tensor_flops.get(compute_kind(model, stored)) or gpu.tensor_flops.get("bf16")


def read_bytes(model: Model, stored: StoredFormats) -> tuple[int, int]:
    """What a decode step reads of the weights: once whatever the batch (attention, dense layers,
    head...), and all the routed experts, of which a batch touches a share."""
    weight_bytes = bytes_by_component(model, stored, prediction=False)
    return token_read(model, weight_bytes, kv_cache(model.architecture), 0).resident_bytes, weight_bytes["routed_experts"]


def flops_per_token(model: Model) -> int:
    """2 FLOPs per parameter a token multiplies by: every matrix but the experts it does not pick."""
    params = params_by_component(model)
    active = sum(params[part] for part in MULTIPLIED) + params["routed_experts"] * expert_share(model)
    if model.architecture.tied_embeddings:  # the embedding table is the output head too
        active += params["embeddings"]
    return round(2 * active)


def attention_flops_per_token(arch: Architecture) -> int:
    """FLOPs of QKᵀ and of the weighted sum of V, for one query and one earlier token, all layers
    (windows taken whole: a bound)."""
    attention = arch.attention
    if attention.kind == "mla":
        width = attention.heads * (attention.qk_nope_head_dim + attention.qk_rope_head_dim + attention.v_head_dim)
    else:
        width = 2 * attention.heads * attention.head_dim
    return 2 * width * arch.attention_layers


def _work(model: Model, stored: StoredFormats, cache: KvCache) -> ModelWork:
    resident, experts = read_bytes(model, stored)
    arch = model.architecture
    return ModelWork(
        resident_bytes=resident, expert_bytes=experts, expert_share=expert_share(model),
        cache=cache, flops_per_token=flops_per_token(model), attention_flops_per_token=attention_flops_per_token(arch),
        all_reduces_per_step=2 * arch.layers, hidden_size=arch.hidden_size,
    )


def serving_throughput(plan: Plan, workload: Workload) -> Throughput | None:
    """A vLLM or SGLang plan at `workload`; None where it does not start or the GPU's figures are not
    known. The cache holds sequences of the workload's tokens (blocks are taken as they fill); the
    users beyond those wait their turn."""
    gpu = plan.gpu
    if not plan.starts or plan.weights is None or gpu.bandwidth_bytes_per_second is None:
        return None
    stored = plan.weights.stored
    flops = compute_flops(gpu, stored, plan.model)
    if flops is None:
        return None
    cache = kv_read_cache(plan.model.architecture, plan.cache_dtype)
    work = _work(plan.model, stored, cache)
    hardware = Hardware(bandwidth=gpu.bandwidth_bytes_per_second, flops=flops, tensor=plan.split.tensor,
                        bandwidth_share=SERVING_BANDWIDTH_SHARE, peer_link=gpu.peer_link,
                        peer_bandwidth=gpu.peer_bandwidth_bytes_per_second)
    sequence = memory_at(plan, workload.input_tokens + workload.output_tokens, 1)["kv"]
    held = plan.available_kv_bytes // sequence if sequence else workload.users
    return throughput(work, hardware, workload, held)


def llama_cpp_throughput(plan: LlamaCppPlan, workload: Workload) -> Throughput | None:
    """A llama.cpp plan at `workload`, one slot per user (--parallel): its GPUs hold consecutive layers
    and run one after the other; the layers and experts in RAM are read by the CPU."""
    gpu, placed = plan.gpu, plan.placement
    flops = gpu.tensor_flops.get("bf16")
    if not plan.starts or placed is None or gpu.bandwidth_bytes_per_second is None or flops is None:
        return None
    share = expert_share(plan.model)
    cache = KvCache(bytes_per_token=plan.kv_bytes_per_token, window_bytes_per_token=0, window_tokens=0,
                    state_bytes=plan.state_bytes_per_user)
    arch = plan.model.architecture
    work = ModelWork(
        resident_bytes=round(placed.gpu_read - placed.gpu_experts * share), expert_bytes=placed.gpu_experts,
        expert_share=share, cache=cache, flops_per_token=flops_per_token(plan.model),
        attention_flops_per_token=attention_flops_per_token(arch), all_reduces_per_step=0, hidden_size=arch.hidden_size,
        ram_bytes=round(placed.ram_read - placed.ram_experts * share), ram_expert_bytes=placed.ram_experts,
    )
    # on unified memory the CPU reads its layers from the same memory (llama_cpp.py)
    ram = gpu.bandwidth_bytes_per_second if gpu.unified_memory else RAM_BANDWIDTH
    hardware = Hardware(bandwidth=gpu.bandwidth_bytes_per_second, flops=flops, tensor=1,
                        bandwidth_share=LLAMA_CPP_BANDWIDTH_SHARE, ram_bandwidth=ram)
    return throughput(work, hardware, workload, workload.users)
