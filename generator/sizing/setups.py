"""Which GPUs, how many, at what price: pure choices over the GPU catalog."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from math import ceil
from typing import Iterable, NamedTuple, TypeVar

from generator.catalog.records import Architecture, Gpu

# NOTE: seed 000 puts the runtime's own use of GPU memory (activation buffers, CUDA graph
# workspace, allocator fragmentation) at 5 % to 15 % of it; the `size` command keeps 10 %. The
# pages' setups follow the engines' own accounting instead (planner.py).
RUNTIME_OVERHEAD = Fraction(1, 10)
USABLE_SHARE = 1 - RUNTIME_OVERHEAD  # of GPU memory, for weights and KV cache
MACHINE_SIZE = 8  # GPUs in the largest machine the headline considers ("8-GPU machine")
MAX_MACHINES = 64  # the most machines of one GPU type a page plans with, before it says "does not fit"
T = TypeVar("T")


@dataclass(frozen=True)
class Setup:
    gpu: Gpu
    gpus_per_machine: int
    machines: int = 1

    @property
    def total_gpus(self) -> int:
        return self.gpus_per_machine * self.machines

    @property
    def memory_bytes(self) -> int:
        return self.gpu.gpu_memory_bytes * self.total_gpus

    @property
    def bandwidth_per_machine(self) -> int | None:
        bandwidth = self.gpu.bandwidth_bytes_per_second
        return None if bandwidth is None else bandwidth * self.gpus_per_machine

    @property
    def price_per_hour(self) -> Decimal | None:
        price = self.gpu.price_per_gpu_hour
        return None if price is None else price * self.total_gpus


def gpus_needed(required_bytes: int, gpu: Gpu, usable: Fraction = Fraction(1)) -> int | None:
    """The smallest machine shape of `gpu` whose usable memory holds `required_bytes`, or None."""
    # memory × count × usable ≥ required, in integers (a Fraction per comparison is most of the time
    # the indexes take to choose every model's setup)
    share, whole = usable.numerator, usable.denominator
    for count in gpu.machine_shapes:
        if gpu.gpu_memory_bytes * count * share >= required_bytes * whole:
            return count
    return None


def gpus_for_weights(weights_bytes: int, gpu: Gpu) -> int:
    """GPUs whose memory adds up to the weights alone (seed 000, step 3: 1,400 GB ÷ 80 GB)."""
    return ceil(weights_bytes / gpu.gpu_memory_bytes)


def machine_plan(required_bytes: int, gpu: Gpu, usable: Fraction = Fraction(1)) -> Setup:
    """One machine if a shape holds it, else as many of the largest machines as it takes."""
    count = gpus_needed(required_bytes, gpu, usable)
    if count is not None:
        return Setup(gpu, count)
    largest = gpu.machine_shapes[-1]
    return Setup(gpu, largest, -(-required_bytes * usable.denominator // (gpu.gpu_memory_bytes * largest * usable.numerator)))


def cheapest(candidates: Iterable[tuple[Setup, T]]) -> T | None:
    """Of (setup, value) pairs in catalog order, the value of the cheapest single machine; when none
    is one machine, of the cheapest group of 8-GPU machines (the servers whose GPUs share one NVLink
    or Infinity Fabric domain, seed 000 step 3). Only priced setups compete; ties go to fewer GPUs,
    then to catalog order."""
    single, several = [], []
    for order, (setup, value) in enumerate(candidates):
        if setup.price_per_hour is None:
            continue
        key = (setup.price_per_hour, setup.total_gpus, order)
        if setup.machines == 1:
            single.append((key, value))
        elif setup.gpu.machine_shapes[-1] == MACHINE_SIZE:
            several.append((key, value))
    pool = single or several
    return min(pool, key=lambda candidate: candidate[0])[1] if pool else None


def cheapest_setup(
    required_bytes: int, gpus: tuple[Gpu, ...], usable: Fraction = Fraction(1), multi_node: bool = False
) -> Setup | None:
    """The cheapest single machine that holds `required_bytes` (see `cheapest`); when no single
    machine holds it and `multi_node` is set, the cheapest group of 8-GPU machines; else None."""
    plans = (machine_plan(required_bytes, gpu, usable) for gpu in gpus)
    return cheapest((setup, setup) for setup in plans if multi_node or setup.machines == 1)


def machine_shapes(gpus: tuple[Gpu, ...]) -> tuple[int, ...]:
    """The machine sizes the cheapest setup chooses among: every shape of a GPU with a price."""
    return tuple(sorted({count for gpu in gpus if gpu.price_per_gpu_hour is not None for count in gpu.machine_shapes}))


def smallest_setup(required_bytes: int, gpus: tuple[Gpu, ...]) -> Setup | None:
    """The headline's choice (seed page): the cheapest single machine that holds the requirement."""
    return cheapest_setup(required_bytes, gpus)


def tensor_parallel_fits(arch: Architecture, size: int) -> bool:
    """Whether `size` GPUs can split the attention heads evenly (vLLM and SGLang require it).

    Query heads must divide by the size; KV heads must divide by it or, when fewer, divide it
    (each GPU then keeps a copy of a KV head); linear-attention heads (and groups) must divide by it.
    """
    attention = arch.attention
    if attention.heads % size:
        return False
    for kv in {attention.kv_heads, attention.global_layers.kv_heads}:  # Gemma 4's global layers have their own
        if attention.kind == "gqa" and kv % size and size % kv:
            return False
    linear = arch.linear_attention
    if linear is not None and linear.kind == "mamba2":
        # Mamba2 splits its heads; one group (or fewer groups than GPUs) is copied to every GPU
        # (vllm/model_executor/layers/mamba/mamba_mixer2.py: extra_groups_for_head_shards)
        return linear.value_heads % size == 0 and (linear.key_heads % size == 0 or linear.key_heads == 1)
    return linear is None or (linear.key_heads % size == 0 and linear.value_heads % size == 0)


class ParallelSplit(NamedTuple):
    """How a setup's GPUs share the model: tensor × pipeline = every GPU of the setup."""

    tensor: int  # GPUs one layer is split over, inside one machine
    pipeline: int  # stages of consecutive layers, across machines or where heads do not split


def tensor_parallel_size(arch: Architecture, gpus_per_machine: int) -> int:
    """Tensor parallel inside a machine, as wide as the heads allow."""
    return max(size for size in range(1, gpus_per_machine + 1) if gpus_per_machine % size == 0 and tensor_parallel_fits(arch, size))


def parallel_sizes(arch: Architecture, setup: Setup) -> ParallelSplit:
    """Tensor parallel inside a machine, as wide as the heads allow; pipeline stages for the rest."""
    tensor = tensor_parallel_size(arch, setup.gpus_per_machine)
    return ParallelSplit(tensor, setup.total_gpus // tensor)
