"""Compressed attention (DeepSeek-V4): a 128-token window of rows on every layer, one compressed row per
4 tokens (with the Lightning indexer's key) or per 128 tokens on the others, compressors that hold a
few tokens' FP32 state. Every expected value is worked out by hand from the configs
(tests/data/hf_configs/deepseek-v4-flash.json, -pro.json) and vLLM 0.33.0's code, or published.

DeepSeek-V4-Flash: 43 layers of hidden size 4,096 (2 of ratio 0, 21 of ratio 4, 20 of ratio 128), 64
heads of 512 (rope 64), query latent 1,024, 8 output groups of rank 1,024, indexer 64 heads of 128 (top
512), 256 experts of 2,048 (6 a token) and one shared, hyper-connections hc 4, 3 hash-routed layers,
vocabulary 129,280, one MTP layer. Pro: 61 layers of 7,168 (30 of ratio 4, 31 of ratio 128), 128 heads,
latent 1,536, 16 groups, 384 experts of 3,072, top 1,024.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from generator.cli.main import main
from generator.sizing.engine import MODEL_CLASS, NotRun, cdiv
from generator.sizing.engine_sglang import SGLANG
from generator.sizing.engine_vllm import VLLM, activation_peak, packed_layout
from generator.sizing.engine_vllm_compressed import CacheSpec, approximate_gcd, attention_workspace, cache_specs
from generator.sizing.formats import native_bytes
from generator.sizing.gguf import gguf_file, gguf_sizable, page_quants
from generator.sizing.own_gpu import own_gpu
from generator.sizing.llama_cpp import LlamaCppRequest, layer_caches, llama_cpp_plan
from generator.sizing.llama_cpp_compressed import layer_stores, letter_bytes, store_cells
from generator.sizing.kv_cache import kv_cache
from generator.sizing.speed import kv_read_cache
from generator.sizing.planner import GPU_NOT_PLANNED, GPU_WITHOUT_KERNELS, PlanRequest, plan
from generator.sizing.weights import params_by_component, published_scope_params
from tests.conftest import CONTENT
from tests.hostile import check, edit

GIB = 2**30


@pytest.fixture(scope="module")
def flash(catalog):
    return next(m for m in catalog.models if m.slug == "deepseek-v4-flash")


@pytest.fixture(scope="module")
def pro(catalog):
    return next(m for m in catalog.models if m.slug == "deepseek-v4-pro")


def test_the_attention_of_each_ratio_in_flash(flash):
    """Every layer: wq_a 4,096 × 1,024, q_norm 1,024, wq_b 1,024 × 32,768, wkv 4,096 × 512, kv_norm 512,
    wo_a 4,096 × 8,192 (64 × 512 / 8 in, 8 × 1,024 out), wo_b 8,192 × 4,096, 64 sinks: 106,956,352.
    Ratio 4 adds a compressor of two overlapping rows (ape 4 × 1,024, kv and gate 4,096 × 1,024 each, norm
    512: 8,393,216) and the indexer (wq_b 1,024 × 8,192, weights 4,096 × 64, its compressor ape 4 × 256,
    kv and gate 4,096 × 256, norm 128: 10,749,056); ratio 128 a compressor of one row (ape 128 × 512,
    kv and gate 4,096 × 512, norm 512: 4,260,352). The MTP layer has ratio 0."""
    every = 4_194_304 + 1_024 + 33_554_432 + 2_097_152 + 512 + 2 * 33_554_432 + 64
    assert every == 106_956_352
    params = params_by_component(flash)
    assert params["attention"] == 43 * every + 21 * (8_393_216 + 10_749_056) + 20 * 4_260_352 == 5_086_317_888


def test_flash_and_pro_add_up_to_the_published_counts(flash, pro):
    """The totals an independent list of every checkpoint tensor gives (69,187 tensors for Flash: the
    count of the published model.safetensors.index.json): Flash 284,332,240,471 without the MTP layer,
    6,610,048,891 in it; Pro 1,572,997,201,763 and 25,840,145,979. The card says "DeepSeek-V4-Pro with
    1.6T parameters (49B activated) and DeepSeek-V4-Flash with 284B parameters (13B activated)"."""
    for model, main_layers, prediction, published in ((flash, 284_332_240_471, 6_610_048_891, 284e9),
                                                      (pro, 1_572_997_201_763, 25_840_145_979, 1.6e12)):
        params = params_by_component(model)
        assert sum(params.values()) - params["extra_layers"] == main_layers
        assert params["extra_layers"] == prediction
    # the card's 284B is Flash without its MTP layer; 1.6T is Pro's count either way (1.573T or 1.599T),
    # taken with it, as the rule for a rounded count (within 1 %) admits only that one
    assert flash.params_without_prediction and not pro.params_without_prediction
    for model in (flash, pro):
        assert abs(published_scope_params(model, params_by_component(model)) / model.params - 1) < 0.005


# Published download sizes (the whole repo: main model and MTP layer).
DOWNLOADS = [
    ("deepseek-v4-flash", 160e9, "https://framia.pro/page/en-US/news/deepseek-v4-model-card",
     "Download Size ~865 GB (Pro) / ~160 GB (Flash)"),
    ("deepseek-v4-pro", 865e9, "https://framia.pro/page/en-US/news/deepseek-v4-model-card",
     "Download Size ~865 GB (Pro) / ~160 GB (Flash)"),
]


@pytest.mark.parametrize("slug, published, url, quote", DOWNLOADS, ids=[row[0] for row in DOWNLOADS])
def test_the_checkpoint_bytes_match_the_published_download(catalog, slug, published, url, quote):
    """FP8 blocks of 128 × 128 with a one-byte scale, MXFP4 experts (a byte per 32 values), BF16
    embeddings, head, router and compressors, FP32 hyper-connections, sinks and position biases; within
    1 % of the rounded published size. Left out: the hash layers' token-to-expert tables (3 × 129,280 × 6
    int64, 18.6 MB) and the router biases' FP32 (counted at 16 bits, 20 KB)."""
    model = next(m for m in catalog.models if m.slug == slug)
    assert abs(sum(native_bytes(model).values()) - published) <= 0.01 * published, (url, quote)


def test_flash_checkpoint_bytes_by_hand(flash):
    """The tensor list's 156,015,698,140 bytes for the main model, less the tables (18,616,320) and the
    FP32 half of 40 router biases of 256 (20,480); 3,593,787,756 in the MTP layer, less its bias's 512."""
    stored = native_bytes(flash)
    assert sum(stored.values()) - stored["extra_layers"] == 156_015_698_140 - 18_616_320 - 20_480
    assert stored["extra_layers"] == 3_593_787_756 - 512


def test_kv_at_16_bits(flash, pro):
    """A ratio-4 layer keeps (512 + 128) / 4 = 160 values a token, a ratio-128 one 512 / 128 = 4; every
    layer 512 within the window; the compressors (2 × 2 × 512 + 2 × 2 × 128) × 8 FP32 values at ratio 4,
    2 × 512 × 128 at ratio 128. Pro at 1M tokens: "1M token context KV cache … 9.62 GiB/sequence (in
    bf16)" (news.triggerhive.com/entry/2026-04-25/ai-ainews-deepseek-v4-pro-16t-a49b-and-flash-284b-a13b-base-and),
    which counts the compressed rows alone: 9,848 × 1,048,576 bytes."""
    cache = kv_cache(flash.architecture)
    assert cache.bytes_per_token == 2 * (21 * 160 + 20 * 4) == 6_880
    assert (cache.window_bytes_per_token, cache.window_tokens) == (43 * 512 * 2, 128)
    assert cache.state_bytes == 4 * (21 * 2_560 * 8 + 20 * 1_024 * 128) == 12_206_080
    pro_cache = kv_cache(pro.architecture)
    assert pro_cache.bytes_per_token == 2 * (30 * 160 + 31 * 4) == 9_848
    assert abs(pro_cache.sequence_bytes(2**20) / (9.62 * GIB) - 1) < 0.005


def test_vllm_specs_of_flash(flash):
    """fp8_ds_mla rows of 448 + 2 × 64 + 8 = 584 bytes, pages padded to 576 multiples: a 256-token block
    of ratio 4 holds 64 rows (37,376 → 37,440), of ratio 128 two (1,168 → 1,728); the indexer 64 rows of
    128 + 4 (8,448 → 8,640); the window 64 rows a block (37,440); the compressors 4 tokens of 2 × 2 × 512
    FP32 (32,768 → 32,832) and of 2 × 2 × 128 (8,192 → 8,640), 8 tokens of 2 × 512 (32,832). Ratio 4:
    layers 2, 4, … 42; ratio 128: layers 3, 5, … 41."""
    c4, c128, every = tuple(range(2, 43, 2)), tuple(range(3, 42, 2)), tuple(range(43))
    assert cache_specs(flash.architecture) == (
        CacheSpec(c4, 37_440, 256, None), CacheSpec(c4, 8_640, 256, None), CacheSpec(c128, 1_728, 256, None),
        CacheSpec(every, 37_440, 64, 128), CacheSpec(c4, 32_832, 4, 8), CacheSpec(c4, 8_640, 4, 8),
        CacheSpec(c128, 32_832, 8, 128),
    )
    # the MTP layer drafting: one more window of rows, layer 43
    assert cache_specs(flash.architecture, 1)[3] == CacheSpec(tuple(range(44)), 37_440, 64, 128)


@pytest.mark.parametrize("values, floor, expected", [
    ([43, 21, 20], 21, 22),  # Flash: 22 pads 1 + 1 + 2, 21 pads 20 + 0 + 1
    ([61, 30, 31], 30, 31),  # Pro: 31 pads 1 + 1 + 0
    ([44, 21, 20], 21, 22),  # Flash drafting: 0 + 1 + 2
    ([8, 8], 8, 8),
    ([6, 6], 2, 6),  # 2, 3 and 6 pad nothing: a tie takes the larger
    ([5], 9, 9),  # a floor above every value stays
])
def test_approximate_gcd(values, floor, expected):
    assert approximate_gcd(values, floor) == expected


def test_vllm_blocks_of_flash_and_pro(flash, pro):
    """Every block id costs the widest group: the full bucket (21 × 37,440 + 21 × 8,640 + 20 × 1,728 =
    1,002,240 for Flash; 30 × 37,440 + 30 × 8,640 + 31 × 1,728 = 1,435,968 for Pro). The 43 window
    layers split in two groups (22 repeats a group). At 1,048,576 tokens, 8,192-token batches (16,384
    in flight): 4,096 full blocks, 2 × (ceil((127 + 16,384) / 64) + 1) = 2 × 259, ceil((7 + 16,384) / 4)
    + 1 = 4,099 and ceil((127 + 16,384) / 8) + 1 = 2,065: 10,778 blocks, 10.06 GiB."""
    layout = packed_layout(cache_specs(flash.architecture), 43, 1, 8_192)
    assert layout.bytes_per_block == 21 * 37_440 + 21 * 8_640 + 20 * 1_728 == 1_002_240
    assert [(g.groups, g.block_size) for g in layout.groups] == [(1, 256), (2, 64), (1, 4), (1, 8)]
    assert layout.blocks(2**20) == 4_096 + 2 * 259 + 4_099 + 2_065 == 10_778
    assert layout.needed_bytes(2**20) == 10_778 * 1_002_240 == 10_802_142_720
    assert layout.blocks(131_072) == 512 + 2 * 259 + 4_099 + 2_065 == 7_194
    assert packed_layout(cache_specs(pro.architecture), 61, 1, 8_192).bytes_per_block == 1_435_968


def test_pipeline_stages_keep_their_own_layers_of_the_models_groups(flash):
    """vLLM groups the whole model, then each stage keeps its layers of every group
    (kv_cache_planning.py _project_kv_cache_groups_to_worker). Three stages of 43 layers: 14, 15, 14
    (get_pp_indices); the middle one, layers 14-28, holds 8 layers of ratio 4 (14, 16, … 28) and 7 of
    ratio 128: 8 × 37,440 + 8 × 8,640 + 7 × 1,728 = 380,736 bytes a block id (its share rounded up
    would be 7 and 7: 334,656). The groups and the blocks a request needs are the model's: at
    1,048,576 tokens 4,096 + 2 × 259 + 4,099 + 2,065."""
    layout = packed_layout(cache_specs(flash.architecture), 43, 3, 8_192)
    assert layout.bytes_per_block == 8 * 37_440 + 8 * 8_640 + 7 * 1_728 == 380_736
    assert layout.blocks(2**20) == 4_096 + 2 * (cdiv(127 + 4 * 8_192, 64) + 1) + cdiv(7 + 4 * 8_192, 4) + 1 \
        + cdiv(127 + 4 * 8_192, 8) + 1
    # two stages of 22 and 21: 11 layers of each ratio 4, 10 and 11 of ratio 128 in the first
    assert packed_layout(cache_specs(flash.architecture), 43, 2, 8_192).bytes_per_block == 11 * 37_440 + 11 * 8_640 + 10 * 1_728


def test_the_profile_reserves_the_attention_workspace(flash):
    """flashmla.py's dummy run: 4 × (262,144 + 128 + 8,192) BF16 rows of 512 (1,107,820,544), the batch's
    top-k 8,192 × round_up(512 + 128, 128) int32 (20,971,520) and lengths (32,768); model.py's top-k
    buffer 8,192 × 512 int32 (16,777,216). The indexer's 512 MiB of logits are freed before the sampler
    runs: they add to the forward pass, whose peak the sampler's 39 × 1,024 × 129,280 logit bytes pass."""
    workspace = attention_workspace(flash.architecture, 8_192)
    assert workspace.bytes(2**20) == 1_107_820_544 + 20_971_520 + 32_768 + 16_777_216 == 1_145_602_048
    # drafting with the MTP layer: the hidden states it reads, 8,192 × 4 × 4,096 BF16
    assert attention_workspace(flash.architecture, 8_192, True).bytes(2**20) == 1_145_602_048 + 268_435_456
    assert activation_peak(flash, 1, 8_192, 1_024) == 39 * 1_024 * 129_280
    assert activation_peak(flash, 8, 256, 16) == 256 * 2 * (6 * (3 * 2_048 // 8 + 4_096) + 4 * 4_096) + 512 * 2**20


def test_which_engines_run_it(flash):
    """vLLM 0.33.0 registers DeepseekV4ForCausalLM; SGLang 0.5.3rc2 has no DeepSeek-V4 class; llama.cpp
    has the deepseek4 architecture since b9840 (PR 24162, 2026-06-29), before the commit it follows."""
    assert VLLM.runs(flash)
    assert SGLANG.what_it_does_not_run(flash) == NotRun(MODEL_CLASS, "DeepseekV4ForCausalLM")
    assert gguf_sizable(flash)


def test_the_gguf_file_as_the_converter_and_llama_quantize_write_it(flash):
    """DeepseekV4Model: FP8 matrices as Q8_0, experts MXFP4, BF16 and F32 as stored, vectors F32, the
    hash layers' table I32 (3 × 6 × 129,280 values, which the public load log counts: "model params =
    284.33 B", ggml-org/llama.cpp issue 27680), no MTP layer. MXFP4_MOE: the experts as they are (43 ×
    3 × 256 × 2,048 × 4,096 values at 17 bytes a 32: 147,169,738,752), every other matrix Q8_0 (34 a
    32): embeddings and head 2 × 529,530,880, attention 5,086,225,408 (its 5,086,317,888 less 92,480 of
    vectors), shared experts 43 × 3 × 2,048 × 4,096, hyper-connections 43 × 2 × 16,384 × 24 + 16,384 × 4
    (7,261,299,712 values); the router BF16 (43 × 256 × 4,096 × 2), the table I32, 461,399 F32 values."""
    file = gguf_file(flash, "MXFP4_MOE")
    assert file.values == 284_332_240_471 + 3 * 6 * 129_280 == 284_334_567_511
    matrices = 2 * 529_530_880 + 5_086_225_408 + 43 * 3 * 2_048 * 4_096 + 43 * 2 * 16_384 * 24 + 16_384 * 4
    assert matrices == 7_261_299_712
    assert file.tensor_bytes == (147_169_738_752 + matrices * 34 // 32 + 43 * 256 * 4_096 * 2 + 3 * 6 * 129_280 * 4
                                 + 461_399 * 4) == 154_986_200_988
    assert {kind for tensor, kind in file.types if tensor.experts} == {"MXFP4"}
    # Q4_K_M requantizes the experts: Q6_K for ffn_down in 21 of the 43 layers (use_more_bits), Q4_K else
    q4 = gguf_file(flash, "Q4_K_M")
    down = [tensor.layer for tensor, kind in q4.types if tensor.name == "ffn_down_exps" and kind == "Q6_K"]
    assert down == [0, 1, 2, 3, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 38, 39, 40, 41, 42]


def test_llama_cpp_caches_reproduce_the_public_log(flash):
    """At 131,072 tokens, f16, one sequence: "SWA 32.25 MiB, CSA 672 MiB, HCA 20 MiB, lightning-indexer
    168 MiB" (ggml-org/llama.cpp issue 25468): 43 × 768 cells (PAD(128 + 512, 256)) × 1,024 bytes; 21 ×
    32,768 × 1,024; 20 × 1,024 × 1,024; 21 × 32,768 × 256; and the compressors' FP32 state, "1.31 MiB",
    "10.00 MiB", "0.33 MiB" (issue 27680): 21 × 65,536, 20 × 524,288, 21 × 16,384."""
    stores = layer_stores(flash.architecture)
    caches = layer_caches(flash)
    assert (caches.count("w"), caches.count("c"), caches.count("h")) == (2, 21, 20)
    mib = 2**20
    window, c4, indexer = (store_cells(store, 131_072, 128) for store in stores["c"].stores)
    c128 = store_cells(stores["h"].stores[1], 131_072, 128)
    assert (window, c4, indexer, c128) == (768, 32_768, 32_768, 1_024)
    # the log's MiB: SWA, CSA, HCA, lightning indexer (f16: 1,024 bytes a 512-value row, 256 a 128-value one)
    assert (43 * window * 1_024 / mib, 21 * c4 * 1_024 / mib, 20 * c128 * 1_024 / mib, 21 * indexer * 256 / mib) == (32.25, 672, 20, 168)
    states = {letter: caches.count(letter) * stores[letter].state_bytes for letter in "ch"}
    assert (round(states["c"] * 65_536 / 81_920 / mib, 2), round(states["h"] / mib, 2), round(states["c"] * 16_384 / 81_920 / mib, 2)) == (1.31, 10.00, 0.33)
    one_stream = sum(letter_bytes(stores[letter], [1_024 if s.values == 512 else 256 for s in stores[letter].stores],
                                  131_072, 1, 128) for letter in caches)
    assert one_stream == (32.25 + 672 + 20 + 168) * mib + 12_206_080 == 947_798_016


def test_llama_server_is_told_its_slots_as_this_cache_ignores_the_unified_one(catalog, flash):
    """Without --parallel, llama-server's 4 slots share a unified cache, but this one ignores it: 4
    streams of the whole --ctx-size (llama-kv-cache-dsv4.cpp GGML_UNUSED(unified)). The command passes
    --parallel 1: one stream, 903.89 MiB at 131,072 tokens on f16 (947,798,016 bytes), which one
    token reads beside the weights."""
    b300 = next(g for g in catalog.gpus if g.slug == "b300")
    result = llama_cpp_plan(flash, b300, 1, LlamaCppRequest(quant="MXFP4_MOE", context=131_072))
    assert result.starts and result.n_gpu_layers == 44 and "--parallel 1" in result.command
    assert result.kv_bytes_per_gpu == 947_798_016
    # at 4,096 tokens one stream is 768 window cells, 1,024 of ratio 4 and 256 of ratio 128 (the
    # 256-cell padding) and the states: the token reads the same weights and its own stream
    short = 43 * 768 * 1_024 + 21 * 1_024 * (1_024 + 256) + 20 * 256 * 1_024 + 12_206_080
    assert short == 78_790_656
    assert result.gpu_read_bytes - 947_798_016 == llama_cpp_plan(flash, b300, 1, LlamaCppRequest(
        quant="MXFP4_MOE", context=4_096)).gpu_read_bytes - short
    three = llama_cpp_plan(flash, b300, 1, LlamaCppRequest(quant="MXFP4_MOE", context=131_072, users=3))
    assert "--parallel 3" in three.command and three.kv_bytes_per_gpu == 3 * 947_798_016
    assert result.kv_bytes_per_token == 21 * (1_024 + 256) // 4 + 20 * 1_024 // 128 == 6_880
    assert result.state_bytes_per_user == 12_206_080


def test_the_plan_keeps_fp8_rows_whatever_is_asked(capsys):
    """vLLM runs this attention on fp8_ds_mla rows only ("auto" and "fp8" both become it): the plan says
    FP8, and asking for fp8 changes nothing."""
    figures = []
    for kv in ("auto", "fp8"):
        assert main(["plan", "deepseek-v4-flash", "--gpu", "b200", "--count", "2", "--context", "131072",
                     "--kv-dtype", kv, "--json"]) == 0
        figures.append(json.loads(capsys.readouterr().out))
    assert figures[0]["kv_cache_dtype"] == figures[1]["kv_cache_dtype"] == "fp8"
    assert figures[0]["available_kv_bytes_per_gpu"] == figures[1]["available_kv_bytes_per_gpu"]
    assert figures[0]["kv_bytes_per_token_per_gpu"] == figures[1]["kv_bytes_per_token_per_gpu"]
    assert figures[0]["non_kv_bytes_per_gpu"]["attention_workspace"] == attention_workspace_at(131_072, 16_384)


def attention_workspace_at(context: int, batch: int) -> int:
    """The same reserve by hand for Flash at another batch (B200: 16,384-token batches)."""
    return 4 * (context // 4 + 128 + batch) * 512 * 2 + batch * 640 * 4 + batch * 4 + batch * 512 * 4


FLASH_FILE, LLAMA_FILE = "models/deepseek-v4-flash.yaml", "models/llama-3-1-8b-instruct.yaml"
RATIOS_END = "4, 128, 4]"
HOSTILE = [
    (FLASH_FILE, RATIOS_END, "4, 128, 3]", "architecture.attention.compress_ratios: must be one of 0, 4, 128 (got 3)"),
    (FLASH_FILE, RATIOS_END, "4, 128]", "architecture.attention.compress_ratios: must give one ratio per layer (43, got 42)"),
    (FLASH_FILE, "    output_groups: 8", "    output_groups: 7",
     "architecture.attention.output_groups: must divide heads × head_dim (64 × 512)"),
    (FLASH_FILE, "    indexer_top_k: 512\n", "", "architecture.attention.indexer_top_k: missing (needed for compressed attention)"),
    (FLASH_FILE, "    indexer_heads: 64\n    indexer_head_dim: 128\n", "",
     "architecture.attention.indexer_heads: goes with layers of ratio 4, and only with them (the Lightning indexer)"),
    (FLASH_FILE, "    head_dim: 512", "    head_dim: 520",
     "architecture.attention.head_dim: must be a multiple of 32 and of every ratio, and indexer_head_dim of 128 "
     "(whole rows a token, whole scale groups)"),
    (FLASH_FILE, "  hash_layers: 3", "  hash_layers: 44", "architecture.hash_layers: must not exceed the 43 MoE layers"),
    (FLASH_FILE, "  extra_layers: 1", "  extra_layers: 1\n  extra_layers_in_gguf: true",
     "architecture.extra_layers_in_gguf: does not go with compressed attention (llama.cpp's converter writes its MTP layer "
     "to a file of its own)"),
    (LLAMA_FILE, "  tied_embeddings: false", "  tied_embeddings: false\n  hyper_connections: 4",
     "architecture.hyper_connections: goes only with compressed attention (DeepSeek-V4)"),
    (LLAMA_FILE, "name: Llama-3.1-8B-Instruct", "name: Llama-3.1-8B-Instruct\nparams_without_prediction: true",
     "params_without_prediction: needs an architecture with extra_layers (the prediction layers the published count "
     "leaves out)"),
]


@pytest.mark.parametrize("file, old, new, expected", HOSTILE, ids=[row[3].split(":")[0] + row[2][-12:] for row in HOSTILE])
def test_check_refuses_what_the_sizing_of_compressed_attention_cannot_read(content_copy, file, old, new, expected):
    (content_copy / FLASH_FILE).write_text((CONTENT / FLASH_FILE).read_text(encoding="utf-8"), encoding="utf-8")
    edit(content_copy, file, old, new)
    code, lines = check(content_copy)
    assert code == 2 and len(lines) == 2 and lines[0].split(": ", 1)[1] == expected, lines


@pytest.mark.parametrize("gpu, reason", [("h100-sxm", None), ("h200", None), ("b200", None), ("b300", None),
                                         ("rtx-5090", GPU_NOT_PLANNED), ("mi300x", GPU_NOT_PLANNED),
                                         ("a100-80gb", GPU_WITHOUT_KERNELS), ("l40s", GPU_WITHOUT_KERNELS)])
def test_vllm_is_planned_only_where_its_flashmla_kernels_run(catalog, flash, gpu, reason):
    """sparse_mla.py DeepseekV4FlashMLABackend.supports_compute_capability: major in [9, 10]; 12.x takes
    FlashInfer's SM120 class and AMD a ROCm one, whose memory is not modelled; below 9.x the FlashMLA
    class is taken and has no kernels (nvidia/model.py _select_dsv4_attn_cls)."""
    card = next(g for g in catalog.gpus if g.slug == gpu)
    result = plan(flash, card, 8, PlanRequest(context=131_072))
    assert (result.starts, result.reason, result.max_context > 0) == (reason is None, reason, reason is None)


@pytest.mark.parametrize("asked", [8_192, 1_048_576])
def test_the_longest_context_a_plan_offers_starts_and_no_longer_one_does(catalog, flash, asked):
    """FlashMLA's workspace grows by 1,024 bytes a token of --max-model-len: the longest context is
    sought with it, whatever context was asked."""
    h200 = next(g for g in catalog.gpus if g.slug == "h200")

    def at(context: int):
        return plan(flash, h200, 2, PlanRequest(context=context, memory_fraction=Fraction(64, 100)))

    longest = at(asked).max_context
    assert 131_072 < longest < 1_048_576
    assert at(longest).starts and not at(longest + 1).starts
    assert at(longest).max_context == longest



def test_a_token_reads_the_rows_the_indexer_picks_not_every_compressed_row(flash):
    """vLLM's sparse attention: a ratio-4 layer reads its indexer's keys of the whole context (128
    values a 4 tokens) and the 512 rows picked (512 × 512 values); a ratio-128 layer every row (512
    values a 128 tokens); every layer its window. At FP8: 21 × 32 + 20 × 4 = 752 bytes a token, and
    21 × 512 × 512 besides the compressors' state."""
    cache = kv_read_cache(flash.architecture, "fp8")
    assert cache.bytes_per_token == 21 * 128 // 4 + 20 * 512 // 128 == 752
    assert cache.state_bytes == 12_206_080 + 21 * 512 * 512
    assert (cache.window_bytes_per_token, cache.window_tokens) == (43 * 512, 128)


def test_the_page_offers_the_file_that_keeps_the_experts_as_they_are(catalog, flash):
    """MXFP4_MOE beside the stock presets, for models whose published experts are MXFP4 (gpt-oss,
    DeepSeek-V4), on the page's own-GPU table and in its calculator; 154,986,200,988 bytes of tensors
    for Flash (test_the_gguf_file_as_the_converter_and_llama_quantize_write_it)."""
    llama = next(m for m in catalog.models if m.slug == "llama-3-1-8b-instruct")
    gpt_oss = next(m for m in catalog.models if m.slug == "gpt-oss-120b")
    assert page_quants(flash)[-1] == page_quants(gpt_oss)[-1] == "MXFP4_MOE" and "MXFP4_MOE" not in page_quants(llama)
    rows = {row.quant: row for row in own_gpu(flash, catalog.gpus).rows}
    assert rows["MXFP4_MOE"].file.tensor_bytes == 154_986_200_988
