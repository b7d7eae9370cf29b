"""What each model family calls things in its config.json, mapped onto the keys add-model reads.

Most families use Llama's and DeepSeek's names; a few name the same facts their own way, or leave
them out and rely on a default of their transformers config class. `common_keys` rewrites a text
config into the shared names, so the rest of add-model has one rule per fact, not one per family.
The defaults and key names are those of transformers' `configuration_<model_type>.py` (5.24.0).
"""

from __future__ import annotations

from typing import Any

# Families whose config class ties the output head to the embeddings when config.json says nothing.
TIED_BY_DEFAULT = {"gemma", "gemma2", "gemma3", "gemma3_text", "cohere", "cohere2", "smollm3", "ernie4_5", "ernie4_5_moe"}
# Values a family's config class supplies when its config.json leaves them out (Gemma 3's published
# text_config omits these; configuration_gemma3.py: every 6th layer global unless layer_types says).
CONFIG_DEFAULTS = {
    "gemma3_text": {"vocab_size": 262_208, "max_position_embeddings": 131_072, "head_dim": 256,
                    "sliding_window": 4096, "sliding_window_pattern": 6},
    # configuration_gemma4.py Gemma4TextConfig
    "gemma4_text": {"global_head_dim": 512, "sliding_window": 512, "hidden_size_per_layer_input": 256},
}
# One norm per layer: attention and MLP run in parallel from the same LayerNorm (modeling_cohere.py).
ONE_NORM_TYPES = {"cohere", "cohere2"}
# Layers' sliding windows these families declare with a pattern instead of `layer_types`.
EVERY_OTHER_LAYER_SLIDES = {"gemma2"}  # modeling_gemma2.py: local and global layers alternate


NEMOTRON_H_BLOCKS = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}  # configuration_nemotron_h.py


def common_keys(model_type: str, text: dict) -> dict:
    """`text` with this family's own names and defaults rewritten into the shared ones."""
    common = {**CONFIG_DEFAULTS.get(model_type, {}), **text}
    common.setdefault("tie_word_embeddings", model_type in TIED_BY_DEFAULT)
    if model_type in ("llama4", "llama4_text"):
        common.update(_llama4(text))
    elif model_type == "ernie4_5_moe":
        common.update(_ernie4_5_moe(text))
    elif model_type == "minimax_m2":
        common["layer_qk_norm"] = text.get("use_qk_norm") and text.get("qk_norm_type") == "per_layer"
        common["use_qk_norm"] = False
        common["router_bias"] = bool(text.get("use_routing_bias"))
    elif model_type == "cohere" and text.get("use_qk_norm"):
        common.update(layer_qk_norm=True, use_qk_norm=False)  # LayerNorms over (heads, head_dim): modeling_cohere.py
    elif model_type == "nemotron_h":
        # NemotronHConfig: the shared expert's width under its own name, the router's
        # e_score_correction_bias, and no MoE without E layers (n_routed_experts stays in dense configs);
        # newer configs (Nemotron 3 Ultra) list layers_block_type instead of the pattern's letters
        blocks = text.get("layers_block_type")
        if "hybrid_override_pattern" not in text and isinstance(blocks, list) and all(b in NEMOTRON_H_BLOCKS for b in blocks):
            common["hybrid_override_pattern"] = "".join(NEMOTRON_H_BLOCKS[block] for block in blocks)
            common.setdefault("num_hidden_layers", len(blocks))
        common["shared_expert_intermediate_size"] = text.get("moe_shared_expert_intermediate_size")
        common["router_bias"] = True
        if "E" not in str(common.get("hybrid_override_pattern", "")):
            common["n_routed_experts"] = None
    elif model_type == "nemotron-nas":
        # DeciLMConfig: KV heads per block (num_attention_heads // n_heads_in_group), one for all here
        group = next(block["attention"]["n_heads_in_group"] for block in text["block_configs"]
                     if not block["attention"].get("no_op"))
        common["num_key_value_heads"] = text["num_attention_heads"] // group
    elif model_type in ("gemma4", "gemma4_text"):
        common.update(_gemma4(common))
    elif model_type == "glm4_moe":
        common["router_bias"] = True  # Glm4MoeTopkRouter keeps e_score_correction_bias (modeling_glm4_moe.py)
    return common


def _llama4(text: dict) -> dict[str, Any]:
    """Llama 4: experts of `intermediate_size`, dense layers of `intermediate_size_mlp`, one shared expert
    per MoE layer, MoE every `interleave_moe_layer_step`-th layer, chunked attention on the RoPE layers."""
    layers = text["num_hidden_layers"]
    step = text.get("interleave_moe_layer_step", 1)
    moe_layers = text.get("moe_layers") or range(step - 1, layers, step)
    keys: dict[str, Any] = {
        "moe_intermediate_size": text.get("intermediate_size", 8192),
        "intermediate_size": text.get("intermediate_size_mlp", 16384),
        "n_shared_experts": 1,
        "first_k_dense_replace": layers - len(moe_layers),
        "use_qk_norm": False,  # an L2 norm without weights (Llama4TextL2Norm)
    }
    chunk = text.get("attention_chunk_size", 8192)
    if chunk:  # sized as a sliding window: a chunk never holds more tokens than a window of its size
        keys["sliding_window"] = chunk
        no_rope = text.get("no_rope_layers")
        if no_rope:  # 1 marks a RoPE layer, which attends within its chunk
            keys["layer_types"] = ["sliding_attention" if r else "full_attention" for r in no_rope]
        else:  # every no_rope_layer_interval-th layer is global
            keys["sliding_window_pattern"] = text.get("no_rope_layer_interval", 4)
    return keys


def _gemma4(text: dict) -> dict[str, Any]:
    """Gemma 4 (configuration_gemma4.py; vLLM gemma4.py): the global layers' KV heads are
    num_global_key_value_heads only where attention_k_eq_v; the experts' width under either name
    (vLLM reads moe_intermediate_size, then expert_intermediate_size), top_k_experts of them a token,
    and an MLP of intermediate_size beside them in every layer, sized as one shared expert."""
    keys: dict[str, Any] = {}
    if not text.get("attention_k_eq_v"):
        keys["num_global_key_value_heads"] = text.get("num_key_value_heads")
    if text.get("num_experts"):
        keys["moe_intermediate_size"] = text.get("moe_intermediate_size") or text.get("expert_intermediate_size")
        keys["num_experts_per_tok"] = text.get("top_k_experts")
        keys["shared_expert_intermediate_size"] = text.get("intermediate_size")
    return keys


def _ernie4_5_moe(text: dict) -> dict[str, Any]:
    """ERNIE 4.5 MoE: `moe_*` names; dense layers before `moe_layer_start_index`, the shared experts one MLP."""
    return {
        "n_routed_experts": text.get("moe_num_experts", 64),
        "num_experts_per_tok": text.get("moe_k", 6),
        "n_shared_experts": text.get("moe_num_shared_experts", 2),
        "moe_intermediate_size": text.get("moe_intermediate_size", 1536),
        "first_k_dense_replace": text.get("moe_layer_start_index", 1),
    }
