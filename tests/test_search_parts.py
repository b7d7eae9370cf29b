"""The search index's parts (generator/site/search_index.py): parts of at most N pages of one
language, so Pagefind's memory stays bounded whatever the site's size; a model's page in a part cut
where the pages' digests say, so a model added or removed indexes one part of models again, seldom two."""

import re
import shutil
from pathlib import Path

import pytest

from generator.site import search_index
from generator.site.search_index import (PAGES_AT_ONCE, PART_PAGES, _in_rounds, _index_part, _pagefind, bundle_folder,
                                         indexed_html, search_parts, write_search_index)


def site_paths(models: int, others: int) -> list[str]:
    return [f"models/m{index:05}" for index in range(models)] + [f"gpus/g{index:03}" for index in range(others)]


@pytest.mark.parametrize("models, others, most, other_sizes", [
    (140, 75, PART_PAGES, []),  # the shipped catalog: one part of 215 pages
    (10, 6, 16, []),  # all in one part where they fit
    (10, 16, 5, [4, 4, 4, 4]),  # other pages in even parts; models in parts of at most 5
    (1000, 57, PART_PAGES, [57]),  # 1,000 models and 53 GPUs of a language, by default
    (5000, 0, 1000, []),
])
def test_parts_hold_at_most_the_pages_asked_and_every_page_once(models, others, most, other_sizes):
    paths = site_paths(models, others)
    parts = search_parts(list(reversed(paths)), most)
    assert [page for part in parts for page in part] == sorted(paths, key=lambda page: (page.startswith("models/"), page))
    assert all(len(part) <= most for part in parts)
    if models + others <= most:
        assert len(parts) == 1
        return
    assert [len(part) for part in parts[:len(other_sizes)]] == other_sizes
    model_parts = parts[len(other_sizes):]
    assert all(page.startswith("models/") for part in model_parts for page in part)
    assert all(len(part) >= most // 5 for part in model_parts[:-1])  # a part is cut no sooner


def parts_changed(before: list[list[str]], now: list[list[str]]) -> int:
    return sum(tuple(part) not in {tuple(was) for was in before} for part in now)


def test_a_model_added_or_removed_changes_its_own_part_of_models_and_seldom_the_next():
    # even parts of the sorted pages would move every part past it: each indexed again
    paths = site_paths(1000, 57)
    before = search_parts(paths, PART_PAGES)
    removed = [parts_changed(before, search_parts([page for page in paths if page != f"models/m{index:05}"], PART_PAGES))
               for index in range(0, 1000, 10)]
    added = [parts_changed(before, search_parts(paths + [f"models/m{index:05}-added"], PART_PAGES))
             for index in range(0, 1000, 10)]
    assert removed == [1] * 100  # its own part
    assert max(added) <= 3 and sum(added) <= 110  # a page added that its digest marks cuts its part in two


def test_the_first_part_is_the_bundle_the_search_page_loads():
    assert [bundle_folder(part) for part in range(3)] == ["pagefind", "pagefind/part-1", "pagefind/part-2"]


@pytest.mark.parametrize("html, indexed", [
    (b"<p>a</p><table><tr><td>1</td></tr></table><p>b</p>", b"<p>a</p><p>b</p>"),
    (b"<pre><code>x</code></pre><p>c</p><pre>y</pre>", b"<p>c</p>"),
    (b'<table class="vram-table">\n<tr><td><a href="x">m</a></td></tr>\n</table>', b""),
    (b"<p>&lt;table&gt;</p>", b"<p>&lt;table&gt;</p>"),  # escaped text is not a tag
    (b"<table><tr><td>open", b"<table><tr><td>open"),  # not closed: left
    (b"<p>a</p><table>1<p>b</p><pre>x</pre><p>c</p>", b"<p>a</p><table>1<p>b</p><p>c</p>"),
    (b"<tables>x</tables><p>a</p>", b"<tables>x</tables><p>a</p>"),  # another tag's name
    (b'<div data-pagefind-ignore="all"><table><tr><td>x</td></tr></table></div><p>a</p>', b"<p>a</p>"),
    (b'<table><tr><td><span data-pagefind-ignore="all">x</span></td></tr></table><p>a</p>', b"<p>a</p>"),
    # a page with a body: its <html> tag and the body, without the head, header, navigation, footer
    (b'<!doctype html><html lang="pt" class="x"><head><title>t</title></head><body><nav><nav>n</nav></nav>'
     b'<div class="a"><div data-pagefind-body><div><p>a</p></div><p>b</p></div><p>after</p></div><footer>f</footer>',
     b'<html lang="pt" class="x"><body><div data-pagefind-body><div><p>a</p></div><p>b</p></div></body></html>'),
    (b'<html><main data-pagefind-body><p>a</p>', b'<html><body><main data-pagefind-body><p>a</p></body></html>'),  # unclosed
    # what is marked to be ignored goes whole, elements of its name inside it too
    (b'<p>a</p><details class="f" data-pagefind-ignore="all" open><details>in</details>tail</details><p>b</p>'
     b'<section data-pagefind-ignore="all"><p>c</p></section>',
     b'<p>a</p><p>b</p>'),
    (b'<details data-pagefind-ignore="index">kept</details>', b'<details data-pagefind-ignore="index">kept</details>'),
])
def test_what_pagefind_reads_of_a_page_is_its_body_without_tables_code_and_what_it_ignores(html, indexed):
    assert indexed_html(html) == indexed


def page(lang: str, title: str, text: str, table: str = "") -> str:
    return (f'<!doctype html><html lang="{lang}"><head><title>{title}</title></head><body>'
            f'<main data-pagefind-body><h1>{title}</h1><p>{text}</p><table><tr><td>{table}</td></tr></table></main></body></html>')


def write_pages(site: Path, pages: dict[str, str]) -> None:
    for name, html in pages.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(html, encoding="utf-8")


def bundle(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted((site / "pagefind").rglob("*")) if p.is_file()}


@pytest.mark.parametrize("cut_kept", [search_index.CUT_KEPT, 0])
def test_a_rebuild_indexes_again_only_the_parts_whose_text_changed(tmp_path, monkeypatch, cut_kept):
    # what Pagefind reads of a page written since is cut once, kept for its run (CUT_KEPT bytes of
    # it at most: beyond, cut again there): the same index either way
    monkeypatch.setattr(search_index, "CUT_KEPT", cut_kept)
    site, work = tmp_path / "site", tmp_path / "cache" / "search"
    names = ["gpus/a", "gpus/b", "gpus/c", "gpus/d"]  # in even parts (a model's page: _chunked_parts)
    pages = {f"{lang}/{name}.html": page(lang, name, f"{name} words {lang}", "1") for lang in ("pt", "en") for name in names}
    write_pages(site, pages)

    def index(part_pages: int = 2) -> int:
        return write_search_index(site, ("pt", "en"), names, part_pages, work, jobs=2)

    def fresh(part_pages: int = 2) -> dict[str, bytes]:  # the same site indexed from nothing
        copy = tmp_path / "fresh" / "site"
        shutil.rmtree(copy.parent, ignore_errors=True)
        shutil.copytree(site, copy)
        shutil.rmtree(copy / "pagefind")
        write_search_index(copy, ("pt", "en"), names, part_pages)
        return bundle(copy)

    assert index() == 4  # two parts of two pages, in two languages
    assert bundle(site) == fresh()
    assert index() == 0  # nothing changed
    write_pages(site, {"en/gpus/c.html": page("en", "gpus/c", "gpus/c words en", "2")})
    assert index() == 0  # a table changed: Pagefind reads nothing new
    write_pages(site, {"en/gpus/c.html": page("en", "gpus/c", "gpus/c other words", "2")})
    assert index() == 1  # the text of a page of the second part, in English
    assert bundle(site) == fresh()
    assert index(part_pages=4) == 2  # one part now, in each language; the second part's files go
    assert bundle(site) == fresh(part_pages=4)
    assert sorted(p.name for p in work.iterdir()) == ["0-en", "0-en.key", "0-en.pages", "0-pt", "0-pt.key", "0-pt.pages",
                                                      "0.files", "digests.json"]
    # a part not indexed again is not merged again either, unless its bundle lost its entry
    (site / "pagefind" / "pagefind-entry.json").unlink()
    assert index(part_pages=4) == 0 and bundle(site) == fresh(part_pages=4)
    # what Pagefind read waits cut beside each part, for its pages only
    assert sorted(p.relative_to(work / "0-en.pages").as_posix() for p in (work / "0-en.pages").rglob("*.html")) == [
        f"en/{name}.html" for name in names]


@pytest.mark.parametrize("sizes, jobs, most, rounds", [
    ([300, 300, 300], 2, 1000, [[300, 300], [300]]),  # two at a time
    ([529, 529], 2, 1000, [[529], [529]]),  # together they would pass the pages held at once
    ([529, 529], 2, PAGES_AT_ONCE, [[529, 529]]),  # both languages' parts at once
    ([212, 212, 212, 212], 2, max(PART_PAGES, PAGES_AT_ONCE), [[212, 212], [212, 212]]),  # 1,000 models, by default
    ([843, 843], 2, PAGES_AT_ONCE, [[843], [843]]),  # 5,000 models: one after the other
    ([100, 100, 100], 1, 1000, [[100], [100], [100]]),
])
def test_pagefind_runs_at_once_are_bounded_by_jobs_and_pages(sizes, jobs, most, rounds):
    runs = [("pt", ["p"] * size, Path(str(index))) for index, size in enumerate(sizes)]
    assert [[len(pages) for _, pages, _ in round_] for round_ in _in_rounds(runs, jobs, most)] == rounds


def test_pages_without_what_pagefind_leaves_out_give_the_same_index(tmp_path):
    # the bytes Pagefind writes from the built pages as they are, and from the pages cut (indexed_html)
    raw = tmp_path / "raw"
    pages = {f"en/models/{name}.html": page("en", name, f"{name} text <code>x</code>", f"row <pre>code {name}</pre>")
             for name in ("a", "b")}
    write_pages(raw, pages)
    _pagefind(raw, "en", tmp_path / "from-raw")
    _index_part(raw, "en", ["models/a", "models/b"], tmp_path / "from-cut", tmp_path / "cut")

    def files(folder):
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    assert files(tmp_path / "from-raw") == files(tmp_path / "from-cut")


def test_a_model_pages_method_and_sources_are_not_indexed_and_its_other_sections_are(tmp_path, built_site):
    # one built page indexed three ways: as built; with the two folds cut out by hand (the same
    # index: Pagefind skips them); with the mark that skips them taken off (another index)
    html = (built_site / "en" / "models" / "kimi-k3.html").read_bytes()
    folds = {anchor: re.search(rb'<details class="vram-fold"[^>]* id="%s"[^>]*>.*?</details>' % anchor, html, re.S).group(0)
             for anchor in (b"method", b"sources", b"kv-cache")}
    assert all(b'data-pagefind-ignore="all"' in folds[anchor] for anchor in (b"method", b"sources"))
    assert b"data-pagefind-ignore" not in folds[b"kv-cache"].split(b">", 1)[0]  # the KV cache's words are searched
    variants = {"built": html, "cut": html.replace(folds[b"method"], b"").replace(folds[b"sources"], b""),
                "unmarked": html}
    for anchor in (b"method", b"sources"):
        variants["unmarked"] = variants["unmarked"].replace(folds[anchor], folds[anchor].replace(b' data-pagefind-ignore="all"', b""))

    def index(name: str) -> dict[str, bytes]:
        write_pages(tmp_path / name, {"en/models/kimi-k3.html": variants[name].decode()})
        _pagefind(tmp_path / name, "en", tmp_path / f"{name}-index")
        return {p.relative_to(tmp_path / f"{name}-index").as_posix(): p.read_bytes()
                for p in sorted((tmp_path / f"{name}-index").rglob("*")) if p.is_file()}
    assert index("built") == index("cut")
    assert index("built") != index("unmarked")


# One page of each kind, as the site builds it.
PAGE_KINDS = ["index", "models", "gpus", "fit", "models/kimi-k3", "models/mistral-7b-v0-1", "gpus/b300"]


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_pagefind_makes_the_same_index_of_the_built_pages_and_of_what_is_cut_of_them(tmp_path, built_site, lang):
    built = {f"{lang}/{name}.html": (built_site / lang / f"{name}.html").read_bytes() for name in PAGE_KINDS}
    for folder, cut in (("built", lambda html: html), ("cut", indexed_html)):
        for name, html in built.items():
            (tmp_path / folder / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / folder / name).write_bytes(cut(html))
        _pagefind(tmp_path / folder, lang, tmp_path / f"{folder}-index")

    def files(folder):
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    assert files(tmp_path / "built-index") == files(tmp_path / "cut-index")
    assert sum(map(len, map(indexed_html, built.values()))) < sum(map(len, built.values())) / 4  # and much less to read


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_gpu_pages_list_of_the_models_too_large_for_it_is_not_indexed(built_site, lang):
    # the models a GPU cannot hold are named on its page to link them, not for a search of a model's
    # name to find the GPU pages that cannot hold it (its tables of the models it holds are not
    # indexed either); and a model added to the catalog leaves the GPU pages' words as they were
    listed = []
    for page in sorted((built_site / lang / "gpus").glob("*.html")):
        html = page.read_bytes()
        found = re.search(rb'<p data-pagefind-ignore="all">(.*?)</p>', html, re.S)
        if found and b"../models/" in found.group(1):
            listed.append(page.name)
            assert b"../models/" not in indexed_html(html)
    assert listed  # the fixture has models too large for some GPU
