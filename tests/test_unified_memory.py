"""Machines whose GPU shares the CPU's memory (Apple M-series, DGX Spark, Strix Halo): the share the
GPU may use, stated from its source, and llama.cpp the only engine planned on them."""

import pytest

from generator.catalog.loader import load_catalog
from generator.cli.main import main
from generator.sizing.engine import UNIFIED_MEMORY
from generator.sizing.engines import ENGINES, engines_planned_on
from generator.sizing.planner import PlanRequest, plan
from generator.sizing.setups import gpus_needed
from tests.conftest import ROOT, twin

CATALOG = load_catalog(ROOT / "content")
GPUS = {gpu.slug: gpu for gpu in CATALOG.gpus}
MODELS = {model.slug: model for model in CATALOG.models}


@pytest.mark.parametrize("slug, share, usable_bytes", [
    ("mac-m4-max-128gb", "0.84", 107_520_000_000),  # macOS 26's wired limit on 128 GB: 107.52 of 128 GiB
    ("mac-m4-pro-64gb", "0.75", 48 * 10**9),  # three quarters: 48 of 64 GiB in llama.cpp's log
    ("mac-m3-ultra-512gb", "0.75", 384 * 10**9),
    ("strix-halo-128gb", "0.5", 64 * 10**9),  # Linux's GTT default, half of it
    ("dgx-spark", "0.79", 101_120_000_000),  # no fixed share: what is free at boot, 101.3 of 128 GiB
    ("h100-sxm", None, 80 * 10**9),  # a card: all of its own
])
def test_the_gpu_share_of_a_machine_memory(slug, share, usable_bytes):
    gpu = GPUS[slug]
    assert (None if gpu.gpu_memory_share is None else str(gpu.gpu_memory_share)) == share
    assert gpu.gpu_memory_bytes == usable_bytes


def test_only_llama_cpp_is_planned_on_unified_memory():
    assert [e.key for e in engines_planned_on(GPUS["mac-m4-max-128gb"])] == ["llama.cpp"]
    assert [e.key for e in engines_planned_on(GPUS["h100-sxm"])] == ["vllm", "sglang", "llama.cpp"]
    model = MODELS["llama-3-1-8b-instruct"]
    for engine in ("vllm", "sglang"):
        planned = plan(model, GPUS["dgx-spark"], 1, PlanRequest(context=8192, engine=engine))
        assert (planned.starts, planned.reason) == (False, UNIFIED_MEMORY)
    assert ENGINES["llama.cpp"].gpu_reason(model, GPUS["dgx-spark"]) is None


def test_the_headline_counts_only_the_gpu_share():
    """A 64 GB Mac's GPU may use 48 GB: a 50 GB requirement needs more than this machine."""
    mac = GPUS["mac-m4-pro-64gb"]
    assert gpus_needed(48 * 10**9, mac) == 1 and gpus_needed(48 * 10**9 + 1, mac) is None


def test_the_fit_page_offers_every_machine_and_only_llama_cpp_plans_the_unified_ones():
    """What fits my GPUs asks every engine: on a Mac, vLLM's verdict is "not planned on this machine"
    and llama.cpp's is planned (Llama-3.1-8B at Q4_K_M, about 4.9 GB, on the GPU's 107.52 GB)."""
    from generator.sizing.fit import DOES_NOT_RUN, ON_GPUS, fit_row, llama_cpp_fit_row
    from generator.sizing.llama_cpp import LlamaCppRequest
    from generator.site.view_models import site_pages

    page = next(spec for spec in site_pages(CATALOG) if spec.path == "fit").page()
    slugs = {gpu.slug for gpu in page.gpus}
    assert {"h100-sxm", "mac-m4-max-128gb", "dgx-spark", "strix-halo-128gb"} <= slugs
    mac, model = GPUS["mac-m4-max-128gb"], MODELS["llama-3-1-8b-instruct"]
    served = fit_row(model, mac, 1, PlanRequest(context=8192))
    assert (served.verdict, served.reason) == (DOES_NOT_RUN, UNIFIED_MEMORY)
    assert llama_cpp_fit_row(model, mac, 1, LlamaCppRequest(context=8192)).verdict == ON_GPUS


def test_the_plan_command_says_where_to_plan_it(capsys):
    assert main(["plan", "llama-3-1-8b-instruct", "--gpu", "mac-m4-max-128gb", "--context", "8192"]) == 0
    out = capsys.readouterr().out
    assert ("  starts                  not planned: this machine's GPU shares the CPU's memory: it is planned "
            "with llama.cpp only (--engine llama.cpp)") in out.splitlines()
    assert main(["plan", "llama-3-1-8b-instruct", "--gpu", "mac-m4-max-128gb", "--engine", "llama.cpp"]) == 0
    assert "    memory its GPU may use      107.52 GiB" in capsys.readouterr().out.splitlines()


def test_the_machine_page_says_its_share_and_its_engines():
    en, pt = (twin(CATALOG, lang, "gpus/strix-halo-128gb") for lang in ("en", "pt"))
    assert ("Its GPU shares this memory with the CPU and may use 50% of it by default, 64 GB (see the sources); "
            "the models below count that share, and llama.cpp's plans the memory its backend reports.") in en
    assert "| Share its GPU may use | 50% (64 GB) |" in en and "| Engines planned | llama.cpp |" in en
    assert "| Engines planned | vLLM, SGLang, llama.cpp |" in twin(CATALOG, "en", "gpus/h100-sxm")
    assert "llama.cpp" in pt and "50%" in pt.replace("\u00a0", "")
    model_page = twin(CATALOG, "en", "models/llama-3-1-8b-instruct")
    assert ("not planned: its GPU shares the machine's memory, planned with llama.cpp only") in model_page
