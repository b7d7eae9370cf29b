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


@dataclass(frozen=True)
class FineTuningRule:
    """Bytes per parameter, times a factor for what comes on top (QLoRA 0.5 × 1.4)."""

    bytes_per_param: Fraction
    factor: Fraction = Fraction(1)


QLORA = FineTuningRule(Fraction(1, 2), Fraction(7, 5))
LORA = FineTuningRule(Fraction(2), Fraction(6, 5))
FULL_FINE_TUNING = FineTuningRule(Fraction(16))


@dataclass(frozen=True)
class HeadlineRule:
    """The constants of the rule, as the pages explain it."""

    serving_bytes_per_param: tuple[tuple[int, Fraction], ...]  # (bits, bytes per parameter)
    serving_overhead: Fraction  # the share added for the KV cache and activations (0.2)
    qlora: FineTuningRule = QLORA
    lora: FineTuningRule = LORA
    full_fine_tuning: FineTuningRule = FULL_FINE_TUNING


def _bytes(params: int, bytes_per_param: Fraction) -> int:
    return round(params * bytes_per_param)


def bytes_per_param(bits: int) -> Fraction:
    return Fraction(bits, 8)


RULE = HeadlineRule(tuple((bits, bytes_per_param(bits)) for bits in SERVING_BITS), SERVING_OVERHEAD - 1)


def serving_bytes(params: int, bits: int) -> int:
    """Memory to serve `params` weights stored at `bits` bits, KV cache and activations included."""
    return _bytes(params, bytes_per_param(bits) * SERVING_OVERHEAD)


def fine_tuning_bytes(params: int, rule: FineTuningRule) -> int:
    return _bytes(params, rule.bytes_per_param * rule.factor)


@dataclass(frozen=True)
class HeadlineSizing:
    serving_bytes: dict[int, int]  # bits -> bytes, for 16, 8 and 4 bits
    qlora_bytes: int
    lora_bytes: int
    full_fine_tuning_bytes: int


def headline_sizing(params: int) -> HeadlineSizing:
    return HeadlineSizing(
        serving_bytes={bits: serving_bytes(params, bits) for bits in SERVING_BITS},
        qlora_bytes=fine_tuning_bytes(params, QLORA),
        lora_bytes=fine_tuning_bytes(params, LORA),
        full_fine_tuning_bytes=fine_tuning_bytes(params, FULL_FINE_TUNING),
    )
