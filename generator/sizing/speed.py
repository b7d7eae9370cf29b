"""Upper bounds on decode speed from memory bandwidth, and what a token then costs. Pure math.

Decoding one token reads every active weight and the sequence's KV cache once, so a sequence
cannot decode faster than bandwidth / bytes read per token (seed 000, step 5: "generation is
bound by memory bandwidth, not FLOPs").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

from generator.catalog.records import Architecture, Model
from generator.sizing.engine import kv_dtype_bytes
from generator.sizing.formats import StoredFormats, bytes_by_component
from generator.sizing.kv_cache import KvCache, kv_cache
from generator.sizing.layer_kinds import CompressedLayers, layer_kinds

# NOTE: seed 000, step 5: system RAM reached over PCIe gives ~30 to 60 GB/s, NVMe ~3 to 14 GB/s.
OFFLOAD_BANDWIDTHS = MappingProxyType({
    "ram": (30 * 10**9, 60 * 10**9),
    "nvme": (3 * 10**9, 14 * 10**9),
})
# Weights that a generated token does not read: one embedding row is negligible, the vision
# tower runs on images only, and multi-token-prediction layers serve speculative decoding.
NOT_READ = ("embeddings", "vision", "extra_layers")


@dataclass(frozen=True)
class TokenRead:
    """Bytes one generated token reads."""

    resident_bytes: int  # weights on the GPUs: attention, dense and shared layers, head...
    expert_bytes: int  # the routed experts the router picks (what offloading moves off the GPU)
    kv_bytes: int

    @property
    def weights_bytes(self) -> int:
        return self.resident_bytes + self.expert_bytes

    @property
    def total(self) -> int:
        return self.weights_bytes + self.kv_bytes


def token_read(model: Model, weight_bytes: dict[str, int], cache: KvCache, context: int) -> TokenRead:
    """What one token reads: `weight_bytes` by component without the prediction layers
    (formats.bytes_by_component(..., prediction=False))."""
    arch = model.architecture
    active = Fraction(model.experts_per_token, model.experts) if arch.moe else Fraction(0)
    resident = sum(v for k, v in weight_bytes.items() if k not in NOT_READ and k != "routed_experts")
    if arch.tied_embeddings:  # the embedding table is also the output head, read whole per token
        resident += weight_bytes["embeddings"]
    return TokenRead(
        resident_bytes=resident,
        expert_bytes=round(weight_bytes["routed_experts"] * active),
        kv_bytes=cache.sequence_bytes(context),
    )


def weights_read_bytes(model: Model, stored: StoredFormats) -> int:
    """The weights one generated token reads, stored as a checkpoint stores them (formats.py)."""
    return token_read(model, bytes_by_component(model, stored, prediction=False), kv_cache(model.architecture), 0).weights_bytes


def kv_read_cache(arch: Architecture, kv_dtype: str) -> KvCache:
    """The cache one generated token reads, at the KV type asked (the state too: kv_cache.py). A
    DeepSeek-V4 layer of ratio 4 reads its indexer's key of every 4 tokens but only index_topk of
    its compressed rows (sparse attention: vLLM 0.33.0 models/deepseek_v4/nvidia/flashmla.py reads
    the rows the indexer picks), as many whatever the context past index_topk × 4 tokens."""
    cache = kv_cache(arch, 8 * kv_dtype_bytes(kv_dtype))
    if arch.attention.kind != "compressed":
        return cache
    per_token, picked = 0, 0
    for kind in layer_kinds(arch):
        if isinstance(kind, CompressedLayers):
            per_token += kind.layers * (kind.indexer if kind.indexer else kind.row) // kind.ratio
            picked += kind.layers * arch.attention.indexer_top_k * kind.row if kind.indexer else 0
    size = kv_dtype_bytes(kv_dtype)
    return replace(cache, bytes_per_token=per_token * size, state_bytes=cache.state_bytes + picked * size)


def decode_tokens_per_second(bytes_read: int, bandwidth: int) -> float:
    """One sequence reading `bytes_read` per token, everything on GPUs whose combined bandwidth is
    `bandwidth` bytes/s."""
    return bandwidth / bytes_read


def offloaded_tokens_per_second(read: TokenRead, gpu_bandwidth: int, link_bandwidth: int) -> float:
    """One sequence with the routed experts in system RAM or on NVMe, read over `link_bandwidth`."""
    seconds = read.expert_bytes / link_bandwidth + (read.resident_bytes + read.kv_bytes) / gpu_bandwidth
    return 1 / seconds


def price_per_million_tokens(price_per_hour: Decimal, tokens_per_second: float) -> Decimal:
    tokens_per_hour = Decimal(str(tokens_per_second)) * 3600
    return (price_per_hour * 10**6 / tokens_per_hour).quantize(Decimal("0.01"))
