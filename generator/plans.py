"""Which GPUs, how many, at what price: pure choices over the GPU catalog."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from generator import paths
from generator.records import Gpu


@dataclass(frozen=True)
class Setup:
    gpu: Gpu
    count: int  # GPUs in one machine

    @property
    def gpu_page(self) -> str:
        return paths.gpu_page(self.gpu.slug)

    @property
    def memory_bytes(self) -> int:
        return self.gpu.memory_bytes * self.count

    @property
    def price_per_hour(self) -> Decimal | None:
        price = self.gpu.price_per_gpu_hour
        return None if price is None else price * self.count


def gpus_needed(required_bytes: int, gpu: Gpu) -> int | None:
    """The smallest machine shape of `gpu` whose memory holds `required_bytes`, or None."""
    for count in gpu.machine_shapes:
        if gpu.memory_bytes * count >= required_bytes:
            return count
    return None


def smallest_setup(required_bytes: int, gpus: tuple[Gpu, ...]) -> Setup | None:
    """The cheapest single machine that holds `required_bytes`; ties go to fewer GPUs.

    Only GPUs with a known price compete. None means no single machine of the catalog holds it.
    Remaining ties keep catalog order, so the choice is deterministic.
    """
    candidates = []
    for order, gpu in enumerate(gpus):
        count = gpus_needed(required_bytes, gpu)
        if count is not None and gpu.price_per_gpu_hour is not None:
            setup = Setup(gpu, count)
            candidates.append((setup.price_per_hour, count, order, setup))
    return min(candidates, key=lambda c: c[:3])[3] if candidates else None
