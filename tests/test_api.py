"""The static JSON API (generator/site/api.py): one file per model and GPU, an index, and the JSON
Schema every file validates against; the figures are the pages' and the commands' own.

Expected numbers are the seed page's (Kimi-K3: 6,672 / 3,336 / 1,668 GB to serve at 16 / 8 / 4 bits,
8 × B300 at 4 bits) or the outputs of `plan --json` and fit.py that the pages already show.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from generator.site.figures import plan_json
from generator.sizing.fit import llama_cpp_fit_row
from generator.sizing.llama_cpp import LlamaCppRequest
from generator.sizing.planner import PlanRequest, plan
from generator.sizing.workloads import reference_context

API = Path("api") / "v1"


def load(site: Path, *parts: str) -> dict:
    return json.loads((site / API).joinpath(*parts).read_text(encoding="utf-8"))


def validators(site: Path) -> dict[str, Draft202012Validator]:
    found = {}
    for name in ("model", "gpu", "index"):
        schema = load(site, "schema", f"{name}.json")
        Draft202012Validator.check_schema(schema)
        found[name] = Draft202012Validator(schema)
    return found


def problems(validator: Draft202012Validator, data: dict) -> list[str]:
    return [f"{list(error.absolute_path)}: {error.message[:200]}" for error in validator.iter_errors(data)]


@pytest.mark.parametrize("which", ["built_site", "shipped_site"])
def test_every_exported_file_validates_against_its_published_schema(request, which):
    site = request.getfixturevalue(which)
    check = validators(site)
    index = load(site, "index.json")
    assert problems(check["index"], index) == []
    files = {"model": sorted((site / API / "models").glob("*.json")), "gpu": sorted((site / API / "gpus").glob("*.json"))}
    # one file per model with a page and per GPU, and the index names each
    assert sorted(f.stem for f in files["model"]) == sorted(m["slug"] for m in index["models"])
    assert sorted(f.stem for f in files["gpu"]) == sorted(g["slug"] for g in index["gpus"])
    wrong = [f"{path.name}: {line}" for kind, paths in files.items() for path in paths
             for line in problems(check[kind], json.loads(path.read_text(encoding="utf-8")))]
    assert wrong == []


def test_the_schema_refuses_a_file_that_breaks_it(built_site):
    """The schema is not vacuous: a byte count as text, a missing fact or an unknown verdict fail."""
    check = validators(built_site)
    model = load(built_site, "models", "kimi-k3.json")
    model["sizing_rule"]["serving"][0]["memory_bytes"] = "6672 GB"
    assert problems(check["model"], model)
    gpu = load(built_site, "gpus", "rtx-4090.json")
    del gpu["facts"]["memory_bytes"]
    assert problems(check["gpu"], gpu)
    gpu = load(built_site, "gpus", "rtx-4090.json")
    gpu["llama_cpp"]["models"][0]["verdict"] = "maybe"
    assert problems(check["gpu"], gpu)


def test_the_seed_page_s_figures_with_their_units_and_sources(built_site, fixture_catalog):
    kimi = load(built_site, "models", "kimi-k3.json")
    serving = {r["key"]: r for r in kimi["sizing_rule"]["serving"]}
    assert [round(serving[bits]["memory_bytes"] / 1e9) for bits in ("16", "8", "4")] == [6672, 3336, 1668]
    assert serving["4"]["setup"]["gpu"] == "b300" and serving["4"]["setup"]["count"] == 8
    assert serving["16"]["setup"] is None  # more than one 8-GPU machine
    fine = {r["key"]: round(r["memory_bytes"] / 1e9) for r in kimi["sizing_rule"]["fine_tuning"]}
    assert fine == {"qlora": 1946, "lora": 6672, "full": 44479}
    params = kimi["facts"]["params"]
    model = next(m for m in fixture_catalog.models if m.slug == "kimi-k3")
    assert params["value"] == model.params and params["unit"] == "parameters"
    assert params["source"] == model.sources["params"].citation
    assert kimi["pages"]["pt"].endswith("/pt/models/kimi-k3.html") and kimi["currency"] == "USD"


def test_a_plan_in_the_file_is_the_plan_command_s_json(built_site, fixture_catalog):
    """The setup that serves Llama-3.1-8B at its full context: the file holds `plan --json`'s object."""
    served = load(built_site, "models", "llama-3-1-8b-instruct.json")["architecture"]["serving"]["vllm"]
    model = next(m for m in fixture_catalog.models if m.slug == "llama-3-1-8b-instruct")
    gpu = next(g for g in fixture_catalog.gpus if g.slug == served["gpu"])
    expected = plan_json(plan(model, gpu, served["count"], PlanRequest(context=served["context"])))
    assert {key: served[key] for key in ("weights_bytes_per_gpu", "kv_tokens", "max_users", "command", "starts")} == \
        {key: expected[key] for key in ("weights_bytes_per_gpu", "kv_tokens", "max_users", "command", "starts")}


def test_a_gpu_file_holds_the_verdicts_of_its_page(built_site, fixture_catalog):
    data = load(built_site, "gpus", "rtx-4090.json")
    gpu = next(g for g in fixture_catalog.gpus if g.slug == "rtx-4090")
    assert data["facts"]["memory_bytes"]["value"] == 24 * 10**9 and data["facts"]["memory_bytes"]["unit"] == "bytes"
    verdicts = {row["model"]: row for row in data["llama_cpp"]["models"]}
    for model in fixture_catalog.models:
        expected = llama_cpp_fit_row(model, gpu, 1, LlamaCppRequest(context=reference_context(model)))
        assert (verdicts[model.slug]["verdict"], verdicts[model.slug]["reason"]) == (expected.verdict, expected.reason)
    assert verdicts["deepseek-v3"]["verdict"] == "part_in_ram" and verdicts["deepseek-v3"]["ram_bytes"] > 300e9
