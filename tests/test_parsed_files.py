"""The catalog's files as an earlier run parsed them, kept by their bytes (catalog/parsed_files.py):
the same catalog, the same problems, without parsing what did not change."""

import datetime as dt
import json
import shutil

import pytest

from generator.catalog.loader import CatalogError, load_catalog
from generator.catalog.parsed_files import ParsedFiles, _tagged, _untagged
from generator.catalog.yaml_file import read_yaml
from generator.cli.main import model_problems
from tests.conftest import CONTENT, run_build


@pytest.mark.parametrize("value", [
    None, True, False, 0, -7, 10**30, 1.5, float("inf"), "", "text", "2026-01-01",
    [], {}, [1, [2, [3]]],
    {"b": 1, "a": 2},  # the keys' order
    {2: "two", True: "yes", None: "none", 2.5: "x"},  # keys of other types
    {"released": dt.date(2026, 7, 27), "read": dt.datetime(2026, 7, 27, 9, 30, tzinfo=dt.timezone(dt.timedelta(hours=-3)))},
])
def test_a_kept_value_comes_back_with_its_types_and_order(value):
    back = _untagged(json.loads(json.dumps(_tagged(value))))
    assert back == value and repr(back) == repr(value)
    assert [type(k) for k in back] == [type(k) for k in value] if isinstance(value, dict) else True


def test_the_shipped_catalog_read_from_kept_files_is_the_same_catalog(tmp_path):
    kept = tmp_path / "parsed"
    first = ParsedFiles(kept)
    parsed = load_catalog(CONTENT, model_problems, first)
    first.save(kept)
    files = len(list((CONTENT / "models").glob("*.yaml"))) + len(list(CONTENT.glob("*.yaml")))  # and site, GPUs, stock
    assert len(list(kept.glob("*.json"))) == files
    second = ParsedFiles(kept)
    assert load_catalog(CONTENT, model_problems, second) == parsed == load_catalog(CONTENT, model_problems)
    assert len(second.used) == files and second.fresh == {}  # every file read from what was kept


def test_a_kept_file_is_not_parsed_again_and_an_edited_one_is(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text("name: first\n")
    parsed = ParsedFiles()
    assert read_yaml(path, "a.yaml", parsed).data == {"name": "first"}
    (key,) = parsed.fresh
    entry = json.loads(parsed.fresh[key])
    parsed.fresh[key] = json.dumps(dict(entry, data=_tagged({"name": "from what was kept"})))
    assert read_yaml(path, "a.yaml", parsed).data == {"name": "from what was kept"}
    path.write_text("name: second\n")
    assert read_yaml(path, "a.yaml", parsed).data == {"name": "second"}


def test_saving_keeps_what_was_used_and_nothing_else(tmp_path):
    kept, path = tmp_path / "parsed", tmp_path / "a.yaml"
    kept.mkdir()
    (kept / "notes.json").write_text("not ours")  # a name that is not a file's key: left alone
    path.write_text("name: first\n")
    parsed = ParsedFiles(kept)
    read_yaml(path, "a.yaml", parsed)
    parsed.save(kept)
    first = {p.name for p in kept.iterdir()}
    path.write_text("name: second\n")
    parsed = ParsedFiles(kept)
    read_yaml(path, "a.yaml", parsed)
    parsed.save(kept)
    second = {p.name for p in kept.iterdir()}
    assert len(first) == len(second) == 2 and "notes.json" in first & second and first != second


def test_problems_are_the_same_from_kept_files(tmp_path, content_copy):
    model = content_copy / "models" / "llama-3-1-8b-instruct.yaml"
    model.write_text(model.read_text() + "name: twice\n")  # a duplicate key: kept with the file, said again
    kept = tmp_path / "parsed"
    problems = []
    for _ in range(2):
        parsed = ParsedFiles(kept)
        with pytest.raises(CatalogError) as raised:
            load_catalog(content_copy, model_problems, parsed)
        parsed.save(kept)
        problems.append(raised.value.problems)
    assert problems[0] == problems[1] and any("duplicate key" in line for line in problems[0])
    # every file that parsed is kept, the one with the problem too (its bytes give the same problem)
    assert len(list(kept.glob("*.json"))) == len(list(content_copy.rglob("*.yaml")))


@pytest.mark.parametrize("stored", ["not json", '{"version": "another", "data": "x", "lines": {}, "duplicates": []}', "[]",
                                    '{"version": null}', '{"m": 1}'])
def test_kept_files_of_another_version_or_unreadable_are_as_if_there_were_none(tmp_path, stored):
    kept = tmp_path / "parsed"
    parsed = ParsedFiles(kept)
    load_catalog(CONTENT, model_problems, parsed)
    parsed.save(kept)
    for path in kept.glob("*.json"):
        path.write_text(stored)
    parsed = ParsedFiles(kept)
    assert load_catalog(CONTENT, model_problems, parsed) == load_catalog(CONTENT, model_problems)
    assert len(parsed.fresh) == len(parsed.used) > 100  # every file parsed again


def test_a_build_keeps_the_files_it_parsed_in_its_cache_and_the_next_one_uses_them(tmp_path, content_copy):
    out = tmp_path / "site"
    assert run_build(content_copy, out).returncode == 0  # the first build too, once it made the cache folder
    kept = tmp_path / ".site.cache" / "parsed-catalog"
    before = {p.name: p.stat().st_mtime_ns for p in kept.glob("*.json")}
    assert len(before) == len(list((content_copy / "models").glob("*.yaml"))) + len(list(content_copy.glob("*.yaml")))
    model = content_copy / "models" / "kimi-k3.yaml"
    model.write_text(model.read_text().replace("value: 1048576", "value: 524288", 1))
    assert run_build(content_copy, out).returncode == 0
    after = {p.name: p.stat().st_mtime_ns for p in kept.glob("*.json")}
    assert len(after) == len(before) and len(after.keys() - before.keys()) == 1  # the edited file's new bytes
    # an edit of the site empties the build cache (its key), but not what the catalog parsed to
    site = content_copy / "site.yaml"
    site.write_text(site.read_text().replace("brand: Arrakis", "brand: Arrakis Edited", 1))
    (tmp_path / ".site.cache" / "rows" / "sentinel").write_text("emptied with the cache")
    assert run_build(content_copy, out).returncode == 0
    assert not (tmp_path / ".site.cache" / "rows" / "sentinel").exists()
    again = {p.name: p.stat().st_mtime_ns for p in kept.glob("*.json")}
    assert len(again.keys() - after.keys()) == 1  # site.yaml's new bytes
    assert all(again[name] == mtime for name, mtime in after.items() if name in again)  # the others not written again


def test_a_link_planted_for_the_kept_files_is_not_followed(tmp_path, content_copy):
    out = tmp_path / "site"
    assert run_build(content_copy, out).returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    theirs = elsewhere / ("0" * 64 + ".json")  # named as a kept file would be
    theirs.write_text("theirs")
    kept = tmp_path / ".site.cache" / "parsed-catalog"
    shutil.rmtree(kept, ignore_errors=True)
    kept.symlink_to(elsewhere)
    assert run_build(content_copy, out).returncode == 0
    assert [p.name for p in elsewhere.iterdir()] == [theirs.name] and theirs.read_text() == "theirs"


def test_a_value_json_does_not_write_is_parsed_each_time_and_left_to_the_checks(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_text("x: 0x" + "f" * 4000 + "\n")  # a number Python reads and JSON does not write
    parsed = ParsedFiles()
    assert read_yaml(path, "a.yaml", parsed).data["x"] == int("f" * 4000, 16)
    assert parsed.fresh == {}
