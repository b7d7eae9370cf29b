"""`python -m generator plan`: the engine-true planner from the terminal (shipped catalog)."""

import json
import subprocess
import sys
from contextlib import nullcontext

import pytest

from generator.cli.main import main
from tests.conftest import CONTENT, ROOT

FIELDS = {
    "model", "gpu", "count", "engine", "tp", "weights_bytes_per_gpu", "kv_bytes_per_token_per_gpu",
    "non_kv_bytes_per_gpu", "available_kv_bytes_per_gpu", "kv_tokens", "max_concurrency", "starts",
    "reason", "max_context", "max_users", "decode_tokens_per_second", "price_per_hour", "command",
}


def plan_json(capsys, *args):
    assert main(["plan", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_gpt_oss_120b_on_one_h100_needs_flags_to_start(capsys):
    answer = plan_json(capsys, "openai/gpt-oss-120b", "--gpu", "h100-sxm")
    assert FIELDS <= answer.keys()
    assert (answer["engine"], answer["engine_version"], answer["tp"], answer["count"]) == ("vllm", "0.33.0", 1, 1)
    # loaded as 64.55 GiB (the logs: 64.38 to 65.97), not the 60.77 GiB of the files
    assert 64.0 * 2**30 < answer["weights_bytes_per_gpu"] < 65.0 * 2**30
    # as asked (the defaults: 0.9, a 16-bit KV cache), vLLM does not start: the figures say so
    assert (answer["starts"], answer["reason"], answer["memory_fraction"], answer["kv_dtype"]) == (False, "no_kv_memory", 0.9, "auto")
    assert (answer["kv_tokens"], answer["max_users"]) == (0, 0)
    assert answer["command"].endswith("--max-model-len 131072")
    # the remedy beside it: the flags that make it start, and that plan's figures
    remedy = answer["remedy"]
    assert remedy["starts"] and remedy["changes"] == ["--gpu-memory-utilization 0.95", "--kv-cache-dtype fp8"]
    assert (remedy["memory_fraction"], remedy["kv_dtype"], remedy["kv_tokens"], remedy["max_users"]) == (0.95, "fp8", 134_013, 1)
    assert remedy["command"].endswith("--max-model-len 131072 \\\n  --gpu-memory-utilization 0.95 \\\n  --kv-cache-dtype fp8")


def test_the_flags_asked_are_the_figures_answered(capsys):
    """Explicit flags are reported at the top level, whatever the remedy changes (issue 2/8)."""
    answer = plan_json(capsys, "openai/gpt-oss-120b", "--gpu", "h100-sxm", "--count", "1", "--context", "131072",
                       "--gpu-memory-utilization", "0.9")
    assert (answer["starts"], answer["memory_fraction"], answer["kv_dtype"], answer["context"]) == (False, 0.9, "auto", 131_072)
    assert answer["available_kv_bytes_per_gpu"] == 0 and answer["short_bytes_per_gpu"] > 0
    assert answer["command"].endswith("--gpu-memory-utilization 0.9")
    assert answer["remedy"]["memory_fraction"] == 0.95
    # a plan that starts as asked has no remedy
    fits = plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--context", "8192")
    assert fits["starts"] and fits["remedy"] is None and "changes" not in fits


def test_when_no_flag_is_enough_the_context_gets_shorter(capsys):
    # Qwen3-32B's 61 GiB of weights leave one H100 too little for 131,072 tokens even at 0.95 and FP8
    answer = plan_json(capsys, "qwen3-32b", "--gpu", "h100-sxm")
    assert not answer["starts"] and answer["context"] == 131_072 and answer["reason"] == "context_does_not_fit"
    remedy = answer["remedy"]
    assert remedy["starts"] and 32768 < remedy["context"] < 131072 and remedy["context"] == remedy["max_context"]
    assert remedy["changes"] == ["--gpu-memory-utilization 0.95", "--kv-cache-dtype fp8", f"--max-model-len {remedy['context']}"]


def test_the_table_shows_the_flags_asked_then_the_ones_that_start(capsys):
    assert main(["plan", "openai/gpt-oss-120b", "--gpu", "h100-sxm"]) == 0
    text = capsys.readouterr().out
    asked, remedy = text.split("With --gpu-memory-utilization 0.95, --kv-cache-dtype fp8 it starts:")
    assert "starts                  no: the weights load" in asked and "# does not start as printed" in asked
    assert "decode (upper bound)" not in asked and "price" not in asked  # no speed or price for what does not run
    assert "starts                  yes" in remedy and "--kv-cache-dtype fp8" in remedy.splitlines()[-1]


def test_two_gpus_split_the_model_and_sglang_answers_too(capsys):
    one = plan_json(capsys, "qwen3-32b", "--gpu", "h100-sxm", "--context", "16000")
    two = plan_json(capsys, "qwen3-32b", "--gpu", "h100-sxm", "--count", "2", "--context", "16000")
    assert two["tp"] == 2 and two["weights_bytes_per_gpu"] < one["weights_bytes_per_gpu"] / 1.9
    assert two["kv_tokens"] > 10 * one["kv_tokens"]
    sglang = plan_json(capsys, "qwen3-32b", "--gpu", "h100-sxm", "--count", "2", "--engine", "sglang", "--context", "16000")
    assert sglang["command"].startswith("python -m sglang.launch_server") and sglang["starts"]


def test_an_fp8_kv_cache_holds_twice_the_tokens(capsys):
    auto = plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--context", "8192", "--kv-dtype", "auto")
    fp8 = plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--context", "8192", "--kv-dtype", "fp8")
    assert (auto["kv_dtype"], fp8["kv_dtype"]) == ("auto", "fp8")
    assert fp8["kv_bytes_per_token_per_gpu"] * 2 == auto["kv_bytes_per_token_per_gpu"] == 131_072  # 32 × 2 × 8 × 128 × 2
    assert fp8["command"].endswith("--kv-cache-dtype fp8")


def test_a_context_past_the_window_is_refused_by_size_too(capsys):
    assert main(["size", "phi-3-mini-4k-instruct", "--context", "4097"]) == 2
    assert capsys.readouterr().err == "size: --context: Phi-3-mini-4k-instruct's context window is 4,096 tokens (got 4,097)\n"
    assert main(["size", "phi-3-mini-4k-instruct", "--context", "4096", "--json"]) == 0


def test_a_plan_past_the_window_does_not_start_and_its_remedy_is_the_window(capsys):
    """In the planner (the calculator asks it), a context past the window is the engine's refusal."""
    from generator.catalog.loader import load_catalog
    from generator.sizing.planner import answer, PlanRequest

    catalog = load_catalog(CONTENT)
    model = next(m for m in catalog.models if m.slug == "codegemma-7b-it")
    gpu = next(g for g in catalog.gpus if g.slug == "h100-sxm")
    result = answer(model, gpu, 1, PlanRequest(context=32_768))
    assert (result.asked.starts, result.asked.reason, result.asked.max_users) == (False, "context_beyond_window", 0)
    assert result.asked.max_context == 8_192  # the longest a plan offers is the window
    assert result.remedy.starts and result.remedy.context == 8_192 and ("--max-model-len", "8192") in result.remedy.changes


def test_the_command_carries_the_share_as_asked(capsys):
    answer = plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--context", "8192", "--gpu-memory-utilization", "0.9005")
    assert answer["memory_fraction"] == 0.9005 and answer["command"].endswith("--gpu-memory-utilization 0.9005")


def test_three_verdicts_the_flags_asked_can_get(capsys):
    # Llama-3.1-8B at 131,072 tokens on one H100 holds 3 such sequences
    assert plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--users", "3")["verdict"] == "starts"
    fewer = plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--users", "4")
    assert (fewer["verdict"], fewer["starts"], fewer["users_fit"], fewer["max_users"]) == ("starts_for_fewer_users", True, False, 3)
    assert plan_json(capsys, "kimi-k3", "--gpu", "rtx-4090")["verdict"] == "does_not_start"
    assert main(["plan", "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--users", "4"]) == 0
    assert "starts                  yes, for 3 of the 4 users asked at this context" in capsys.readouterr().out


def test_a_4_bit_plan_serves_a_4_bit_checkpoint(capsys):
    """The issue's case: Qwen3-30B-A3B on 2 × RTX 3090 at 32k for 4 users, at 4 bits, serves Qwen's
    own GPTQ-Int4 checkpoint, not the 61 GB BF16 one."""
    answer = plan_json(capsys, "qwen3-30b-a3b", "--gpu", "rtx-3090", "--count", "2", "--context", "32768",
                       "--users", "4", "--precision", "4")
    assert answer["checkpoint"] == "Qwen/Qwen3-30B-A3B-GPTQ-Int4"
    assert answer["command"].startswith("vllm serve Qwen/Qwen3-30B-A3B-GPTQ-Int4 \\\n")
    # 4-bit attention and experts with their scales, 16-bit embeddings and head: under 10 GB per GPU
    assert answer["starts"] and answer["weights_bytes_per_gpu"] < 10 * 10**9


def test_8_bits_without_a_checkpoint_quantizes_on_the_fly_in_vllm(capsys):
    answer = plan_json(capsys, "deepseek-v2-lite-chat", "--gpu", "l4", "--precision", "8", "--context", "4096")
    assert answer["checkpoint"] == "deepseek-ai/DeepSeek-V2-Lite-Chat"
    assert answer["command"].endswith("--max-model-len 4096 \\\n  --quantization fp8")


def test_a_named_checkpoint_is_served(capsys):
    answer = plan_json(capsys, "qwen3-8b", "--gpu", "l4", "--checkpoint", "RedHatAI/Qwen3-8B-FP8-dynamic", "--context", "4096")
    assert answer["checkpoint"] == "RedHatAI/Qwen3-8B-FP8-dynamic" and "RedHatAI/Qwen3-8B-FP8-dynamic" in answer["command"]


def test_readable_table(capsys):
    assert main(["plan", "llama-3-1-8b-instruct", "--gpu", "rtx-4090", "--context", "8192"]) == 0
    text = capsys.readouterr().out
    assert "Llama" in text and "weights as loaded" in text and "vllm serve meta-llama/Llama-3.1-8B-Instruct" in text


@pytest.mark.parametrize(
    "args, message",
    [
        (["no-such-model", "--gpu", "h100-sxm"], "plan: no model 'no-such-model' in content"),
        (["kimi-k3", "--gpu", "tpu"], "plan: --gpu: no GPU 'tpu' in content"),
        (["kimi-k3", "--gpu", "h100-sxm", "--count", "12"], "plan: --count: more than one machine of H100 SXM (8 GPUs each) must be a multiple of 8 (got 12)"),
        (["kimi-k3", "--gpu", "h100-sxm", "--count", "0"], "argument --count: must be an integer from 1 to 4096 (got 0)"),
        (["kimi-k3", "--gpu", "h100-sxm", "--gpu-memory-utilization", "0"], "must be a number above 0 and at most 1 (got '0')"),
        (["kimi-k3", "--gpu", "h100-sxm", "--mem-fraction-static", "nan"], "must be a number above 0 and at most 1 (got 'nan')"),
        (["kimi-k3", "--gpu", "h100-sxm", "--engine", "trt"], "argument --engine: invalid choice: 'trt'"),
        (["kimi-k3", "--gpu", "h100-sxm", "--kv-dtype", "int4"], "argument --kv-dtype: invalid choice: 'int4'"),
        (["kimi-k3"], "the following arguments are required: --gpu"),
        (["codegemma-7b-it", "--gpu", "rtx-4090", "--context", "32768"],
         "plan: --context: CodeGemma-7B-it's context window is 8,192 tokens (got 32,768)"),
        (["codegemma-7b-it", "--gpu", "rtx-4090", "--context", "8193", "--engine", "llama.cpp"],
         "plan: --context: CodeGemma-7B-it's context window is 8,192 tokens (got 8,193)"),
        (["qwen3-coder-30b-a3b-instruct", "--gpu", "rtx-3090", "--count", "2", "--precision", "4"],
         "plan: --precision 4: no 4-bit checkpoint of Qwen3-Coder-30B-A3B-Instruct that vLLM serves is in the catalog "
         "(its checkpoints: Qwen/Qwen3-Coder-30B-A3B-Instruct, Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8); "
         "`plan qwen3-coder-30b-a3b-instruct --gpu rtx-3090 --engine llama.cpp` sizes a GGUF file"),
        (["deepseek-v2-lite-chat", "--gpu", "l4", "--precision", "8", "--engine", "sglang"],
         "plan: --precision 8: no 8-bit checkpoint of DeepSeek-V2-Lite-Chat that SGLang serves is in the catalog "
         "(its checkpoints: deepseek-ai/DeepSeek-V2-Lite-Chat)"),
        (["granite-4-0-h-small", "--gpu", "h100-sxm", "--engine", "sglang"],
         "plan: --engine sglang: SGLang 0.5.3rc2 does not run Granite-4.0-H-Small's mamba2 layers (--engine vllm does)"),
        (["qwen3-8b", "--gpu", "l4", "--checkpoint", "nobody/Qwen3-8B-FP8"],
         "plan: --checkpoint: 'nobody/Qwen3-8B-FP8' is not a checkpoint of qwen3-8b in the catalog"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(capsys, args, message):
    with pytest.raises(SystemExit) if message.startswith(("argument", "must", "the following")) else nullcontext():
        assert main(["plan", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err



def test_llama_cpp_plans_an_imatrix_file_when_asked(capsys):
    """bartowski's Meta-Llama-3.1-8B-Instruct-IQ4_XS.gguf is 4.45 GB (tests/data/gguf_sizes.yaml), made
    with an importance matrix: with it, IQ4_XS keeps its first four ffn_down layers (32 // 8) at
    IQ4_XS, each 14,336 × 4,096 values at 136 bytes per 256 instead of Q5_K's 176: 4 × 58,720,256 ×
    40 / 256 = 36,700,160 bytes fewer, and the file's tensors are within 0.5 % of the published size."""
    stock = plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "rtx-4090", "--engine", "llama.cpp", "--quant", "IQ4_XS")
    imatrix = plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "rtx-4090", "--engine", "llama.cpp", "--quant", "IQ4_XS",
                        "--imatrix")
    assert (stock["imatrix"], imatrix["imatrix"]) == (False, True)
    assert stock["gguf_file_bytes"] - imatrix["gguf_file_bytes"] == 36_700_160
    assert abs(imatrix["gguf_file_bytes"] - 4.45e9) <= 0.005 * 4.45e9 < abs(stock["gguf_file_bytes"] - 4.45e9)


# ---- speculative decoding with the MTP layers ----------------------------------------------

# GLM-4.5-Air's MTP layer, one GPU's share at TP 4 in BF16 (2 bytes): 128 experts × gate, up, down of
# 4,096 × 1,408, split four ways; attention q and o (96 × 128 × 4,096 each) and k, v (8 × 128 ×
# 4,096 each) split four ways; the shared expert (3 × 4,096 × 1,408) split four ways; eh_proj (8,192 ×
# 4,096) whole on every GPU (a plain nn.Linear in glm4_moe_mtp.py); the q, k, v biases (12,288 + 2 ×
# 1,024), router (4,096 × 128), its bias, two norms, enorm, hnorm and shared_head's norm whole, as the
# sizing keeps one-shard tensors. Its own embeddings and head are not loaded: the draft shares the
# target's.
AIR_DRAFT = (128 * 3 * 4096 * 1408 // 4 + 2 * 96 * 128 * 4096 // 4 + 2 * 8 * 128 * 4096 // 4 + 3 * 4096 * 1408 // 4
             + 8192 * 4096 + (12288 + 2 * 1024) + 4096 * 128 + 128 + (2 + 3) * 4096) * 2


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_drafting_with_the_mtp_layer_loads_it_and_caches_one_more_layer(capsys, engine):
    """GLM-4.5-Air on 4 × H100 at 32,768 tokens: the draft layer's weights as loaded (AIR_DRAFT bytes
    per GPU), and its KV cache beside the 46 layers' (2 KV heads per GPU × 128 × K and V × 2 bytes =
    1,024 bytes a token a layer: 47,104 becomes 48,128), with the engine's own flags."""
    args = ("glm-4-5-air", "--gpu", "h100-sxm", "--count", "4", "--engine", engine, "--context", "32768")
    plain = plan_json(capsys, *args)
    drafting = plan_json(capsys, *args, "--speculative", "mtp")
    assert (plain["speculative"], drafting["speculative"]) == (None, "mtp")
    assert drafting["weights_bytes_per_gpu"] - plain["weights_bytes_per_gpu"] == AIR_DRAFT
    assert (plain["kv_bytes_per_token_per_gpu"], drafting["kv_bytes_per_token_per_gpu"]) == (46 * 1024, 47 * 1024)
    flags = {"vllm": "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'",
             "sglang": "--speculative-algorithm EAGLE \\\n  --speculative-num-steps 1 \\\n  --speculative-eagle-topk 1 "
                       "\\\n  --speculative-num-draft-tokens 2"}[engine]
    assert drafting["command"].endswith(flags) and "speculative" not in plain["command"]
    assert drafting["kv_tokens"] < plain["kv_tokens"]


def test_sglang_keeps_2_gib_more_out_of_its_pool_with_a_draft(capsys):
    """server_args.py: reserved_mem += 2 * 1024 for an EAGLE draft. An H100 as CUDA reports it has
    81,111 MiB; at TP 4 SGLang keeps 512 + 8,192 × 1.5 + 512 × 2 + 4 / 8 × 1,024 = 14,336 MiB out:
    (81,111 - 14,336) / 81,111 = 0.823; with the draft 16,384 MiB: 0.798."""
    args = ("glm-4-5-air", "--gpu", "h100-sxm", "--count", "4", "--engine", "sglang", "--context", "32768")
    plain, drafting = plan_json(capsys, *args), plan_json(capsys, *args, "--speculative", "mtp")
    assert (plain["memory_fraction"], drafting["memory_fraction"]) == (0.823, 0.798)


@pytest.mark.parametrize("args, message", [
    (("llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--speculative", "mtp"),
     "plan: --speculative mtp: llama-3-1-8b-instruct ships no multi-token-prediction layers to draft with"),
    (("glm-4-5-air", "--gpu", "h100-sxm", "--engine", "llama.cpp", "--speculative", "mtp"),
     "plan: --speculative: not a llama.cpp option (use --quant and --cache-type)"),
])
def test_speculation_is_refused_in_one_line_where_it_cannot_run(capsys, args, message):
    assert main(["plan", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == message and captured.out == ""


def test_drafting_across_machines_starts_in_vllm_with_the_draft_on_the_last_stage_and_not_in_sglang(capsys):
    """DeepSeek-V3 on 16 × H100: two machines, pipeline parallel 2. SGLang 0.5.3rc2 refuses speculative
    decoding with pipeline parallelism; vLLM runs the draft with one stage of its own on the target's
    last (speculative.py create_draft_parallel_config), so its weights land on the last stage."""
    args = ("deepseek-v3", "--gpu", "h100-sxm", "--count", "16", "--context", "8192")
    sglang = plan_json(capsys, *args, "--engine", "sglang", "--speculative", "mtp")
    assert sglang["pp"] == 2
    assert (sglang["starts"], sglang["reason"], sglang["max_users"], sglang["max_context"]) == (False, "draft_with_pipeline", 0, 0)
    assert sglang["remedy"] is None
    assert sglang["reason_text"] == "drafting with the MTP layers does not run with pipeline parallelism (more than one machine)"
    plain, vllm = plan_json(capsys, *args), plan_json(capsys, *args, "--speculative", "mtp")
    assert vllm["pp"] == 2 and vllm["starts"] and vllm["reason"] is None
    # the fullest GPU is the last stage's, which gains the whole MTP layer's share at TP 8
    assert vllm["weights_bytes_per_gpu"] > plain["weights_bytes_per_gpu"]


def test_vllm_serves_a_model_with_a_vision_tower_as_text_and_sglang_loads_the_tower(capsys):
    """Gemma-3-27B on one H100: vLLM with --language-model-only loads no tower (its SigLIP So400m,
    about 0.42B parameters in BF16, 0.8 to 0.9 GB); SGLang 0.5.3rc2 loads it, and keeps its text
    default share (0.834 on an H100 at TP 1: multimodal is off by default for Gemma 3, so
    adjust_mem_fraction_for_vlm does not run)."""
    vllm = plan_json(capsys, "gemma-3-27b", "--gpu", "h100-sxm", "--context", "8192")
    sglang = plan_json(capsys, "gemma-3-27b", "--gpu", "h100-sxm", "--context", "8192", "--engine", "sglang")
    assert vllm["command"].endswith("--max-model-len 8192 \\\n  --language-model-only")
    assert "language" not in sglang["command"]
    tower = sglang["weights_bytes_per_gpu"] - vllm["weights_bytes_per_gpu"]
    assert 0.8e9 < tower < 0.9e9
    assert sglang["memory_fraction"] == 0.834


def test_sglang_builds_the_draft_after_the_target_pool_and_gives_both_pools_headroom(capsys):
    """SGLang 0.5.3rc2 (model_runner.py init_memory_pool, scheduler.py: the EAGLE worker after the
    target's): GLM-4.5-Air on 4 × H100 at 32,768 tokens profiles the target's 46 layers only,
    300,048 tokens of 47,104 bytes in its static share. With a draft SGLang runs at most 48 requests
    (server_args.py), so both pools hold 48 × (1 × 1 + 2) + 100 = 244 tokens more: 300,292. Outside
    the static share: the draft's pool of 300,292 × 1,024 bytes and the target's 244 extra tokens ×
    47,104 (318,992,384 bytes together), and the draft's weights."""
    answer = plan_json(capsys, "glm-4-5-air", "--gpu", "h100-sxm", "--count", "4", "--engine", "sglang",
                       "--context", "32768", "--speculative", "mtp")
    profiled = answer["available_kv_bytes_per_gpu"] // 47_104
    assert profiled == 300_048 and answer["kv_tokens"] == 300_048 + 244 == 300_292
    assert answer["non_kv_bytes_per_gpu"]["draft_cache"] == 300_292 * 1_024 + 244 * 47_104 == 318_992_384
    parts = answer["weights_bytes_per_gpu"] + answer["available_kv_bytes_per_gpu"] + sum(answer["non_kv_bytes_per_gpu"].values())
    assert parts == answer["total_memory_bytes_per_gpu"]  # every byte once: the draft inside what the static share leaves
    # at most 48 requests at once, however many the cache holds
    short = plan_json(capsys, "deepseek-v3", "--gpu", "h200", "--count", "8", "--engine", "sglang", "--context", "4096",
                      "--users", "100", "--speculative", "mtp")
    assert short["max_concurrency"] > 48 and short["max_users"] == 48 and not short["users_fit"]


def test_a_reader_that_stops_reading_ends_the_command_without_a_traceback():
    """`plan ... | head -1`: the pipe closes before the command writes; it ends quietly, 141 (SIGPIPE)."""
    process = subprocess.Popen([sys.executable, "-m", "generator", "plan", "llama-3-1-8b-instruct", "--gpu", "h100-sxm"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    process.stdout.close()  # before Python has even started
    _, err = process.communicate(timeout=300)
    assert (process.returncode, err.decode()) == (141, "")


def test_the_vram_guide_script_runs_every_command_as_python_m_generator_does():
    """The console script the package installs (pyproject.toml [project.scripts]), beside the venv's Python."""
    from pathlib import Path
    script = Path(sys.executable).parent / "vram-guide"
    usage = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert usage.returncode == 0 and usage.stdout.startswith("usage: vram-guide ")
    same = [subprocess.run(command + ["plan", "qwen3-8b", "--gpu", "h100-sxm", "--json"], capture_output=True, text=True,
                           cwd=ROOT, timeout=300) for command in ([str(script)], [sys.executable, "-m", "generator"])]
    assert same[0].returncode == same[1].returncode == 0 and same[0].stdout == same[1].stdout
    bad = subprocess.run([str(script), "plan", "qwen3-8b"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "usage: vram-guide plan" in bad.stderr


THROUGHPUT = ("output_tokens_per_second", "output_tokens_per_second_per_user", "ttft_seconds", "tpot_seconds")


@pytest.mark.parametrize("engine_args", [
    ("--engine", "vllm"), ("--engine", "sglang"), ("--engine", "llama.cpp", "--quant", "Q4_K_M"),
])
def test_plan_json_times_the_workload_asked(capsys, engine_args):
    args = ("llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--context", "8192", "--users", "8", *engine_args)
    answer = plan_json(capsys, *args, "--input-tokens", "2000", "--output-tokens", "500")
    assert (answer["input_tokens"], answer["output_tokens"], answer["users_decoding_at_once"]) == (2000, 500, 8)
    assert all(answer[field] > 0 for field in THROUGHPUT)
    assert answer["output_tokens_per_second"] == pytest.approx(8 * answer["output_tokens_per_second_per_user"], rel=1e-3)
    # a user's tokens come no faster than one decode step each, and the first after the prompt's compute
    assert answer["output_tokens_per_second_per_user"] <= 1 / answer["tpot_seconds"]
    assert answer["ttft_seconds"] > answer["tpot_seconds"] / 8
    # a longer prompt costs time to the first token; more users share the GPU
    longer = plan_json(capsys, *args, "--input-tokens", "6000", "--output-tokens", "500")
    assert longer["ttft_seconds"] > answer["ttft_seconds"]
    alone = plan_json(capsys, *args[:-len(engine_args) - 2], "--users", "1", *engine_args,
                      "--input-tokens", "2000", "--output-tokens", "500")
    assert alone["output_tokens_per_second"] < answer["output_tokens_per_second"]
    assert alone["output_tokens_per_second_per_user"] > answer["output_tokens_per_second_per_user"]


def test_plan_json_gives_no_throughput_where_it_cannot_be_timed(capsys):
    # no sourced tensor FLOPS for the RTX 4080 SUPER in the catalog
    unknown = plan_json(capsys, "llama-3-2-1b-instruct", "--gpu", "rtx-4080-super", "--context", "8192")
    assert unknown["starts"] and all(unknown[field] is None for field in THROUGHPUT)
    # it does not start there
    refused = plan_json(capsys, "kimi-k3", "--gpu", "rtx-4090")
    assert all(refused[field] is None for field in THROUGHPUT)


def test_the_default_workload_fits_the_context_and_a_longer_one_is_refused(capsys):
    short = plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--context", "1500")
    assert (short["input_tokens"], short["output_tokens"]) == (750, 750)
    default = plan_json(capsys, "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--context", "8192")
    assert (default["input_tokens"], default["output_tokens"]) == (1024, 1024)
    assert main(["plan", "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--context", "4096",
                 "--input-tokens", "4000", "--output-tokens", "200"]) == 2
    assert capsys.readouterr().err == ("plan: --input-tokens 4,000 and --output-tokens 200 are 4,200 tokens, more than "
                                       "the context of 4,096 (--context)\n")


def test_the_terminal_shows_the_workload_beside_the_memory(capsys):
    assert main(["plan", "llama-3-1-8b-instruct", "--gpu", "h100-sxm", "--context", "8192", "--users", "4"]) == 0
    out = capsys.readouterr().out
    assert "  at 4 users, 1,024 tokens in and 1,024 out each:\n    output  " in out
    assert " tokens/s in all, " in out and "    first token  " in out and "; then one every " in out
