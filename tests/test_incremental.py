"""Rebuilds: unchanged pages keep their bytes and mtime; the result equals a full build.

`content_copy` is a writable copy of the fixture catalog (tests/fixtures/catalog/).
"""

import json
import shutil
from dataclasses import fields, replace
from pathlib import Path

from generator.catalog.loader import load_catalog
from generator.site.json_lines import JsonLines
from generator.site.row_store import StoredRows, data_file
from generator.site.view_models import FitPageRow, GpuLlamaRow, site_pages
from tests.conftest import run_build


def build(content: Path, out: Path) -> None:
    result = run_build(content, out)
    assert result.returncode == 0, result.stderr


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_same_bytes(a: Path, b: Path) -> None:
    first, second = snapshot(a), snapshot(b)
    assert first.keys() == second.keys()
    assert [k for k in first if first[k][0] != second[k][0]] == []


def changed(before, after) -> set[str]:
    return {k for k in after if k not in before or before[k] != after[k]} | (before.keys() - after.keys())


def test_rebuilds_touch_only_what_changed_and_equal_a_full_build(tmp_path, content_copy):
    out = tmp_path / "site"
    build(content_copy, out)
    first = snapshot(out)
    docs = tmp_path / ".site.cache" / "docs"
    docs_first = snapshot(docs)

    # nothing changed: every file keeps its bytes and its mtime
    build(content_copy, out)
    assert changed(first, snapshot(out)) == set()
    assert changed(docs_first, snapshot(docs)) == set()

    # one model edited: its own pages change, in both languages, and nothing else
    inodes = {page: (out / page).stat().st_ino for page in ("en/gpus/b300.html", "pt/models/kimi-k3.html")}
    kimi = content_copy / "models" / "kimi-k3.yaml"
    kimi.write_text(kimi.read_text().replace("value: 1048576", "value: 524288", 1))
    build(content_copy, out)
    after_edit = snapshot(out)
    touched = changed(first, after_edit)
    for lang in ("pt", "en"):
        assert f"{lang}/models/kimi-k3.html" in touched and f"{lang}/models/kimi-k3.html.md" in touched
    assert {t for t in touched if "models/" in t and "kimi-k3" not in t and not t.endswith("sitemap.xml")} == set()
    assert changed(docs_first, snapshot(docs)) == {"pt/models/kimi-k3.md", "en/models/kimi-k3.md"}
    assert "api/v1/models/kimi-k3.json" in touched  # its API file too, and no other model's
    # published by linking each unchanged file to the previous site's copy (the cache's is never linked:
    # MkDocs writes there in place), and copying the others
    assert (out / "en/gpus/b300.html").stat().st_ino == inodes["en/gpus/b300.html"]
    assert (out / "en/gpus/b300.html").stat().st_ino != (tmp_path / ".site.cache/site/en/gpus/b300.html").stat().st_ino
    assert (out / "pt/models/kimi-k3.html").stat().st_ino != inodes["pt/models/kimi-k3.html"]
    full = tmp_path / "full" / "site"
    build(content_copy, full)
    assert_same_bytes(out, full)

    # one model added: its pages, the indexes, the GPU pages, the sitemap and llms.txt follow
    shutil.copy(content_copy / "models" / "llama-3-1-8b-instruct.yaml", content_copy / "models" / "llama-3-1-8b-instruct-copy.yaml")
    copy = content_copy / "models" / "llama-3-1-8b-instruct-copy.yaml"
    copy.write_text(copy.read_text().replace("name: Llama-3.1-8B-Instruct", "name: Llama-3.1-8B-Instruct-copy")
                    .replace("id: meta-llama/Llama-3.1-8B-Instruct", "id: meta-llama/Llama-3.1-8B-Instruct-copy"))
    build(content_copy, out)
    added = snapshot(out)
    for path in ("pt/models/llama-3-1-8b-instruct-copy.html", "en/models/llama-3-1-8b-instruct-copy.html.md", "pt/models.html",
                 "en/gpus/b300.html", "sitemap.xml", "llms.txt"):
        assert path in changed(after_edit, added), path
    assert "llama-3-1-8b-instruct-copy.html" in (out / "pt" / "models.html").read_text()
    assert "llama-3-1-8b-instruct-copy.html.md" in (out / "llms.txt").read_text()
    assert (out / "api" / "v1" / "models" / "llama-3-1-8b-instruct-copy.json").is_file()
    shutil.rmtree(full.parent)
    build(content_copy, full)
    assert_same_bytes(out, full)

    # and removed again: its pages go
    copy.unlink()
    build(content_copy, out)
    assert not (out / "pt" / "models" / "llama-3-1-8b-instruct-copy.html").exists()
    assert not (out / "api" / "v1" / "models" / "llama-3-1-8b-instruct-copy.json").exists()
    assert "llama-3-1-8b-instruct-copy" not in (out / "api" / "v1" / "index.json").read_text()
    assert "llama-3-1-8b-instruct-copy" not in (out / "sitemap.xml").read_text()


def test_a_build_that_dies_invalidates_the_cache(tmp_path, content_copy):
    out = tmp_path / "site"
    build(content_copy, out)
    state = tmp_path / ".site.cache" / "state.json"
    state.write_text(state.read_text().replace('"complete": true', '"complete": false'))
    build(content_copy, out)  # starts over from an empty cache, and still gives the same site
    assert '"complete": true' in state.read_text()
    fresh = tmp_path / "fresh" / "site"
    build(content_copy, fresh)
    assert_same_bytes(out, fresh)


class Terminal:
    def __init__(self, tty: bool):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_progress_shows_on_a_terminal_only():
    from generator.site.progress import Progress

    for tty in (True, False):
        terminal = Terminal(tty)
        progress = Progress(terminal)
        progress.start("pt: HTML", 60)
        for _ in range(60):
            progress.advance()
        progress.finish_line()
        if tty:
            assert "pt: HTML: 25/60 pages" in terminal.text and terminal.text.endswith("pt: HTML: 60/60 pages\n")
        else:
            assert terminal.text == ""


def test_the_same_site_whatever_the_number_of_jobs(tmp_path, content_copy):
    """Pages built on forked workers (build --jobs) come out byte for byte as in one process."""
    one, two = tmp_path / "one" / "site", tmp_path / "two" / "site"
    for out, jobs in ((one, "1"), (two, "2")):
        result = run_build(content_copy, out, "--jobs", jobs)
        assert result.returncode == 0, result.stderr
    assert_same_bytes(one, two)
    assert (two / "api" / "v1" / "models" / "kimi-k3.json").is_file()


def kept_rows(rows: Path, content: Path, slug: str) -> tuple[dict, dict, str, str]:
    """A page's kept rows (row_store.py): model key → digest, digest → row's fields; and the key and
    digest of the model `slug`'s row (its key: its model page's content key)."""
    digests = json.loads(rows.read_text())
    data = JsonLines(data_file(rows)).entries
    key = next(spec.cache_key for spec in site_pages(load_catalog(content)) if spec.path == f"models/{slug}")
    return digests, data, key, digests[key]


def named(row_type: type, values: list) -> dict:
    """A kept row's fields by name: they are kept in order, without the model (row_store._packed)."""
    names = [field.name for field in fields(row_type)]
    assert names[0] == "model"  # row_store._restored puts it back first
    return dict(zip(names[1:], values, strict=True))


def packed(row_type: type, row: dict) -> list:
    return [row[field.name] for field in fields(row_type)[1:]]


def keep_rows(rows: Path, digests: dict, data: dict) -> None:
    rows.write_text(json.dumps(digests))
    data_file(rows).write_text("".join(json.dumps([digest, row]) + "\n" for digest, row in data.items()))


def test_a_gpu_page_is_made_from_the_rows_kept_for_unchanged_models(tmp_path, content_copy):
    # At 1,000 models a GPU page's rows were most of a one-model rebuild: each is kept in the cache
    # under its model's content key by its digest (row_store.py), made again only for a model that
    # changed, and the page is keyed by its rows' digests
    out = tmp_path / "site"
    build(content_copy, out)
    rows = tmp_path / ".site.cache" / "rows" / "gpus" / "rtx-4090.json"
    digests, data, key, digest = kept_rows(rows, content_copy, "llama-3-1-8b-instruct")
    counts, llama_cpp = data[digest]
    assert named(GpuLlamaRow, llama_cpp)["verdict"] == "on_gpus" and counts == [1, 1, 1]

    def verdict() -> str:
        api = json.loads((out / "api" / "v1" / "gpus" / "rtx-4090.json").read_text())
        return {m["model"]: m["verdict"] for m in api["llama_cpp"]["models"]}["llama-3-1-8b-instruct"]
    edited = [counts, packed(GpuLlamaRow, dict(named(GpuLlamaRow, llama_cpp), verdict="does_not_run", reason="engine_does_not_run",
                                                planned=False, context=None, ram_bytes=None, n_gpu_layers=None, n_cpu_moe=None,
                                                decode_tokens_per_second=None))]
    # under the same digest, the page's rows are the same: the page is not made again
    keep_rows(rows, digests, dict(data, **{digest: edited}))
    build(content_copy, out)
    assert verdict() == "on_gpus"
    # under another digest, the page is made again from the rows the cache holds
    keep_rows(rows, dict(digests, **{key: "another digest"}), dict(data, **{"another digest": edited}))
    build(content_copy, out)
    assert verdict() == "does_not_run"
    # the model edited: its row is made again, from the model
    model = content_copy / "models" / "llama-3-1-8b-instruct.yaml"
    model.write_text(model.read_text().replace("value: Llama 3.1 Community License", "value: Llama 3.1 Community License (edited)", 1))
    build(content_copy, out)
    assert verdict() == "on_gpus"
    after, _, new_key, new_digest = kept_rows(rows, content_copy, "llama-3-1-8b-instruct")
    assert new_key != key and key not in after and len(after) == len(digests)  # under its new key, the old one gone
    assert new_digest == digest  # its row as it first was


def test_a_page_whose_rows_json_the_cache_lost_makes_them_again(tmp_path, content_copy):
    out = tmp_path / "site"
    build(content_copy, out)
    rows = tmp_path / ".site.cache" / "rows" / "gpus" / "rtx-4090.json"
    page = (out / "en" / "gpus" / "rtx-4090.html").read_bytes()
    digests, data, key, digest = kept_rows(rows, content_copy, "llama-3-1-8b-instruct")
    # a row's digest changed with its JSON lost, or unreadable: the page is made again, the row made from its model
    for lost in ({}, {"lost": {"model": "not a model"}}, {"lost": ["not a row"]}, {"lost": [[1, 1, 1], ["too", "few"]]},
                 {"lost": [3, None]}, {"lost": "[]"}):
        keep_rows(rows, dict(digests, **{key: "lost"}), dict(data, **lost))
        build(content_copy, out)
        assert (out / "en" / "gpus" / "rtx-4090.html").read_bytes() == page
        assert kept_rows(rows, content_copy, "llama-3-1-8b-instruct")[3] == digest


def test_the_fit_page_is_made_from_the_rows_kept_for_unchanged_models(tmp_path, content_copy):
    # its 1,000 vLLM plans at 1,000 models were a second of each rebuild: kept like a GPU page's rows
    out = tmp_path / "site"
    build(content_copy, out)
    rows = tmp_path / ".site.cache" / "rows" / "fit.json"
    digests, data, key, digest = kept_rows(rows, content_copy, "llama-3-1-8b-instruct")
    row = named(FitPageRow, data[digest])
    assert (row["verdict"], row["precision"]) == ("on_gpus", "native")  # its published BF16 fits one RTX 4090
    # a row the cache holds is what the page shows
    edited = packed(FitPageRow, dict(row, repo="kept/row"))
    keep_rows(rows, dict(digests, **{key: "another digest"}), dict(data, **{"another digest": edited}))
    build(content_copy, out)
    assert "(kept/row)" in (out / "en" / "fit.html").read_text()
    model = content_copy / "models" / "llama-3-1-8b-instruct.yaml"  # edited: its row is made again
    model.write_text(model.read_text().replace("value: Llama 3.1 Community License", "value: Llama 3.1 Community License (edited)", 1))
    build(content_copy, out)
    assert "(kept/row)" not in (out / "en" / "fit.html").read_text()
    assert "(meta-llama/Llama-3.1-8B-Instruct)" in (out / "en" / "fit.html").read_text()


def test_a_page_of_rows_kept_is_the_page_of_rows_made_now(tmp_path, fixture_catalog):
    # every GPU page and the fit page, from rows made now and from the same rows read back from the
    # cache: the same view model, and the same key for the same rows
    specs = site_pages(fixture_catalog)
    model_keys = {spec.path: spec.cache_key for spec in specs if spec.cache_key}
    pages = [spec for spec in specs if spec.rows]
    assert len(pages) == len(fixture_catalog.gpus) + 1
    for spec in pages:
        file = tmp_path / f"{spec.path}.json"
        made = StoredRows(file, spec.rows, model_keys)
        assert made.changed
        made.save()
        kept = StoredRows(file, spec.rows, model_keys)
        assert not kept.changed and kept.key == made.key
        assert repr(spec.page(kept.rows())) == repr(spec.page(made.rows())) == repr(spec.page())
        assert not kept.made and not kept.changed  # every row read back, none made


def test_a_gpu_page_changes_only_with_what_it_shows(fixture_catalog):
    # a GPU page is rendered again when its view model changes (language.py): it holds what the page
    # shows of each model, so an edit the page does not show leaves it equal
    def rtx_4090(catalog):
        spec = next(spec for spec in site_pages(catalog) if spec.path == "gpus/rtx-4090")
        return repr(spec.page())

    def edited(**changes):
        models = tuple(replace(m, **changes) if m.slug == "llama-3-1-8b-instruct" else m for m in fixture_catalog.models)
        return replace(fixture_catalog, models=models)

    llama = next(m for m in fixture_catalog.models if m.slug == "llama-3-1-8b-instruct")
    assert llama.context_window == 131072
    shown = rtx_4090(fixture_catalog)
    assert rtx_4090(edited(context_window=65536)) == shown  # past the 32,768 tokens the page asks for
    assert rtx_4090(edited(license="Edited")) == shown
    assert rtx_4090(edited(context_window=4096)) != shown  # the context asked: the row changes
    assert rtx_4090(edited(name="Llama edited")) != shown


def test_the_fit_page_changes_only_with_what_it_shows(fixture_catalog):
    def fit(catalog):
        return repr(next(spec for spec in site_pages(catalog) if spec.path == "fit").page())

    def edited(**changes):
        models = tuple(replace(m, **changes) if m.slug == "llama-3-1-8b-instruct" else m for m in fixture_catalog.models)
        return replace(fixture_catalog, models=models)

    shown = fit(fixture_catalog)
    assert fit(edited(license="Edited")) == shown  # the page does not show it
    assert fit(edited(context_window=4096)) != shown  # the page asks for 32,768 tokens: past its window now
    assert fit(edited(name="Llama edited")) != shown


def test_the_indexes_change_only_with_what_they_show(fixture_catalog):
    # the models index and the home page are keyed by their view model (language.py): a model's row
    # there holds what they show of it (IndexedModel), so an edit they do not show leaves them equal
    def shown(catalog):
        return [repr(spec.page()) for spec in site_pages(catalog) if spec.path in ("index", "models")]

    def edited(**changes):
        models = tuple(replace(m, **changes) if m.slug == "llama-3-1-8b-instruct" else m for m in fixture_catalog.models)
        return replace(fixture_catalog, models=models)

    before = shown(fixture_catalog)
    assert shown(edited(context_window=65536)) == before
    assert shown(edited(license="Edited")) == before
    assert shown(edited(name="Llama edited")) != before
    assert shown(edited(release_date="2026-11-30")) != before


def test_a_build_after_the_live_preview_makes_again_the_pages_the_preview_wrote(tmp_path, content_copy):
    # the preview writes sources outside a build: the next build must not trust its keys for them
    from generator.catalog.loader import load_catalog
    from generator.site.build import build_site
    from generator.site.preview import Preview

    out = tmp_path / "site"
    catalog = load_catalog(content_copy)
    preview = Preview(content_copy, out, catalog, 1, lambda line: None)
    preview.build()
    renamed = replace(catalog, models=tuple(replace(m, name="Llama renamed") if m.slug == "llama-3-1-8b-instruct" else m
                                            for m in catalog.models))
    preview.update(renamed)
    # the models index's table, a part the preview filled in the page (row_tables.py), and its twin
    assert "Llama renamed" in (preview.site_dir / "en" / "models.html").read_text()
    assert "Llama renamed" in (preview.site_dir / "en" / "models.html.md").read_text()
    build_site(catalog, out, jobs=1)  # the catalog as it was: its key is the one the cache held before the preview
    assert "Llama renamed" not in (out / "en" / "models.html.md").read_text()
    assert "Llama renamed" not in (out / "en" / "models.html").read_text()
    assert "Llama renamed" not in (out / "en" / "models" / "llama-3-1-8b-instruct.html").read_text()
