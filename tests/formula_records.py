"""Tiny hand-sized records for the formula tests (tests/test_formulas_*.py); not a test module.

Every builder starts from one small base and takes keyword changes, so a test row names only
what it varies. The numbers are chosen so that rows and columns differ (a swapped shape shows)
and every figure can be worked out by hand:

    base architecture: 2 layers, hidden 16, vocabulary 100, untied head, dense MLP of 40,
    2 norms per layer; GQA with 4 query heads, 1 KV head of 6 (q width 24, kv width 6).
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from generator.catalog.records import (
    Architecture,
    Attention,
    Gpu,
    LinearAttention,
    MixtureOfExperts,
    Model,
    VisionTower,
)

# Written out here rather than imported, so that a component dropped from the code's tuple shows.
COMPONENT_NAMES = (
    "embeddings",
    "attention",
    "dense_mlp",
    "routed_experts",
    "shared_experts",
    "router_and_norms",
    "output_head",
    "extra_layers",
    "vision",
)


def by_component(**nonzero: int) -> dict[str, int]:
    """A full component dict: the given values, 0 for every other component."""
    unknown = set(nonzero) - set(COMPONENT_NAMES)
    assert not unknown, unknown
    return {name: nonzero.get(name, 0) for name in COMPONENT_NAMES}


def gqa(**changes) -> Attention:
    return replace(Attention(kind="gqa", heads=4, kv_heads=1, head_dim=6), **changes)


def mla(**changes) -> Attention:
    base = Attention(
        kind="mla",
        heads=4,
        q_lora_rank=14,
        kv_lora_rank=10,
        qk_nope_head_dim=6,
        qk_rope_head_dim=2,
        v_head_dim=5,
    )
    return replace(base, **changes)


def linear(kind: str = "gated_deltanet", **changes) -> LinearAttention:
    base = LinearAttention(
        kind=kind, layers=1, key_heads=2, value_heads=3, key_head_dim=4, value_head_dim=5, conv_kernel=4
    )
    return replace(base, **changes)


def moe(**changes) -> MixtureOfExperts:
    """An MoE block of experts 8 wide; `model` gives the counts: 4 experts, 2 per token."""
    return replace(MixtureOfExperts(expert_intermediate_size=8), **changes)


def vision(**changes) -> VisionTower:
    return replace(VisionTower(layers=2, hidden_size=8, intermediate_size=12, patch_size=2), **changes)


def arch(**changes) -> Architecture:
    base = Architecture(
        layers=2,
        hidden_size=16,
        vocab_size=100,
        tied_embeddings=False,
        attention=gqa(),
        intermediate_size=40,
    )
    return replace(base, **changes)


def model(architecture: Architecture, params: int = 0, **changes) -> Model:
    """A model of `architecture`; with an MoE block, 4 routed experts and 2 per token."""
    base = Model(
        id="test/tiny",
        name="Tiny",
        slug="tiny",
        weights_url="https://example.org/tiny",
        params=params,
        architecture=architecture,
        experts=4 if architecture.moe else None,
        experts_per_token=2 if architecture.moe else None,
    )
    return replace(base, **changes)


def gpu(
    slug: str,
    memory_bytes: int,
    price: str | None = None,
    shapes: tuple[int, ...] = (1, 2, 4, 8),
    bandwidth: int | None = None,
) -> Gpu:
    return Gpu(
        slug=slug,
        name=slug.upper(),
        vendor="Test",
        memory_bytes=memory_bytes,
        machine_shapes=shapes,
        bandwidth_bytes_per_second=bandwidth,
        price_per_gpu_hour=None if price is None else Decimal(price),
    )
