"""config.json contents of real checkpoints, as published (fields add-model reads), for fixtures.

Values as in each model's Hugging Face config.json (sources in content/models/<slug>.yaml).
"""

LLAMA_3_1_8B = {
    "_name_or_path": "meta-llama/Llama-3.1-8B-Instruct", "architectures": ["LlamaForCausalLM"],
    "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 128256,
    "max_position_embeddings": 131072, "tie_word_embeddings": False, "attention_bias": False,
    "torch_dtype": "bfloat16",
}
QWEN3_32B = {
    "model_type": "qwen3", "hidden_size": 5120, "intermediate_size": 25600, "num_attention_heads": 64,
    "num_hidden_layers": 64, "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
    "max_position_embeddings": 40960, "tie_word_embeddings": False, "use_sliding_window": False,
    "sliding_window": None, "torch_dtype": "bfloat16",
}
QWEN3_30B_A3B = {
    "model_type": "qwen3_moe", "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
    "num_attention_heads": 32, "num_hidden_layers": 48, "num_key_value_heads": 4, "head_dim": 128,
    "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936, "max_position_embeddings": 40960,
    "tie_word_embeddings": False, "use_sliding_window": False, "sliding_window": None, "torch_dtype": "bfloat16",
}
DEEPSEEK_V3 = {
    "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
    "num_attention_heads": 128, "num_key_value_heads": 128, "num_hidden_layers": 61, "n_routed_experts": 256,
    "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3, "q_lora_rank": 1536,
    "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "topk_method": "noaux_tc", "num_nextn_predict_layers": 1, "vocab_size": 129280,
    "max_position_embeddings": 163840, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]},
}
GPT_OSS_20B = {
    "model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880, "num_attention_heads": 64,
    "num_key_value_heads": 8, "head_dim": 64, "num_hidden_layers": 24, "num_local_experts": 32,
    "num_experts_per_tok": 4, "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention"] * 12, "attention_bias": True,
    "vocab_size": 201088, "max_position_embeddings": 131072, "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]},
}
GEMMA_3_27B = {
    "model_type": "gemma3", "architectures": ["Gemma3ForConditionalGeneration"],
    "text_config": {
        "model_type": "gemma3_text", "hidden_size": 5376, "intermediate_size": 21504, "num_attention_heads": 32,
        "num_hidden_layers": 62, "num_key_value_heads": 16, "head_dim": 128, "sliding_window": 1024,
        "sliding_window_pattern": 6, "vocab_size": 262208, "max_position_embeddings": 131072,
    },
    "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
                      "num_hidden_layers": 27, "num_attention_heads": 16, "patch_size": 14, "image_size": 896},
    "torch_dtype": "bfloat16",
}
QWEN3_NEXT_80B = {
    "model_type": "qwen3_next", "hidden_size": 2048, "intermediate_size": 5120, "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
    "num_hidden_layers": 48, "full_attention_interval": 4, "linear_num_key_heads": 16,
    "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
    "linear_conv_kernel_dim": 4, "num_experts": 512, "num_experts_per_tok": 10, "vocab_size": 151936,
    "max_position_embeddings": 262144, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}
# The families add-model learned with the catalog's growth; values as in each config.json (sources
# in the model's content/models/<slug>.yaml, architecture.source).
DEEPSEEK_V2_LITE_CHAT = {
    "model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944, "moe_intermediate_size": 1408,
    "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 27, "n_routed_experts": 64,
    "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1, "q_lora_rank": None,
    "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "topk_method": "greedy", "vocab_size": 102400, "max_position_embeddings": 163840,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}
GRANITE_3_3_8B = {
    "model_type": "granite", "hidden_size": 4096, "intermediate_size": 12800, "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_hidden_layers": 40, "vocab_size": 49159, "max_position_embeddings": 131072,
    "tie_word_embeddings": True, "attention_bias": False, "torch_dtype": "bfloat16",
}
PHI_4 = {
    "model_type": "phi3", "hidden_size": 5120, "intermediate_size": 17920, "num_attention_heads": 40,
    "num_key_value_heads": 10, "num_hidden_layers": 40, "vocab_size": 100352, "max_position_embeddings": 16384,
    "tie_word_embeddings": False, "sliding_window": None,
}
OLMO_2_7B = {
    "model_type": "olmo2", "hidden_size": 4096, "intermediate_size": 11008, "num_attention_heads": 32,
    "num_key_value_heads": 32, "num_hidden_layers": 32, "vocab_size": 100352, "max_position_embeddings": 4096,
    "tie_word_embeddings": False, "attention_bias": False,
}
GEMMA_2_9B = {
    "model_type": "gemma2", "hidden_size": 3584, "intermediate_size": 14336, "num_attention_heads": 16,
    "num_key_value_heads": 8, "head_dim": 256, "num_hidden_layers": 42, "sliding_window": 4096,
    "vocab_size": 256000, "max_position_embeddings": 8192,
}
