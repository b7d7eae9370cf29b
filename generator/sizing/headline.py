"""The headline sizing rule of the seed page: pure arithmetic on a parameter count, in bytes.

Every result is a whole number of bytes; GB (10^9 bytes) appear only when a page formats them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

SERVING_BITS = (16, 8, 4)

# NOTE: the seed page serves at P × bits/8 × 1.2, "including about 20 % for the KV cache and
# activations"; fine-tuning is QLoRA P × 0.5 × 1.4, LoRA P × 2 × 1.2 and full fine-tuning with
# Adam P × 16 (weights, gradients, two optimizer moments and master weights; no activations).
SERVING_OVERHEAD = Fraction(6, 5)
QLORA_BYTES_PER_PARAM = Fraction(1, 2) * Fraction(7, 5)
LORA_BYTES_PER_PARAM = 2 * Fraction(6, 5)
FULL_FINE_TUNING_BYTES_PER_PARAM = Fraction(16)


def _bytes(params: int, bytes_per_param: Fraction) -> int:
    return round(params * bytes_per_param)


def serving_bytes(params: int, bits: int) -> int:
    """Memory to serve `params` weights stored at `bits` bits, KV cache and activations included."""
    return _bytes(params, Fraction(bits, 8) * SERVING_OVERHEAD)


@dataclass(frozen=True)
class HeadlineSizing:
    serving_bytes: dict[int, int]  # bits -> bytes, for 16, 8 and 4 bits
    qlora_bytes: int
    lora_bytes: int
    full_fine_tuning_bytes: int


def headline_sizing(params: int) -> HeadlineSizing:
    return HeadlineSizing(
        serving_bytes={bits: serving_bytes(params, bits) for bits in SERVING_BITS},
        qlora_bytes=_bytes(params, QLORA_BYTES_PER_PARAM),
        lora_bytes=_bytes(params, LORA_BYTES_PER_PARAM),
        full_fine_tuning_bytes=_bytes(params, FULL_FINE_TUNING_BYTES_PER_PARAM),
    )
