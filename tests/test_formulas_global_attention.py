"""Global layers with attention of their own (Gemma 4): wider heads, fewer KV heads, the key projection
as the value. Every expected value is worked out by hand from Gemma-4-31B's config.json
(tests/data/hf_configs/nvidia-gemma-4-31b-it-nvfp4.json): 60 layers of hidden size 5,376, five
sliding-window layers (32 query heads and 16 KV heads of 256, window 1,024) then one global layer (32
query heads and 4 KV heads of 512, no v_proj), MLP 21,504, vocabulary 262,144, tied embeddings."""

from __future__ import annotations

import pytest

from generator.cli.main import main
from generator.sizing.engine import GLOBAL_ATTENTION_LAYERS, NotRun
from generator.sizing.checkpoints import sized_formats
from generator.sizing.engine_vllm import block_layout
from generator.sizing.gguf import gguf_facts, gguf_tensors
from generator.sizing.kv_cache import kv_cache
from generator.sizing.layer_kinds import kind_bytes
from generator.sizing.llama_cpp import cell_bytes, layer_caches
from generator.sizing.loaded_weights import tensor_shares
from generator.sizing.planner import PlanRequest, plan
from generator.sizing.weights import params_by_component


@pytest.fixture(scope="module")
def gemma4(catalog):
    return next(m for m in catalog.models if m.slug == "gemma-4-31b")


def test_the_language_model_adds_up_to_the_published_30_7_b(gemma4):
    """Per sliding layer: q 5,376 × 8,192, k and v 5,376 × 4,096, o 8,192 × 5,376 (132,120,576) and the
    q and k norms (2 × 256); per global layer: q 5,376 × 16,384, k 5,376 × 2,048, no v, o 16,384 × 5,376
    (187,170,816) and norms of 512; MLP 3 × 5,376 × 21,504; four norms of 5,376 a layer and the final one;
    embeddings 262,144 × 5,376 (tied)."""
    params = params_by_component(gemma4)
    assert params["attention"] == 50 * (132_120_576 + 512) + 10 * (187_170_816 + 1_024) == 8_477_772_800
    assert params["dense_mlp"] == 60 * 3 * 5_376 * 21_504 == 20_808_990_720
    assert params["embeddings"] == 262_144 * 5_376 == 1_409_286_144
    language = sum(params.values()) - params["vision"]
    assert language == 8_477_772_800 + 20_808_990_720 + 1_409_286_144 + (60 * 4 + 1) * 5_376 == 30_697_345_280
    assert abs(language - gemma4.params) <= gemma4.params * 0.005 and gemma4.params_without_vision


def test_kv_bytes_per_token_by_layer_kind(gemma4):
    """16-bit: a global layer caches 2 × 4 × 512 × 2 = 8,192 bytes a token (its key projection's output
    as the key and, normed apart, as the value), a sliding one 2 × 16 × 256 × 2 = 16,384 up to its window."""
    cache = kv_cache(gemma4.architecture)
    assert (cache.bytes_per_token, cache.window_bytes_per_token, cache.window_tokens) == (10 * 8_192, 50 * 16_384, 1_024)
    # 8 GPUs: 16 KV heads split in 2 a GPU, 4 global ones copied to one a GPU (max(1, 4 // 8))
    assert [(k.layers, k.bytes, k.window) for k in kind_bytes(gemma4.architecture, 8, 2)] == [(10, 2 * 512 * 2, None),
                                                                                           (50, 2 * 2 * 256 * 2, 1_024)]


def test_vllm_gives_the_smaller_page_a_larger_block(gemma4):
    """kv_cache_planning.py unify_kv_cache_spec_page_size: the global layers' page per token (8,192) is
    half the sliding layers' (16,384), so their blocks hold 32 tokens to the sliding layers' 16, and a
    block of every group is 10 layers × 16 × 16,384 = 2,621,440 bytes (groups of the 10 global layers).
    At 262,144 tokens, batch 8,192 (H100): 262,144 / 32 = 8,192 global blocks; five sliding groups of
    ceil((1,023 + 2 × 8,192) / 16) + 1 = 1,089 blocks."""
    layout = block_layout(kind_bytes(gemma4.architecture, 1, 2), 1, 8_192)
    assert layout.bytes_per_block == 10 * 16 * 16_384 == 2_621_440
    assert [(g.groups, g.block_size) for g in layout.groups] == [(1, 32), (5, 16)]
    assert layout.blocks(262_144) == 8_192 + 5 * 1_089
    # 8 GPUs: both pages 2,048 bytes a token, both blocks of 16
    assert [g.block_size for g in block_layout(kind_bytes(gemma4.architecture, 8, 2), 1, 8_192).groups] == [16, 16]


def test_vllm_loads_the_key_projection_into_the_value_slot_too(gemma4):
    """models/gemma4.py: one QKVParallelLinear per layer, the global layers' k_proj loaded into its K and
    V slots, so the GPU holds 10 × 5,376 × 2,048 × 2 = 220,200,960 bytes more than the BF16 checkpoint."""
    stored = sized_formats(gemma4, "native")
    shares = tensor_shares(gemma4, stored, 1)
    checkpoint = 2 * sum(v for k, v in params_by_component(gemma4).items() if k not in ("embeddings", "vision"))
    assert shares.layers - checkpoint == 10 * 5_376 * 2_048 * 2 == 220_200_960


def test_sglang_0_5_3rc2_does_not_run_it(gemma4, catalog, capsys):
    h100 = next(g for g in catalog.gpus if g.slug == "h100-sxm")
    assert plan(gemma4, h100, 1, PlanRequest(engine="sglang", context=8_192)).reason == "engine_does_not_run"
    assert plan(gemma4, h100, 2, PlanRequest(engine="vllm", context=8_192)).starts
    assert main(["plan", "gemma-4-31b", "--gpu", "h100-sxm", "--engine", "sglang"]) == 2
    assert capsys.readouterr().err.strip() == ("plan: --engine sglang: SGLang 0.5.3rc2 does not run Gemma-4-31B's model class "
                                               "Gemma4ForConditionalGeneration (not among the classes its version registers) "
                                               "(--engine vllm does)")
    # without the class recorded, its global layers alone are refused
    from dataclasses import replace
    from generator.sizing.engines import SERVING_ENGINES
    unrecorded = replace(gemma4, architecture=replace(gemma4.architecture, config_class=None))
    assert SERVING_ENGINES["sglang"].what_it_does_not_run(unrecorded) == NotRun(GLOBAL_ATTENTION_LAYERS)


def test_llama_cpp_caches_each_layer_at_its_own_width(gemma4):
    """llama-hparams.cpp n_embd_k_gqa(il): F16 cells of 2 × 4 × 512 × 2 = 8,192 bytes on a global layer
    ("0"), 2 × 16 × 256 × 2 = 16,384 on a sliding one ("1"); q8_0: 34 bytes a block of 32."""
    assert layer_caches(gemma4) == "111110" * 10
    assert cell_bytes(gemma4, "f16") == {"0": 8_192, "1": 16_384, "x": 0}  # no indexer key
    assert cell_bytes(gemma4, "q8_0") == {"0": 2 * 2_048 // 32 * 34, "1": 2 * 4_096 // 32 * 34, "x": 0}


def test_the_gguf_file_has_no_attn_v_on_global_layers(gemma4):
    """llama-quant.cpp counts n_attention_wv from the attn_v tensors: the 50 sliding layers'."""
    tensors = gguf_tensors(gemma4)
    assert sum(t.name == "attn_v" for t in tensors) == gguf_facts(gemma4).attention_layers == 50
    global_k = [t for t in tensors if t.name == "attn_k" and t.layer == 5]
    assert [(t.row, t.rows) for t in global_k] == [(5_376, 4 * 512)]


def test_gemma_4_moe_adds_up_to_the_published_25_2_b(catalog):
    """Gemma-4-26B-A4B (tests/data/hf_configs/gemma-4-26b-a4b.json): 30 layers of 2,816, 16 query heads;
    25 sliding layers (8 KV heads of 256) and 5 global ones (2 of 512, no v_proj). Every layer: the MLP
    of 2,112 beside 128 experts of 704 (gate, up and down each), the router 2,816 × 128 with its scale
    per channel and per expert, seven norms. Sliding attention 2 × 2,816 × 4,096 + 2 × 2,816 × 2,048 and
    q and k norms of 256; global 2 × 2,816 × 8,192 + 2,816 × 1,024 and norms of 512."""
    model = next(m for m in catalog.models if m.slug == "gemma-4-26b-a4b")
    params = params_by_component(model)
    assert params["attention"] == 25 * (34_603_008 + 512) + 5 * (49_020_928 + 1_024) == 1_110_197_760
    assert params["routed_experts"] == 30 * 128 * 3 * 2_816 * 704 == 22_837_985_280
    assert params["shared_experts"] == 30 * 3 * 2_816 * 2_112 == 535_265_280
    assert params["router_and_norms"] == 30 * (2_816 * 128 + 2_816 + 128 + 7 * 2_816) + 2_816 == 11_495_936
    language = sum(params.values()) - params["vision"]
    assert language == 1_110_197_760 + 22_837_985_280 + 535_265_280 + 11_495_936 + 262_144 * 2_816 == 25_233_141_760
    # vLLM at 8 GPUs: one sliding KV head a GPU (1,024 bytes a token and layer), a copied global one
    # (2,048): the sliding layers' blocks take 32 tokens, the global ones' 16
    layout = block_layout(kind_bytes(model.architecture, 8, 2), 1, 8_192)
    assert [(g.groups, g.block_size) for g in layout.groups] == [(1, 16), (5, 32)]
    assert layout.bytes_per_block == 5 * 16 * 2_048
    names = [t.name for t in gguf_tensors(model) if t.layer == 0]
    assert {"ffn_gate_inp.scale", "ffn_down_exps.scale", "ffn_down_shexp"} <= set(names)


def test_sglang_pool_counts_each_layer_at_its_own_width(gemma4):
    """pool_bytes_per_token by width (the calculator shows SGLang's figures beside its refusal): at TP 2,
    10 global layers of 2 × 2 × 512 × 2 = 4,096 bytes a token and 50 sliding ones of 2 × 8 × 256 × 2 =
    8,192, not 60 of the first kind's width."""
    from generator.sizing.engine_sglang import pool_bytes_per_token
    assert pool_bytes_per_token(kind_bytes(gemma4.architecture, 2, 2), 1) == 10 * 4_096 + 50 * 8_192 == 450_560


def test_vllm_keeps_the_nvfp4_checkpoints_own_fp8_kv_cache(gemma4, catalog):
    """nvidia/Gemma-4-31B-IT-NVFP4's quantization_config has kv_cache_scheme {num_bits 8, type float}:
    vLLM resolves --kv-cache-dtype auto to fp8 for it (engine/arg_utils.py resolve_kv_cache_dtype_string,
    utils/torch_utils.py get_kv_cache_quant_algo_string). One byte a value: blocks of 10 × 16 × 8,192
    bytes; at 262,144 tokens 8,192 global and 5 × 1,089 sliding blocks (batch 8,192 on an H100)."""
    h100 = next(g for g in catalog.gpus if g.slug == "h100-sxm")
    nvfp4 = plan(gemma4, h100, 1, PlanRequest(engine="vllm", precision="4bit"))
    assert (nvfp4.weights.repo, nvfp4.request.kv_dtype, nvfp4.cache_dtype) == ("nvidia/Gemma-4-31B-IT-NVFP4", "auto", "fp8")
    assert nvfp4.kv_bytes_per_token == -(-(8_192 + 5 * 1_089) * 10 * 16 * 8_192 // 262_144) == 68_185
    assert nvfp4.starts
    # the published BF16 checkpoint asks for nothing: auto stays 16-bit
    assert plan(gemma4, h100, 2, PlanRequest(engine="vllm")).cache_dtype == "auto"


@pytest.mark.parametrize("slug, count, copied", [("gemma-4-31b", 2, False), ("gemma-4-31b", 8, True),
                                                 ("gemma-4-26b-a4b", 2, False), ("gemma-4-26b-a4b", 4, True)])
def test_the_page_says_when_the_global_kv_heads_are_copied(catalog, slug, count, copied):
    """4 global KV heads on the 31B, 2 on the 26B: more GPUs than that and each keeps a copy of one
    (vllm/config/model.py get_num_kv_heads: max(1, heads // tp))."""
    from generator.sizing.detailed import Serving
    model = next(m for m in catalog.models if m.slug == slug)
    h100 = next(g for g in catalog.gpus if g.slug == "h100-sxm")
    planned = plan(model, h100, count, PlanRequest(engine="vllm", context=8_192))
    assert planned.split.tensor == count
    assert Serving(planned, planned, planned).global_kv_heads_copied is copied
