"""The catalog loader: the shipped catalog is valid; bad input gives one clear line per problem.

The shipped catalog (content/) is checked for what must hold however it grows; the bad-input
cases edit a copy of the fixture catalog (`content_copy`), whose files never change.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from decimal import Decimal

from generator.catalog.loader import CatalogError, load_catalog
from tests.conftest import CONTENT, ROOT

REQUIRED_MODELS = [
    "Kimi-K3", "Kimi-K2-Instruct", "DeepSeek-R1", "DeepSeek-V3", "DeepSeek-V2", "GLM-4.6", "GLM-5",
    "Qwen3-235B-A22B", "Qwen3-30B-A3B", "Qwen3-32B", "Qwen3-Next-80B-A3B-Instruct",
    "Qwen2.5-72B-Instruct", "Llama-3.1-8B-Instruct", "Llama-3.1-70B-Instruct",
    "Llama-3.3-70B-Instruct", "Llama-3.1-405B", "Llama-4-Scout-17B-16E", "gpt-oss-120b",
    "gpt-oss-20b", "MiniMax-M2", "Mixtral-8x7B-v0.1", "Mixtral-8x22B-v0.1", "Mistral-7B-v0.1",
    "Mistral-Small-24B", "Mistral-Large-Instruct-2407", "Gemma-3-27B",
]
REQUIRED_GPUS = [
    "a100-80gb", "h100-sxm", "h200", "b200", "b300", "l40s", "rtx-4090", "rtx-5090",
    "rtx-pro-6000", "mi300x", "mi325x", "mi355x",
]


def test_shipped_catalog_has_every_required_model_and_gpu(catalog):
    # the catalog may grow; these must stay
    assert sorted(set(REQUIRED_MODELS) - {m.name for m in catalog.models}) == []
    assert sorted(set(REQUIRED_GPUS) - {g.slug for g in catalog.gpus}) == []


def shipped_model_files():
    return sorted((CONTENT / "models").glob("*.yaml"))


def shipped_gpu_count():
    return len(yaml.safe_load((CONTENT / "gpus.yaml").read_text(encoding="utf-8"))["gpus"])


def test_every_shipped_file_gives_one_model_and_every_entry_one_gpu(catalog):
    assert sorted(m.slug for m in catalog.models) == sorted(p.stem for p in shipped_model_files())
    assert len({m.id for m in catalog.models}) == len(catalog.models)
    assert len({g.slug for g in catalog.gpus}) == len(catalog.gpus) == shipped_gpu_count()


def test_every_shipped_fact_has_a_source(catalog):
    for model in catalog.models:
        shown = {
            "params": model.params,
            "active_params": model.active_params,
            "experts": model.experts,
            "experts_per_token": model.experts_per_token,
            "context_window": model.context_window,
            "precision": model.precision,
            "license": model.license,
            "release_date": model.release_date,
        }
        for field, value in shown.items():
            if value is not None:
                assert model.sources[field].citation, (model.name, field)


def test_kimi_k3_parameter_count_reproduces_the_seed(catalog):
    kimi = next(m for m in catalog.models if m.id == "moonshotai/Kimi-K3")
    # DESIGN: about 2,779.94 × 10^9; the seed's rounded figures pin it to this window.
    assert 2_779_906_250_000 <= kimi.params < 2_779_968_750_000
    assert (kimi.experts, kimi.experts_per_token, kimi.context_window) == (896, 16, 1_048_576)


def test_b300_price_is_the_seed_pages(catalog):
    """The seed page's 8 × B300 at US$ 36.80 for the 8 is the operator's own offer (the sample
    inventory); gpus.yaml holds the market's price of the card, not the brand's."""
    offer = next(o for o in catalog.inventory.offers if o.gpu == "b300")
    assert (offer.machines, offer.price_per_gpu_hour * 8) == ((8,), Decimal("36.80"))
    assert all(g.price_provider != catalog.site.brand for g in catalog.gpus)


KIMI = "models/kimi-k3.yaml"


@pytest.mark.parametrize(
    "file, old, new, expected",
    [
        (KIMI, "params:\n  value: 2779931837184", "params:\n  value: -5",
         "content/models/kimi-k3.yaml:6: params: must be an integer from 1 to 10^15 (got -5)"),
        (KIMI, "params:\n  value: 2779931837184", "params:\n  value: lots",
         "content/models/kimi-k3.yaml:6: params: must be an integer from 1 to 10^15 (got 'lots')"),
        (KIMI, "experts_per_token:", "experts_per_tokn:",
         "content/models/kimi-k3.yaml:{line}: experts_per_tokn: unknown field (did you mean 'experts_per_token'?)"),
        (KIMI, "id: moonshotai/Kimi-K3\n", "",
         "content/models/kimi-k3.yaml:1: id: missing required field"),
        (KIMI, "id: moonshotai/Kimi-K3", "id: ../../etc",
         "content/models/kimi-k3.yaml:2: id: must be a Hugging Face repo id like org/Name (got '../../etc')"),
        (KIMI, "name: Kimi-K3", "name: Kimi-K4",
         "content/models/kimi-k3.yaml:3: name: gives slug 'kimi-k4', so the file must be named kimi-k4.yaml"),
        (KIMI, "experts_per_token:\n  value: 16", "experts_per_token:\n  value: 900",
         "content/models/kimi-k3.yaml:{line}: experts_per_token: must not exceed experts"),
        (KIMI, "active_params:\n  value: 104189614848", "active_params:\n  value: 3779931837184",
         "content/models/kimi-k3.yaml:{line}: active_params: must not exceed params (3779931837184 > 2779931837184)"),
        (KIMI, "weights: https://huggingface.co/moonshotai/Kimi-K3", "weights: javascript:alert(1)",
         "content/models/kimi-k3.yaml:4: weights: must be an https:// URL without spaces, quotes, <, > or backslashes (got 'javascript:alert(1)')"),
        (KIMI, "name: Kimi-K3", "name: [Kimi",
         "content/models/kimi-k3.yaml:4: (yaml): malformed YAML: did not find expected ',' or ']'"),
        ("models/deepseek-v2.yaml", "id: deepseek-ai/DeepSeek-V2", "id: moonshotai/Kimi-K3",
         "content/models/kimi-k3.yaml:2: id: duplicate id 'moonshotai/Kimi-K3' (already in content/models/deepseek-v2.yaml)"),
        ("site.yaml", "currency: USD", "currency: EUR",
         "content/site.yaml:{line}: currency: must be USD, the currency of the prices in gpus.yaml (got 'EUR')"),
        ("gpus.yaml", "shapes: {value: [1, 2, 4, 8], source: \"https://lambda.ai/instances\"",
         "shapes: {value: [8, 4], source: \"https://lambda.ai/instances\"",
         "content/gpus.yaml:{line}: gpus.0.shapes: must be distinct counts from 1 to 8 in ascending order (got [8, 4])"),
    ],
)
def test_bad_input_is_reported_with_file_line_and_field(content_copy, monkeypatch, file, old, new, expected):
    path = content_copy / file
    text = path.read_text()
    assert old in text, f"fixture text not found in {file}: {old!r}"
    path.write_text(text.replace(old, new, 1))
    monkeypatch.chdir(content_copy.parent)
    with pytest.raises(CatalogError) as raised:
        load_catalog(Path("content"))
    line = next((i for i, row in enumerate(path.read_text().splitlines(), 1) if new.split("\n")[0] in row), 1)
    assert expected.format(line=line) in raised.value.problems


ROPE = "rope_scaling:\n  value: {native_context: %d, rope_type: %s, factor: %s, original_max_position_embeddings: 32768, rope_theta: 500000}\n  source: https://example.org/card\n"


@pytest.mark.parametrize("rope, expected", [
    (ROPE % (32768, "yarn", "4.0"), None),  # the window (131,072) from 32,768 × 4
    (ROPE % (131072, "yarn", "4.0"), "rope_scaling: native_context must be below context_window (131072 >= 131072): no override is needed"),
    (ROPE % (32768, "yarn", "2.0"), "rope_scaling: original_max_position_embeddings × factor must reach context_window (131072)"),
    (ROPE % (32768, "linear", "4.0"), "rope_scaling: rope_type: must be yarn (got 'linear')"),
])
def test_a_rope_scaling_recipe_must_serve_the_window(content_copy, rope, expected):
    path = content_copy / "models" / "llama-3-1-8b-instruct.yaml"
    path.write_text(path.read_text().replace("\narchitecture:", "\n" + rope + "architecture:", 1))
    if expected is None:
        model = next(m for m in load_catalog(content_copy).models if m.slug == "llama-3-1-8b-instruct")
        assert (model.rope_scaling.native_context, model.rope_scaling.factor) == (32768, Decimal("4.0"))
        return
    with pytest.raises(CatalogError) as raised:
        load_catalog(content_copy)
    assert any(problem.endswith(expected) for problem in raised.value.problems), raised.value.problems


@pytest.mark.parametrize("file, old, new, key", [
    ("models/kimi-k3.yaml", "experts:\n  value: 896\n", "experts:\n  value: 896\n  value: 9\n", "experts.value"),
    ("gpus.yaml", "  - slug: h200\n", "  - slug: h200\n    slug: h100\n", "gpus.1.slug"),
    ("site.yaml", "currency: USD\n", "currency: USD\ncurrency: USD\n", "currency"),
])
def test_a_duplicate_key_anywhere_is_one_line_naming_it(content_copy, monkeypatch, file, old, new, key):
    """YAML keeps the last of two equal keys: a second `value`, a second `gpus:` would replace the
    first silently. Each is refused, with the file, the line of the second and the key."""
    path = content_copy / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    line = text[:text.index(old)].count("\n") + len(new.splitlines())  # the second key's line
    monkeypatch.chdir(content_copy.parent)
    with pytest.raises(CatalogError) as raised:
        load_catalog(Path("content"))
    assert f"content/{file}:{line}: {key}: duplicate key (write each key once: the second would silently replace the first)" \
        in raised.value.problems


def test_a_second_gpus_list_is_refused_not_taken(content_copy):
    path = content_copy / "gpus.yaml"
    path.write_text(path.read_text() + "gpus:\n  - slug: only-one\n")
    with pytest.raises(CatalogError) as raised:
        load_catalog(content_copy)
    assert any(problem.endswith(": gpus: duplicate key (write each key once: the second would silently replace the first)")
               for problem in raised.value.problems)


CHECKPOINT = "  - id: %s\n    scheme: %s\n    quantized: [%s]\n    source: https://example.org/card\n"


@pytest.mark.parametrize("entries, expected", [
    ([("org/model-FP8", "fp8_channel", "attention, dense_mlp")], None),
    ([("org/model-FP8", "fp9", "attention")], "checkpoints.0.scheme: must be one of bf16, fp8_block128, fp8_channel, "
     "fp8_tensor, int8_channel, int8_g128_zp, int4_g128, int4_g128_zp, nvfp4, mxfp4 (got 'fp9')"),
    ([("org/model-FP8", "fp8_channel", "attention, lm_head")], "checkpoints.0.quantized: must be one of embeddings, "
     "attention, dense_mlp, routed_experts, shared_experts, router_and_norms, output_head, extra_layers, vision (got 'lm_head')"),
    ([("meta-llama/Llama-3.1-8B-Instruct", "fp8_channel", "attention")],
     "checkpoints.0.id: is the published checkpoint (the model's id): list only other checkpoints"),
    ([("org/model-FP8", "fp8_channel", "attention"), ("org/model-FP8", "int4_g128", "attention")],
     "checkpoints.1.id: org/model-FP8 is listed twice"),
    ([("org/model-FP8", "fp8_channel", "attention", "    layers_kept: [0, 32]\n")],
     "checkpoints.0.layers_kept: layer indexes must be below the model's 32 layers"),
])
def test_a_checkpoint_entry_is_checked(content_copy, entries, expected):
    path = content_copy / "models" / "llama-3-1-8b-instruct.yaml"
    text = path.read_text()
    text = text[:text.index("\ncheckpoints:")] + "\ncheckpoints:\n" + "".join(CHECKPOINT % entry[:3] + "".join(entry[3:]) for entry in entries)
    path.write_text(text)
    if expected is None:
        model = next(m for m in load_catalog(content_copy).models if m.slug == "llama-3-1-8b-instruct")
        assert [(c.id, c.scheme, c.quantized) for c in model.checkpoints] == [("org/model-FP8", "fp8_channel", ("attention", "dense_mlp"))]
        return
    with pytest.raises(CatalogError) as raised:
        load_catalog(content_copy)
    assert any(problem.endswith(expected) for problem in raised.value.problems), raised.value.problems


def test_missing_source_is_reported(content_copy, monkeypatch):
    path = content_copy / KIMI
    lines = path.read_text().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith("experts:"))
    del lines[index + 2]  # the `source:` line under experts (value first, then source)
    assert "value: 896" in lines[index + 1]
    path.write_text("".join(lines))
    monkeypatch.chdir(content_copy.parent)
    with pytest.raises(CatalogError) as raised:
        load_catalog(Path("content"))
    assert f"content/models/kimi-k3.yaml:{index + 1}: experts.source: missing source (every fact needs one)" in raised.value.problems


def test_every_problem_is_reported_at_once(content_copy, monkeypatch):
    (content_copy / "models" / "broken.yaml").write_text("id: a/b\nname: Broken\nparams: {value: 0, source: x}\ncolour: red\n")
    kimi = content_copy / KIMI
    kimi.write_text(kimi.read_text().replace("context_window:\n  value: 1048576", "context_window:\n  value: 0"))
    monkeypatch.chdir(content_copy.parent)
    with pytest.raises(CatalogError) as raised:
        load_catalog(Path("content"))
    problems = raised.value.problems
    assert any(p.startswith("content/models/broken.yaml:4: colour: unknown field") for p in problems)
    assert "content/models/broken.yaml:1: weights: missing required field" in problems
    assert "content/models/broken.yaml:3: params: must be an integer from 1 to 10^15 (got 0)" in problems
    assert any(p.startswith("content/models/kimi-k3.yaml:") and "context_window: must be an integer from 1 to 10^9 (got 0)" in p for p in problems)


@pytest.mark.parametrize("command", ["check", "build"])
def test_cli_exits_2_with_one_line_per_problem_and_no_traceback(content_copy, tmp_path, command):
    (content_copy / "models" / "broken.yaml").write_text("id: [unclosed\n")
    out = tmp_path / "out"
    args = [sys.executable, "-m", "generator", command, "--content", str(content_copy)]
    if command == "build":
        args += ["--out", str(out)]
    result = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]
    assert re.search(r"broken\.yaml:[12]: \(yaml\): malformed YAML: .+", first), first
    assert not out.exists()


def test_cli_check_passes_on_the_shipped_catalog():
    result = subprocess.run([sys.executable, "-m", "generator", "check"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    # as many models as files in content/models/, as many GPUs as entries in content/gpus.yaml
    assert f"{len(shipped_model_files())} models, {shipped_gpu_count()} GPUs, no problems" in result.stdout


def test_a_language_without_translations_is_refused(content_copy):
    site_yaml = content_copy / "site.yaml"
    site_yaml.write_text(site_yaml.read_text().replace("languages: [pt, en]", "languages: [pt, fr]"))
    result = subprocess.run(
        [sys.executable, "-m", "generator", "check", "--content", str(content_copy)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 2
    assert result.stderr.strip().endswith("site.yaml: languages: no translations for fr (available: pt, en)")


def test_a_model_file_linked_from_outside_the_content_folder_is_refused(content_copy, tmp_path):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text((content_copy / "models" / "kimi-k3.yaml").read_text())
    (content_copy / "models" / "kimi-k3.yaml").unlink()
    (content_copy / "models" / "kimi-k3.yaml").symlink_to(outside)
    with pytest.raises(CatalogError) as raised:
        load_catalog(content_copy)
    assert raised.value.problems == [f"{content_copy}/models/kimi-k3.yaml:1: (file): a link to outside the content folder "
                                     f"({outside}); copy the file in instead"]


NEMOTRON = ROOT / "content" / "models" / "nemotron-3-nano-30b-a3b.yaml"
PATTERN = "layer_pattern: MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"


@pytest.mark.parametrize("old, new, expected", [
    (PATTERN, PATTERN + "E", "architecture.layer_pattern: must have one letter per layer (52, got 53)"),
    (PATTERN, PATTERN.replace("MEMEM*", "EEMEM*", 1), "architecture.layer_pattern: has 22 M layers but linear_attention.layers is 23"),
    (PATTERN, PATTERN.replace("*", "-"), "architecture.layer_pattern: needs at least one attention layer (*)"),
    (PATTERN, "layer_pattern: MEMEM*XY", "architecture.layer_pattern: must be 1 to 1,000 letters among M, *, - and E, one per layer (got 'MEMEM*XY')"),
    (PATTERN, PATTERN.replace("E", "-"), "architecture.intermediate_size: missing (the width of the - layers' MLP)"),
])
def test_a_layer_pattern_must_match_the_architecture(content_copy, monkeypatch, old, new, expected):
    text = NEMOTRON.read_text()
    assert old in text
    (content_copy / "models" / NEMOTRON.name).write_text(text.replace(old, new))
    monkeypatch.chdir(content_copy.parent)
    with pytest.raises(CatalogError) as raised:
        load_catalog(Path("content"))
    assert any(problem.endswith(expected) for problem in raised.value.problems), raised.value.problems


NAS = ROOT / "content" / "models" / "llama-3-3-nemotron-super-49b-v1.yaml"


def _with_list(text: str, key: str, values) -> str:
    """The NAS model's file with the whole `key: [...]` list replaced."""
    start = text.index(f"{key}: [")
    return text[:start] + f"{key}: [" + ", ".join(map(str, values)) + text[text.index("]", start):]


@pytest.mark.parametrize("key, values, expected", [
    ("ffn_widths", [28672] * 79, "architecture.ffn_widths: must give one width per layer (80, got 79)"),
    ("ffn_widths", [0] * 80, "architecture.ffn_widths: needs at least one layer with an MLP (a width above 0)"),
    ("attention_free_layers", [6, 80], "architecture.attention_free_layers: must list layers below 80"),
    ("attention_free_layers", range(80), "architecture.attention_free_layers: must leave at least one layer with attention"),
])
def test_layers_that_differ_must_match_the_architecture(content_copy, monkeypatch, key, values, expected):
    """A file `check` passes is one `build` survives: no width per layer but the layers', and at
    least one layer of attention and one MLP (the pages name the narrowest MLP)."""
    (content_copy / "models" / NAS.name).write_text(_with_list(NAS.read_text(), key, values))
    monkeypatch.chdir(content_copy.parent)
    with pytest.raises(CatalogError) as raised:
        load_catalog(Path("content"))
    assert any(problem.endswith(expected) for problem in raised.value.problems), raised.value.problems


def test_layers_that_differ_go_only_with_a_dense_model_of_full_attention(content_copy, monkeypatch):
    text = NAS.read_text().replace("  attention:\n", "  dense_layers: 3\n  attention:\n", 1)
    (content_copy / "models" / NAS.name).write_text(text)
    monkeypatch.chdir(content_copy.parent)
    with pytest.raises(CatalogError) as raised:
        load_catalog(Path("content"))
    assert any(problem.endswith("architecture.ffn_widths: goes only with a dense model of full softmax attention (no moe, "
                                "linear_attention, layer_pattern, extra_layers, sliding window or dense_layers)")
               for problem in raised.value.problems), raised.value.problems
