"""The weights a plan at one precision serves: the published checkpoint, a quantized checkpoint the
catalog lists for the model, or the engine quantizing the published 16-bit weights to FP8 as it
loads them. Never other weights than the verdict is for: where none of these exists, there is no
plan at that precision. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from generator.catalog.records import Checkpoint, Model
from generator.sizing.engine import Engine
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.formats import FORMATS, KEPT_FORMAT, StoredFormats, format_plan, published_formats

# The precisions a plan is asked for (`plan --precision`, the calculator's menu) and their bits.
PRECISION_BITS = MappingProxyType({"bf16": 16, "fp8": 8, "4bit": 4})
PUBLISHED = "published"  # the model's own repo, as its maker stores it
CHECKPOINT = "checkpoint"  # a quantized checkpoint of the catalog
ON_THE_FLY = "on_the_fly"  # the published 16-bit weights, quantized by the engine as it loads them
# vLLM's --quantization fp8 on a 16-bit checkpoint: the matrices of the linear and MoE layers to
# FP8 with one scale per tensor; the embeddings and the output head (not linear layers) stay at 16
# bits (vllm/model_executor/layers/quantization/fp8.py, Fp8Config.get_quant_method). Since vLLM
# PR #31914 the 16-bit weights stream in layer by layer, so the peak is the FP8 model (PR #37851).
ON_THE_FLY_PARTS = ("attention", "dense_mlp", "routed_experts", "shared_experts")


@dataclass(frozen=True)
class ServedWeights:
    """What the command serves: a repo, how its weights are stored, and the flags they need."""

    repo: str
    origin: str  # PUBLISHED, CHECKPOINT or ON_THE_FLY
    stored: StoredFormats
    precision: str  # the bits class: "bf16", "fp8" or "4bit"
    checkpoint: Checkpoint | None = None
    flags: tuple[tuple[str, str], ...] = ()
    # the KV cache type these weights make the engine keep with --kv-cache-dtype auto: a checkpoint's
    # kv_cache_scheme, or FP8 for DeepSeek-V4, whose attention vLLM runs on fp8_ds_mla rows only
    # (vLLM 0.33.0 models/deepseek_v4/attention.py: "auto" and "fp8" both become fp8_ds_mla)
    kv_cache_dtype: str | None = None

    @property
    def bits(self) -> int:
        return PRECISION_BITS[self.precision]


def bits_class(stored: StoredFormats) -> str:
    """"bf16", "fp8" or "4bit": the fewest bits any matrix of the checkpoint is stored in."""
    bits = min(FORMATS[key].bits for key in (stored.default, *stored.formats.values()))
    return "4bit" if bits <= 4 else "fp8" if bits <= 8 else "bf16"


def checkpoint_formats(checkpoint: Checkpoint) -> StoredFormats:
    """The quantized components in the checkpoint's scheme, everything else at 16 bits."""
    return StoredFormats(MappingProxyType(dict.fromkeys(checkpoint.quantized, checkpoint.scheme)), KEPT_FORMAT,
                         checkpoint.layers_kept)


def _own_kv_dtype(model: Model) -> str | None:
    return "fp8" if model.architecture.attention.kind == "compressed" else None


def published_weights(model: Model) -> ServedWeights:
    stored = published_formats(model)
    return ServedWeights(model.id, PUBLISHED, stored, bits_class(stored), kv_cache_dtype=_own_kv_dtype(model))


def listed_weights(model: Model, checkpoint: Checkpoint) -> ServedWeights:
    stored = checkpoint_formats(checkpoint)
    return ServedWeights(checkpoint.id, CHECKPOINT, stored, bits_class(stored), checkpoint,
                         kv_cache_dtype=checkpoint.kv_cache_dtype or _own_kv_dtype(model))


def served_weights(model: Model, precision: str, engine: Engine, repo: str | None = None) -> ServedWeights | None:
    """The weights a plan at `precision` ("native" or a PRECISION_BITS key) serves with `engine`:
    the published checkpoint when it is of that precision, else the first catalog checkpoint of it,
    else (8 bits, a 16-bit published checkpoint, an engine that can) on-the-fly FP8; None when there
    is none. `repo` picks one of the model's checkpoints by id instead."""
    published = published_weights(model)
    if repo is not None:
        if repo == model.id:
            return published
        return next((listed_weights(model, c) for c in model.checkpoints if c.id == repo), None)
    if precision in ("native", published.precision):
        return published
    for checkpoint in model.checkpoints:
        listed = listed_weights(model, checkpoint)
        if listed.precision == precision:
            return listed
    if precision == "fp8" and published.precision == "bf16" and engine.on_the_fly_fp8:
        stored = StoredFormats(MappingProxyType(dict.fromkeys(ON_THE_FLY_PARTS, "fp8_tensor")))
        return ServedWeights(model.id, ON_THE_FLY, stored, "fp8", None, engine.on_the_fly_fp8)
    return None


def cache_dtype(kv_dtype: str, served: ServedWeights | None, engine: Engine) -> str:
    """The KV cache type the engine keeps for `--kv-cache-dtype kv_dtype`: "auto" is the served
    weights' own where they ask for one and the engine reads it (vLLM)."""
    if kv_dtype == "auto" and engine.checkpoint_kv_dtype and served and served.kv_cache_dtype:
        return served.kv_cache_dtype
    return kv_dtype


def served_precisions(model: Model, engine: Engine) -> tuple[str, ...]:
    """The precisions of PRECISION_BITS a plan can serve with `engine`, most bits first."""
    return tuple(key for key in PRECISION_BITS if served_weights(model, key, engine) is not None)


def sized_formats(model: Model, precision: str) -> StoredFormats:
    """The formats a plan's figures use: those of the weights an engine serves at `precision` (the
    same for all that serve one), else the formats table's row, for a plan that does not start for
    want of a checkpoint."""
    served = (served_weights(model, precision, engine) for engine in SERVING_ENGINES.values())
    return next((weights.stored for weights in served if weights is not None), None) or format_plan(model, precision)
