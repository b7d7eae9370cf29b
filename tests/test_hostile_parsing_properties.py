"""Property tests of defensive parsing: random YAML (hostile fragments included) as a catalog file,
and random config.json values and README front matter for add-model. The loader and add-model either
succeed or raise their one-line error (CatalogError, CheckpointError), never another exception, and
each case stays within a time bound (the hypothesis deadline)."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.catalog.add_model import add_model
from generator.catalog.checkpoint import CheckpointError
from generator.catalog.hf_config import COUNT_KEYS, FLAG_KEYS, LIST_KEYS, MAPPING_KEYS, POSITIVE_KEYS, TEXT_KEYS
from generator.catalog.loader import CatalogError, load_catalog
from generator.catalog.schema import NOT_TEXT
from tests import hf_configs
from tests.conftest import FIXTURE

SETTINGS = settings(max_examples=60, deadline=timedelta(seconds=5),
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Pieces of YAML an attacker would try, joined at random: anchors, aliases, deep or unclosed
# collections, tags, directives, huge and impossible numbers and dates, odd characters.
FRAGMENTS = ["&a ", "*a", "&b [*a, *a]", "[", "]", "{", "}", ": ", "- ", "? ", ",", "\n", "  ", "\t", "#",
             "!!binary ", "!!python/object:os.system ", "!!set ", "!!timestamp ", "<<: ", "%YAML 1.1\n", "---\n",
             "...\n", "'", '"', "\\", "\x00", "\ufeff", "\u2028", "\x85", "id", "name", "params", "value",
             "9" * 5_000, "1.0e+999999", "0x" + "f" * 100, "2025-02-30", "0000-01-01", "-.inf", ".nan", "~",
             "[" * 40, "{a: " * 40, "|\n", ">-\n", "0o777", "1_000", "yes", "null"]
fuzz = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=40).map("".join)
leaves = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20) | st.dates()
documents = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                         max_leaves=30).map(lambda data: yaml.safe_dump(data, allow_unicode=True))
KIMI = (FIXTURE / "models" / "kimi-k3.yaml").read_text()
# The fixture's own model file with a fragment inserted somewhere: mostly valid, locally hostile.
mutated = st.builds(lambda at, fragment: KIMI[:at] + fragment + KIMI[at:],
                    st.integers(0, len(KIMI)), st.sampled_from(FRAGMENTS))


@pytest.fixture(scope="module")
def catalog_copy(tmp_path_factory):
    target = tmp_path_factory.mktemp("random") / "content"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("README.md"))
    return target


@SETTINGS
@given(text=fuzz | documents | mutated, as_bytes=st.booleans(), raw=st.binary(max_size=64))
def test_random_yaml_is_loaded_or_refused_with_problem_lines(catalog_copy, text, as_bytes, raw):
    (catalog_copy / "models" / "random.yaml").write_bytes(raw if as_bytes else text.encode("utf-8", "surrogatepass"))
    try:
        load_catalog(catalog_copy)
    except CatalogError as error:
        assert error.problems and all(line.startswith(f"{catalog_copy}/models/") for line in error.problems)


FAMILIES = [*hf_configs.PUBLISHED.values(), hf_configs.QWEN3_NEXT_80B, hf_configs.GLM_4_5_AIR, hf_configs.MINIMAX_M2]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(-2, 4) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
KEYS = [*POSITIVE_KEYS, *COUNT_KEYS, *FLAG_KEYS, *TEXT_KEYS, *MAPPING_KEYS, *LIST_KEYS, "weight_block_size"]
configs = st.builds(
    lambda family, changes, nested: {**family, **changes, **nested},
    st.sampled_from(FAMILIES),
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=4),
    st.dictionaries(st.sampled_from(["text_config", "vision_config", "quantization_config"]),
                    st.dictionaries(st.sampled_from([*KEYS, "quant_method"]), json_values, max_size=4), max_size=2),
)
licenses = json_values | st.text(max_size=12) | st.sampled_from(["apache-2.0", "mit\u2028", "a\u202eb"])


@SETTINGS
@given(config=configs, license_value=licenses, repo_id=st.none() | st.sampled_from(["org/Name", "a/b"]) | st.text(max_size=10))
def test_random_configs_are_added_or_refused_with_one_line(tmp_path_factory, config, license_value, repo_id):
    folder = tmp_path_factory.mktemp("checkpoint")
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "README.md").write_text(f"---\nlicense: {json.dumps(license_value)}\n---\n")
    content = tmp_path_factory.mktemp("content")
    try:
        target, _ = add_model(folder, content, repo_id, force=True)
    except CheckpointError as error:
        assert "\n" not in str(error).replace(str(folder), "")
        return
    written = target.read_text(encoding="utf-8")
    assert not NOT_TEXT.search(written.replace("\n", ""))
    assert isinstance(yaml.safe_load(written), dict)
