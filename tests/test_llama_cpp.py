"""llama.cpp plans: what the GPUs and the RAM hold for a GGUF file, with hand-computed expectations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from generator.sizing.gguf import gguf_file
from generator.sizing.llama_cpp import FIT_MARGIN, LlamaCppRequest, compute_buffer_bytes, layer_caches, llama_cpp_layers, llama_cpp_plan
from tests.conftest import ROOT


def _model(catalog, slug):
    return next(m for m in catalog.models if m.slug == slug)


def _gpu(catalog, slug):
    return next(g for g in catalog.gpus if g.slug == slug)


@pytest.mark.parametrize("slug, cache_type, expected", [
    # 32 layers × K and V × 8 KV heads × 128 values; f16 2 bytes, q8_0 34 bytes per 32, q4_0 18 per 32
    ("llama-3-1-8b-instruct", "f16", 32 * 2 * 1024 * 2),
    ("llama-3-1-8b-instruct", "q8_0", 32 * 2 * (1024 // 32 * 34)),
    ("llama-3-1-8b-instruct", "q4_0", 32 * 2 * (1024 // 32 * 18)),
    # MLA caches the latent and the rope key only: (512 + 64) × 2 bytes × 61 layers
    ("deepseek-v3", "f16", 576 * 2 * 61),
])
def test_kv_bytes_per_token_by_cache_type(catalog, slug, cache_type, expected):
    plan = llama_cpp_plan(_model(catalog, slug), _gpu(catalog, "h100-sxm"), 8, LlamaCppRequest(context=4096, cache_type=cache_type))
    assert plan.kv_bytes_per_token == expected


def test_sliding_window_layers_hold_their_window_and_a_micro_batch(catalog):
    # gpt-oss-20b, 131,072 tokens, f16: 12 full layers × 131,072 cells × (8 × 64) × 2 (K, V) × 2 bytes,
    # and 12 sliding layers of PAD(128 × 4 + 512, 256) = 1,024 cells: without --parallel, llama-server's
    # 4 slots share one unified cache, which holds a window for each (llama-kv-cache-iswa.cpp:
    # n_swa * (unified ? n_seq_max : 1) + n_ubatch)
    plan = llama_cpp_plan(_model(catalog, "gpt-oss-20b"), _gpu(catalog, "h100-sxm"), 1, LlamaCppRequest(context=131072))
    assert plan.kv_bytes_per_gpu == 12 * 131072 * 2048 + 12 * 1024 * 2048
    assert plan.n_gpu_layers == 25 and plan.kv_bytes_in_ram == 0
    # --parallel 3: three streams of 131,072 cells, each with its own window: 3 × PAD(128 + 512, 256)
    three = llama_cpp_plan(_model(catalog, "gpt-oss-20b"), _gpu(catalog, "h100-sxm"), 1,
                           LlamaCppRequest(context=131072, users=3))
    assert three.kv_bytes_per_gpu == 12 * 3 * 131072 * 2048 + 12 * 3 * 768 * 2048


def test_gemma_4_31b_cache_in_its_two_caches(catalog):
    """Gemma-4-31B, --ctx-size 32768 without --parallel (4 slots, one unified stream): the non-SWA cache
    of 10 global layers × 32,768 cells × 8,192 bytes (2,560 MiB) and the SWA cache of 50 layers ×
    PAD(1,024 × 4 + 512, 256) = 4,608 cells × 16,384 bytes (3,600 MiB)."""
    plan = llama_cpp_plan(_model(catalog, "gemma-4-31b"), _gpu(catalog, "h100-sxm"), 1,
                          LlamaCppRequest(quant="Q4_K_M", context=32768))
    assert plan.kv_bytes_per_gpu == (2560 + 3600) * 2**20 == 10 * 32768 * 8192 + 50 * 4608 * 16384


def test_one_gpu_layer_is_the_output_layer(catalog):
    # -ngl 1: the output head (Q6_K: 128,256 rows × 16 blocks × 210 bytes) and the final norm (F32)
    plan = llama_cpp_plan(_model(catalog, "llama-3-1-8b-instruct"), _gpu(catalog, "rtx-4090"), 1,
                          LlamaCppRequest(context=8192, n_gpu_layers=1))
    assert plan.weights_bytes_per_gpu == 128256 * 16 * 210 + 4096 * 4
    assert plan.weights_bytes_per_gpu + plan.weights_bytes_in_ram == gguf_file(plan.model, "Q4_K_M").tensor_bytes
    assert plan.kv_bytes_per_gpu == 0 and plan.kv_bytes_in_ram == 32 * 8192 * 2048 * 2


def test_the_input_embeddings_stay_in_ram(catalog):
    plan = llama_cpp_plan(_model(catalog, "llama-3-1-8b-instruct"), _gpu(catalog, "h100-sxm"), 1, LlamaCppRequest(context=8192))
    assert plan.n_gpu_layers == 33  # 32 blocks and the output layer
    assert plan.weights_bytes_in_ram == 128256 * 16 * 144  # token_embd at Q4_K


def test_n_cpu_moe_keeps_those_layers_experts_in_ram(catalog):
    model = _model(catalog, "qwen3-30b-a3b")
    gpu = _gpu(catalog, "h100-sxm")
    base = llama_cpp_plan(model, gpu, 1, LlamaCppRequest(context=8192, n_gpu_layers=49, n_cpu_moe=0))
    moved = llama_cpp_plan(model, gpu, 1, LlamaCppRequest(context=8192, n_gpu_layers=49, n_cpu_moe=2))
    # two layers of 128 experts: gate and up (2,048 × 768, Q4_K) and down (768 × 2,048): Q4_K in
    # layer 0 where use_more_bits does not bump it? It does (0 < 48 / 8): down is Q6_K in both
    gate_up = 2 * 128 * 768 * (2048 // 256) * 144
    down = 128 * 2048 * (768 // 256) * 210
    assert base.weights_bytes_per_gpu - moved.weights_bytes_per_gpu == 2 * (gate_up + down)
    assert moved.weights_bytes_in_ram - base.weights_bytes_in_ram == 2 * (gate_up + down)


def test_equal_gpus_share_the_layers_and_the_last_holds_the_output(catalog):
    model = _model(catalog, "llama-3-1-8b-instruct")
    one = llama_cpp_plan(model, _gpu(catalog, "rtx-4090"), 1, LlamaCppRequest(context=8192))
    two = llama_cpp_plan(model, _gpu(catalog, "rtx-4090"), 2, LlamaCppRequest(context=8192))
    # 33 layers by llama.cpp's split (k / 33 below 0.5 goes to the first): 17 blocks on the first GPU,
    # blocks 17-31 and the output layer on the second, the fuller of the two with its 431 MB head
    assert two.kv_bytes_per_gpu == 15 * 8192 * 2048 * 2
    assert two.weights_bytes_per_gpu < one.weights_bytes_per_gpu


LOGS = yaml.safe_load((Path(__file__).parent / "data" / "llama_cpp_compute_buffers.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", LOGS, ids=[f"{r['compute_buffer_mib']}MiB-{r['n_ctx']}ctx-fa{r['flash_attn']}" for r in LOGS])
def test_the_compute_buffer_estimate_against_llama_cpp_logs(row):
    # e.g. Llama-3-8B: 512 × 4 × (128,256 + 4,096) = 271,056,896 bytes = 258.50 MiB, as logged
    estimate = compute_buffer_bytes(row["n_vocab"], row["n_embd"]) / 2**20
    within = abs(estimate / row["compute_buffer_mib"] - 1) <= 0.01
    assert within != bool(row.get("miss")), (estimate, row["compute_buffer_mib"], row.get("miss"))
    assert row["url"].startswith("https://") and "compute buffer size" in row["quote"]


def test_the_compute_buffer_of_llama_3_1_8b():
    assert compute_buffer_bytes(128256, 4096) == 512 * 4 * (128256 + 4096) == 271_056_896


def test_the_fewest_expert_layers_in_ram_that_fit_are_chosen(catalog):
    model, gpu = _model(catalog, "qwen3-30b-a3b"), _gpu(catalog, "rtx-3060")
    chosen = llama_cpp_plan(model, gpu, 1, LlamaCppRequest(context=32768))
    assert chosen.starts and chosen.n_gpu_layers == 49 and 0 < chosen.n_cpu_moe < 48
    one_fewer = llama_cpp_plan(model, gpu, 1, LlamaCppRequest(context=32768, n_gpu_layers=49, n_cpu_moe=chosen.n_cpu_moe - 1))
    assert not one_fewer.starts
    room = gpu.memory_bytes - FIT_MARGIN
    assert chosen.weights_bytes_per_gpu + chosen.kv_bytes_per_gpu + chosen.compute_buffer_bytes <= room
    assert "--n-cpu-moe " + str(chosen.n_cpu_moe) in chosen.command


def test_a_dense_model_too_large_keeps_its_first_layers_in_ram(catalog):
    model, gpu = _model(catalog, "llama-3-1-70b-instruct"), _gpu(catalog, "rtx-4090")
    plan = llama_cpp_plan(model, gpu, 1, LlamaCppRequest(context=8192))
    assert plan.starts and 0 < plan.n_gpu_layers < 81
    assert not llama_cpp_plan(model, gpu, 1, LlamaCppRequest(context=8192, n_gpu_layers=plan.n_gpu_layers + 1)).starts
    # the decode bound adds the RAM's share at its bandwidth: slower than on GPUs alone
    assert plan.ram_read_bytes > 0 and plan.decode_tokens_per_second < 1008e9 / plan.gpu_read_bytes


def test_plan_command_prints_the_llama_cpp_fields(catalog):
    printed = subprocess.run(
        [sys.executable, "-m", "generator", "plan", "qwen3-30b-a3b", "--engine", "llama.cpp", "--quant", "Q4_K_M",
         "--gpu", "rtx-3060", "--context", "32768", "--cache-type", "q8_0", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert printed.returncode == 0, printed.stderr
    data = json.loads(printed.stdout)
    for field in ("gguf_file_bytes", "bits_per_weight", "weights_bytes_per_gpu", "weights_bytes_in_ram",
                  "compute_buffer_bytes", "kv_bytes_per_token", "starts", "decode_tokens_per_second", "n_gpu_layers",
                  "n_cpu_moe", "command"):
        assert field in data
    assert data["kv_bytes_per_token"] == 48 * 2 * (512 // 32 * 34)  # 4 KV heads × 128, q8_0
    assert "--cache-type-k q8_0 --cache-type-v q8_0" in data["command"]


@pytest.mark.parametrize("args, message", [
    (["--quant", "Q4_K_M", "--n-gpu-layers", "3"], "plan: --n-gpu-layers: only with --engine llama.cpp"),
    (["--engine", "llama.cpp", "--kv-dtype", "fp8"], "plan: --kv-dtype: not a llama.cpp option (use --quant and --cache-type)"),
    (["--engine", "llama.cpp", "--count", "16"], "plan: --count: llama.cpp runs on one machine, at most 4 × RTX 4090 (got 16)"),
])
def test_options_of_the_other_engines_are_refused(args, message):
    printed = subprocess.run([sys.executable, "-m", "generator", "plan", "qwen3-8b", "--gpu", "rtx-4090", *args],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert printed.returncode == 2 and printed.stderr.strip() == message


def test_the_decode_bound_reads_the_weights_and_the_cache_on_the_gpu(catalog):
    # Llama-3.1-8B Q4_K_M on one H100 at 8,192 tokens: every tensor but the input embeddings
    # (4,912,898,048 - 295,501,824 bytes, the README's worked example) and the whole KV cache
    # (32 layers × 8,192 × 2,048 × 2 bytes) are read per token, at the card's bandwidth
    gpu = _gpu(catalog, "h100-sxm")
    plan = llama_cpp_plan(_model(catalog, "llama-3-1-8b-instruct"), gpu, 1, LlamaCppRequest(context=8192))
    read = 4_912_898_048 - 295_501_824 + 32 * 8192 * 2048 * 2
    assert (plan.gpu_read_bytes, plan.ram_read_bytes) == (read, 0)
    assert plan.decode_tokens_per_second == pytest.approx(gpu.bandwidth_bytes_per_second / read)


# ---- a Mamba2 hybrid (Granite-4.0-H-Small: 40 layers, attention at 5, 15, 25, 35) ---------------

GRANITE_STATE = 4 * (128 * 8192 + 3 * (8192 + 2 * 128))  # F32: d_state × d_inner + (d_conv - 1) × conv channels


def test_a_mamba2_layer_holds_an_f32_state_per_user_and_only_attention_layers_cache_tokens(catalog):
    """llama-hparams.cpp n_embd_s = d_state × d_inner = 128 × 8192, n_embd_r = (d_conv - 1) × (d_inner +
    2 × n_group × d_state) = 3 × 8448; 4 bytes each: 4,295,680 bytes a layer, × 36 layers = 154,644,480
    (147.48 MiB, llama_memory_recurrent's "size" line for one sequence). The cache: 4 layers × K and V ×
    8 KV heads × 128 × 2 bytes = 16,384 bytes a token."""
    granite = _model(catalog, "granite-4-0-h-small")
    caches = layer_caches(granite)
    assert [i for i, c in enumerate(caches) if c == "0"] == [5, 15, 25, 35] and caches.count("r") == 36
    assert GRANITE_STATE == 4_295_680
    plan = llama_cpp_plan(granite, _gpu(catalog, "h100-sxm"), 1, LlamaCppRequest(context=32768, users=4))
    assert plan.kv_bytes_per_token == 16_384
    assert plan.state_bytes_per_user == 36 * GRANITE_STATE == 154_644_480
    # every layer on the GPU: 131,072 cells of the 4 attention layers and 4 users' states
    assert plan.n_gpu_layers == 41
    assert plan.kv_bytes_per_gpu == 131_072 * 16_384 + 4 * 154_644_480 == 2_766_061_568


def test_a_mamba2_layer_left_in_ram_keeps_its_state_there(catalog):
    granite = _model(catalog, "granite-4-0-h-small")
    # --n-gpu-layers 1: only the output layer on the GPU; all 36 states and 4 caches in RAM. One user
    # and no --parallel: llama-server runs 4 slots on a unified cache (server.cpp, PR 16736), so the
    # cache keeps its 4,096 cells and each Mamba layer holds 4 states.
    plan = llama_cpp_plan(granite, _gpu(catalog, "rtx-4090"), 1, LlamaCppRequest(context=4096, n_gpu_layers=1))
    assert plan.kv_bytes_per_gpu == 0
    assert plan.kv_bytes_in_ram == 4096 * 16_384 + 4 * 154_644_480
    assert "--parallel" not in plan.command


def test_mamba2_tensors_in_the_gguf_file(catalog):
    """convert_hf_to_gguf.py keeps ssm_conv1d, its bias, dt's bias, A, D and the norm F32; llama-quant.cpp
    quantizes ssm_in and ssm_out with the preset's type (Q4_K at Q4_K_M)."""
    granite = _model(catalog, "granite-4-0-h-small")
    types = {(t.name, t.layer): kind for t, kind in gguf_file(granite, "Q4_K_M").types}
    assert types[("ssm_in", 0)] == "Q4_K" and types[("ssm_out", 0)] == "Q4_K"
    for name in ("ssm_conv1d", "ssm_conv1d_b", "ssm_dt", "ssm_a", "ssm_d", "ssm_norm"):
        assert types[(name, 0)] == "F32", name
    assert ("ssm_in", 5) not in types and types[("attn_q", 5)] == "Q4_K"
    ssm_in = next(t for t, _ in gguf_file(granite, "Q4_K_M").types if t.name == "ssm_in")
    assert (ssm_in.row, ssm_in.rows) == (4096, 2 * 8192 + 2 * 128 + 128)  # z, x, B, C and dt


QWEN35_27B_STATE = 4 * (128 * 6144 + 3 * (6144 + 2 * 2048))  # F32: d_state × d_inner + (d_conv - 1) × conv channels


def test_a_gated_deltanet_layer_holds_an_f32_state_per_user_and_every_fourth_layer_caches_tokens(catalog):
    """Qwen3.5-27B: 16 key heads and 48 value heads of 128. llama.cpp writes ssm_d_state = 128 (the key
    head), ssm_n_group = 16, ssm_d_inner = 48 × 128 = 6144 (conversion/qwen.py Qwen3NextModel), so
    n_embd_s = 128 × 6144 and n_embd_r = 3 × (6144 + 2 × 16 × 128): 3,268,608 bytes a layer, × 48
    layers = 156,893,184 (149.63 MiB) a sequence. Layers 3, 7, ... 63 are full attention
    (models/qwen35.cpp: recurrent where (i + 1) % 4 != 0), each caching K and V of 4 heads × 256."""
    qwen = _model(catalog, "qwen3-5-27b")
    caches = layer_caches(qwen)
    assert [i for i, c in enumerate(caches) if c == "0"] == list(range(3, 64, 4)) and caches.count("r") == 48
    assert QWEN35_27B_STATE == 3_268_608
    plan = llama_cpp_plan(qwen, _gpu(catalog, "h100-sxm"), 1, LlamaCppRequest(context=32768, users=4))
    assert plan.kv_bytes_per_token == 16 * 2 * 4 * 256 * 2 == 65_536
    assert plan.state_bytes_per_user == 48 * QWEN35_27B_STATE == 156_893_184
    assert plan.kv_bytes_per_gpu == 131_072 * 65_536 + 4 * 156_893_184


STATES = yaml.safe_load((ROOT / "tests" / "data" / "llama_cpp_states.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", STATES, ids=[row["model"] for row in STATES])
def test_recurrent_states_and_caches_against_llama_cpp_logs(catalog, row):
    """The log's R (convolution) and S (delta-rule) MiB, for its state slots, to the printed hundredth;
    the attention cache of its cells at its cache type likewise."""
    from generator.sizing.layer_kinds import RecurrentStateLayers, layer_kinds
    model = _model(catalog, row["model"])
    kind = next(k for k in layer_kinds(model.architecture) if isinstance(k, RecurrentStateLayers))
    r_bytes = kind.layers * kind._conv_values(1) * 4 * row["states"]
    s_bytes = kind.layers * kind._matrix_values(1) * 4 * row["states"]
    assert abs(r_bytes / 2**20 - row["r_mib"]) < 0.005 and abs(s_bytes / 2**20 - row["s_mib"]) < 0.005
    plan = llama_cpp_plan(model, _gpu(catalog, "h100-sxm"), 1, LlamaCppRequest(context=4096, cache_type=row.get("kv_cache_type", "f16")))
    assert plan.state_bytes_per_user * row["states"] == r_bytes + s_bytes
    if "kv_mib" in row:
        assert abs(plan.kv_bytes_per_token * row["kv_cells"] / 2**20 - row["kv_mib"]) < 0.005


def test_gated_deltanet_tensors_in_the_gguf_file(catalog):
    """A linear-attention layer of Qwen3.5-27B as the converter writes it: attn_qkv 5120 → 2 × 2048 +
    6144, attn_gate (z) 5120 → 6144, the b and a gates 5120 → 2 × 48, ssm_out 6144 → 5120, quantized;
    the convolution 4 × 10,240, dt's bias and A (48 each) and the norm (128) F32. attn_qkv counts among
    llama-quant.cpp's attention tensors (n_attention_wv: 48 of them and 16 attn_v)."""
    qwen = _model(catalog, "qwen3-5-27b")
    file = gguf_file(qwen, "Q4_K_M")
    tensors = {(t.name, t.layer): (t, kind) for t, kind in file.types}
    shapes = {name: (tensors[(name, 0)][0].row, tensors[(name, 0)][0].rows) for name in
              ("attn_qkv", "attn_gate", "ssm_ba", "ssm_conv1d", "ssm_dt_a", "ssm_norm", "ssm_out")}
    assert shapes == {"attn_qkv": (5120, 10240), "attn_gate": (5120, 6144), "ssm_ba": (5120, 96),
                      "ssm_conv1d": (4, 10240), "ssm_dt_a": (96, 1), "ssm_norm": (128, 1), "ssm_out": (6144, 5120)}
    assert sum(t.values for (_, layer), (t, _) in tensors.items() if layer == 0 and t.name != "layer_norms"
               and not t.name.startswith("ffn")) == 115_876_064
    assert {name: tensors[(name, 0)][1] for name in ("ssm_conv1d", "ssm_dt_a", "ssm_norm", "attn_gate", "ssm_ba", "ssm_out")} == {
        "ssm_conv1d": "F32", "ssm_dt_a": "F32", "ssm_norm": "F32", "attn_gate": "Q4_K", "ssm_ba": "Q4_K", "ssm_out": "Q4_K"}
    # layer 3: full attention, its query doubled by the output gate (24 heads × 256 × 2)
    assert ("attn_qkv", 3) not in tensors and tensors[("attn_q", 3)][0].rows == 2 * 24 * 256
    # the files readers download have no MTP block (64 blocks, 26.90 B parameters in llama.cpp's logs)
    assert max(t.layer for t, _ in file.types if t.layer is not None) == 63
    assert sum(t.name in ("attn_qkv", "attn_v") for t, _ in file.types) == 48 + 16


def test_deepseek_sparse_attention_caches_the_indexer_key_beside_the_latent(catalog):
    """DeepSeek-V3.2 in llama.cpp (deepseek32, llama-kv-cache-dsa.cpp at 4df29be4): each of the 61 layers
    caches the latent and rope key (512 + 64) and, in a second cache, the indexer's one key head of 128,
    f16 by default: 61 × (576 + 128) × 2 = 85,888 bytes a token. Its file holds the indexer's tensors:
    q_b 1536 → 64 × 128, k 7168 → 128, the weights' projection 7168 → 64, quantized; k's norm and bias F32."""
    v32 = _model(catalog, "deepseek-v3-2")
    plan = llama_cpp_plan(v32, _gpu(catalog, "h200"), 8, LlamaCppRequest(context=32768))
    assert plan.kv_bytes_per_token == 61 * (576 + 128) * 2 == 85_888
    q8 = llama_cpp_plan(v32, _gpu(catalog, "h200"), 8, LlamaCppRequest(context=32768, cache_type="q8_0"))
    assert q8.kv_bytes_per_token == 61 * (576 // 32 + 128 // 32) * 34
    types = {(t.name, t.layer): (t, kind) for t, kind in gguf_file(v32, "Q4_K_M").types}
    shapes = {name: (types[(name, 0)][0].row, types[(name, 0)][0].rows) for name in
              ("indexer_attn_q_b", "indexer_attn_k", "indexer_proj", "indexer_k_norm", "indexer_k_norm_bias")}
    assert shapes == {"indexer_attn_q_b": (1536, 64 * 128), "indexer_attn_k": (7168, 128), "indexer_proj": (7168, 64),
                      "indexer_k_norm": (128, 1), "indexer_k_norm_bias": (128, 1)}
    assert types[("indexer_proj", 0)][1] == "Q4_K" and types[("indexer_k_norm", 0)][1] == "F32"


def test_glm_5_2_caches_the_indexer_key_on_its_21_full_layers_only(catalog):
    """A public llama.cpp log of GLM-5.2 (build 10505, ee4c505a4, f16 cache; dfch/biz.dfch.LlmOps at
    e6d3fc2b, .specmgr/feat/feat-2-glm-5.2-onprem-deployment/bin/logs/2026-08-20T055618Z-kv-ctx768000.log):
    "llama_kv_cache: size = 65812.50 MiB (768000 cells,  78 layers,  1/1 seqs), K (f16): 65812.50 MiB" and
    "llama_kv_cache: size = 3937.50 MiB (768000 cells,  21 layers,  1/1 seqs)": the latent of every layer
    and the indexer's key of the 21 layers with an indexer of their own (IndexShare)."""
    glm = _model(catalog, "glm-5-2")
    caches = layer_caches(glm)
    assert caches.count("x") == 21 and caches.count("0") == 57
    plan = llama_cpp_plan(glm, _gpu(catalog, "h200"), 8, LlamaCppRequest(context=32768))
    assert plan.kv_bytes_per_token * 768_000 == (65_812.50 + 3_937.50) * 2**20


def test_a_latent_moe_s_experts_work_in_the_latent_width(catalog):
    """Nemotron 3 Super (nemotron_h_moe, models/nemotron-h.cpp at 4df29be4): an MoE layer projects the
    token 4096 → 1024 (ffn_latent_down) and back (ffn_latent_up), and its 512 experts (relu2: up and
    down, no gate) work at 1024: up 1024 → 2688, down 2688 → 1024; no norm on the latent. 2688 is no
    multiple of 256, so llama-quantize's K-quants of the experts' down fall back (Q4_K → Q5_0)."""
    nemotron = _model(catalog, "nvidia-nemotron-3-super-120b-a12b-bf16")
    types = {(t.name, t.layer): (t, kind) for t, kind in gguf_file(nemotron, "Q4_K_M").types}
    layer = next(i for (name, i) in types if name == "ffn_up_exps")
    shapes = {name: (types[(name, layer)][0].row, types[(name, layer)][0].rows)
              for name in ("ffn_latent_down", "ffn_latent_up", "ffn_up_exps", "ffn_down_exps")}
    assert shapes == {"ffn_latent_down": (4096, 1024), "ffn_latent_up": (1024, 4096),
                      "ffn_up_exps": (1024, 2688 * 512), "ffn_down_exps": (2688, 1024 * 512)}
    assert ("ffn_gate_exps", layer) not in types and ("ffn_latent_norm", layer) not in types
    downs = {kind for (name, _), (_, kind) in types.items() if name == "ffn_down_exps"}
    assert downs == {"Q5_0", "Q8_0"}  # Q4_K and, in the use_more_bits layers, Q6_K, each fallen back


def test_ngl_counts_the_nextn_block_the_file_keeps(catalog):
    """GLM-4.5-Air's file has 47 blocks (46 and the NextN one); llama.cpp's -ngl counts the file's
    blocks (PR 26177: "--fit doesn't count the nextn blocks, so it offloads one layer too few and
    leaves layer 0 on CPU"), so every layer on the GPU is -ngl 48, and -ngl 3 puts the output layer,
    the empty NextN block and block 45 there."""
    from generator.sizing.llama_cpp import llama_cpp_layers
    air, gpu = _model(catalog, "glm-4-5-air"), _gpu(catalog, "h200")
    whole = llama_cpp_plan(air, gpu, 1, LlamaCppRequest(quant="Q4_K_M", context=4096))
    assert whole.n_gpu_layers == 48 and "--n-gpu-layers 48" in whole.command and whole.weights_bytes_in_ram > 0
    tables = llama_cpp_layers(air, "Q4_K_M")
    assert len(tables.layers) == 48 and tables.layers[46] == (0, 0, 0, 0)  # the NextN block holds nothing
    three = llama_cpp_plan(air, gpu, 1, LlamaCppRequest(quant="Q4_K_M", context=4096, n_gpu_layers=3))
    output, block_45 = tables.layers[47], tables.layers[45]
    assert three.weights_bytes_per_gpu == output.weights + output.experts + block_45.weights + block_45.experts


def test_the_page_s_own_gpu_commands_put_the_nextn_block_s_count_in_ngl_too(catalog):
    """The 'your own GPU' rows and command hold every layer: for GLM-4.5-Air that is 46 blocks, the
    NextN one and the output layer, --n-gpu-layers 48 (47 would leave block 0 in RAM)."""
    from generator.sizing.own_gpu import own_gpu
    own = own_gpu(_model(catalog, "glm-4-5-air"), catalog.gpus)
    assert own.chosen.plan.n_gpu_layers == 48 and "--n-gpu-layers 48" in own.chosen.plan.command
    assert own.offload is None or own.offload.n_gpu_layers == 48


def test_a_nemotron_nas_layer_without_attention_caches_nothing_and_keeps_its_own_ffn(catalog):
    """convert_hf_to_gguf.py DeciModel writes n_head_kv 0 for the 31 layers whose attention is a
    no-op (no attn_* tensors, no attn_norm; K and V rows of 0 values: llama-hparams.cpp
    n_embd_k_gqa) and each layer's own n_ff. Layer 6 has no attention and an FFN of
    int(2 × 2.625 × 8192 / 3) = 14,336; layer 11 none and 17,920 (3.28125)."""
    nas = _model(catalog, "llama-3-3-nemotron-super-49b-v1")
    caches = layer_caches(nas)
    assert caches.count("-") == 31 and caches[6:8] == "--" and caches[:6] == "000000"
    tensors = {(t.name, t.layer): t for t, _ in gguf_file(nas, "Q4_K_M").types}
    assert ("attn_q", 6) not in tensors and ("attn_q", 5) in tensors
    assert tensors[("ffn_up", 6)].rows == 14_336 and tensors[("ffn_up", 11)].rows == 17_920
    assert tensors[("layer_norms", 6)].row == 8192 and tensors[("layer_norms", 5)].row == 2 * 8192
    # one cell of the 49 attention layers: K and V, 8 heads × 128, f16
    plan = llama_cpp_plan(nas, _gpu(catalog, "h100-sxm"), 1, LlamaCppRequest(context=4096))
    assert plan.kv_bytes_per_token == 49 * 2 * 1024 * 2 == 200_704


def test_attn_v_takes_more_bits_by_its_rank_among_the_attention_layers(catalog):
    """llama-quant.cpp counts attn_v tensors (i_attention_wv of n_attention_wv, 49 here), not blocks:
    use_more_bits(i, 49) is i < 6, i >= 42 or (i - 6) % 3 == 2. Layers 6 and 7 have no attention, so
    layer 8 is the 7th attn_v (i = 6: no) and layer 10 the 9th (i = 8: yes, Q6_K); the others stay at
    Q4_K_M's Q4_K, raised to Q5_K for an 80-layer LLM_TYPE_70B."""
    nas = _model(catalog, "llama-3-3-nemotron-super-49b-v1")
    types = {(t.name, t.layer): kind for t, kind in gguf_file(nas, "Q4_K_M").types}
    assert (types[("attn_v", 8)], types[("attn_v", 10)], types[("attn_v", 0)]) == ("Q5_K", "Q6_K", "Q6_K")


# ---- machines whose GPU shares the CPU's memory (records.Gpu.gpu_memory_share) --------------------

def test_a_unified_memory_machine_gives_llama_cpp_its_gpu_share(catalog):
    """Metal's budget where a log gives it (107.52 GiB on a 128 GB Mac); else the share of the maker's
    figure (512 GB × 3/4 = 384 GB on the M3 Ultra, whose budget no cited log gives)."""
    llama = _model(catalog, "llama-3-1-8b-instruct")
    mac = llama_cpp_plan(llama, _gpu(catalog, "mac-m4-max-128gb"), 1, LlamaCppRequest(context=8192))
    ultra = llama_cpp_plan(llama, _gpu(catalog, "mac-m3-ultra-512gb"), 1, LlamaCppRequest(context=8192))
    assert mac.total_memory_bytes == int(107.52 * 2**30) and ultra.total_memory_bytes == 384 * 10**9
    assert _gpu(catalog, "strix-halo-128gb").gpu_memory_bytes == 64 * 10**9  # Linux's GTT: half of it


def test_on_unified_memory_every_layer_goes_to_the_gpu_and_what_does_not_fit_does_not_start(catalog):
    """Layers left to the CPU would free none of the same memory: llama.cpp is planned with all of them
    on the GPU (no --n-cpu-moe), and a model larger than the GPU's share does not start there."""
    qwen = _model(catalog, "qwen3-235b-a22b")  # Q4_K_M: 132 GiB of weights, more than 107.52 GiB
    on_mac = llama_cpp_plan(qwen, _gpu(catalog, "mac-m4-max-128gb"), 1, LlamaCppRequest(context=32768))
    on_card = llama_cpp_plan(qwen, _gpu(catalog, "rtx-pro-6000"), 1, LlamaCppRequest(context=32768))
    assert (on_mac.n_gpu_layers, on_mac.n_cpu_moe, on_mac.starts) == (95, 0, False)
    assert on_card.n_cpu_moe > 0 and on_card.starts  # a card with RAM beside it keeps experts there


def test_layers_asked_onto_the_cpu_of_a_unified_machine_read_at_its_own_bandwidth(catalog):
    llama = _model(catalog, "llama-3-1-8b-instruct")
    mac = _gpu(catalog, "mac-m4-pro-64gb")  # 273 GB/s
    plan = llama_cpp_plan(llama, mac, 1, LlamaCppRequest(context=8192, n_gpu_layers=16))
    assert plan.ram_read_bytes > 0 and plan.gpu_read_bytes > 0 and plan.kv_bytes_in_ram > 0
    # the GPU's part and the CPU's (its layers' weights and KV cache) from the same memory, at 273 GB/s
    seconds = (plan.gpu_read_bytes + plan.ram_read_bytes + plan.kv_bytes_in_ram) / 273e9
    assert plan.decode_tokens_per_second == pytest.approx(1 / seconds)


def test_the_remembered_layers_keep_the_file_sizes_without_its_list_of_tensors(catalog):
    # the GPU pages plan every model; a file's list of tensors (thousands of records) is not kept for
    # each (0.5 MB a model: 638 MB at 1,000 models before, 117 MB after, benchmarks/build_scale.py)
    granite = _model(catalog, "granite-4-0-h-small")
    file, kept = gguf_file(granite, "Q4_K_M"), llama_cpp_layers(granite, "Q4_K_M").file
    assert len(file.types) > 100 and kept.types == ()
    assert (kept.tensor_bytes, kept.values, kept.file_bytes) == (file.tensor_bytes, file.values, file.file_bytes)
