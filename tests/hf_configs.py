"""config.json contents of published checkpoints, for fixtures.

`PUBLISHED` holds the files copied whole from their public copies (tests/data/hf_configs, each with
its URL in SOURCES.yaml). For the families no whole copy of was found, a transcription of the
values add-model reads, as published (sources in content/models/<slug>.yaml, architecture.source).
"""

import json
from pathlib import Path

import yaml

CONFIG_DIR = Path(__file__).parent / "data" / "hf_configs"
SOURCES = yaml.safe_load((CONFIG_DIR / "SOURCES.yaml").read_text())
PUBLISHED = {name: json.loads((CONFIG_DIR / f"{name}.json").read_text()) for name in SOURCES}

LLAMA_3_1_8B = PUBLISHED["llama-3-1-8b-instruct"]
QWEN3_32B = PUBLISHED["qwen3-32b"]
QWEN3_30B_A3B = PUBLISHED["qwen3-30b-a3b"]
DEEPSEEK_V3 = PUBLISHED["deepseek-v3"]
GPT_OSS_20B = PUBLISHED["gpt-oss-20b"]
GEMMA_3_27B = PUBLISHED["gemma-3-27b-it"]
NEMOTRON_3_NANO_30B = PUBLISHED["nvidia-nemotron-3-nano-30b-a3b-bf16"]
NEMOTRON_SUPER_49B = PUBLISHED["llama-3-3-nemotron-super-49b-v1"]

# Transcriptions: no whole public copy of these files was found.
QWEN3_NEXT_80B = {
    "model_type": "qwen3_next", "hidden_size": 2048, "intermediate_size": 5120, "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
    "num_hidden_layers": 48, "full_attention_interval": 4, "linear_num_key_heads": 16,
    "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
    "linear_conv_kernel_dim": 4, "num_experts": 512, "num_experts_per_tok": 10, "vocab_size": 151936,
    "max_position_embeddings": 262144, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}
DEEPSEEK_V2_LITE_CHAT = {
    "model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944, "moe_intermediate_size": 1408,
    "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 27, "n_routed_experts": 64,
    "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1, "q_lora_rank": None,
    "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "topk_method": "greedy", "vocab_size": 102400, "max_position_embeddings": 163840,
    "tie_word_embeddings": False, "torch_dtype": "bfloat16",
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
OLMOE_1B_7B = {
    "model_type": "olmoe", "hidden_size": 2048, "intermediate_size": 1024, "num_attention_heads": 16,
    "num_key_value_heads": 16, "num_hidden_layers": 16, "num_experts": 64, "num_experts_per_tok": 8,
    "vocab_size": 50304, "tie_word_embeddings": False,
}
PHI_3_5_MOE = {
    "model_type": "phimoe", "hidden_size": 4096, "intermediate_size": 6400, "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_hidden_layers": 32, "num_local_experts": 16, "num_experts_per_tok": 2,
    "vocab_size": 32064, "max_position_embeddings": 131072, "tie_word_embeddings": False,
}
ERNIE_4_5_0_3B = {
    "model_type": "ernie4_5", "hidden_size": 1024, "intermediate_size": 3072, "num_attention_heads": 16,
    "num_key_value_heads": 2, "head_dim": 128, "num_hidden_layers": 18, "vocab_size": 103424,
    "max_position_embeddings": 131072, "use_bias": False, "torch_dtype": "bfloat16",
}
GLM_4_5_AIR = {
    "model_type": "glm4_moe", "hidden_size": 4096, "intermediate_size": 10944, "moe_intermediate_size": 1408,
    "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 46,
    "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 1,
    "num_nextn_predict_layers": 1, "attention_bias": True, "use_qk_norm": False, "vocab_size": 151552,
    "max_position_embeddings": 131072, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
}
MINIMAX_M2 = {
    "model_type": "minimax_m2", "hidden_size": 3072, "intermediate_size": 1536, "num_attention_heads": 48,
    "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 62, "num_local_experts": 256,
    "num_experts_per_tok": 8, "use_qk_norm": True, "qk_norm_type": "per_layer", "use_routing_bias": True,
    "vocab_size": 200064, "max_position_embeddings": 196608, "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]},
}
COMMAND_R_PLUS = {
    "model_type": "cohere", "hidden_size": 12288, "intermediate_size": 33792, "num_attention_heads": 96,
    "num_key_value_heads": 8, "num_hidden_layers": 64, "use_qk_norm": True, "vocab_size": 256000,
}
COMMAND_R7B = {
    "model_type": "cohere2", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 32, "sliding_window": 4096,
    "sliding_window_pattern": 4, "vocab_size": 256000, "max_position_embeddings": 8192,
}
# NVIDIA-Nemotron-Nano-9B-v2 and Nemotron-H-47B-Base-8K: the values NVIDIA's NeMo gives them (ssm.py,
# NemotronNano9Bv2 and NemotronHConfig47B; content/models/<slug>.yaml), the 9B's as kvfit's copy of the config.
NEMOTRON_NANO_9B_V2 = {
    "model_type": "nemotron_h", "hidden_size": 4480, "intermediate_size": 15680, "num_hidden_layers": 56,
    "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-", "num_attention_heads": 40,
    "num_key_value_heads": 8, "head_dim": 128, "mamba_num_heads": 128, "mamba_head_dim": 80, "n_groups": 8,
    "ssm_state_size": 128, "conv_kernel": 4, "vocab_size": 131072, "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
}
NEMOTRON_H_47B = {
    "model_type": "nemotron_h", "hidden_size": 8192, "intermediate_size": 30720, "num_hidden_layers": 98,
    "hybrid_override_pattern": "M-M-M-M-M-M-M-M-M*-M-M-M-M-M-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-M-M---MM---M-M*-M-M-M-M-M-",
    "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "mamba_num_heads": 256, "mamba_head_dim": 64,
    "n_groups": 8, "ssm_state_size": 256, "conv_kernel": 4, "vocab_size": 131072, "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
}
# Mistral-Small-3.1-24B-Instruct-2503: the release's config.json as Hugging Face shows it (through the
# vision tower's width), the rest of its vision_config as a copy of it gives (content/models/<slug>.yaml);
# Mistral Small 3.2 is its minor update with the same tensors (24,011,361,280).
MISTRAL_SMALL_3_1 = {
    "architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3", "multimodal_projector_bias": False,
    "spatial_merge_size": 2, "torch_dtype": "bfloat16",
    "text_config": {"model_type": "mistral", "head_dim": 128, "hidden_size": 5120, "intermediate_size": 32768,
                    "max_position_embeddings": 131072, "num_attention_heads": 32, "num_hidden_layers": 40,
                    "num_key_value_heads": 8, "sliding_window": None, "vocab_size": 131072},
    "vision_config": {"model_type": "pixtral", "head_dim": 64, "hidden_size": 1024, "image_size": 1540,
                      "intermediate_size": 4096, "num_attention_heads": 16, "num_channels": 3, "num_hidden_layers": 24,
                      "patch_size": 14},
}
