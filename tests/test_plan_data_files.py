"""The calculator's data files (generator/site/postbuild.py write_plan_data): written one model at a
time, each model's part kept as JSON text, and the same JSON as the whole structure dumped at once."""

from __future__ import annotations

import json

import pytest

from generator.site.postbuild import write_plan_data
from generator.site.structured_data import inert_json, inert_json_array, inert_json_object
from generator.sizing.fit import FIT_QUANTS


@pytest.mark.parametrize("items", [[], [{"b": 1, "a": "<x>"}], [{"slug": "m"}, [1, 2], "é & <"]])
def test_an_array_from_its_items_text_is_the_array_dumped_at_once(items):
    assert inert_json_array([inert_json(item) for item in items]) == inert_json(items)


@pytest.mark.parametrize("mapping", [{}, {"b": {"x": 1}, "a": [1], "c-2": "<&>"}, {"z": None, "é": 1}])
def test_a_mapping_from_its_values_text_is_the_mapping_dumped_at_once(mapping):
    entries = [(key, inert_json(value)) for key, value in reversed(list(mapping.items()))]  # in any order
    assert inert_json_object(entries) == inert_json(mapping)


def test_the_fit_page_files_hold_each_model_file_as_written(tmp_path, fixture_catalog):
    write_plan_data(tmp_path, fixture_catalog)
    folder = tmp_path / "assets" / "plan"
    models = [json.loads(path.read_text()) for path in sorted((folder / "models").glob("*.json"))]
    assert models and (folder / "models.json").read_text() == inert_json([dict(m, llama_cpp=None) for m in models])
    for quant in FIT_QUANTS:
        expected = {m["slug"]: dict(m["llama_cpp"], quants={k: v for k, v in m["llama_cpp"]["quants"].items() if k == quant})
                    for m in models if m["llama_cpp"] is not None}
        assert json.loads((folder / "llama-cpp" / f"{quant}.json").read_text()) == expected


def test_an_unchanged_models_parts_are_read_back_and_the_others_made_again(tmp_path, fixture_catalog):
    # a rebuild reads back the fit page's parts of the models whose page it did not remake
    site, parts = tmp_path / "site", tmp_path / "plan-parts.json"
    write_plan_data(site, fixture_catalog, frozenset(), parts)
    folder = site / "assets" / "plan"
    files = {path: path.read_bytes() for path in sorted(folder.rglob("*.json"))}
    slugs = {m.slug for m in fixture_catalog.models}
    write_plan_data(site, fixture_catalog, frozenset(slugs), parts)
    assert {path: path.read_bytes() for path in sorted(folder.rglob("*.json"))} == files  # the same bytes
    kept = json.loads(parts.read_text())
    kept["llama-3-1-8b-instruct"]["fit"] = '{"kept":true}'  # a part the cache holds is what the files show
    kept["mistral-7b-v0-1"]["fit"] = '{"kept":true}'
    parts.write_text(json.dumps(kept))
    write_plan_data(site, fixture_catalog, frozenset(slugs - {"mistral-7b-v0-1"}), parts)
    fit = json.loads((folder / "models.json").read_text())
    assert {"kept": True} in fit and len(fit) == len(files) - len(FIT_QUANTS) - 2  # not models.json, shared.json
    assert not any(m.get("slug") == "llama-3-1-8b-instruct" for m in fit)
    assert any(m.get("slug") == "mistral-7b-v0-1" for m in fit)  # its page remade: its part made again
    # with no kept parts, every model's part is made from its tables
    write_plan_data(site, fixture_catalog, frozenset(slugs), None)
    assert {path: path.read_bytes() for path in sorted(folder.rglob("*.json"))} == files
