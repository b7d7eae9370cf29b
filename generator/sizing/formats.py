"""Bytes of weights stored in a checkpoint format, scale overhead included; the formats table.

Pure arithmetic over the tensors of weights.py. Quantized formats apply to matrices; vectors
(norms, biases) stay in BF16, as in published checkpoints.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import ceil
from types import MappingProxyType
from typing import Iterator, Mapping, NamedTuple

from generator.catalog.records import COMPONENTS, Architecture, Model
from generator.sizing.weights import Tensors, tensors


@dataclass(frozen=True)
class Format:
    key: str
    bits: int  # bits per value, scales excluded
    # values sharing one scale: (rows, cols) of a block; 0 spans the whole dimension (a scale per
    # column or per tensor)
    group: tuple[int, int] | None = None
    scale_bits: int = 0  # per block: the scale, and the zero point where the format has one

    @property
    def group_values(self) -> int | None:
        """Values that share one scale (128 × 128 = 16,384 for FP8 blocks, 32 for MXFP4)."""
        return None if self.group is None else self.group[0] * self.group[1]


# NOTE: FP8 e4m3 with one float32 scale per 128 × 128 block (DeepSeek-V3 README_WEIGHTS.md);
# MXFP4: 4-bit E2M1 values with one 8-bit E8M0 scale per 32 values (OCP Microscaling spec);
# "q2": 2-bit values with a 16-bit scale per 32 values (2.5 bits per weight), a stand-in for the
# low-bit community quantizations seed 000 discusses.
# The quantized checkpoints' schemes (records.CHECKPOINT_SCHEMES), as their files store them:
# fp8_channel: one float32 scale per output channel (llm-compressor FP8_DYNAMIC, Meta's
# fbgemm_fp8); fp8_tensor: one float32 scale per tensor (ModelOpt FP8, vLLM's --quantization fp8);
# int8_channel: one 16-bit scale per channel (W8A8); int4_g128: a 16-bit scale per 128 values
# (compressed-tensors W4A16), and with a 4-bit zero point besides (AWQ, GPTQ's qzeros) int4_g128_zp;
# int8_g128_zp: GPTQ at 8 bits, a 16-bit scale and an 8-bit zero point per 128 values;
# nvfp4: one FP8 scale per 16 values (ModelOpt NVFP4; its one float32 per tensor is left out);
# fp8_block128_e8m0: FP8 blocks of 128 × 128 with a one-byte power-of-two (UE8M0) scale each
# (DeepSeek-V4's quantization_config scale_fmt "ue8m0"; its safetensors store F8_E8M0 scales).
FORMATS: Mapping[str, Format] = MappingProxyType({
    "f32": Format("f32", 32),
    "bf16": Format("bf16", 16),
    "fp8_block128": Format("fp8_block128", 8, (128, 128), 32),
    "fp8_block128_e8m0": Format("fp8_block128_e8m0", 8, (128, 128), 8),
    "fp8_channel": Format("fp8_channel", 8, (0, 1), 32),
    "fp8_tensor": Format("fp8_tensor", 8, (0, 0), 32),
    "int8_channel": Format("int8_channel", 8, (0, 1), 16),
    "int8_g128_zp": Format("int8_g128_zp", 8, (128, 1), 24),
    "int4_g128": Format("int4_g128", 4, (128, 1), 16),
    "int4_g128_zp": Format("int4_g128_zp", 4, (128, 1), 20),
    "nvfp4": Format("nvfp4", 4, (16, 1), 8),
    "mxfp4": Format("mxfp4", 4, (32, 1), 8),
    "q2": Format("q2", 2, (32, 1), 16),
})
KEPT_FORMAT = "bf16"  # vectors, and whatever a plan leaves out, stay at 16 bits


def tensor_bytes(tensor: Tensors, format_key: str) -> int:
    fmt = FORMATS[tensor.stored or format_key]  # a tensor every format keeps as the checkpoint does
    if tensor.cols == 1 and fmt.bits < FORMATS[KEPT_FORMAT].bits:
        fmt = FORMATS[KEPT_FORMAT]
    values = tensor.params * fmt.bits // 8
    if fmt.group is None:
        return values
    group_rows, group_cols = fmt.group
    blocks = ceil(tensor.rows / (group_rows or tensor.rows)) * ceil(tensor.cols / (group_cols or tensor.cols)) * tensor.count
    return values + blocks * fmt.scale_bits // 8


class StoredFormats(NamedTuple):
    """How a checkpoint stores its weights: a format per component, the format of the rest, and the
    layers whose quantized components it keeps at 16 bits all the same (Meta's FP8 Llama-3.1-405B
    keeps its first and last layers' MLP in BF16)."""

    formats: Mapping[str, str]
    default: str = KEPT_FORMAT
    layers_kept: tuple[int, ...] = ()
    # the prediction layers' tensors take the format of their part of the main layers (DeepSeek-V4's
    # MTP layer: FP8 attention, MXFP4 experts) instead of one format for "extra_layers"
    prediction_like_layers: bool = False

    def format_of(self, component: str) -> str:
        return self.formats.get(component, self.default)

    def format_for(self, tensor: Tensors) -> str:
        """The format one tensor is stored in."""
        if tensor.prediction and tensor.role and self.prediction_like_layers:
            return self.format_of(tensor.role)
        return self.format_of(tensor.component)


def _span(arch: Architecture, component: str) -> range | None:
    """The layers a component's per-layer tensors run over (dense MLP layers lead, MoE ones follow)."""
    if component == "dense_mlp":
        return range(arch.dense_mlp_layers)
    if component in ("routed_experts", "shared_experts", "router_and_norms") and arch.moe is not None:
        return range(arch.dense_mlp_layers, arch.layers)
    if component == "attention" and arch.linear_attention is None:
        return range(arch.layers)
    return None


def stored_tensors(model: Model, stored: StoredFormats) -> Iterator[tuple[Tensors, str]]:
    """Every tensor of the model with the format it is stored in; a tensor of a quantized component
    is cut in two where some of its layers are kept at 16 bits."""
    for tensor in tensors(model):
        fmt = stored.format_for(tensor)
        span = _span(model.architecture, tensor.component) if stored.layers_kept and fmt != KEPT_FORMAT else None
        kept = sum(layer in span for layer in stored.layers_kept) if span else 0
        if not kept or tensor.count % len(span):
            yield tensor, fmt
            continue
        kept_count = tensor.count // len(span) * kept
        yield replace(tensor, count=tensor.count - kept_count), fmt
        yield replace(tensor, count=kept_count), KEPT_FORMAT


def bytes_by_component(model: Model, stored: StoredFormats, prediction: bool = True) -> dict[str, int]:
    """The checkpoint's bytes by component; `prediction` False: without the multi-token-prediction
    layers and their own embeddings and head (what a generated token reads)."""
    totals = dict.fromkeys(COMPONENTS, 0)
    for tensor, fmt in stored_tensors(model, stored):
        if prediction or not tensor.prediction:
            totals[tensor.component] += tensor_bytes(tensor, fmt)
    return totals


# The rows of the formats table (seed 000, step 1): every weight at one format, the published
# checkpoint, and a mixed ~2-bit quantization that keeps attention and the trunk at 8 bits.
_MATRICES = ("attention", "dense_mlp", "routed_experts", "shared_experts", "extra_layers", "vision")
FORMAT_PLANS: Mapping[str, StoredFormats] = MappingProxyType(
    {
        "bf16": StoredFormats(MappingProxyType({})),
        "fp8": StoredFormats(MappingProxyType(dict.fromkeys(_MATRICES, "fp8_block128"))),
        "4bit": StoredFormats(MappingProxyType(dict.fromkeys(_MATRICES, "mxfp4"))),
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


def format_plan(model: Model, key: str) -> StoredFormats:
    """How a row of the formats table stores the weights."""
    if key == "native":
        return published_formats(model)
    if key == "2bit":
        return StoredFormats(_two_bit_plan(model))
    return FORMAT_PLANS[key]


def published_formats(model: Model) -> StoredFormats:
    """The published checkpoint's formats; its prediction layers are stored like the main layers
    unless the catalog gives them a format of their own."""
    arch = model.architecture
    return StoredFormats(arch.formats, arch.default_format, prediction_like_layers="extra_layers" not in arch.formats)


def native_bytes(model: Model) -> dict[str, int]:
    return bytes_by_component(model, published_formats(model))


def format_table(model: Model) -> tuple[FormatSize, ...]:
    """Weights of the model in each format, largest first (native sits where its size puts it)."""
    keys = (*FORMAT_PLANS, "native", "2bit")
    by_key = {key: bytes_by_component(model, format_plan(model, key)) for key in keys}
    sized = [FormatSize(key, sum(parts.values()), parts) for key, parts in by_key.items()]
    return tuple(sorted(sized, key=lambda r: (-r.bytes, r.key)))
