"""Bytes of weights stored in a checkpoint format, scale overhead included; the formats table.

Pure arithmetic over the tensors of weights.py. Quantized formats apply to matrices; vectors
(norms, biases) stay in BF16, as in published checkpoints.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from types import MappingProxyType
from typing import Mapping

from generator.catalog.records import COMPONENTS, Model
from generator.sizing.weights import Tensors, tensors


@dataclass(frozen=True)
class Format:
    key: str
    bits: int  # bits per value, scales excluded
    group: tuple[int, int] | None = None  # values sharing one scale: (rows, cols) of a block
    scale_bytes: int = 0

    @property
    def scale_bits(self) -> int:
        return 8 * self.scale_bytes

    @property
    def group_values(self) -> int | None:
        """Values that share one scale (128 × 128 = 16,384 for FP8 blocks, 32 for MXFP4)."""
        return None if self.group is None else self.group[0] * self.group[1]


# NOTE: FP8 e4m3 with one float32 scale per 128 × 128 block (DeepSeek-V3 README_WEIGHTS.md);
# MXFP4: 4-bit E2M1 values with one 8-bit E8M0 scale per 32 values (OCP Microscaling spec);
# "q2": 2-bit values with a 16-bit scale per 32 values (2.5 bits per weight), a stand-in for the
# low-bit community quantizations seed 000 discusses.
FORMATS: Mapping[str, Format] = MappingProxyType({
    "f32": Format("f32", 32),
    "bf16": Format("bf16", 16),
    "fp8_block128": Format("fp8_block128", 8, (128, 128), 4),
    "mxfp4": Format("mxfp4", 4, (32, 1), 1),
    "q2": Format("q2", 2, (32, 1), 2),
})
KEPT_FORMAT = "bf16"  # vectors, and whatever a plan leaves out, stay at 16 bits


def tensor_bytes(tensor: Tensors, format_key: str) -> int:
    fmt = FORMATS[format_key]
    if tensor.cols == 1 and fmt.bits < FORMATS[KEPT_FORMAT].bits:
        fmt = FORMATS[KEPT_FORMAT]
    values = tensor.params * fmt.bits // 8
    if fmt.group is None:
        return values
    group_rows, group_cols = fmt.group
    blocks = ceil(tensor.rows / group_rows) * ceil(tensor.cols / group_cols) * tensor.count
    return values + blocks * fmt.scale_bytes


def bytes_by_component(model: Model, formats: Mapping[str, str], default: str) -> dict[str, int]:
    totals = dict.fromkeys(COMPONENTS, 0)
    for tensor in tensors(model):
        totals[tensor.component] += tensor_bytes(tensor, formats.get(tensor.component, default))
    return totals


# The rows of the formats table (seed 000, step 1): every weight at one format, the published
# checkpoint, and a mixed ~2-bit quantization that keeps attention and the trunk at 8 bits.
_MATRICES = ("attention", "dense_mlp", "routed_experts", "shared_experts", "extra_layers", "vision")
FORMAT_PLANS: Mapping[str, tuple[Mapping[str, str], str]] = MappingProxyType(
    {
        "bf16": (MappingProxyType({}), "bf16"),
        "fp8": (MappingProxyType(dict.fromkeys(_MATRICES, "fp8_block128")), "bf16"),
        "4bit": (MappingProxyType(dict.fromkeys(_MATRICES, "mxfp4")), "bf16"),
    }
)


def _two_bit_plan(model: Model) -> Mapping[str, str]:
    low = "routed_experts" if model.architecture.moe else "dense_mlp"
    return {**dict.fromkeys(_MATRICES, "fp8_block128"), low: "q2"}


@dataclass(frozen=True)
class FormatSize:
    key: str  # "bf16", "fp8", "native", "4bit", "2bit"
    bytes: int
    by_component: dict[str, int]


def format_plan(model: Model, key: str) -> tuple[Mapping[str, str], str]:
    """(format per component, format of the rest) of a row of the formats table."""
    if key == "native":
        return model.architecture.formats, model.architecture.default_format
    if key == "2bit":
        return _two_bit_plan(model), KEPT_FORMAT
    return FORMAT_PLANS[key]


def native_bytes(model: Model) -> dict[str, int]:
    return bytes_by_component(model, *format_plan(model, "native"))


def format_table(model: Model) -> tuple[FormatSize, ...]:
    """Weights of the model in each format, largest first (native sits where its size puts it)."""
    keys = (*FORMAT_PLANS, "native", "2bit")
    by_key = {key: bytes_by_component(model, *format_plan(model, key)) for key in keys}
    sized = [FormatSize(key, sum(parts.values()), parts) for key, parts in by_key.items()]
    return tuple(sorted(sized, key=lambda r: (-r.bytes, r.key)))
