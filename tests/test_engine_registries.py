"""An engine runs a model only if its version registers the model's class (config.json's
architectures[0], the catalog's architecture.config_class): generator/sizing/engine_registries.py holds
each release's classes, read from its wheel."""

from __future__ import annotations

from dataclasses import replace

import pytest

from generator.sizing.engine import MODEL_CLASS, NotRun
from generator.sizing.engine_registries import SGLANG_0_5_3RC2, VLLM_0_33_0
from generator.sizing.engines import SERVING_ENGINES


@pytest.mark.parametrize("name, in_vllm, in_sglang", [
    ("LlamaForCausalLM", True, True),
    ("Qwen3NextForCausalLM", True, True),  # sglang/srt/models/qwen3_next.py
    ("DeciLMForCausalLM", True, True),  # sglang/srt/models/nemotron_nas.py
    ("FalconH1ForCausalLM", True, True),
    ("NemotronHForCausalLM", True, False),
    ("GraniteMoeHybridForCausalLM", True, False),
    ("Gemma4ForConditionalGeneration", True, False),
    ("Qwen3_5ForConditionalGeneration", True, False),
    ("KimiK25ForConditionalGeneration", True, False),
    ("DeepseekV4ForCausalLM", True, False),
    ("MiniMaxM2ForCausalLM", True, False),
])
def test_each_release_registers_the_classes_of_its_code(name, in_vllm, in_sglang):
    assert (name in VLLM_0_33_0, name in SGLANG_0_5_3RC2) == (in_vllm, in_sglang)


def test_the_registries_are_the_whole_lists():
    assert (len(VLLM_0_33_0), len(SGLANG_0_5_3RC2)) == (415, 126)


def test_a_model_whose_class_an_engine_lacks_is_not_run_by_it(catalog):
    llama = next(m for m in catalog.models if m.slug == "llama-3-1-8b-instruct")
    assert all(engine.runs(llama) for engine in SERVING_ENGINES.values())  # no class recorded: not checked
    recorded = replace(llama, architecture=replace(llama.architecture, config_class="SmolLM3ForCausalLM"))
    assert SERVING_ENGINES["vllm"].runs(recorded) and not SERVING_ENGINES["sglang"].runs(recorded)
    assert SERVING_ENGINES["sglang"].what_it_does_not_run(recorded) == NotRun(MODEL_CLASS, "SmolLM3ForCausalLM")


def test_every_recorded_class_is_one_vllm_runs(catalog):
    """The pages print a vLLM command for every model: its class must be in vLLM 0.33.0's registry."""
    recorded = {m.slug: m.architecture.config_class for m in catalog.models if m.architecture.config_class}
    assert recorded and all(name in VLLM_0_33_0 for name in recorded.values()), recorded


@pytest.mark.parametrize("slug, sglang_runs", [
    ("llama-3-1-8b-instruct", True),
    ("qwen3-next-80b-a3b-instruct", True),  # sglang/srt/models/qwen3_next.py
    ("glm-5", False),  # GlmMoeDsaForCausalLM
    ("minimax-m2", False),  # MiniMaxM2ForCausalLM
    ("kimi-k3", False),  # Kimi Delta Attention: no kimi_linear.py in the 0.5.3rc2 wheel
    ("gemma-4-31b", False),
    ("nemotron-3-nano-30b-a3b", False),
    ("llama-3-3-nemotron-super-49b-v1", True),  # DeciLMForCausalLM
])
def test_the_catalog_models_sglang_0_5_3rc2_runs(catalog, slug, sglang_runs):
    model = next(m for m in catalog.models if m.slug == slug)
    assert SERVING_ENGINES["sglang"].runs(model) == sglang_runs and SERVING_ENGINES["vllm"].runs(model)
