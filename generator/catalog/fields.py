"""What each catalog file may hold: every field, its check, whether it is required and sourced."""

from __future__ import annotations

from generator.catalog import schema
from generator.catalog.records import CHECKPOINT_FORMATS, COMPONENTS
from generator.catalog.schema import Field

MODEL_FIELDS = {
    "id": Field(schema.repo_id, required=True),
    "name": Field(schema.plain_text, required=True),
    "weights": Field(schema.https_url, required=True),
    "params": Field(schema.positive_int, required=True, sourced=True),
    "active_params": Field(schema.positive_int, sourced=True),
    "experts": Field(schema.positive_int, sourced=True),
    "experts_per_token": Field(schema.positive_int, sourced=True),
    "context_window": Field(schema.positive_int, sourced=True),
    "precision": Field(schema.plain_text, sourced=True),
    "license": Field(schema.plain_text, sourced=True),
    "release_date": Field(schema.iso_date, sourced=True),
    "api_price": Field(schema.api_price, sourced=True),  # per million tokens, in USD
    "architecture": Field(schema.mapping),
}

_int, _count, _flag = schema.positive_int, schema.non_negative_int, schema.boolean
ARCHITECTURE_FIELDS = {
    "source": Field(schema.plain_text, required=True),  # where every value of the block comes from
    "note": Field(schema.plain_text),
    "layers": Field(_int, required=True),
    "hidden_size": Field(_int, required=True),
    "vocab_size": Field(_int, required=True),
    "tied_embeddings": Field(_flag, required=True),
    "intermediate_size": Field(_int),
    "dense_layers": Field(_count),
    "norms_per_layer": Field(_int),
    "attention": Field(schema.mapping, required=True),
    "linear_attention": Field(schema.mapping),
    "moe": Field(schema.mapping),
    "extra_layers": Field(_count),
    "extra_layers_embeddings": Field(_flag),
    "vision": Field(schema.mapping),
    "formats": Field(schema.mapping),
}
ATTENTION_FIELDS = {
    "kind": Field(schema.one_of("gqa", "mla"), required=True),
    "heads": Field(_int, required=True),
    "kv_heads": Field(_int),
    "head_dim": Field(_int),
    "qkv_bias": Field(_flag),
    "output_bias": Field(_flag),
    "qk_norm": Field(schema.one_of("head", "layer")),
    "output_gate": Field(_flag),
    "sinks": Field(_flag),
    "q_lora_rank": Field(_int),
    "kv_lora_rank": Field(_int),
    "qk_nope_head_dim": Field(_int),
    "qk_rope_head_dim": Field(_int),
    "v_head_dim": Field(_int),
    "sliding_window": Field(_int),
    "sliding_window_layers": Field(_int),
    "indexer_heads": Field(_int),
    "indexer_head_dim": Field(_int),
}
LINEAR_ATTENTION_FIELDS = {
    "kind": Field(schema.one_of("gated_deltanet", "kimi_delta"), required=True),
    "layers": Field(_int, required=True),
    "key_heads": Field(_int, required=True),
    "value_heads": Field(_int, required=True),
    "key_head_dim": Field(_int, required=True),
    "value_head_dim": Field(_int, required=True),
    "conv_kernel": Field(_int, required=True),
}
MOE_FIELDS = {
    "expert_intermediate_size": Field(_int, required=True),
    "shared_experts": Field(_count),
    "shared_expert_intermediate_size": Field(_int),
    "shared_expert_gate": Field(_flag),
    "latent_size": Field(_int),
    "expert_bias": Field(_flag),
    "router_bias": Field(_flag),
}
VISION_FIELDS = {
    "layers": Field(_int, required=True),
    "hidden_size": Field(_int, required=True),
    "intermediate_size": Field(_int, required=True),
    "patch_size": Field(_int, required=True),
}
FORMAT_FIELDS = {name: Field(schema.one_of(*CHECKPOINT_FORMATS)) for name in ("default", *COMPONENTS)}
# What each attention kind needs, to size its weights and its KV cache.
REQUIRED_BY_KIND = {
    "gqa": ("kv_heads", "head_dim"),
    "mla": ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"),
}

GPU_FIELDS = {
    "slug": Field(schema.gpu_slug, required=True),
    "name": Field(schema.plain_text, required=True),
    "vendor": Field(schema.plain_text, required=True),
    "memory_gb": Field(schema.positive_decimal, required=True, sourced=True),
    "memory_type": Field(schema.plain_text, sourced=True),
    "bandwidth_gb_s": Field(schema.positive_decimal, sourced=True),
    "interconnect": Field(schema.plain_text, sourced=True),
    "shapes": Field(schema.machine_shapes, required=True, sourced=True),
    "price_per_gpu_hour": Field(schema.positive_decimal, sourced=True),
}
PRICE_EXTRA_KEYS = ("provider", "date")

SITE_FIELDS = {
    "brand": Field(schema.plain_text, required=True),
    "base_url": Field(schema.base_url, required=True),
    "console_url": Field(schema.console_url, required=True),
    "languages": Field(schema.languages, required=True),
    "currency": Field(schema.currency, required=True),
    "prices_date": Field(schema.iso_date, required=True),
}
