"""GGUF files: llama.cpp's block layouts, llama-quantize's per-tensor types, and file sizes against
published ones (tests/data/gguf_sizes.yaml, each row with its URL and quote)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.sizing.gguf import (
    GGML_TYPES, GgufTensor, gguf_blocks, gguf_facts, gguf_file, gguf_sizable, gguf_tensors, tensor_bytes, tensor_type,
)
from generator.sizing.llama_cpp import llama_cpp_layers
from generator.sizing.weights import tensors

SIZES = yaml.safe_load((Path(__file__).parent / "data" / "gguf_sizes.yaml").read_text(encoding="utf-8"))
UNITS = {"GB": 10**9, "MB": 10**6, "GiB": 2**30, "B": 1}
TOLERANCE = 0.02  # the issue's: a computed file within 2 % of the published one


# ---- block layouts (ggml-common.h), bits per weight written out by hand --------------------------
@pytest.mark.parametrize("name, values, block_bytes, bits", [
    ("Q8_0", 32, 34, 8.5),  # fp16 scale + 32 × int8
    ("Q6_K", 256, 210, 6.5625),  # fp16 d + 16 scales + 128 low + 64 high bytes
    ("Q5_K", 256, 176, 5.5),
    ("Q4_K", 256, 144, 4.5),
    ("Q3_K", 256, 110, 3.4375),
    ("Q2_K", 256, 84, 2.625),
    ("IQ4_XS", 256, 136, 4.25),
    ("IQ3_XXS", 256, 98, 3.0625),
    ("IQ2_XXS", 256, 66, 2.0625),
    ("Q4_0", 32, 18, 4.5),
    ("Q5_0", 32, 22, 5.5),
    ("IQ4_NL", 32, 18, 4.5),
    ("MXFP4", 32, 17, 4.25),
    ("F16", 1, 2, 16),
    ("BF16", 1, 2, 16),
])
def test_block_layouts(name, values, block_bytes, bits):
    assert GGML_TYPES[name] == (values, block_bytes)
    assert block_bytes * 8 / values == bits


# ---- llama-quantize's choices (llama-quant.cpp llama_tensor_get_type) ----------------------------
def _type(catalog, slug, preset, name, layer, imatrix=False):
    model = next(m for m in catalog.models if m.slug == slug)
    tensor = next(t for t in gguf_tensors(model) if t.name == name and t.layer == layer)
    return tensor_type(preset, tensor, gguf_facts(model), imatrix)


@pytest.mark.parametrize("slug, preset, name, layer, expected", [
    # use_more_bits(i, 32): i < 4, i >= 28, or (i - 4) % 3 == 2
    ("llama-3-1-8b-instruct", "Q4_K_M", "attn_v", 0, "Q6_K"),
    ("llama-3-1-8b-instruct", "Q4_K_M", "attn_v", 4, "Q4_K"),
    ("llama-3-1-8b-instruct", "Q4_K_M", "attn_v", 6, "Q6_K"),
    ("llama-3-1-8b-instruct", "Q4_K_M", "ffn_down", 31, "Q6_K"),
    ("llama-3-1-8b-instruct", "Q4_K_M", "ffn_down", 5, "Q4_K"),
    ("llama-3-1-8b-instruct", "Q4_K_M", "attn_q", 0, "Q4_K"),
    ("llama-3-1-8b-instruct", "Q4_K_M", "output", None, "Q6_K"),
    ("llama-3-1-8b-instruct", "Q4_K_M", "token_embd", None, "Q4_K"),
    ("llama-3-1-8b-instruct", "Q8_0", "output", None, "Q8_0"),
    # Q3_K_M: attn_v Q5_K for the first two, ffn_down Q5_K in the first 1/16, attn_output Q4_K
    ("llama-3-1-8b-instruct", "Q3_K_M", "attn_v", 1, "Q5_K"),
    ("llama-3-1-8b-instruct", "Q3_K_M", "attn_v", 2, "Q4_K"),
    ("llama-3-1-8b-instruct", "Q3_K_M", "ffn_down", 1, "Q5_K"),
    ("llama-3-1-8b-instruct", "Q3_K_M", "ffn_down", 2, "Q4_K"),
    ("llama-3-1-8b-instruct", "Q3_K_M", "attn_output", 9, "Q4_K"),
    # Q2_K: attn_v Q4_K with 4+ query heads per KV head, ffn_down Q3_K, attn_output Q3_K
    ("llama-3-1-8b-instruct", "Q2_K", "attn_v", 9, "Q4_K"),
    ("llama-3-1-8b-instruct", "Q2_K", "ffn_down", 9, "Q3_K"),
    ("llama-3-1-8b-instruct", "Q2_K", "attn_output", 9, "Q3_K"),
    # IQ4_XS: attn_v Q5_K (GQA 4), the first 1/8 of ffn_down Q5_K without an importance matrix
    ("llama-3-1-8b-instruct", "IQ4_XS", "attn_v", 9, "Q5_K"),
    ("llama-3-1-8b-instruct", "IQ4_XS", "ffn_down", 3, "Q5_K"),
    # 80 Llama layers are LLM_TYPE_70B: its Q3_K/Q4_K attn_v become Q5_K
    ("llama-3-1-70b-instruct", "Q3_K_M", "attn_v", 5, "Q5_K"),
    # 8 experts (Mixtral): attn_v and attn_k at Q8_0, attn_output Q5_K
    ("mixtral-8x7b-v0-1", "Q4_K_M", "attn_v", 5, "Q8_0"),
    ("mixtral-8x7b-v0-1", "Q4_K_M", "attn_k", 5, "Q8_0"),
    ("mixtral-8x7b-v0-1", "Q4_K_M", "attn_output", 5, "Q5_K"),
    ("mixtral-8x7b-v0-1", "Q4_K_M", "ffn_down_exps", 0, "Q6_K"),
    # a tied head: the embeddings are quantized as the output (Q6_K)
    ("gemma-2-9b-it", "Q4_K_M", "token_embd", None, "Q6_K"),
    # Phi-3's fused attn_qkv gets one step more
    ("phi-4", "Q4_K_M", "attn_qkv", 3, "Q5_K"),
    # a row of 2,880 values (gpt-oss) is no multiple of 256: Q4_K falls back to Q5_0, Q6_K to Q8_0
    ("gpt-oss-20b", "Q4_K_M", "attn_q", 3, "Q5_0"),
    ("gpt-oss-20b", "Q4_K_M", "ffn_down_exps", 3, "MXFP4"),  # kept as published
    ("gpt-oss-20b", "Q4_K_M", "output", None, "Q8_0"),
    # the router and norms stay F32
    ("qwen3-30b-a3b", "Q4_K_M", "ffn_gate_inp", 0, "F32"),
])
def test_llama_quantize_types(catalog, slug, preset, name, layer, expected):
    assert _type(catalog, slug, preset, name, layer) == expected


def test_an_importance_matrix_keeps_iq4_xs_ffn_down_at_iq4_xs(catalog):
    assert _type(catalog, "llama-3-1-8b-instruct", "IQ4_XS", "ffn_down", 3, imatrix=True) == "IQ4_XS"


def test_row_bytes_follow_the_blocks():
    tensor = GgufTensor("attn_q", 0, 4096, 4096, "BF16")
    assert tensor_bytes(tensor, "Q4_K") == 4096 * 16 * 144  # 16 blocks of 256 per row
    assert tensor_bytes(tensor, "Q8_0") == 4096 * 128 * 34
    assert tensor_bytes(tensor, "F32") == 4096 * 4096 * 4


def test_the_file_holds_every_weight_but_the_vision_tower_and_the_prediction_layers_it_drops(catalog):
    for model in catalog.models:
        if not gguf_sizable(model):
            continue
        arch = model.architecture
        dropped = ("vision",) if arch.extra_layers_in_gguf else ("vision", "extra_layers")
        kept = sum(t.params for t in tensors(model) if t.component not in dropped)
        if arch.extra_layers_embeddings and not arch.extra_layers_in_gguf:  # their own embeddings and head go too
            kept -= 2 * arch.extra_layers * arch.vocab_size * arch.hidden_size
        # DeepSeek-V4's hash layers add their token-to-expert table (I32), which is no parameter
        kept += arch.hash_layers * (model.experts_per_token or 0) * arch.vocab_size
        assert sum(t.values for t in gguf_tensors(model)) == kept, model.slug


def test_glm_files_keep_the_nextn_layer_and_llama_cpp_skips_it(catalog):
    """GLM-4.5-Air: the converter writes 47 blocks, so the file holds the published safetensors
    total (110,468,824,832 parameters, MTP layer with its own embeddings and head included); the
    loader skips block 46, so the layers llama.cpp places hold 4096 × 151552 × 2 + one MoE layer fewer."""
    air = next(m for m in catalog.models if m.slug == "glm-4-5-air")
    assert gguf_blocks(air) == 47
    assert sum(t.values for t in gguf_tensors(air)) == 110_468_824_832
    nextn = [t for t in gguf_tensors(air) if t.layer == 46]
    assert {t.name for t in nextn} >= {"nextn.eh_proj", "nextn.embed_tokens", "nextn.shared_head_head", "attn_q", "ffn_up_exps"}
    assert next(t for t in nextn if t.name == "nextn.eh_proj").values == 2 * 4096 * 4096
    placed = llama_cpp_layers(air, "BF16")
    assert len(placed.layers) == 48  # 46 blocks, the NextN block (empty: skipped) and the output layer
    in_file = placed.file.tensor_bytes
    loaded = placed.embeddings + sum(layer.weights + layer.experts for layer in placed.layers)
    assert in_file - loaded == sum(tensor_bytes(t, "F32" if t.source == "F32" else "BF16") for t in nextn)
    deepseek = next(m for m in catalog.models if m.slug == "deepseek-v3")
    assert gguf_blocks(deepseek) == 61  # DeepseekV2Model drops the MTP layer


EXACT = [row for row in SIZES if row.get("file_bytes") and not row.get("miss")]


@pytest.mark.parametrize("row", EXACT, ids=[f"{r['model']}-{r['quant']}-{r['file_bytes']}" for r in EXACT])
def test_files_of_published_bytes_match_within_half_a_percent_with_their_metadata(catalog, row):
    """Exact sizes leave only the metadata estimate to test: without it a file under 1 GB is 1 to 1.5 %
    short (Qwen2.5-0.5B Q4_K_M: 397,808,192 bytes published, 391,859,712 of tensors)."""
    model = next(m for m in catalog.models if m.slug == row["model"])
    file = gguf_file(model, row["quant"], row.get("imatrix", False))
    within = abs(file.file_bytes / row["file_bytes"] - 1) <= 0.005
    # a file within 2 % but not within 0.5 % stays marked, with its reason, until it is reproduced
    assert within != bool(row.get("miss_exact")), (row["model"], row["quant"], file.file_bytes, row.get("miss_exact"))


def test_qwen2_5_0_5b_metadata_is_39_bytes_per_vocabulary_entry(catalog):
    model = next(m for m in catalog.models if m.slug == "qwen2-5-0-5b-instruct")
    file = gguf_file(model, "Q4_K_M", True)
    assert file.metadata_bytes == 151_936 * 39 == 5_925_504
    assert file.file_bytes == file.tensor_bytes + 5_925_504


def test_the_published_files_cover_enough_models_and_quants():
    assert len(SIZES) >= 20
    assert len({row["model"] for row in SIZES}) >= 8
    assert {row["quant"] for row in SIZES} >= {"Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K", "IQ4_XS"}
    assert all(row["url"].startswith("https://") and row["quote"] for row in SIZES)


@pytest.mark.parametrize("row", SIZES, ids=[f"{r['model']}-{r['quant']}-{r['uploader']}" for r in SIZES])
def test_computed_file_sizes_match_the_published_ones(catalog, row):
    model = next(m for m in catalog.models if m.slug == row["model"])
    published = row.get("file_bytes") or row["size"] * UNITS[row["unit"]]
    file = gguf_file(model, row["quant"], row.get("imatrix", False))
    # llama.cpp's "file size" line counts the tensors; a file listing counts the metadata too
    computed = file.tensor_bytes if row["unit"] == "GiB" else file.file_bytes
    within = abs(computed / published - 1) <= TOLERANCE
    if row.get("miss"):
        assert not within, f"{row['model']} {row['quant']} is marked a miss ({row['miss']}) but now matches: drop the mark"
    else:
        assert within, f"{row['model']} {row['quant']}: computed {computed:,} bytes, published {published:,.0f}"
    if "bpw" in row and not row.get("miss"):
        assert abs(gguf_file(model, row["quant"], row.get("imatrix", False)).bits_per_weight - row["bpw"]) <= 0.02
