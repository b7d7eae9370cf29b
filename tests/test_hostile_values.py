"""`check` refuses every number `build` would crash on (or print as nonsense), and every optional
block missing a companion the sizing math reads. Each hostile value is written into a copy of the
fixture catalog and must end in exit code 2 and exactly the problem line below."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.hostile import check, edit

GPUS, KIMI, V3, LLAMA = "gpus.yaml", "models/kimi-k3.yaml", "models/deepseek-v3.yaml", "models/llama-3-1-8b-instruct.yaml"
PARAMS = "params:\n  value: 2779931837184"
MEMORY = 'memory_gb: {value: 80, source: "https://github.com/runpod/docs/blob/main/references/gpu-types.mdx", note: "NVIDIA H100 80GB'
BANDWIDTH = 'bandwidth_gb_s: {value: 3350,'
PRICE = "price_per_gpu_hour: {value: 2.69, provider: RunPod Community Cloud, date: 2026-09-25,"
SHAPES = 'shapes: {value: [1, 2, 4, 8], source: "https://lambda.ai/instances"'
MLA = "    q_lora_rank: 1536\n    kv_lora_rank: 512"
BIG = "more than 30 digits"

CASES = [
    (KIMI, PARAMS, "params:\n  value: " + "1" + "0" * 40,
     f"models/kimi-k3.yaml:6: params: must be an integer from 1 to 10^15 (got a number of {BIG})"),
    (KIMI, PARAMS, "params:\n  value: " + "9" * 4000,
     f"models/kimi-k3.yaml:6: params: must be an integer from 1 to 10^15 (got a number of {BIG})"),
    (KIMI, PARAMS, "params:\n  value: 2.5e12", "models/kimi-k3.yaml:6: params: must be an integer from 1 to 10^15 (got '2.5e12')"),
    (KIMI, PARAMS, "params:\n  value: true", "models/kimi-k3.yaml:6: params: must be an integer from 1 to 10^15 (got True)"),
    (KIMI, "context_window:\n  value: 1048576", "context_window:\n  value: 10000000000",
     "models/kimi-k3.yaml:29: context_window: must be an integer from 1 to 10^9 (got 10000000000)"),
    (KIMI, "experts:\n  value: 896", "experts:\n  value: 2000000",
     "models/kimi-k3.yaml:23: experts: must be an integer from 1 to 10^6 (got 2000000)"),
    (KIMI, "release_date:\n  value: '2026-07-27'", "release_date:\n  value: '0001-01-01'",
     "models/kimi-k3.yaml:53: release_date: must be a date YYYY-MM-DD from 2000 to 2100 (got '0001-01-01')"),
    (GPUS, MEMORY, MEMORY.replace("value: 80", "value: 1.0e-10"),
     "gpus.yaml:11: gpus.0.memory_gb: must be a number from 1 to 10000 (got 1e-10)"),
    (GPUS, MEMORY, MEMORY.replace("value: 80", "value: 20000"),
     "gpus.yaml:11: gpus.0.memory_gb: must be a number from 1 to 10000 (got 20000)"),
    (GPUS, MEMORY, MEMORY.replace("value: 80", "value: .nan"),
     "gpus.yaml:11: gpus.0.memory_gb: must be a number from 1 to 10000 (got nan)"),
    (GPUS, BANDWIDTH, "bandwidth_gb_s: {value: 1.0e-10,",
     "gpus.yaml:13: gpus.0.bandwidth_gb_s: must be a number from 1 to 10^6 (got 1e-10)"),
    (GPUS, BANDWIDTH, "bandwidth_gb_s: {value: .inf,",
     "gpus.yaml:13: gpus.0.bandwidth_gb_s: must be a number from 1 to 10^6 (got inf)"),
    # the throughput model divides by a GPU's tensor FLOPS and its link
    (GPUS, 'tensor_tflops_bf16: {value: 989, source: "https://github.com/NVIDIA/exemplar', 'tensor_tflops_bf16: {value: 0, source: "https://github.com/NVIDIA/exemplar',
     "gpus.yaml:19: gpus.0.tensor_tflops_bf16: must be a number from 0.1 to 10^6 (got 0)"),
    (GPUS, 'tensor_tflops_fp8: {value: 1979, source: "https://github.com/NVIDIA/exemplar', 'tensor_tflops_fp8: {value: 1e400, source: "https://github.com/NVIDIA/exemplar',
     "gpus.yaml:20: gpus.0.tensor_tflops_fp8: must be a number from 0.1 to 10^6 (got '1e400')"),
    (GPUS, 'peer_link: {value: nvlink, source: "https://github.com/NVIDIA/exemplar-performance/blob/97b1fd4bf95a9ae85dec0b243d9f97ac038deffb/README.md (H100',
     'peer_link: {value: infiniband, source: "https://github.com/NVIDIA/exemplar-performance/blob/97b1fd4bf95a9ae85dec0b243d9f97ac038deffb/README.md (H100',
     "gpus.yaml:21: gpus.0.peer_link: must be one of nvlink, pcie, infinity_fabric (got 'infiniband')"),
    (GPUS, 'peer_gb_s: {value: 450, source: "https://github.com/NVIDIA/exemplar', 'peer_gb_s: {value: -5, source: "https://github.com/NVIDIA/exemplar',
     "gpus.yaml:22: gpus.0.peer_gb_s: must be a number from 1 to 10^6 (got -5)"),
    (GPUS, PRICE, PRICE.replace("2.69", "1e5000"),
     "gpus.yaml:16: gpus.0.price_per_gpu_hour: must be a number from 0.0001 to 10^6 (got '1e5000')"),
    (GPUS, PRICE, PRICE.replace("2.69", "0.00001"),
     "gpus.yaml:16: gpus.0.price_per_gpu_hour: must be a number from 0.0001 to 10^6 (got 1e-05)"),
    (GPUS, PRICE, PRICE.replace("2026-09-25", "0001-01-01"),
     "gpus.yaml:16: gpus.0.price_per_gpu_hour.date: must be a date YYYY-MM-DD from 2000 to 2100 (got 0001-01-01)"),
    (GPUS, SHAPES, SHAPES.replace("[1, 2, 4, 8]", "[1, 1" + "0" * 40 + "]"),
     f"gpus.yaml:15: gpus.0.shapes: must be an integer from 1 to 8 (got a number of {BIG})"),
    ("site.yaml", "prices_date: 2026-09-25", "prices_date: 2101-01-01",
     "site.yaml:12: prices_date: must be a date YYYY-MM-DD from 2000 to 2100 (got 2101-01-01)"),
    (V3, "  hidden_size: 7168", "  hidden_size: 100000000",
     "models/deepseek-v3.yaml:58: architecture.hidden_size: must be an integer from 1 to 10^7 (got 100000000)"),
    (V3, "    shared_experts: 1", "    shared_experts: -1",
     "models/deepseek-v3.yaml:73: architecture.moe.shared_experts: must be an integer from 0 to 10^7 (got -1)"),
    # A tower that merges its patches (Qwen3-VL) needs the width of the tokens it merges them into
    (KIMI, "    patch_size: 14\n", "    patch_size: 14\n    merge_size: 2\n",
     "models/kimi-k3.yaml:104: architecture.vision.output_size: missing (a tower with merge_size merges its patches into"
     " tokens of this width)"),
    # Companions: the sparse-attention indexer reads its queries from the MLA query latent.
    (V3, MLA, MLA + "\n    indexer_heads: 32",
     "models/deepseek-v3.yaml:68: architecture.attention.indexer_heads: indexer_heads and indexer_head_dim go"
     " together (a sparse-attention indexer has both)"),
    (V3, MLA, MLA + "\n    indexer_head_dim: 128",
     "models/deepseek-v3.yaml:68: architecture.attention.indexer_head_dim: indexer_heads and indexer_head_dim go"
     " together (a sparse-attention indexer has both)"),
    (V3, MLA, "    kv_lora_rank: 512\n    indexer_heads: 32\n    indexer_head_dim: 128",
     "models/deepseek-v3.yaml:67: architecture.attention.indexer_heads: needs mla or compressed attention with q_lora_rank"
     " (the indexer's queries come from the query latent)"),
    (LLAMA, "    kind: gqa", "    kind: gqa\n    q_lora_rank: 1536\n    indexer_heads: 32\n    indexer_head_dim: 128",
     "models/llama-3-1-8b-instruct.yaml:43: architecture.attention.indexer_heads: needs mla or compressed attention with q_lora_rank"
     " (the indexer's queries come from the query latent)"),
    # IndexShare: shared layers reuse an earlier layer's indexer, so the model has one and layer 0 has its own
    (V3, MLA, MLA + "\n    shared_indexer_layers: [3]",
     "models/deepseek-v3.yaml:68: architecture.attention.shared_indexer_layers: needs mla attention with an indexer"
     " (the shared layers reuse an earlier layer's)"),
    (V3, MLA, MLA + "\n    indexer_heads: 32\n    indexer_head_dim: 128\n    shared_indexer_layers: [0, 3]",
     "models/deepseek-v3.yaml:70: architecture.attention.shared_indexer_layers: must be layers 1 to 60 (layer 0 has no"
     " earlier indexer to share)"),
    # Gemma 4's global layers' own attention goes with sliding-window layers; a count of the language
    # model alone with a vision tower beside it
    (LLAMA, "    kind: gqa", "    kind: gqa\n    global_head_dim: 256",
     "models/llama-3-1-8b-instruct.yaml:42: architecture.attention.global_head_dim: goes only with gqa attention that"
     " has sliding-window layers (the global layers' own attention)"),
    (LLAMA, "name: Llama-3.1-8B-Instruct", "name: Llama-3.1-8B-Instruct\nparams_without_vision: true",
     "models/llama-3-1-8b-instruct.yaml:4: params_without_vision: needs an architecture with a vision tower (the part"
     " the published count leaves out)"),
]


@pytest.mark.parametrize("file, old, new, expected", CASES)
def test_hostile_value_is_refused_with_one_line(content_copy, file, old, new, expected):
    edit(content_copy, file, old, new)
    code, lines = check(content_copy)
    assert (code, lines) == (2, [expected, "1 problem in " + content_copy.as_posix() + "."])


@pytest.mark.parametrize("case", [CASES[1], CASES[12], CASES[-4]], ids=["4000-digit params", "price 1e5000", "indexer"])
def test_check_refuses_in_a_subprocess_without_a_traceback(content_copy, case):
    file, old, new, expected = case
    edit(content_copy, file, old, new)
    result = subprocess.run(
        [sys.executable, "-m", "generator", "check", "--content", "content"],
        capture_output=True, text=True, cwd=content_copy.parent, timeout=60,
    )
    assert (result.returncode, result.stderr.splitlines()) == (2, [f"content/{expected}", "1 problem in content."])
