"""The three verdicts of the fit page and the GPU pages (sizing/fit.py): on the GPUs, part in RAM, or not.

Expected verdicts are reasoned by hand from the fixture catalog's figures, written beside each row:
an RTX 4090 reports 25,386,352,640 bytes (deviceQuery), of which llama.cpp's --fit keeps 1 GiB free,
so 24,312,610,816 bytes hold the weights, the KV cache and the compute buffer. Llama-3.1-8B caches
2 × 32 layers × 8 KV heads × 128 values × 2 bytes = 131,072 bytes per token in f16; its Q4_K_M file
is about 4.9 GB; its compute buffer 512 × 4 × (128,256 + 4,096) = 271,056,896 bytes.
"""

from __future__ import annotations

import pytest

from generator.sizing.engine import CONTEXT_BEYOND_WINDOW, ENGINE_DOES_NOT_RUN, NO_CHECKPOINT
from generator.sizing.fit import (
    DOES_NOT_RUN, DOES_NOT_START, ON_GPUS, PART_IN_RAM, fit_row, llama_cpp_fit_row,
)
from generator.sizing.llama_cpp import LlamaCppRequest
from generator.sizing.planner import PlanRequest


def model_and_gpu(catalog, slug: str, gpu: str):
    return (next(m for m in catalog.models if m.slug == slug), next(g for g in catalog.gpus if g.slug == gpu))


@pytest.mark.parametrize("slug, quant, context, users, verdict, reason", [
    # 32,768 × 131,072 = 4.29 GB of cache + 4.9 GB of weights + 0.27 GB: 9.5 GB of 24.3
    ("llama-3-1-8b-instruct", "Q4_K_M", 32768, 1, ON_GPUS, None),
    # 131,072 × 131,072 = 17.18 GB + 4.9 + 0.27 = 22.4 GB: still every layer on the card
    ("llama-3-1-8b-instruct", "Q4_K_M", 131072, 1, ON_GPUS, None),
    # two users: 262,144 cells, 34.4 GB of cache alone: some layers (and their cache) stay in RAM
    ("llama-3-1-8b-instruct", "Q4_K_M", 131072, 2, PART_IN_RAM, None),
    # Q8_0 of 8B: 8.5 GB of weights + 17.18 + 0.27 = 25.95 GB, more than 24.3
    ("llama-3-1-8b-instruct", "Q8_0", 131072, 1, PART_IN_RAM, None),
    # DeepSeek-V3's 671B parameters at about 4.8 bits are 404 GB: its experts go to RAM
    ("deepseek-v3", "Q4_K_M", 32768, 1, PART_IN_RAM, None),
    # Mistral-7B v0.1's window is 32,768 tokens
    ("mistral-7b-v0-1", "Q4_K_M", 65536, 1, DOES_NOT_RUN, CONTEXT_BEYOND_WINDOW),
    ("mistral-7b-v0-1", "Q4_K_M", 32768, 1, ON_GPUS, None),
    # Qwen3-Next's 79.7B at Q4_K_M are a 45 GiB file: its experts go to RAM
    ("qwen3-next-80b-a3b-instruct", "Q4_K_M", 32768, 1, PART_IN_RAM, None),
    # Kimi-K3's latent MoE has no GGUF layout here
    ("kimi-k3", "Q4_K_M", 32768, 1, DOES_NOT_RUN, ENGINE_DOES_NOT_RUN),
    # MXFP4_MOE is the file of MXFP4 experts (gpt-oss, DeepSeek-V4): a dense Llama has none
    ("llama-3-1-8b-instruct", "MXFP4_MOE", 32768, 1, DOES_NOT_RUN, NO_CHECKPOINT),
])
def test_llama_cpp_verdicts_on_one_rtx_4090(fixture_catalog, slug, quant, context, users, verdict, reason):
    model, gpu = model_and_gpu(fixture_catalog, slug, "rtx-4090")
    row = llama_cpp_fit_row(model, gpu, 1, LlamaCppRequest(quant=quant, context=context, users=users))
    assert (row.verdict, row.reason) == (verdict, reason)
    assert row.fits == (verdict == ON_GPUS)
    if verdict == PART_IN_RAM:  # it starts, and RAM holds what the GPU does not
        assert row.plan.starts and row.ram_bytes > 10**9
    if verdict == ON_GPUS:  # only the input embeddings stay in RAM (128,256 × 4,096 at Q4_K's 4.5 bits: 0.3 GB)
        assert row.plan.n_gpu_layers == 33 and row.plan.n_cpu_moe == 0 and row.ram_bytes < 0.4e9


def test_moe_experts_in_ram_keep_every_layer_on_the_gpu(fixture_catalog):
    """DeepSeek-V3 on one card: every layer's attention on the GPU, the routed experts of most layers
    in RAM (--n-cpu-moe), as llama.cpp users run it; the RAM then holds nearly the whole file."""
    model, gpu = model_and_gpu(fixture_catalog, "deepseek-v3", "rtx-4090")
    row = llama_cpp_fit_row(model, gpu, 1, LlamaCppRequest(context=32768))
    assert row.plan.n_gpu_layers == 62 and 0 < row.plan.n_cpu_moe <= 61  # 61 blocks and the output layer
    assert 0.9 * 404e9 < row.ram_bytes < 404e9
    assert 1 < row.plan.decode_tokens_per_second < 10  # the experts read from RAM at 60 GB/s


def test_a_file_larger_than_unified_memory_does_not_start(catalog):
    """On a DGX Spark the CPU's memory is the GPU's: llama.cpp puts every layer on the GPU, so a file
    larger than its share (DeepSeek-V3 at Q4_K_M, about 404 GB, against 128 GB) does not start, while
    gpt-oss-120b's MXFP4 file (about 63 GB) runs on the GPU."""
    model, spark = model_and_gpu(catalog, "deepseek-v3", "dgx-spark")
    row = llama_cpp_fit_row(model, spark, 1, LlamaCppRequest(context=32768))
    assert (row.verdict, row.reason) == (DOES_NOT_RUN, DOES_NOT_START)
    model, spark = model_and_gpu(catalog, "gpt-oss-120b", "dgx-spark")
    assert llama_cpp_fit_row(model, spark, 1, LlamaCppRequest(quant="MXFP4_MOE", context=32768)).verdict == ON_GPUS


def test_serving_engines_have_the_two_ends_of_the_verdict(fixture_catalog):
    """vLLM keeps every layer on the GPUs: a model fits there or does not run, never part in RAM."""
    model, gpu = model_and_gpu(fixture_catalog, "llama-3-1-8b-instruct", "rtx-4090")
    assert fit_row(model, gpu, 1, PlanRequest(context=32768)).verdict == ON_GPUS
    model, gpu = model_and_gpu(fixture_catalog, "deepseek-v3", "rtx-4090")
    row = fit_row(model, gpu, 1, PlanRequest(context=32768))
    assert row.verdict == DOES_NOT_RUN and row.reason is not None


def test_the_issue_s_question_command_r_on_one_rtx_4090_at_16k(catalog):
    """The reader's question of issue 8/8: Command-R v01 with llama.cpp on one RTX 4090 at 16k runs
    with 22 of its 41 offload layers on the card at about 2.9 tokens/s (35 GB of Q4_K_M; 40 blocks
    and the output layer)."""
    model, gpu = model_and_gpu(catalog, "c4ai-command-r-v01", "rtx-4090")
    row = llama_cpp_fit_row(model, gpu, 1, LlamaCppRequest(context=16384))
    assert row.verdict == PART_IN_RAM
    assert row.plan.n_gpu_layers == 22
    assert row.plan.decode_tokens_per_second == pytest.approx(2.9, rel=0.05)


@pytest.mark.parametrize("lang, headings", [
    ("en", {"on_gpus": "### On the GPU", "part_in_ram": "### Part in system RAM", "does_not_run": "### Does not run"}),
    ("pt", {"on_gpus": "### Na GPU", "part_in_ram": "### Parte na RAM do sistema", "does_not_run": "### Não roda"}),
])
def test_the_gpu_page_lists_the_same_verdicts_at_a_stated_context(built_site, fixture_catalog, lang, headings):
    """The RTX 4090's page: each model under its llama.cpp verdict at 32,768 tokens (or its window where
    shorter), the question stated, and a link that asks it on the fit page."""
    text = (built_site / lang / "gpus" / "rtx-4090.html.md").read_text(encoding="utf-8")
    section = text.split("\n## ")[2]  # after the title and the specifications
    assert "llama.cpp" in section.splitlines()[0] and "Q4\\_K\\_M" in section and ("32,768" in section or "32.768" in section)
    groups = {}
    for verdict, heading in headings.items():
        if heading in section:
            part = section.split(heading)[1].split("\n### ")[0]
            groups[verdict] = {m.slug for m in fixture_catalog.models if f"/models/{m.slug}.html.md)" in part}
    # hand-reasoned in the rows above: the 8B models hold every layer at 32,768 tokens; DeepSeek's experts
    # go to RAM, and so do Qwen3-Next's; Kimi-K3's latent MoE has no GGUF layout here
    assert groups == {"on_gpus": {"llama-3-1-8b-instruct", "mistral-7b-v0-1"},
                      "part_in_ram": {"deepseek-v2", "deepseek-v3", "qwen3-next-80b-a3b-instruct"},
                      "does_not_run": {"kimi-k3"}}
    html = (built_site / lang / "gpus" / "rtx-4090.html").read_text(encoding="utf-8")
    assert 'href="../fit.html?gpu=rtx-4090&amp;count=1&amp;context=32768&amp;users=1&amp;engine=llama.cpp&amp;quant=Q4_K_M&amp;cache-type=f16"' in html
