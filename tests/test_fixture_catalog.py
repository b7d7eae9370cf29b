"""The fixture catalog keeps its purpose: each model's feature shows on that model's page.

tests/fixtures/catalog/README.md says which feature each model is there for. If a feature stops
showing (a copy refreshed from content/, a template change), the test of that feature fails here
instead of the fixture silently covering less.
"""

import json
from dataclasses import replace

import pytest

from generator.cli.main import main
from generator.sizing.setups import tensor_parallel_fits
from tests.conftest import FIXTURE, twin



# feature: (model slug, language, text its page must show, text it must not show)
FEATURES = {
    "small dense model, one GPU": (
        "llama-3-1-8b-instruct", "en",
        ["| 16 bits | 19 GB: 1 × [RTX 4090](/en/gpus/rtx-4090.html.md), from $0.34 per hour (price of September 25, 2026) |",
         "**Can I run Llama-3.1-8B-Instruct on a single GPU?** Yes. At 16 bits it needs about 19 GB: one RTX 4090 GPU.",
         "Each attention layer caches a key and a value of 128 values for each of its 8 KV heads, per token."],
        ["| Experts |", "Offloading", "| Per token, window layers", "| Linear-attention state"],
    ),
    "sliding window": (
        "mistral-7b-v0-1", "en",
        ["| Per token, layers that see the whole context | 0 B | 0 B |",
         "| Per token, window layers (up to 4,096 tokens) | 131,072 B | 65,536 B |",  # 32 × 2 × 8 × 128 × 2
         "sequences of any length, 5 of them at the full context",
         "One GPU holds it: no tensor parallelism to check."],
        [],
    ),
    "MLA without multi-token prediction": (
        "deepseek-v2", "en",
        ["Multi-head latent attention caches one compressed latent per token and layer, 512 values plus a "
         "64-value rope key, with no factor 2 for keys and values and no copy per head.",
         "| Per token, layers that see the whole context | 69,120 B | 34,560 B |",  # 60 × (512 + 64) × 2
         "| Published format | BF16 |"],
        ["Multi-token prediction layers"],
    ),
    "multi-token prediction and native FP8": (
        "deepseek-v3", "en",
        ["| Multi-token prediction layers | 11,610,068,224 | 11.6 GB |",
         "| Published format | FP8 |",
         "| Published checkpoint | 688 GB | as published: FP8 |",
         "| Per token, layers that see the whole context | 70,272 B | 35,136 B |"],  # 61 × (512 + 64) × 2
        [],
    ),
    "linear attention": (
        "qwen3-next-80b-a3b-instruct", "en",
        ["36 linear-attention layers keep a fixed state per sequence instead of a cache that grows.",
         "| Linear-attention state per sequence | 0.04 GB | 0.04 GB |",
         "| Per token, layers that see the whole context | 24,576 B | 12,288 B |"],  # 12 × 2 × 2 × 256 × 2
        [],
    ),
    "multi-node plans (the seed page's model)": (
        "kimi-k3", "pt",
        ["| 16 bits | 6.672 GB: mais de uma máquina de 8 GPUs |",
         "| 4 bits | 1.668 GB: 8 × [B300](/pt/gpus/b300.html.md), a partir de US$\u00a036,80 por hora pelas 8 GPUs "
         "(preço de 27 de agosto de 2026) |",
         "2 máquinas de 8 × H200 SXM (16 GPUs)",
         "4 máquinas de 8 × H100 SXM (32 GPUs)"],
        [],
    ),
}


@pytest.mark.parametrize("feature", FEATURES)
def test_each_feature_shows_on_its_models_page(fixture_catalog, feature):
    slug, lang, present, absent = FEATURES[feature]
    text = twin(fixture_catalog, lang, f"models/{slug}")
    for needle in present:
        assert needle in text, f"{feature}: {needle!r} not on {slug}'s page"
    for needle in absent:
        assert needle not in text, f"{feature}: {needle!r} on {slug}'s page"


def test_every_fixture_model_is_there_for_a_feature_the_readme_names(fixture_catalog):
    slugs = {m.slug for m in fixture_catalog.models}
    assert slugs == {slug for slug, *_ in FEATURES.values()}
    readme = (FIXTURE / "README.md").read_text(encoding="utf-8")
    for slug in slugs:
        assert f"`models/{slug}.yaml`" in readme, slug


def test_multi_node_setup_from_the_size_command(capsys):
    """At 16 bits no single machine of the fixture's GPUs holds Kimi-K3: several 8-GPU machines."""
    assert main(["size", "kimi-k3", "--precision", "16", "--json", "--content", str(FIXTURE)]) == 0
    setup = json.loads(capsys.readouterr().out)["smallest_setup"]
    assert setup["gpus_per_machine"] == 8 and setup["machines"] > 1, setup


def test_a_gpu_without_a_price_is_shown_and_never_chosen(fixture_catalog):
    unpriced = [g for g in fixture_catalog.gpus if g.price_per_gpu_hour is None]
    assert [g.slug for g in unpriced] == ["mi325x"]
    page = twin(fixture_catalog, "en", "gpus/mi325x")
    assert "We have no sourced price for it, so it is never chosen as the cheapest setup." in page
    kimi = twin(fixture_catalog, "en", "models/kimi-k3")
    assert "| 2 machines of 8 × Instinct MI325X (16 GPUs) | no price |" in kimi
    assert "× [Instinct MI325X]" not in kimi  # never a chosen setup


def test_heads_that_do_not_split_over_8_gpus_give_the_tensor_parallel_warning(fixture_catalog):
    """No model of content/ has such heads (README), so Kimi-K3 gets 28 query heads, in memory only.

    Its setup stays 8 × B300; 28 heads split over 4 GPUs but not over 8.
    """
    kimi = next(m for m in fixture_catalog.models if m.slug == "kimi-k3")
    assert tensor_parallel_fits(kimi.architecture, 8)
    arch = replace(kimi.architecture, attention=replace(kimi.architecture.attention, heads=28))
    assert not tensor_parallel_fits(arch, 8) and tensor_parallel_fits(arch, 4)
    variant = replace(fixture_catalog, models=tuple(replace(m, architecture=arch) if m is kimi else m
                                                    for m in fixture_catalog.models))
    text = twin(variant, "en", "models/kimi-k3")
    assert ("Checked: the 28 attention heads do not split evenly over 8 GPUs, so the commands below use "
            "4-way tensor parallelism and 2 pipeline stages.") in text
    assert ("| [B300](/en/gpus/b300.html.md) | 8 × B300 (heads do not split over 8 GPUs) | $36.80 "
            "(price of August 27, 2026) | 20 | 10 | 6 | 6 |") in text
    assert "--tensor-parallel-size 4 \\\n  --pipeline-parallel-size 2" in text
    assert "sglang.launch_server" not in text  # SGLang 0.5.3rc2 does not run Kimi Delta Attention
    # SGLang takes the same split as vLLM, not --tp over every GPU: DeepSeek-V3 (4 × B300) with 6 heads
    deepseek = next(m for m in fixture_catalog.models if m.slug == "deepseek-v3")
    six = replace(deepseek.architecture, attention=replace(deepseek.architecture.attention, heads=6))
    variant = replace(fixture_catalog, models=tuple(replace(m, architecture=six) if m is deepseek else m
                                                    for m in fixture_catalog.models))
    text = twin(variant, "en", "models/deepseek-v3")
    assert "--tensor-parallel-size 2 \\\n  --pipeline-parallel-size 2" in text and "--tp 2 \\\n  --pp-size 2" in text
    # the real entry splits evenly: the warning belongs to the variant only
    real = twin(fixture_catalog, "en", "models/kimi-k3")
    assert "Checked: 8-way tensor parallelism splits the 96 attention heads evenly." in real
    assert "heads do not split" not in real
