"""A page's parts of rows (site/row_tables.py): a GPU page's tables of every model, made outside
MkDocs, as MkDocs would have made them, and put in the page it wrote; each row kept between builds."""

import json
import re

import markdown
import pytest

from generator.site.json_lines import JsonLines
from generator.site.render import Renderer
from generator.site.row_store import RowFragments, StoredRows, shown_digests
from generator.site.row_tables import MARKDOWN_EXTENSIONS, fill, marker, unfilled
from generator.site.view_models import site_pages
from tests.test_incremental import build, kept_rows

MODEL_LINK = re.compile(r'<a href="\.\./models/([a-z0-9-]+)\.html">')


def test_fill_puts_each_part_in_its_marker_and_again_over_what_it_put():
    page = f"<h2>A</h2>\n{marker('one')}\n\n<h2>B</h2>\n{marker('two')}\n<p>end</p>"
    assert unfilled(page)
    filled = fill(page, {"one": "<table>1</table>", "two": "<p>2</p>"})
    assert filled == ("<h2>A</h2>\n<!--vram-rows:one-->\n<table>1</table>\n<!--/vram-rows:one-->\n\n"
                      "<h2>B</h2>\n<!--vram-rows:two-->\n<p>2</p>\n<!--/vram-rows:two-->\n<p>end</p>")
    assert not unfilled(filled)
    again = fill(filled, {"one": "<table>one</table>", "two": "<p>2</p>"})
    assert again == filled.replace("<table>1</table>", "<table>one</table>")
    assert fill(again, {"one": "<table>1</table>", "two": "<p>2</p>"}) == filled
    with pytest.raises(KeyError):
        fill(page, {"one": ""})
    # one part filled, one not; text that only looks like a marker stays as it is
    half = f"<p><!--vram-rows:not a name--></p>\n{marker('one')}\n<p>1</p>\n<!--/vram-rows:one-->\n{marker('two')}\n<!--vram-rows:"
    assert unfilled(half) and not unfilled(half.replace(marker("two"), ""))
    assert fill(half, {"one": "<p>one</p>", "two": "<p>2</p>"}) == (
        "<p><!--vram-rows:not a name--></p>\n<!--vram-rows:one-->\n<p>one</p>\n<!--/vram-rows:one-->\n"
        "<!--vram-rows:two-->\n<p>2</p>\n<!--/vram-rows:two-->\n<!--vram-rows:")


def _mkdocs_html(renderer: Renderer, page) -> str:
    """What MkDocs made of the page's parts before: the whole Markdown, parts written in place, converted."""
    twin = renderer.render(page, twin=True)
    source = re.sub(r"\]\(/(?:pt|en)/models/([a-z0-9-]+)\.html\.md\)", r"](../models/\1.html)", twin)
    return markdown.Markdown(extensions=["tables", "attr_list", "md_in_html", "toc"]).convert(source)


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_gpu_pages_parts_are_what_mkdocs_made_of_its_tables(fixture_catalog, lang):
    assert MARKDOWN_EXTENSIONS == ["tables", "attr_list", "md_in_html", {"toc": {"permalink": False}}]
    renderer = Renderer(fixture_catalog.site, lang)
    for spec in site_pages(fixture_catalog):
        if not spec.path.startswith("gpus/"):
            continue
        page = spec.page()
        rendered = renderer.render_page(page, twin=False)
        assert set(rendered.parts) == {"llama-cpp", "models-it-holds"}
        assert all(marker(name) in rendered.markdown for name in rendered.parts)
        assert "| [" not in rendered.markdown  # no row of these tables left for MkDocs
        whole = _mkdocs_html(renderer, page).replace("<table>", '<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
                                                     '<table class="vram-table">').replace("</table>", "</table></div></div>")
        for name, html in rendered.parts.items():
            # but for the mark on the sentence of the models too large, which search leaves out (the twin has none)
            assert html.replace('<p data-pagefind-ignore="all">', "<p>") in whole, (spec.path, name)
        assert ('<p data-pagefind-ignore="all">' in rendered.parts["models-it-holds"]) == bool(page.too_large)
        # every model is on the page, once in its llama.cpp verdicts, once in what the GPU holds (or the list of too large)
        llama = MODEL_LINK.findall(rendered.parts["llama-cpp"])
        holds = MODEL_LINK.findall(rendered.parts["models-it-holds"])
        planned = [m.slug for m in fixture_catalog.models if m.architecture is not None]
        assert sorted(llama) == sorted(planned) and sorted(holds) == sorted(m.slug for m in fixture_catalog.models)


def test_rows_kept_give_the_parts_and_twin_made_now(tmp_path, fixture_catalog):
    specs = site_pages(fixture_catalog)
    model_keys = {spec.path: spec.cache_key for spec in specs if spec.cache_key}
    spec = next(spec for spec in specs if spec.path == "gpus/rtx-4090")
    stored = StoredRows(tmp_path / "rows.json", spec.rows, model_keys)
    page = spec.page(stored.rows())
    renderer = Renderer(fixture_catalog.site, "pt")
    made_now = renderer.render_page(page, twin=False), renderer.render(page, twin=True)
    first = RowFragments(tmp_path / "pt.rows.jsonl", stored.by_model())
    assert (renderer.render_page(page, twin=False, kept=first), renderer.render(page, twin=True, kept=first)) == made_now
    first.save()
    kept = JsonLines(tmp_path / "pt.rows.jsonl").entries
    # a llama.cpp verdict for every model, and a row of GPU counts for every model one machine holds,
    llama_rows = [key for key in kept if key.startswith(("gpu_llama_runs ", "gpu_llama_not_run "))]
    count_rows = [key for key in kept if key.startswith("gpu_counts ")]
    assert len(llama_rows) == len(fixture_catalog.models)
    # and a link for each model too large for one machine, in a sentence
    link_rows = [key for key in kept if key.startswith("model_link ")]
    assert page.too_large and len(link_rows) == len(page.too_large)
    assert len(count_rows) == len(fixture_catalog.models) - len(page.too_large)
    assert len(kept) == len(llama_rows) + len(count_rows) + len(link_rows)
    assert all(set(entry) == {"md", "html"} for entry in kept.values())
    again = RowFragments(tmp_path / "pt.rows.jsonl", stored.by_model())
    assert (renderer.render_page(page, twin=False, kept=again), renderer.render(page, twin=True, kept=again)) == made_now
    assert not again.changed  # every row read back, none made


def test_a_gpu_page_shows_the_rows_kept_and_makes_again_an_edited_models(tmp_path, content_copy):
    out = tmp_path / "site"
    build(content_copy, out)
    page = out / "en" / "gpus" / "rtx-4090.html"
    assert not unfilled(page.read_text()) and marker("llama-cpp") in page.read_text()
    _, _, _, digest = kept_rows(tmp_path / ".site.cache" / "rows" / "gpus" / "rtx-4090.json", content_copy, "llama-3-1-8b-instruct")
    fragments = tmp_path / ".site.cache" / "rows" / "gpus" / "rtx-4090.en.rows.jsonl"
    kept = JsonLines(fragments).entries
    row = kept[f"gpu_counts {digest}"]
    assert '<a href="../models/llama-3-1-8b-instruct.html">Llama-3.1-8B-Instruct</a>' in row["html"]
    assert row["md"].startswith("| [Llama-3.1-8B-Instruct](/en/models/llama-3-1-8b-instruct.html.md) |")
    # a row kept is what the page shows, once the page is made again (here: another model added)
    kept[f"gpu_counts {digest}"] = {"md": row["md"].replace("Instruct]", "Instruct (kept)]"),
                                    "html": row["html"].replace("Instruct</a>", "Instruct (kept)</a>")}
    fragments.write_text("".join(json.dumps([key, entry]) + "\n" for key, entry in kept.items()))
    added = content_copy / "models" / "llama-3-1-8b-instruct-copy.yaml"
    added.write_text((content_copy / "models" / "llama-3-1-8b-instruct.yaml").read_text()
                     .replace("name: Llama-3.1-8B-Instruct", "name: Llama-3.1-8B-Instruct-copy")
                     .replace("id: meta-llama/Llama-3.1-8B-Instruct", "id: meta-llama/Llama-3.1-8B-Instruct-copy"))
    build(content_copy, out)
    html, twin = page.read_text(), (out / "en" / "gpus" / "rtx-4090.html.md").read_text()
    assert "Llama-3.1-8B-Instruct (kept)</a>" in html and "[Llama-3.1-8B-Instruct (kept)]" in twin
    assert '<a href="../models/llama-3-1-8b-instruct-copy.html">Llama-3.1-8B-Instruct-copy</a>' in html
    assert not unfilled(html)
    # the model edited so that its rows change: they are made again, and the rows of models gone leave the cache
    model = content_copy / "models" / "llama-3-1-8b-instruct.yaml"
    model.write_text(model.read_text().replace("vocab_size: 128256", "vocab_size: 128000", 1))
    added.unlink()
    build(content_copy, out)
    html = page.read_text()
    assert "(kept)" not in html and "(kept)" not in (out / "en" / "gpus" / "rtx-4090.html.md").read_text()
    assert "llama-3-1-8b-instruct-copy" not in html
    now = JsonLines(fragments).entries  # the kept row is no longer the model's
    assert digest not in kept_rows(tmp_path / ".site.cache" / "rows" / "gpus" / "rtx-4090.json", content_copy, "llama-3-1-8b-instruct")[0].values()
    assert not any("(kept)" in entry["html"] for key, entry in now.items() if key.partition(" ")[2] != digest)


def test_no_built_page_keeps_a_marker_unfilled(built_site):
    pages = sorted(built_site.rglob("*.html"))
    assert not [page for page in pages if unfilled(page.read_text())]
    gpu_pages = [page for page in pages if page.parent.name == "gpus"]
    assert gpu_pages and all(marker("llama-cpp") in page.read_text() for page in gpu_pages)


@pytest.mark.parametrize("path, part", [("models", "models-table"), ("fit", "fit-table")])
def test_a_table_of_every_model_written_in_html_waits_outside_mkdocs(fixture_catalog, path, part):
    # MkDocs passed these 600 KB (at 1,000 models) as they are, reading them slowly: they are a part
    spec = next(spec for spec in site_pages(fixture_catalog) if spec.path == path)
    rendered = Renderer(fixture_catalog.site, "en").render_page(spec.page(), twin=False)
    assert set(rendered.parts) == {part} and marker(part) in rendered.markdown and "<section" not in rendered.markdown
    html = rendered.parts[part]
    assert html.startswith('<section class="vram-fit"') and html.endswith("</section>")
    assert len(re.findall(r'<tr data-model="', html)) == len(fixture_catalog.models)
    assert '<table class="vram-table">' in html  # wrapped as the pages' tables are (page_html.wrap_tables)


@pytest.mark.parametrize("path, macros", [("fit", {"fit_row", "fit_twin_row"}),
                                          ("models", {"models_index_row", "models_index_twin_row"})])
def test_the_rows_of_a_table_of_raw_html_are_kept_too(tmp_path, fixture_catalog, path, macros):
    # the fit page's rows by their digest (row_store.StoredRows), the models index's by their repr's
    specs = site_pages(fixture_catalog)
    spec = next(spec for spec in specs if spec.path == path)
    if spec.rows:
        stored = StoredRows(tmp_path / "rows.json", spec.rows, {s.path: s.cache_key for s in specs if s.cache_key})
        page, digests = spec.page(stored.rows()), stored.by_model()
    else:
        page = spec.page()
        digests = shown_digests(page.rows)
    renderer = Renderer(fixture_catalog.site, "en")
    made_now = renderer.render_page(page, twin=False), renderer.render(page, twin=True)
    first = RowFragments(tmp_path / "en.rows.jsonl", digests)
    assert (renderer.render_page(page, twin=False, kept=first), renderer.render(page, twin=True, kept=first)) == made_now
    first.save()
    kept = JsonLines(tmp_path / "en.rows.jsonl").entries
    assert {key.partition(" ")[0] for key in kept} == macros and len(kept) == 2 * len(fixture_catalog.models)
    assert all(entry["html"].startswith('<tr data-model="') for key, entry in kept.items() if "twin" not in key)
    again = RowFragments(tmp_path / "en.rows.jsonl", digests)
    assert (renderer.render_page(page, twin=False, kept=again), renderer.render(page, twin=True, kept=again)) == made_now
    assert not again.changed
    # a row kept is the row shown
    html_macro = next(macro for macro in macros if "twin" not in macro)
    key = next(key for key in kept if key.startswith(f"{html_macro} "))
    JsonLines(tmp_path / "en.rows.jsonl").save({key: {"html": kept[key]["html"].replace("</a>", " (kept)</a>", 1)}}, set(kept))
    shown = RowFragments(tmp_path / "en.rows.jsonl", digests)
    assert "(kept)</a>" in renderer.render_page(page, twin=False, kept=shown).parts[f"{path}-table"]


def test_rows_kept_are_found_once_a_table_and_a_row_put_since_is_found(tmp_path):
    # a table's entries are looked up once for its two forms (row_store.RowFragments.texts); a row
    # made in between (a model added: its HTML made, then its Markdown asked for) is seen in both
    kept = RowFragments(tmp_path / "en.rows.jsonl", {"a": "1", "b": "2"})
    kept.put("gpu_counts", "a", "html", "<tr>a</tr>")
    assert kept.texts("gpu_counts", ["a", "b"], "html") == ["<tr>a</tr>", None]
    kept.put("gpu_counts", "b", "html", "<tr>b</tr>")
    kept.put("gpu_counts", "b", "md", "| b |")
    assert kept.texts("gpu_counts", ["a", "b"], "html") == ["<tr>a</tr>", "<tr>b</tr>"]
    assert kept.texts("gpu_counts", ["a", "b"], "md") == [None, "| b |"]
    assert kept.texts("model_link", ["a", "b"], "md") == [None, None]  # another macro's rows
    kept.save()
    assert RowFragments(tmp_path / "en.rows.jsonl", {"a": "1", "b": "2"}).texts("gpu_counts", ["b", "a"], "html") == ["<tr>b</tr>", "<tr>a</tr>"]
