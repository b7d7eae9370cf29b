"""KV cache per layer kind, per sequence, and what a given room holds: hand-computed tables."""

import pytest

from generator.sizing.kv_cache import KvCache, kv_cache, sequences_that_fit, tokens_that_fit
from tests.formula_records import arch, gqa, linear, mla

# 3 layers; GQA with 2 KV heads of 4: a key and a value, 2 × 2 × 4 = 16 values per layer.
GQA = gqa(kv_heads=2, head_dim=4)


@pytest.mark.parametrize(
    "architecture, bits, expected",
    [
        # 16 values × 2 bytes × 3 layers = 96
        pytest.param(arch(layers=3, attention=GQA), 16, KvCache(96, 0, 0, 0), id="gqa-16bit"),
        pytest.param(arch(layers=3, attention=GQA), 8, KvCache(48, 0, 0, 0), id="gqa-8bit"),  # 16 × 1 × 3
        # MLA: one latent of 10 + one rope key of 2 per layer, no factor 2: 12 × 2 bytes × 3 = 72
        pytest.param(arch(layers=3, attention=mla()), 16, KvCache(72, 0, 0, 0), id="mla-16bit"),
        pytest.param(arch(layers=3, attention=mla()), 8, KvCache(36, 0, 0, 0), id="mla-8bit"),
        # + an indexer key of 4: (10 + 2 + 4) × 2 × 3 = 96
        pytest.param(
            arch(layers=3, attention=mla(indexer_heads=3, indexer_head_dim=4)),
            16,
            KvCache(96, 0, 0, 0),
            id="mla-indexer-16bit",
        ),
        pytest.param(
            arch(layers=3, attention=mla(indexer_heads=3, indexer_head_dim=4)),
            8,
            KvCache(48, 0, 0, 0),
            id="mla-indexer-8bit",
        ),
        # IndexShare: layer 2 shares layer 1's indexer, no key of its own: (16 + 16 + 12) × 2 = 88
        pytest.param(
            arch(layers=3, attention=mla(indexer_heads=3, indexer_head_dim=4, shared_indexer_layers=(2,))),
            16,
            KvCache(88, 0, 0, 0),
            id="mla-shared-indexer-16bit",
        ),
        # 2 of 3 layers see a window of 8 tokens: 1 × 32 grows, 2 × 32 = 64 stop at the window
        pytest.param(
            arch(layers=3, attention=gqa(kv_heads=2, head_dim=4, sliding_window=8, sliding_window_layers=2)),
            16,
            KvCache(32, 64, 8, 0),
            id="sliding-window-16bit",
        ),
        pytest.param(
            arch(layers=3, attention=gqa(kv_heads=2, head_dim=4, sliding_window=8, sliding_window_layers=2)),
            8,
            KvCache(16, 32, 8, 0),
            id="sliding-window-8bit",
        ),
        # 3 of 4 layers linear (2 key heads of 4, 3 value heads of 5, kernel 4): per layer a
        # 3 × 4 × 5 = 60 state and (4 - 1) × (2 × 8 + 15) = 93 conv values → 3 × 153 × 2 bytes = 918;
        # the 1 GQA layer: 32 per token
        pytest.param(
            arch(layers=4, attention=GQA, linear_attention=linear(layers=3)),
            16,
            KvCache(32, 0, 0, 918),
            id="linear-state-16bit",
        ),
        pytest.param(
            arch(layers=4, attention=GQA, linear_attention=linear(layers=3)),
            8,
            KvCache(16, 0, 0, 918),  # an 8-bit KV cache leaves the state at 16 bits
            id="linear-state-8bit",
        ),
        pytest.param(
            arch(layers=4, attention=GQA, linear_attention=linear("kimi_delta", layers=3)),
            16,
            KvCache(32, 0, 0, 918),  # the state does not depend on the delta rule's kind
            id="kimi-delta-state-16bit",
        ),
        # 2 linear layers (2 × 153 × 2 = 612), 2 attention layers of which 1 windowed
        pytest.param(
            arch(
                layers=4,
                attention=gqa(kv_heads=2, head_dim=4, sliding_window=8, sliding_window_layers=1),
                linear_attention=linear(layers=2),
            ),
            16,
            KvCache(32, 32, 8, 612),
            id="linear-and-window",
        ),
    ],
)
def test_kv_cache_by_layer_kind(architecture, bits, expected):
    assert kv_cache(architecture, bits) == expected


@pytest.mark.parametrize("bits", [16, 8])
def test_kv_cache_bytes_are_whole_numbers(bits):
    architecture = arch(
        layers=4,
        attention=gqa(kv_heads=2, head_dim=4, sliding_window=8, sliding_window_layers=1),
        linear_attention=linear(layers=2),
    )
    cache = kv_cache(architecture, bits)
    fields = (cache.bytes_per_token, cache.window_bytes_per_token, cache.window_tokens, cache.state_bytes)
    assert all(type(value) is int for value in fields), fields


def test_kv_cache_defaults_to_16_bits():
    assert kv_cache(arch(layers=3, attention=GQA)) == KvCache(96, 0, 0, 0)


# 32 bytes per token in full layers, 64 more per token up to a window of 8, a state of 918.
CACHE = KvCache(bytes_per_token=32, window_bytes_per_token=64, window_tokens=8, state_bytes=918)


@pytest.mark.parametrize(
    "tokens, expected",
    [
        pytest.param(0, 918, id="empty-is-the-state"),
        pytest.param(5, 1_398, id="inside-window"),  # 32 × 5 + 64 × 5 + 918
        pytest.param(8, 1_686, id="at-window"),  # 32 × 8 + 64 × 8 + 918
        pytest.param(20, 2_070, id="past-window"),  # 32 × 20 + 64 × 8 + 918
    ],
)
def test_sequence_bytes(tokens, expected):
    assert CACHE.sequence_bytes(tokens) == expected


def test_bytes_of_several_sequences():
    assert CACHE.bytes(20, 3) == 6_210  # 3 × 2,070
    assert CACHE.bytes(20, 0) == 0


# A room for tokens: 96 bytes each inside the 8-token window (32 + 64), 32 past it; a state of 100.
ROOM_CACHE = KvCache(bytes_per_token=32, window_bytes_per_token=64, window_tokens=8, state_bytes=100)


@pytest.mark.parametrize(
    "cache, room, expected",
    [
        pytest.param(ROOM_CACHE, -500, 0, id="negative-room"),
        pytest.param(ROOM_CACHE, 99, 0, id="not-even-the-state"),
        pytest.param(ROOM_CACHE, 100, 0, id="just-the-state"),
        pytest.param(ROOM_CACHE, 675, 5, id="inside-window"),  # (675 - 100) // 96 = 5 (575)
        pytest.param(ROOM_CACHE, 867, 7, id="one-byte-short-of-the-window"),  # 767 // 96 = 7
        pytest.param(ROOM_CACHE, 868, 8, id="exactly-the-window"),  # 100 + 96 × 8 = 868
        pytest.param(ROOM_CACHE, 995, 11, id="past-window"),  # 8 + (895 - 768) // 32 = 8 + 3
        # no window at all: 32 bytes per token after the state
        pytest.param(KvCache(32, 0, 0, 100), 329, 7, id="no-window"),  # (329 - 100) // 32 = 7
        pytest.param(KvCache(32, 0, 0, 100), 50, 0, id="no-window-negative"),
        # every layer windowed: once one window fits, any length does
        pytest.param(KvCache(0, 64, 8, 100), 611, 7, id="windows-only-short"),  # 511 // 64 = 7
        pytest.param(KvCache(0, 64, 8, 100), 612, None, id="windows-only-any-length"),  # 100 + 64 × 8
        pytest.param(KvCache(0, 64, 8, 100), 10**9, None, id="windows-only-huge-room"),
        # a 1-token window: 96 bytes for the first token, 32 for each one after
        pytest.param(KvCache(32, 64, 1, 0), 160, 3, id="one-token-window"),  # 1 + (160 - 96) // 32
        # 1 byte a token: a room of 0 bytes or less holds no token
        pytest.param(KvCache(1, 0, 0, 0), 0, 0, id="one-byte-tokens-no-room"),
        pytest.param(KvCache(1, 0, 0, 0), -5, 0, id="one-byte-tokens-negative-room"),
    ],
)
def test_tokens_that_fit(cache, room, expected):
    assert tokens_that_fit(cache, room) == expected


# Sequences of 20 tokens in CACHE: 2,070 bytes each.
@pytest.mark.parametrize(
    "room, expected",
    [
        pytest.param(-1, 0, id="negative-room"),
        pytest.param(0, 0, id="no-room"),
        pytest.param(2_069, 0, id="one-byte-short"),
        pytest.param(2_070, 1, id="exactly-one"),
        pytest.param(6_209, 2, id="almost-three"),
        pytest.param(6_210, 3, id="exactly-three"),
    ],
)
def test_sequences_that_fit(room, expected):
    assert sequences_that_fit(CACHE, room, 20) == expected


def test_no_room_holds_no_sequence_even_of_one_byte():
    assert sequences_that_fit(KvCache(1, 0, 0, 0), 0, 1) == 0
    assert sequences_that_fit(KvCache(1, 0, 0, 0), -3, 1) == 0


def test_sequences_that_fit_count_the_window_only_once():
    # 5-token sequences: 1,398 bytes each (inside the window)
    assert sequences_that_fit(CACHE, 2_796, 5) == 2  # 2 × 1,398
