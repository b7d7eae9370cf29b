"""Bytes a generated token reads, decode and offload speed bounds, price per token: hand-computed."""

from decimal import Decimal

import pytest

from generator.sizing.detailed import detailed_sizing
from generator.sizing.kv_cache import KvCache
from generator.sizing.speed import (
    TokenRead,
    decode_tokens_per_second,
    offloaded_tokens_per_second,
    price_per_million_tokens,
    token_read,
)
from tests.formula_records import arch, gpu, model, moe

# Bytes per component, written by hand (not computed from a model): every value distinct.
WEIGHTS = {
    "embeddings": 1_000,
    "attention": 200,
    "dense_mlp": 300,
    "routed_experts": 8_000,
    "shared_experts": 50,
    "router_and_norms": 7,
    "output_head": 1_100,
    "extra_layers": 5_000,
    "vision": 4_000,
}
# At 20 tokens: 32 × 20 + 64 × 8 (window) + 100 (state) = 1,252 bytes.
CACHE = KvCache(bytes_per_token=32, window_bytes_per_token=64, window_tokens=8, state_bytes=100)


@pytest.mark.parametrize(
    "sized_model, weights, expected",
    [
        pytest.param(
            model(arch(moe=moe()), experts=8, experts_per_token=2),
            WEIGHTS,
            # resident: attention 200 + MLP 300 + shared 50 + router 7 + head 1,100 = 1,657
            # (not embeddings, vision, extra layers); experts 8,000 × 2 / 8 = 2,000
            TokenRead(resident_bytes=1_657, expert_bytes=2_000, kv_bytes=1_252),
            id="moe-untied",
        ),
        pytest.param(
            model(arch(tied_embeddings=True, moe=moe()), experts=8, experts_per_token=2),
            {**WEIGHTS, "output_head": 0},
            # the embedding table is the head: 200 + 300 + 50 + 7 + 1,000 = 1,557
            TokenRead(resident_bytes=1_557, expert_bytes=2_000, kv_bytes=1_252),
            id="moe-tied-reads-embeddings",
        ),
        pytest.param(
            model(arch(moe=moe()), experts=3, experts_per_token=2),
            {**WEIGHTS, "routed_experts": 1_000},
            TokenRead(resident_bytes=1_657, expert_bytes=667, kv_bytes=1_252),  # 1,000 × 2 / 3 = 666.7
            id="expert-share-rounds-up",
        ),
        pytest.param(
            model(arch(moe=moe()), experts=3, experts_per_token=1),
            {**WEIGHTS, "routed_experts": 1_000},
            TokenRead(resident_bytes=1_657, expert_bytes=333, kv_bytes=1_252),  # 1,000 / 3 = 333.3
            id="expert-share-rounds-down",
        ),
        pytest.param(
            model(arch()),
            {**WEIGHTS, "routed_experts": 0},
            TokenRead(resident_bytes=1_657, expert_bytes=0, kv_bytes=1_252),
            id="dense",
        ),
    ],
)
def test_token_read(sized_model, weights, expected):
    assert token_read(sized_model, weights, CACHE, 20) == expected


def test_token_read_kv_is_the_sequence_at_the_given_context():
    read = token_read(model(arch()), {**WEIGHTS, "routed_experts": 0}, CACHE, 5)
    assert read.kv_bytes == 580  # 32 × 5 + 64 × 5 + 100


def test_token_read_totals():
    read = TokenRead(resident_bytes=1_657, expert_bytes=2_000, kv_bytes=1_252)
    assert (read.weights_bytes, read.total) == (3_657, 4_909)


@pytest.mark.parametrize(
    "read, bandwidth, expected",
    [
        pytest.param(TokenRead(1_000, 2_000, 1_000), 8_000, 2.0, id="4000-bytes-at-8000"),
        pytest.param(TokenRead(1_000, 0, 0), 500, 0.5, id="slower-than-one"),
        pytest.param(TokenRead(300, 100, 100), 10**9, 2_000_000.0, id="fast"),
    ],
)
def test_decode_tokens_per_second(read, bandwidth, expected):
    assert decode_tokens_per_second(read.total, bandwidth) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "read, gpu_bandwidth, link_bandwidth, expected",
    [
        # 3,000 / 1,500 = 2 s for experts + (600 + 400) / 2,000 = 0.5 s on the GPU → 1 / 2.5
        pytest.param(TokenRead(600, 3_000, 400), 2_000, 1_500, 0.4, id="experts-over-the-link"),
        pytest.param(TokenRead(0, 3_000, 0), 2_000, 1_500, 0.5, id="experts-only"),
        pytest.param(TokenRead(600, 0, 400), 2_000, 1_500, 2.0, id="no-experts"),
        pytest.param(TokenRead(600, 3_000, 400), 2_000, 2_000, 0.5, id="link-as-fast-as-gpu"),
        # 1,000,000 expert bytes at the slow and fast ends of RAM (30 / 60 GB/s) and NVMe
        # (3 / 14 GB/s), the rest 2,000,000 bytes at 20 TB/s (0.1 µs)
        pytest.param(TokenRead(1_500_000, 1_000_000, 500_000), 20 * 10**12, 30 * 10**9, 29_910.269192, id="ram-slow"),
        pytest.param(TokenRead(1_500_000, 1_000_000, 500_000), 20 * 10**12, 60 * 10**9, 59_642.147117, id="ram-fast"),
        pytest.param(TokenRead(1_500_000, 1_000_000, 500_000), 20 * 10**12, 3 * 10**9, 2_999.100270, id="nvme-slow"),
        pytest.param(TokenRead(1_500_000, 1_000_000, 500_000), 20 * 10**12, 14 * 10**9, 13_980.427402, id="nvme-fast"),
    ],
)
def test_offloaded_tokens_per_second(read, gpu_bandwidth, link_bandwidth, expected):
    # e.g. ram-slow: 1 / (1,000,000 / 30e9 + 2,000,000 / 20e12) = 1 / (33.333… µs + 0.1 µs);
    # ram-fast 1 / 16.766… µs, nvme-slow 1 / 333.433… µs, nvme-fast 1 / 71.528… µs
    assert offloaded_tokens_per_second(read, gpu_bandwidth, link_bandwidth) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    "price, tokens_per_second, expected",
    [
        pytest.param("3.60", 1_000.0, "1.00", id="exact"),  # 3.60 × 10^6 / 3,600,000 tokens an hour
        pytest.param("4.00", 2.0, "555.56", id="rounds-up"),  # 4 × 10^6 / 7,200 = 555.555…
        pytest.param("1.00", 3.0, "92.59", id="rounds-down"),  # 10^6 / 10,800 = 92.592…
        pytest.param("2.50", 0.5, "1388.89", id="under-one-token-a-second"),  # 2.5 × 10^6 / 1,800
        pytest.param("0.09", 200.0, "0.12", id="half-to-even"),  # 90,000 / 720,000 = 0.125
        pytest.param("0.0972", 200.0, "0.14", id="half-to-even-up"),  # 97,200 / 720,000 = 0.135
    ],
)
def test_price_per_million_tokens(price, tokens_per_second, expected):
    result = price_per_million_tokens(Decimal(price), tokens_per_second)
    assert str(result) == expected


# --- The offload figures of a detailed sizing, from the RAM and NVMe bandwidths of seed 000:
# RAM over PCIe 30 to 60 GB/s, NVMe 3 to 14 GB/s.
#
# A 2-layer MoE, every layer 4 experts of width 25 (1 per token), tied embeddings, one extra
# (MTP) layer, BF16, a 1,000-token context. Bytes: embeddings 3,200; attention 3,840; routed
# 16 × 25 × 3 × 4 × 2 × 2 bytes = 19,200; router and norms (128 + 80) × 2 = 416; extra layer
# 12,832 (not read). A token reads: resident 3,840 + 416 + 3,200 (tied) = 7,456; experts
# 19,200 / 4 = 4,800; KV 48 × 1,000 = 48,000 (resident + KV = 55,456).
# One GPU of 16 GiB at 554,560,000,000 B/s: 55,456 bytes on the GPU take 0.1 µs.
MOE_MODEL = model(
    arch(tied_embeddings=True, moe=moe(expert_intermediate_size=25), extra_layers=1),
    params=19_744,
    experts_per_token=1,
    context_window=1_000,
)
FAST_GPU = gpu("fast", 16 * 2**30, price="2.00", shapes=(1,), bandwidth=554_560_000_000)


def test_detailed_speed_reads_what_a_token_reads():
    speed = detailed_sizing(MOE_MODEL, (FAST_GPU,)).speed
    assert speed.context == 1_000  # the context window, shorter than 32,768
    assert speed.read == TokenRead(resident_bytes=7_456, expert_bytes=4_800, kv_bytes=48_000)
    # 554,560,000,000 / (55,456 + 4,800)
    assert speed.tokens_per_second == pytest.approx(9_203_398.83165, rel=1e-9)
    assert speed.price_per_hour == Decimal("2.00")


@pytest.mark.parametrize(
    "where, expected",
    [
        # 4,800 bytes at 30 GB/s = 0.16 µs, + 0.1 µs → 1 / 0.26 µs; at 60 GB/s 0.08 + 0.1 µs
        pytest.param("ram", (3_846_153.846154, 5_555_555.555556), id="ram"),
        # at 3 GB/s 1.6 + 0.1 µs; at 14 GB/s 0.342857 + 0.1 µs
        pytest.param("nvme", (588_235.294118, 2_258_064.516129), id="nvme"),
    ],
)
def test_detailed_offload_speeds(where, expected):
    offload = detailed_sizing(MOE_MODEL, (FAST_GPU,)).speed.offload
    assert offload.keys() == {"ram", "nvme"}
    assert offload[where] == pytest.approx(expected, rel=1e-9)
