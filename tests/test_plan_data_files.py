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
