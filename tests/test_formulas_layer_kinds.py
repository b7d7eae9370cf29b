"""The kinds of layer (generator/sizing/layer_kinds.py): what one layer keeps per token or per sequence on
one of N tensor-parallel GPUs, and the bytes the plan tables export. Every expected value is worked
out by hand beside it."""

import pytest

from generator.sizing.layer_kinds import (
    AttentionLayers, KindBytes, LatentLayers, RecurrentStateLayers, kind_bytes, layer_kinds,
)
from tests.formula_records import arch, gqa, linear, mla


@pytest.mark.parametrize(
    "kind, tensor, values",
    [
        # GQA, 8 KV heads of 128: a key and a value per head, 2 × 8 × 128
        (AttentionLayers(32, kv_heads=8, head_dim=128), 1, 2_048),
        (AttentionLayers(32, kv_heads=8, head_dim=128), 4, 512),  # 2 heads per GPU: 2 × 2 × 128
        (AttentionLayers(32, kv_heads=8, head_dim=128), 16, 256),  # fewer heads than GPUs: one copy each
        # MLA: latent 512 + rope 64, whole on every GPU; an indexer key adds 128
        (LatentLayers(61, latent=576), 8, 576),
        (LatentLayers(78, latent=576, indexer=128), 8, 704),
        # delta rule: 32 value heads of a 128 × 128 matrix, and 3 inputs (kernel 4) of 8,192 channels
        # tp 1: 32 × 128 × 128 + 3 × 8,192 = 524,288 + 24,576
        (RecurrentStateLayers(36, 32, 128, 128, conv_width=8_192, conv_kernel=4), 1, 548_864),
        # tp 4: 8 × 128 × 128 + 3 × 8,192 / 4 = 131,072 + 6,144
        (RecurrentStateLayers(36, 32, 128, 128, conv_width=8_192, conv_kernel=4), 4, 137_216),
        # Mamba2, 128 heads of 64 with d_state 128 and one group: 128 × 128 × 64 = 1,048,576, and 3
        # inputs of x (8,192) + B and C (2 × 128) = 8,448 channels: 25,344
        (RecurrentStateLayers(36, 128, 128, 64, conv_width=8_448, conv_kernel=4, groups=1), 1, 1_073_920),
        # tp 4: 32 heads (262,144); the one group is copied to every GPU: 3 × (8,192 / 4 + 256) = 6,912
        (RecurrentStateLayers(36, 128, 128, 64, conv_width=8_448, conv_kernel=4, groups=1), 4, 269_056),
        # 8 groups over 4 GPUs split evenly: 3 × (8,192 + 2 × 8 × 128) / 4 = 7,680
        (RecurrentStateLayers(36, 128, 128, 64, conv_width=10_240, conv_kernel=4, groups=8), 4, 269_824),
    ],
)
def test_values_one_layer_keeps_on_one_gpu(kind, tensor, values):
    assert kind.values_on_gpu(tensor) == values


def test_llama_cpp_caches_k_and_v_rows_for_gqa_and_the_latent_alone_for_mla():
    assert AttentionLayers(1, kv_heads=8, head_dim=128).llama_cpp_rows == (1_024, 1_024)
    assert LatentLayers(1, latent=576).llama_cpp_rows == (576,)  # no V
    # DeepSeek sparse attention: the indexer's key in a cache of its own (llama-kv-cache-dsa.cpp), no V
    assert LatentLayers(1, latent=576, indexer=128).llama_cpp_rows == (576, 128)
    assert RecurrentStateLayers(1, 1, 1, 1, 1, 2).llama_cpp_rows == ()


def test_a_model_is_cut_into_its_kinds():
    # 2 layers of the base GQA (1 KV head of 6): one kind, every token
    assert layer_kinds(arch()) == (AttentionLayers(2, kv_heads=1, head_dim=6),)
    # 6 layers, 4 of them with a 128-token window: two kinds
    windowed = arch(layers=6, attention=gqa(sliding_window=128, sliding_window_layers=4))
    assert layer_kinds(windowed) == (AttentionLayers(2, 1, 6), AttentionLayers(4, 1, 6, window=128))
    # every layer windowed: no full-attention kind at all
    assert layer_kinds(arch(attention=gqa(sliding_window=128, sliding_window_layers=2))) == (AttentionLayers(2, 1, 6, window=128),)
    # MLA: kv_lora_rank 10 + rope 2
    assert layer_kinds(arch(attention=mla())) == (LatentLayers(2, latent=12),)
    # 4 layers, 3 of them linear: 1 softmax layer and 3 states. Conv channels: 2 × (2 × 4) + 3 × 5 = 31
    hybrid = arch(layers=4, linear_attention=linear(layers=3))
    assert layer_kinds(hybrid) == (AttentionLayers(1, 1, 6), RecurrentStateLayers(3, 3, 4, 5, conv_width=31, conv_kernel=4))


def test_the_bytes_the_plan_tables_export_keep_states_at_16_bits():
    hybrid = arch(layers=4, linear_attention=linear(layers=3))
    # an FP8 KV cache: 1 byte per cached value (2 × 6 values), but the state stays at 2 bytes:
    # 3 × 4 × 5 + 3 × 31 = 153 values, 306 bytes
    assert kind_bytes(hybrid, 1, 1) == (KindBytes(1, 12, None, False), KindBytes(3, 306, None, True))
    # tp 3 (3 value heads): 1 × 4 × 5 + 3 × 31 // 3 = 51 values, 102 bytes; the one KV head copied
    assert kind_bytes(hybrid, 3, 2) == (KindBytes(1, 24, None, False), KindBytes(3, 102, None, True))


def test_a_hybrid_state_and_cache_as_a_public_sglang_log_prints_them():
    """tests/data/engine_logs.yaml row qwen35-moe-hybrid-gdn-kt-2x4090 (github.com/kvcache-ai/ktransformers
    issue 1870, SGLang at TP 2): "Mamba Cache is allocated. max_mamba_cache_size: 82, conv_state size:
    0.13GB, ssm_state size: 7.29GB" and "KV Cache is allocated. #tokens: 580364, K size: 4.15 GB". The
    shapes are Qwen3.5-397B-A17B's (its config.json, as aiconfigurator keeps it at 095f58a: 60 layers, a
    full one every 4th, 16 key and 64 value heads of 128, a 4-wide convolution, 2 KV heads of 256,
    mamba_ssm_dtype float32): 45 Gated DeltaNet layers, 15 attention layers. SGLang's MambaPool holds size + 1 slots
    (mem_cache/memory_pool.py: torch.zeros((num_mamba_layers, size + 1) + shape)). Printed GB are GiB."""
    from generator.sizing.layer_kinds import kind_bytes
    qwen = arch(layers=60, hidden_size=4096, attention=gqa(heads=32, kv_heads=2, head_dim=256),
                linear_attention=linear(layers=45, key_heads=16, value_heads=64, key_head_dim=128, value_head_dim=128,
                                        ssm_state_float32=True))
    kinds = kind_bytes(qwen, 2, 2)
    full, state = (next(k for k in kinds if k.per_sequence is flag) for flag in (False, True))
    slots = 82 + 1
    matrix = 45 * (64 // 2) * 128 * 128 * 4  # FP32, value heads split over the 2 GPUs
    conv = 45 * 3 * (2 * 16 * 128 + 64 * 128) // 2 * 2  # the last 3 inputs of q, k and v, 16-bit, split
    assert full.layers * full.bytes == 15 * 2 * 1 * 256 * 2  # K and V, one KV head a GPU
    assert state.layers * state.bytes == matrix + conv
    assert (round(matrix * slots / 2**30, 2), round(conv * slots / 2**30, 2)) == (7.29, 0.13)
    assert round(580_364 * full.layers * full.bytes / 2 / 2**30, 2) == 4.15  # the K half of the cache
