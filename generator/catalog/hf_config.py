"""Turn a Hugging Face checkpoint (config.json and tensor names) into a catalog model record.

Pure: dicts in, the YAML-ready mapping out. Whatever cannot be determined is written as TODO,
which `check` reports until somebody fills it in.
"""

from __future__ import annotations

import json
from typing import Any

# N_: a note in every language of the site, from the gettext catalogs (its msgid is extracted with the pages')
from generator.languages import in_every_language as N_
from generator.catalog.checkpoint import Checkpoint, parameter_count
from generator.catalog.hf_families import EVERY_OTHER_LAYER_SLIDES, ONE_NORM_TYPES, common_keys
from generator.catalog.slugs import slugify
from generator.catalog.fields import COMPRESS_RATIOS
from generator.catalog.schema import LAYER_PATTERN, MODEL_CLASS, TODO

# Attention and MoE layouts by model_type (transformers' names).
MLA_TYPES = {"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa"}
# Qwen3-VL's language models are Qwen3's and Qwen3-MoE's (transformers' modeling_qwen3_vl.py, modeling_qwen3_vl_moe.py)
QWEN3_VL_TYPES = {"qwen3_vl_text", "qwen3_vl_moe_text"}
QK_NORM_TYPES = {"qwen3", "qwen3_moe", *QWEN3_VL_TYPES, "qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "gemma3", "gemma3_text", "gemma4",
                 "gemma4_text", "exaone4"}  # exaone4: modeling_exaone4.py q_norm and k_norm of head_dim
# Qwen3-Next's layers: gated DeltaNet every layer but each full_attention_interval-th, gated attention,
# a gated shared expert (vLLM's qwen3_5.py builds Qwen3.5's decoder layers from qwen3_next.py's)
QWEN3_NEXT_TYPES = {"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"}
LAYER_QK_NORM_TYPES = {"olmo2", "olmo3", "olmoe"}  # one norm over all query (or key) heads together
FOUR_NORM_TYPES = {"gemma2", "gemma3", "gemma3_text", "gemma4", "gemma4_text"}  # norms before and after attention and MLP
GEMMA4_TYPES = {"gemma4", "gemma4_text"}
QKV_BIAS_TYPES = {"qwen2", "qwen2_moe"}
SUPPORTED = {
    "llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "qwen3_next", "deepseek_v2", "deepseek_v3",
    "kimi_k2", "gpt_oss", "gemma2", "gemma3", "gemma3_text", "granite", "phi3", "olmo2", "olmo3", "olmoe", "smollm3",
    "phimoe", "ernie4_5", "ernie4_5_moe", "glm4_moe", "llama4", "llama4_text", "minimax_m2", "cohere", "cohere2",
    "nemotron_h", "nemotron-nas", "gemma4", "gemma4_text", "qwen3_5_text", "qwen3_5_moe_text", "deepseek_v4",
    *QWEN3_VL_TYPES, "deepseek_v32", "glm_moe_dsa", "exaone4",
}


# What add-model reads from config.json, by kind; a value of the wrong kind is refused with one line.
POSITIVE_KEYS = (
    "num_hidden_layers", "hidden_size", "vocab_size", "intermediate_size", "num_attention_heads",
    "num_key_value_heads", "head_dim", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
    "index_head_dim", "sliding_window_pattern", "num_experts_per_tok", "moe_intermediate_size",
    "shared_expert_intermediate_size", "max_position_embeddings", "full_attention_interval",
    "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
    "linear_conv_kernel_dim", "patch_size", "intermediate_size_mlp", "interleave_moe_layer_step",
    "no_rope_layer_interval", "attention_chunk_size", "moe_num_experts", "moe_k",
    "mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size", "conv_kernel",
    "moe_shared_expert_intermediate_size", "num_global_key_value_heads", "global_head_dim", "top_k_experts",
    "expert_intermediate_size", "depth", "vt_num_hidden_layers", "vt_hidden_size", "vt_intermediate_size",
    "index_topk", "o_groups", "o_lora_rank", "moe_latent_size", "spatial_merge_size", "out_hidden_size",
    "temporal_patch_size",
)
# 0 means "none" for these (a dense model, no MTP layer, no sliding window, no Q compression)
COUNT_KEYS = (
    "n_routed_experts", "num_experts", "num_local_experts", "n_shared_experts", "first_k_dense_replace",
    "num_nextn_predict_layers", "sliding_window", "q_lora_rank", "index_n_heads", "moe_num_shared_experts",
    "moe_layer_start_index", "num_kv_shared_layers", "hidden_size_per_layer_input", "mtp_num_hidden_layers",
    "hc_mult", "num_hash_layers", "num_position_embeddings", "position_embedding_size",
)
FLAG_KEYS = ("tie_word_embeddings", "use_sliding_window", "attention_bias", "use_qk_norm", "use_routing_bias",
             "attention_k_eq_v", "enable_moe_block", "use_double_wide_mlp")
TEXT_KEYS = ("model_type", "_name_or_path", "torch_dtype", "dtype", "topk_method", "qk_norm_type",
             "hybrid_override_pattern", "mlp_hidden_act", "mamba_ssm_cache_dtype", "mamba_ssm_dtype", "expert_dtype")
MAPPING_KEYS = ("text_config", "vision_config", "quantization_config")
LIST_KEYS = ("layer_types", "moe_layers", "no_rope_layers", "block_configs", "architectures", "compress_ratios", "indexer_types",
             "layers_block_type", "deepstack_visual_indexes")


def config_problem(config: dict) -> str | None:
    """The first value add-model cannot use, as `key: what is wrong (expected)`, or None."""
    sections = [("", config)] + [(f"{key}.", config[key]) for key in ("text_config", "vision_config")
                                 if isinstance(config.get(key), dict)]
    for prefix, section in sections:
        for key, value in section.items():
            if key in POSITIVE_KEYS and not _whole(value, 1) and not _named_layers_pattern(key, value, section):
                return f"{prefix}{key}: must be a positive integer (got {_shown(value)})"
            if key in COUNT_KEYS and not _whole(value, 0):
                return f"{prefix}{key}: must be an integer, 0 or more (got {_shown(value)})"
            if key in FLAG_KEYS and not isinstance(value, bool):
                return f"{prefix}{key}: must be true or false (got {_shown(value)})"
            if key in TEXT_KEYS and not isinstance(value, str):
                return f"{prefix}{key}: must be text (got {_shown(value)})"
            if key in MAPPING_KEYS and not isinstance(value, dict):
                return f"{prefix}{key}: must be a JSON object (got {_shown(value)})"
            if key in LIST_KEYS and not isinstance(value, list):
                return f"{prefix}{key}: must be a JSON list (got {_shown(value)})"
            if key == "architectures" and isinstance(value, list) and not all(
                    isinstance(name, str) and MODEL_CLASS.fullmatch(name) for name in value):
                return f"{prefix}{key}: must list model class names like Qwen3ForCausalLM (got {_shown(value)})"
            if key == "hybrid_override_pattern" and isinstance(value, str) and not LAYER_PATTERN.fullmatch(value):
                return f"{prefix}{key}: must be letters among M, *, - and E, one per layer (got {_shown(value)})"
            if key == "compress_ratios" and isinstance(value, list) and (
                    len(value) < _layer_count(section) or any(ratio not in COMPRESS_RATIOS or isinstance(ratio, bool)
                                                              for ratio in value)):
                return (f"{prefix}{key}: must give one of {', '.join(map(str, COMPRESS_RATIOS))} for each of the "
                        f"{_layer_count(section)} layers (got {_shown(value)})")
            if key == "block_configs" and isinstance(value, list):
                problem = _block_configs_problem(value, section.get("num_hidden_layers"), section.get("num_attention_heads"))
                if problem:
                    return f"{prefix}{key}{problem}"
    return _gemma4_problem(config)


def _layer_count(section: dict) -> int:
    layers = section.get("num_hidden_layers")
    return layers if _whole(layers, 1) else 0


def _gemma4_problem(config: dict) -> str | None:
    """Gemma 4's parts the sizing does not model yet: the small models' KV shared between layers and
    per-layer embeddings (E2B, E4B)."""
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    if text.get("model_type", config.get("model_type")) not in GEMMA4_TYPES:
        return None
    prefix = "text_config." if text is not config else ""
    for key, what in (("num_kv_shared_layers", "layers that reuse another layer's KV cache"),
                      ("hidden_size_per_layer_input", "per-layer embeddings")):
        if text.get(key):
            return f"{prefix}{key}: {what} (Gemma 4's small models) are not sized yet"
    return None


def _block_configs_problem(blocks: list, layers: Any, heads: Any) -> str | None:
    """Nemotron-NAS's blocks as the sizing reads them: one per layer, attention either a no-op or
    grouped-query with one n_heads_in_group for all (SGLang refuses variable GQA too), an FFN either
    a no-op or a SwiGLU of ffn_mult; no layer replaced with a linear one (vLLM's nemotron_nas.py has no
    such layer)."""
    if len(blocks) != layers:
        return f": must have one block per layer ({_shown(layers)}, got {len(blocks)})"
    groups = set()
    for index, block in enumerate(blocks):
        attention = block.get("attention") if isinstance(block, dict) else None
        ffn = block.get("ffn") if isinstance(block, dict) else None
        if not isinstance(attention, dict) or not isinstance(ffn, dict):
            return f"[{index}]: must have an attention and an ffn mapping"
        for part, values in (("attention", attention), ("ffn", ffn)):
            for flag in ("no_op", "replace_with_linear"):
                if not isinstance(values.get(flag, False), bool):
                    return f"[{index}].{part}.{flag}: must be true or false (got {_shown(values[flag])})"
        if attention.get("replace_with_linear") or ffn.get("replace_with_linear"):
            return f"[{index}]: a layer replaced with a linear one is not sized (vLLM does not run it)"
        if not attention.get("no_op"):
            if not _whole(attention.get("n_heads_in_group"), 1):
                return f"[{index}].attention.n_heads_in_group: must be a positive integer (got {_shown(attention.get('n_heads_in_group'))})"
            if not _whole(heads, 1) or heads % attention["n_heads_in_group"]:
                return f"[{index}].attention.n_heads_in_group: must divide num_attention_heads ({_shown(heads)})"
            groups.add(attention["n_heads_in_group"])
        multiplier = ffn.get("ffn_mult")
        if not ffn.get("no_op") and (isinstance(multiplier, bool) or not isinstance(multiplier, (int, float))
                                     or not 0 < multiplier <= 100):
            return f"[{index}].ffn.ffn_mult: must be a number above 0, at most 100 (got {_shown(multiplier)})"
    if len(groups) > 1:
        return f": n_heads_in_group must be the same in every attention layer (got {sorted(groups)})"
    if not groups:
        return ": needs at least one layer with attention"
    return None


def _named_layers_pattern(key: str, value: Any, section: dict) -> bool:
    """EXAONE 4 writes its sliding_window_pattern as letters ("LLLG") beside layer_types, which
    names each layer: add-model reads layer_types and leaves the letters be."""
    return key == "sliding_window_pattern" and isinstance(value, str) and isinstance(section.get("layer_types"), list)


def _whole(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _text_config(config: dict) -> dict:
    """Multimodal checkpoints keep the language model's settings under text_config."""
    text = config.get("text_config")
    return {**config, **text} if isinstance(text, dict) else config


def _family_text(config: dict) -> tuple[str, dict]:
    """The model type and the language model's settings under the shared key names."""
    text = _text_config(config)
    family = str(text.get("model_type") or config.get("model_type"))
    return family, common_keys(family, text)


def _sliding_layers(text: dict, layers: int) -> tuple[int | None, int]:
    window = text.get("sliding_window")
    if not window or text.get("use_sliding_window") is False:
        return None, 0
    layer_types = text.get("layer_types")
    if isinstance(layer_types, list):
        return window, sum(1 for kind in layer_types if kind == "sliding_attention")
    pattern = text.get("sliding_window_pattern")
    if pattern:  # Gemma 3: every pattern-th layer is global, the others local
        return window, layers - layers // pattern
    if text.get("model_type") in EVERY_OTHER_LAYER_SLIDES:
        return window, layers - layers // 2
    return window, layers  # Mistral: every layer


def _compressed_attention(text: dict, layers: int) -> dict:
    """DeepSeek-V4 (vLLM 0.33.0 models/deepseek_v4): compress_ratios lists the layers' ratios, then
    the MTP layer's; every layer keeps the sliding window; the indexer works at ratio 4."""
    ratios = text["compress_ratios"][:layers]
    attention = {
        "kind": "compressed", "heads": text["num_attention_heads"], "head_dim": text["head_dim"],
        "q_lora_rank": text["q_lora_rank"], "qk_rope_head_dim": text["qk_rope_head_dim"],
        "sliding_window": text["sliding_window"], "sliding_window_layers": layers, "compress_ratios": ratios,
        "output_groups": text["o_groups"], "output_rank": text["o_lora_rank"], "indexer_top_k": text["index_topk"],
    }
    if 4 in ratios:
        attention.update(indexer_heads=text["index_n_heads"], indexer_head_dim=text["index_head_dim"])
    return attention


def _attention(model_type: str, text: dict, layers: int) -> dict:
    heads = text["num_attention_heads"]
    if model_type == "deepseek_v4":
        return _compressed_attention(text, layers)
    if model_type in MLA_TYPES:
        attention = {"kind": "mla", "heads": heads}
        if text.get("q_lora_rank"):
            attention["q_lora_rank"] = text["q_lora_rank"]
        for key in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
            attention[key] = text[key]
        if text.get("index_n_heads"):
            attention["indexer_heads"] = text["index_n_heads"]
            attention["indexer_head_dim"] = text["index_head_dim"]
            # GLM-5.2's IndexShare: the layers whose indexer_types is "shared" have none of their own
            shared = [layer for layer, kind in enumerate(text.get("indexer_types") or ()) if kind == "shared"]
            if shared:
                attention["shared_indexer_layers"] = shared
        return attention
    attention = {
        "kind": "gqa",
        "heads": heads,
        "kv_heads": text.get("num_key_value_heads") or heads,
        "head_dim": text.get("head_dim") or text["hidden_size"] // heads,
    }
    if model_type in QKV_BIAS_TYPES or text.get("attention_bias"):
        attention["qkv_bias"] = True
    if model_type == "gpt_oss":
        attention.update(output_bias=True, sinks=True)
    if model_type in QK_NORM_TYPES or text.get("use_qk_norm"):
        attention["qk_norm"] = "head"
    elif model_type in LAYER_QK_NORM_TYPES or text.get("layer_qk_norm"):
        attention["qk_norm"] = "layer"
    if model_type in QWEN3_NEXT_TYPES:
        attention["output_gate"] = True
    if model_type == "phi3":  # modeling_phi3.py: one qkv_proj
        attention["fused_qkv"] = True
    if model_type in GEMMA4_TYPES:
        # configuration_gemma4.py: the full-attention layers' own KV heads and head width
        # (hf_families._gemma4), and attention_k_eq_v (their key is their value: no v_proj)
        attention["global_kv_heads"] = text.get("num_global_key_value_heads") or attention["kv_heads"]
        attention["global_head_dim"] = text["global_head_dim"]
        if text.get("attention_k_eq_v"):
            attention["global_key_is_value"] = True
    window, windowed = _sliding_layers(text, layers)
    if window:
        attention.update(sliding_window=window, sliding_window_layers=windowed)
    return attention


def _moe(model_type: str, text: dict) -> tuple[dict | None, int | None, int | None]:
    """(moe block, experts, experts per token) or (None, None, None) for a dense model."""
    experts = text.get("n_routed_experts") or text.get("num_experts") or text.get("num_local_experts")
    if not experts:
        return None, None, None
    moe: dict[str, Any] = {
        "expert_intermediate_size": text.get("moe_intermediate_size") or text["intermediate_size"],
    }
    shared = text.get("n_shared_experts") or (1 if text.get("shared_expert_intermediate_size") else 0)
    if shared:
        moe["shared_experts"] = shared
        if text.get("shared_expert_intermediate_size"):
            moe["shared_expert_intermediate_size"] = text["shared_expert_intermediate_size"]
    if text.get("moe_latent_size"):  # Nemotron 3 Super and Ultra: experts in a latent width
        moe["latent_size"] = text["moe_latent_size"]
    if model_type in QWEN3_NEXT_TYPES:
        moe["shared_expert_gate"] = True
    if model_type in GEMMA4_TYPES:
        moe["router_scales"] = True
    if text.get("topk_method") == "noaux_tc" or model_type == "gpt_oss" or text.get("router_bias"):
        moe["router_bias"] = True
    if model_type == "gpt_oss":
        moe["expert_bias"] = True
    return moe, experts, text.get("num_experts_per_tok")


def _formats(config: dict) -> tuple[dict, str | dict | None]:
    """The checkpoint's format per component, and a short name for its precision."""
    # a multimodal checkpoint may keep them in its text config (Kimi-K2.5's compressed-tensors, Qwen3.5's dtype)
    settings = _text_config(config)
    quant = settings.get("quantization_config") or {}
    method = quant.get("quant_method")
    matrices = ("attention", "dense_mlp", "routed_experts", "shared_experts", "extra_layers")
    if method == "fp8" and quant.get("weight_block_size") == [128, 128] and settings.get("expert_dtype") == "fp4":
        # DeepSeek-V4: FP8 blocks with UE8M0 scales, the routed experts in MXFP4; the MTP layer stored
        # like the others (formats.published_formats)
        fp8 = "fp8_block128_e8m0" if quant.get("scale_fmt") == "ue8m0" else "fp8_block128"
        return {"attention": fp8, "dense_mlp": fp8, "shared_experts": fp8, "routed_experts": "mxfp4"}, N_("FP8 + MXFP4 (experts)")
    if method == "fp8" and quant.get("weight_block_size") == [128, 128]:
        return dict.fromkeys(matrices, "fp8_block128"), "FP8"
    if method == "mxfp4":
        return {"routed_experts": "mxfp4"}, N_("MXFP4 (experts) + BF16")
    if method:
        return {}, None  # a format the engine does not know: the precision stays a to-do
    dtype = str(settings.get("torch_dtype") or settings.get("dtype"))
    return {}, {"bfloat16": "BF16", "float16": "FP16", "float32": "FP32"}.get(dtype)  # None: a to-do


# llama.cpp's converter keeps these families' NextN layers in the GGUF file (convert_hf_to_gguf.py:
# Glm4MoeModel, GlmMoeDsaModel); it drops DeepSeek's. Qwen3-Next's and Qwen3.5's are left out too:
# converters since mid-2026 keep them unless --no-mtp (conversion/qwen.py at 4df29be4), but the files
# readers download were made without them (tests/data/gguf_sizes.yaml: unsloth's Q8_0 files to the byte).
NEXTN_IN_GGUF_TYPES = {"glm4_moe", "glm_moe_dsa"}


def _extra_layers(model_type: str, text: dict, names: tuple[str, ...], layers: int) -> dict:
    extra = text.get("num_nextn_predict_layers") or text.get("mtp_num_hidden_layers") or 0  # Qwen3.5: the latter
    if not extra and any(name.startswith("mtp.") for name in names):
        extra = 1  # Qwen3-Next ships its multi-token-prediction block under mtp.*
    result = {"extra_layers": extra} if extra else {}
    if extra and f"model.layers.{layers}.embed_tokens.weight" in names:
        result["extra_layers_embeddings"] = True  # DeepSeek-V3 stores a copy in the MTP layer
    if extra and model_type in NEXTN_IN_GGUF_TYPES:
        result["extra_layers_in_gguf"] = True
    return result


def _nemotron_h(text: dict) -> dict:
    """NemotronH (modeling_nemotron_h.py; vLLM's nemotron_h.py): hybrid_override_pattern names each
    layer's one block (M Mamba2, * attention, - MLP, E MoE) and its one norm; the MLPs and experts
    are up and down projections with relu2; the Mamba2 mixer of mamba_num_heads × mamba_head_dim
    with n_groups groups of ssm_state_size."""
    pattern = text["hybrid_override_pattern"]
    arch: dict[str, Any] = {"layer_pattern": pattern, "norms_per_layer": 1,
                            "gated_mlp": text.get("mlp_hidden_act", "relu2") != "relu2"}
    if "-" in pattern:
        arch["intermediate_size"] = text["intermediate_size"]
    if "M" in pattern:
        arch["linear_attention"] = {
            "kind": "mamba2", "layers": pattern.count("M"), "key_heads": text["n_groups"],
            "value_heads": text["mamba_num_heads"], "key_head_dim": text["ssm_state_size"],
            "value_head_dim": text["mamba_head_dim"], "conv_kernel": text["conv_kernel"],
        }
        # vLLM's NemotronHForCausalLMConfig: the config's mamba_ssm_cache_dtype, else float32
        if text.get("mamba_ssm_cache_dtype", "float32") == "float32":
            arch["linear_attention"]["ssm_state_float32"] = True
    return arch


def _nemotron_nas(text: dict) -> dict:
    """Nemotron-NAS (vLLM's nemotron_nas.py, DeciLM): per layer, attention or none, and an FFN of
    its own width or none (_ffn_mult_to_intermediate_size: int(2 × ffn_mult × hidden / 3), rounded
    up to a multiple of 256)."""
    blocks, hidden = text["block_configs"], text["hidden_size"]

    def width(ffn: dict) -> int:
        return 0 if ffn.get("no_op") else -(-int(2 * ffn["ffn_mult"] * hidden / 3) // 256) * 256

    free = [index for index, block in enumerate(blocks) if block["attention"].get("no_op")]
    arch: dict[str, Any] = {"ffn_widths": [width(block["ffn"]) for block in blocks]}
    if free:
        arch["attention_free_layers"] = free
    return arch


def _moonvit(vision: dict) -> dict:
    """Kimi-K2.5's MoonViT names its sizes vt_* (configuration_kimi_k25.py)."""
    names = {"vt_num_hidden_layers": "num_hidden_layers", "vt_hidden_size": "hidden_size",
             "vt_intermediate_size": "intermediate_size"}
    return {**vision, **{common: vision[own] for own, common in names.items() if own in vision}}


def _vision(config: dict) -> dict | None:
    vision = config.get("vision_config")
    if not isinstance(vision, dict) or not (vision.get("num_hidden_layers") or vision.get("depth")
                                            or vision.get("vt_num_hidden_layers")):
        return None
    vision = _moonvit(vision)
    tower = {
        "layers": vision.get("num_hidden_layers") or vision["depth"],  # Qwen3-VL and Qwen3.5 say depth
        "hidden_size": vision["hidden_size"],
        "intermediate_size": vision["intermediate_size"],
        "patch_size": vision.get("patch_size", 14),
    }
    if vision.get("spatial_merge_size") and vision.get("out_hidden_size"):
        # Qwen3-VL's and Qwen3.5's tower (Qwen3VLVisionConfig): every tensor sized (weights.py)
        tower.update(merge_size=vision["spatial_merge_size"], temporal_patch_size=vision.get("temporal_patch_size", 2),
                     output_size=vision["out_hidden_size"], position_embeddings=vision.get("num_position_embeddings", 0),
                     deepstack_mergers=len(vision.get("deepstack_visual_indexes") or ()))
    if vision.get("model_type") == "pixtral":
        # Mistral 3 (Mistral3Config): a gated MLP, and a patch merger of spatial_merge_size² patches
        tower.update(layout="pixtral", gated_mlp=True, merge_size=config.get("spatial_merge_size", 2))
    if vision.get("model_type") == "gemma4_vision":
        # Gemma4VisionMLP: gate, up and down; its position table holds an x and a y vector per position
        tower.update(gated_mlp=True, position_embeddings=2 * vision.get("position_embedding_size", 0))
    return tower


def architecture(checkpoint: Checkpoint, config_url: str) -> dict:
    config = checkpoint.config
    model_type, text = _family_text(config)
    layers = text["num_hidden_layers"]
    arch: dict[str, Any] = {
        "source": config_url,
        "note": N_("Written by add-model from config.json (model_type %(model_type)s).", model_type=model_type),
        "layers": layers,
        "hidden_size": text["hidden_size"],
        "vocab_size": text["vocab_size"],
        "tied_embeddings": bool(text["tie_word_embeddings"]),
    }
    if config.get("architectures"):
        arch["config_class"] = config["architectures"][0]  # the class each engine must register
    moe, _, _ = _moe(model_type, text)
    dense_layers = text.get("first_k_dense_replace")
    if (moe is None or dense_layers) and model_type != "nemotron-nas":
        arch["intermediate_size"] = text["intermediate_size"]
    if moe is not None and dense_layers:
        arch["dense_layers"] = dense_layers
    if model_type in GEMMA4_TYPES and moe is not None:
        arch["norms_per_layer"] = 7  # Gemma4DecoderLayer: four, and the MoE block's pre_2, post_1 and post_2
    elif model_type in FOUR_NORM_TYPES:
        arch["norms_per_layer"] = 4
    elif model_type in ONE_NORM_TYPES:
        arch["norms_per_layer"] = 1
    arch["attention"] = _attention(model_type, text, layers)
    if model_type in QWEN3_NEXT_TYPES:
        interval = text.get("full_attention_interval", 4)
        arch["linear_attention"] = {
            "kind": "gated_deltanet",
            "layers": layers - layers // interval,
            "key_heads": text["linear_num_key_heads"],
            "value_heads": text["linear_num_value_heads"],
            "key_head_dim": text["linear_key_head_dim"],
            "value_head_dim": text["linear_value_head_dim"],
            "conv_kernel": text["linear_conv_kernel_dim"],
        }
        # Qwen3.5: vLLM keeps the state in the config's mamba_ssm_dtype (models/config.py
        # Qwen3_5ForConditionalGenerationConfig sets mamba_ssm_cache_dtype from it)
        if text.get("mamba_ssm_dtype") == "float32":
            arch["linear_attention"]["ssm_state_float32"] = True
    if model_type == "nemotron_h":
        arch.update(_nemotron_h(text))
    if model_type == "nemotron-nas":
        arch.update(_nemotron_nas(text))
    if model_type == "deepseek_v4":
        arch.update(hyper_connections=text["hc_mult"], hash_layers=text.get("num_hash_layers", 0))
    if moe is not None:
        arch["moe"] = moe
    arch.update(_extra_layers(model_type, text, checkpoint.tensor_names, layers))
    vision = _vision(config)
    if vision:
        arch["vision"] = vision
    formats, _ = _formats(config)
    present = {
        "attention": True,
        "dense_mlp": "intermediate_size" in arch or "ffn_widths" in arch,
        "routed_experts": moe is not None,
        "shared_experts": bool(moe and moe.get("shared_experts")),
        "extra_layers": bool(arch.get("extra_layers")),
    }
    formats = {component: key for component, key in formats.items() if present[component]}
    if formats:
        arch["formats"] = formats
    return arch


def _fact(value: Any, source: str, note: dict[str, str] | None = None) -> dict:
    fact = {"value": value, "source": source}
    if note:
        fact["note"] = note
    return fact


def model_record(checkpoint: Checkpoint, repo_id: str | None) -> dict:
    """The catalog record for `checkpoint`, with TODO where a fact could not be read (the id without `repo_id`)."""
    config = checkpoint.config
    model_type, text = _family_text(config)
    name = repo_id.split("/")[1] if repo_id else checkpoint.folder.name
    hub = f"https://huggingface.co/{repo_id}" if repo_id else None
    config_url = f"{hub}/blob/main/config.json" if hub else TODO
    record: dict[str, Any] = {"id": repo_id or TODO, "name": name, "weights": hub or TODO}
    if checkpoint.tensors:
        record["params"] = _fact(
            parameter_count(checkpoint.tensors),
            f"{hub}/tree/main" if hub else TODO,
            N_("Sum of the tensor shapes in the safetensors headers (packed 4-bit values counted "
               "twice, scales left out), read by add-model."),
        )
    else:
        record["params"] = _fact(TODO, TODO, N_("No .safetensors files were given: fill in the published count."))
    moe, experts, per_token = _moe(model_type, text)
    if moe is not None:
        record["active_params"] = _fact(TODO, TODO, N_("The published count of parameters used per token."))
        record["experts"] = _fact(experts, config_url)
        record["experts_per_token"] = _fact(per_token or TODO, config_url)
    if text.get("max_position_embeddings"):
        record["context_window"] = _fact(text["max_position_embeddings"], config_url)
    _, precision = _formats(config)
    record["precision"] = _fact(precision or TODO, config_url if precision else TODO)
    license_name = checkpoint.readme_front_matter.get("license")
    if license_name:
        record["license"] = _fact(license_name, f"{hub}/blob/main/README.md" if hub else TODO)
    else:
        record["license"] = _fact(TODO, TODO)
    record["release_date"] = _fact(TODO, TODO, N_("The date the weights were published."))
    if model_type in SUPPORTED:
        record["architecture"] = architecture(checkpoint, config_url)
    else:
        record["architecture"] = TODO
    return record


def model_type(checkpoint: Checkpoint) -> str:
    return _family_text(checkpoint.config)[0]


def record_slug(record: dict) -> str:
    return slugify(record["name"])
