"""What each catalog file may hold: every field, its check, whether it is required and sourced."""

from __future__ import annotations

from decimal import Decimal

from generator.catalog import schema
from generator.catalog.records import CHECKPOINT_FORMATS, CHECKPOINT_SCHEMES, COMPONENTS
from generator.catalog.schema import Field

# Bounds on every number: what `check` refuses rather than let the build fail on (Decimal
# arithmetic runs out of digits, a GB figure of 10^30 is no figure). Each is far beyond any real value.
PARAMS = schema.whole_number(1, 10**15)  # a thousand times the largest model published (~10^12)
EXPERTS = schema.whole_number(1, 10**6)  # routed experts: today's largest MoE has hundreds
CONTEXT = schema.whole_number(1, 10**9)  # tokens: today's longest windows are ~10^7
BATCH = schema.whole_number(1, 10**6)  # concurrent sequences `size --batch` asks about
GPU_COUNT = schema.whole_number(1, 4096)  # GPUs `plan --count` asks about: 512 machines of 8
LAYERS = schema.whole_number(0, 10**4)  # llama.cpp's --n-gpu-layers and --n-cpu-moe
DIMENSION = schema.whole_number(1, 10**7)  # widths, heads, ranks, vocabularies, layers: ~10^5 today
COUNT = schema.whole_number(0, 10**7)  # shared experts and other counts of parts
# Layers of a model (and of its parts): the deepest published today have 126 (Llama-3.1-405B);
# a thousand leaves room, and keeps the per-layer work of the GGUF and llama.cpp plans bounded
# (a file of 10^6 layers passed a bound of 10^7 and took the build 193 s and 5.9 GB to fail).
LAYER_COUNT = schema.whole_number(1, 1000)
LAYER_COUNT_OR_ZERO = schema.whole_number(0, 1000)
PRICE = schema.decimal_number(Decimal("0.0001"), Decimal(10**6))  # USD per hour or per million tokens
MEMORY_GB = schema.decimal_number(Decimal(1), Decimal(10**4))  # one GPU: 1 GB to 10 TB
COMPUTE_CAPABILITY = schema.decimal_number(Decimal(1), Decimal(99))  # NVIDIA's "9.0", "12.0"
BANDWIDTH_GB_S = schema.decimal_number(Decimal(1), Decimal(10**6))  # one GPU: 1 GB/s to 1 PB/s
TFLOPS = schema.decimal_number(Decimal("0.1"), Decimal(10**6))  # dense tensor TFLOPS: an RTX 3060's ~25 to 10^6
MEMORY_SHARE = schema.decimal_number(Decimal("0.01"), Decimal(1))  # of a unified-memory machine's memory
DATE = schema.iso_date(2000, 2100)  # releases and price readings: this century
NOTE = schema.note_text  # a remark or a list of citations: up to a paragraph
REMARK = schema.localized(schema.note_text)  # a remark pages show, in English or in each language

MODEL_FIELDS = {
    "id": Field(schema.repo_id, required=True),
    "name": Field(schema.plain_text, required=True),
    "weights": Field(schema.https_url, required=True),
    "params": Field(PARAMS, required=True, sourced=True),
    # the published count is of the language model alone: the vision tower is counted apart (Gemma 4)
    "params_without_vision": Field(schema.boolean),
    # the published count leaves the multi-token-prediction layers out (DeepSeek-V4's "284B")
    "params_without_prediction": Field(schema.boolean),
    "active_params": Field(PARAMS, sourced=True),
    "experts": Field(EXPERTS, sourced=True),
    "experts_per_token": Field(EXPERTS, sourced=True),
    "context_window": Field(CONTEXT, sourced=True),
    "precision": Field(schema.localized(schema.plain_text), sourced=True),
    "license": Field(schema.plain_text, sourced=True),
    "release_date": Field(DATE, sourced=True),
    "api_price": Field(schema.api_price(PRICE, DATE), sourced=True),  # per million tokens, in USD; the day read
    # the card's YaRN recipe past the config's length (1 to 1,000 times; rope_theta up to 10^12)
    "rope_scaling": Field(schema.rope_scaling(CONTEXT, schema.decimal_number(Decimal(1), Decimal(1000)),
                                              schema.decimal_number(Decimal(1), Decimal(10**12))), sourced=True),
    "architecture": Field(schema.mapping),
    # quantized checkpoints readers serve, preferred first: each a CHECKPOINT_FIELDS mapping
    "checkpoints": Field(schema.mappings(20)),
}
CHECKPOINT_FIELDS = {
    "id": Field(schema.repo_id, required=True),
    "scheme": Field(schema.one_of(*CHECKPOINT_SCHEMES), required=True),
    "quantized": Field(schema.distinct_list(schema.one_of(*COMPONENTS), len(COMPONENTS), "components"), required=True),
    "layers_kept": Field(schema.distinct_list(COUNT, 10**3, "layer indexes")),
    # its quantization_config's kv_cache_scheme (modelopt: 8-bit float): the KV cache vLLM keeps by default
    "kv_cache_dtype": Field(schema.one_of("fp8")),
    "source": Field(NOTE, required=True),  # its model card or config.json: where the scheme is read
    "note": Field(REMARK),
}

_int, _count, _flag = DIMENSION, COUNT, schema.boolean
# The compression ratios DeepSeek-V4's attention has (vLLM 0.33.0 models/deepseek_v4/attention.py:
# a compressor of two overlapping rows at 4, with the indexer; of one row at 128; none at 0)
COMPRESS_RATIOS = (0, 4, 128)
ARCHITECTURE_FIELDS = {
    "source": Field(NOTE, required=True),  # where every value of the block comes from
    "note": Field(REMARK),
    "layers": Field(LAYER_COUNT, required=True),
    "hidden_size": Field(_int, required=True),
    "vocab_size": Field(_int, required=True),
    "tied_embeddings": Field(_flag, required=True),
    "intermediate_size": Field(_int),
    "dense_layers": Field(LAYER_COUNT_OR_ZERO),
    "norms_per_layer": Field(_int),
    "attention": Field(schema.mapping, required=True),
    "linear_attention": Field(schema.mapping),
    "moe": Field(schema.mapping),
    "extra_layers": Field(LAYER_COUNT_OR_ZERO),
    "extra_layers_embeddings": Field(_flag),
    "extra_layers_in_gguf": Field(_flag),
    # NemotronH: one block per letter, each a mixer or a feed-forward alone (schema.layer_pattern)
    # config.json's architectures[0]: the class an engine's version must register to run the model
    "config_class": Field(schema.model_class),
    "layer_pattern": Field(schema.layer_pattern),
    "gated_mlp": Field(_flag),  # false: the MLP and the experts have up and down only (relu2)
    # Nemotron-NAS block_configs: each layer's FFN width (0: none), the layers without attention
    "ffn_widths": Field(schema.value_list(COUNT, 1000, "FFN widths, one per layer")),
    "attention_free_layers": Field(schema.distinct_list(schema.whole_number(0, 999), 1000, "layer indexes")),
    "vision": Field(schema.mapping),
    "formats": Field(schema.mapping),
    # DeepSeek-V4: hc_mult copies of the hidden state, and the leading layers routed by token hash
    "hyper_connections": Field(LAYER_COUNT_OR_ZERO),
    "hash_layers": Field(LAYER_COUNT_OR_ZERO),
}
ATTENTION_FIELDS = {
    "kind": Field(schema.one_of("gqa", "mla", "compressed"), required=True),
    "heads": Field(_int, required=True),
    "kv_heads": Field(_int),
    "head_dim": Field(_int),
    "qkv_bias": Field(_flag),
    "output_bias": Field(_flag),
    "qk_norm": Field(schema.one_of("head", "layer")),
    "output_gate": Field(_flag),
    "fused_qkv": Field(_flag),
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
    "indexer_top_k": Field(_int),
    "shared_indexer_layers": Field(schema.distinct_list(schema.whole_number(0, 999), 1000, "layer indexes")),
    # Gemma 4: the global layers' own KV heads and head width, and no value projection there
    "global_kv_heads": Field(_int),
    "global_head_dim": Field(_int),
    "global_key_is_value": Field(_flag),
    # DeepSeek-V4: each layer's compression ratio (0: the window alone), the grouped low-rank output
    "compress_ratios": Field(schema.value_list(schema.one_of_numbers(*COMPRESS_RATIOS), 1000, "compression ratios, one per layer")),
    "output_groups": Field(_int),
    "output_rank": Field(_int),
}
LINEAR_ATTENTION_FIELDS = {
    "kind": Field(schema.one_of("gated_deltanet", "kimi_delta", "mamba2"), required=True),
    "layers": Field(LAYER_COUNT, required=True),
    "key_heads": Field(_int, required=True),
    "value_heads": Field(_int, required=True),
    "key_head_dim": Field(_int, required=True),
    "value_head_dim": Field(_int, required=True),
    "conv_kernel": Field(_int, required=True),
    "ssm_state_float32": Field(_flag),  # config mamba_ssm_cache_dtype float32: vLLM keeps the SSM state in FP32
}
MOE_FIELDS = {
    "expert_intermediate_size": Field(_int, required=True),
    "shared_experts": Field(_count),
    "shared_expert_intermediate_size": Field(_int),
    "shared_expert_gate": Field(_flag),
    "latent_size": Field(_int),
    "latent_norm": Field(_flag),
    "expert_bias": Field(_flag),
    "router_bias": Field(_flag),
    "router_scales": Field(_flag),  # Gemma 4: a scale per hidden channel on the router's input, one per expert
}
VISION_FIELDS = {
    "layers": Field(LAYER_COUNT, required=True),
    "hidden_size": Field(_int, required=True),
    "intermediate_size": Field(_int, required=True),
    "patch_size": Field(_int, required=True),
    "merge_size": Field(_int),
    "temporal_patch_size": Field(_int),
    "output_size": Field(_int),
    "position_embeddings": Field(COUNT),
    "deepstack_mergers": Field(LAYER_COUNT_OR_ZERO),
    "gated_mlp": Field(_flag),
    "layout": Field(schema.one_of("vit", "pixtral")),
}
# The published checkpoint's format per component; a component left out takes `default` (BF16), but
# the prediction layers (extra_layers), left out, are stored like the parts of the main layers they
# repeat (formats.published_formats: DeepSeek-V4's MTP layer, FP8 attention and MXFP4 experts).
FORMAT_FIELDS = {name: Field(schema.one_of(*CHECKPOINT_FORMATS)) for name in ("default", *COMPONENTS)}
# What each attention kind needs, to size its weights and its KV cache.
REQUIRED_BY_KIND = {
    "gqa": ("kv_heads", "head_dim"),
    "mla": ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"),
    "compressed": ("head_dim", "q_lora_rank", "qk_rope_head_dim", "sliding_window", "output_groups", "output_rank",
                   "indexer_top_k"),
}

GPU_FIELDS = {
    "slug": Field(schema.gpu_slug, required=True),
    # a name with words in it may carry them in every language: {en: "… (one GCD)", pt: "… (um GCD)"}
    "name": Field(schema.localized(schema.plain_text), required=True),
    "vendor": Field(schema.plain_text, required=True),
    "memory_gb": Field(MEMORY_GB, required=True, sourced=True),
    "reported_memory_gib": Field(MEMORY_GB, sourced=True),
    # a machine whose GPU shares the CPU's memory (Apple M-series, DGX Spark, Strix Halo): the share
    # of it the GPU may use by default; such a machine is planned with llama.cpp only
    "gpu_memory_share": Field(MEMORY_SHARE, sourced=True),
    "compute_capability": Field(COMPUTE_CAPABILITY, sourced=True),
    "memory_type": Field(schema.plain_text, sourced=True),
    "bandwidth_gb_s": Field(BANDWIDTH_GB_S, sourced=True),
    "interconnect": Field(schema.localized(schema.plain_text), sourced=True),
    # dense (not 2:4-sparse) tensor-core peaks, TFLOPS: BF16 (FP16 on GPUs without BF16), FP8, FP4
    "tensor_tflops_bf16": Field(TFLOPS, sourced=True),
    "tensor_tflops_fp8": Field(TFLOPS, sourced=True),
    "tensor_tflops_fp4": Field(TFLOPS, sourced=True),
    # what links the GPUs of one machine, and its bandwidth in one direction from one GPU (GB/s)
    "peer_link": Field(schema.one_of("nvlink", "pcie", "infinity_fabric"), sourced=True),
    "peer_gb_s": Field(BANDWIDTH_GB_S, sourced=True),
    "shapes": Field(schema.machine_shapes, required=True, sourced=True),
    "price_per_gpu_hour": Field(PRICE, sourced=True),
}
# The keys a GPU's price carries besides value, source and note, and their checks.
PRICE_EXTRA_KEYS = {"provider": schema.plain_text, "date": DATE}
PRICE_EXTRA_KEYS_SAID = {"provider": "provider that asks it", "date": "day it was read, YYYY-MM-DD"}

# inventory.yaml: the operator's own stock, one entry per GPU type (inventory_feed.py writes it)
INVENTORY_FIELDS = {
    "sample": Field(schema.boolean, required=True),
    "offers": Field(schema.mappings(200), required=True),
}
STOCK_FIELDS = {
    "gpu": Field(schema.gpu_slug, required=True),
    "machines": Field(schema.machine_shapes, required=True),
    "multi_node": Field(schema.boolean, required=True),
    "price_per_gpu_hour": Field(PRICE),
    "date": Field(DATE, required=True),
    "source": Field(schema.note_text, required=True),
}

SITE_FIELDS = {
    "brand": Field(schema.plain_text, required=True),
    "base_url": Field(schema.base_url, required=True),
    "console_url": Field(schema.console_url, required=True),
    "languages": Field(schema.languages, required=True),
    "currency": Field(schema.currency, required=True),
    "prices_date": Field(DATE, required=True),
}
