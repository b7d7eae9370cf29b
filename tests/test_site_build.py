"""The real thing: `python -m generator build` runs MkDocs and writes the whole site.

The site here is the fixture catalog's (tests/fixtures/catalog/); test_site_integrity.py also
checks a build of the shipped catalog.
"""

import gc
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from generator.catalog.slugs import slugify
from generator.site.build import fewer_collections
from tests.conftest import FIXTURE, run_build

LANGS = ("pt", "en")


def build(out: Path, content: Path = FIXTURE):
    return run_build(content, out)


@pytest.fixture(scope="module")
def site(built_site) -> Path:
    return built_site


def html(site: Path, path: str) -> str:
    return (site / path).read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("page", ["index", "models", "gpus", "models/kimi-k3", "gpus/b300", "404"])
def test_every_page_type_is_built_as_html(site, lang, page):
    text = html(site, f"{lang}/{page}.html")
    assert text.lstrip().startswith("<!doctype html>")
    assert f'<html lang="{lang}"' in text


def test_every_catalog_model_and_gpu_has_a_page_and_a_twin_in_both_languages(site, fixture_catalog):
    pages = [f"models/{m.slug}" for m in fixture_catalog.models] + [f"gpus/{g.slug}" for g in fixture_catalog.gpus]
    pages += ["index", "models", "gpus"]
    for lang in LANGS:
        for page in pages:
            assert (site / f"{lang}/{page}.html").is_file(), (lang, page)
            assert (site / f"{lang}/{page}.html.md").is_file(), (lang, page)
    assert slugify("Kimi-K3") == "kimi-k3"


@pytest.mark.parametrize(
    "lang, sentences",
    [
        ("pt", ["O Kimi-K3 tem 2,8T parâmetros.", "6.672 GB: mais de uma máquina de 8 GPUs",
                "a partir de US$\u00a036,80 por hora pelas 8 GPUs", "Posso rodar o Kimi-K3 em uma única GPU?"]),
        ("en", ["Kimi-K3 has 2.8T parameters.", "6,672 GB: more than one 8-GPU machine",
                "from $36.80 per hour for the 8 GPUs", "Can I run Kimi-K3 on a single GPU?"]),
    ],
)
def test_kimi_k3_html_reads_as_the_seed(site, lang, sentences):
    text = re.sub(r"<[^>]+>", "", html(site, f"{lang}/models/kimi-k3.html"))
    for sentence in sentences:
        assert sentence in text, sentence
    # the GPU of the chosen setup links to its page in the same language
    assert '<a href="../gpus/b300.html">B300</a>' in html(site, f"{lang}/models/kimi-k3.html")


@pytest.mark.parametrize("lang, other", [("pt", "en"), ("en", "pt")])
@pytest.mark.parametrize("page, prefix", [("models/kimi-k3", "../../"), ("gpus/b300", "../../"), ("models", "../")])
def test_language_switcher_opens_the_same_page_in_the_other_language(site, lang, other, page, prefix):
    text = html(site, f"{lang}/{page}.html")
    link = f'<a href="{prefix}{other}/{page}.html" hreflang="{other}"'
    assert link in text
    assert (site / lang / page).parent.joinpath(f"{prefix}{other}/{page}.html").resolve().is_file()


def test_head_has_canonical_and_absolute_hreflang_alternates(site):
    text = html(site, "en/models/kimi-k3.html")
    base = "https://gpus.arrakis.example/"
    assert f'<link rel="canonical" href="{base}en/models/kimi-k3.html">' in text
    for lang in LANGS:
        assert f'<link rel="alternate" hreflang="{lang}" href="{base}{lang}/models/kimi-k3.html">' in text
    assert f'<link rel="alternate" hreflang="x-default" href="{base}pt/models/kimi-k3.html">' in text


def test_twins_hold_the_seed_numbers_in_each_locale_format(site):
    pt = html(site, "pt/models/kimi-k3.html.md")
    en = html(site, "en/models/kimi-k3.html.md")
    assert ("| 4 bits | 1.668 GB: 8 × [B300](/pt/gpus/b300.html.md), a partir de US$\u00a036,80 por hora pelas 8 GPUs "
            "(preço de 27 de agosto de 2026) |") in pt
    assert ("| 4 bits | 1,668 GB: 8 × [B300](/en/gpus/b300.html.md), from $36.80 per hour for the 8 GPUs "
            "(price of August 27, 2026) |") in en
    assert not (site / "pt/models/kimi-k3.html.html").exists()


def test_sitemap_lists_every_page_with_its_alternates(site, fixture_catalog):
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    root = ET.parse(site / "sitemap.xml").getroot()
    urls = root.findall("s:url", ns)
    assert len(urls) == 2 * (len(fixture_catalog.models) + len(fixture_catalog.gpus) + 4)  # + home, 2 indexes, fit
    for url in urls:
        langs = sorted(link.get("hreflang") for link in url.findall("x:link", ns))
        assert langs == ["en", "pt", "x-default"]
    locs = {url.find("s:loc", ns).text for url in urls}
    assert "https://gpus.arrakis.example/en/models/kimi-k3.html" in locs


def test_llms_txt_lists_the_markdown_twins(site, fixture_catalog):
    text = html(site, "llms.txt")
    assert text.startswith("# Arrakis GPU requirements\n")
    for lang in LANGS:
        for model in fixture_catalog.models:
            assert f"https://gpus.arrakis.example/{lang}/models/{model.slug}.html.md)" in text


def test_root_index_leads_to_each_language(site):
    text = html(site, "index.html")
    assert '<a href="pt/index.html" hreflang="pt"' in text
    assert '<a href="en/index.html" hreflang="en"' in text
    # described in the site's first language, as search engines show it (issue 8/8)
    assert ('<meta name="description" content="Quanta memória de GPU os LLMs de pesos abertos precisam, as configurações '
            'que os servem, com que velocidade e a que custo: uma página por modelo e por GPU.">') in text


def test_navigation_stays_small(site):
    text = html(site, "pt/models/kimi-k3.html")
    nav = text[text.index('<nav class="md-nav md-nav--primary'):]
    nav = nav[: nav.index("</nav>")]
    assert "kimi-k3" not in nav and "deepseek" not in nav.lower()


def test_no_asset_from_the_internet(site):
    text = html(site, "en/models/kimi-k3.html")
    assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text


def test_builds_are_byte_identical_and_failed_builds_leave_the_site(site, tmp_path, content_copy):
    again = tmp_path / "again"
    assert build(again).returncode == 0
    first = {p.relative_to(site): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in sorted(again.rglob("*")) if p.is_file()}
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []

    (content_copy / "models" / "kimi-k3.yaml").write_text("name: [broken\n")
    before = {p: p.stat().st_mtime_ns for p in again.rglob("*")}
    result = build(again, content_copy)
    assert result.returncode == 2
    assert {p: p.stat().st_mtime_ns for p in again.rglob("*")} == before
    assert [p.name for p in again.parent.iterdir() if p.name.startswith(".again.building")] == []


def test_out_folder_that_is_not_a_site_is_never_replaced(tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("years of work")
    result = build(precious)
    assert result.returncode == 1
    assert "is not a site built by this tool" in result.stderr
    assert (precious / "thesis.txt").read_text() == "years of work"


def test_an_output_path_that_cannot_be_created_gives_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = build(blocker / "site")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[0].startswith("error: ")
    assert blocker.read_text() == "not a folder"


def test_a_folder_that_only_looks_like_a_site_is_never_replaced(tmp_path):
    lookalike = tmp_path / "lookalike"
    lookalike.mkdir()
    (lookalike / "llms.txt").write_text("someone else's")
    (lookalike / "notes.txt").write_text("keep me")
    result = build(lookalike)
    assert result.returncode == 1 and "no list of its files in .vram-guide-site" in result.stderr
    assert (lookalike / "notes.txt").read_text() == "keep me"


def test_an_empty_planted_marker_proves_nothing(tmp_path):
    folder = tmp_path / "thesis"
    folder.mkdir()
    (folder / ".vram-guide-site").write_text("")
    (folder / "thesis.tex").write_text("years of work")
    result = build(folder)
    assert (result.returncode, result.stderr) == (1, f"error: {folder}: exists and is not a site built by this tool "
                                                      "(no list of its files in .vram-guide-site); choose another --out\n")
    assert sorted(p.name for p in folder.iterdir()) == [".vram-guide-site", "thesis.tex"]


def test_a_deployers_files_survive_a_rebuild(tmp_path):
    """A Pages CNAME and an uploaded report, put into the site after a build, are in the next one."""
    out = tmp_path / "site"
    assert build(out).returncode == 0
    (out / "CNAME").write_text("gpus.example.org\n")
    (out / "uploads").mkdir()
    (out / "uploads" / "report.pdf").write_bytes(b"%PDF-1.7")
    assert build(out).returncode == 0
    assert (out / "CNAME").read_text() == "gpus.example.org\n" and (out / "uploads" / "report.pdf").read_bytes() == b"%PDF-1.7"
    assert (out / "en" / "index.html").is_file()


def test_a_deployers_file_where_the_site_writes_is_refused_by_name(tmp_path):
    out = tmp_path / "site"
    assert build(out).returncode == 0
    marker = out / ".vram-guide-site"
    marker.write_text(marker.read_text().replace("en/index.html\n", ""))  # as if a deployer had put it there
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = build(out)
    assert (result.returncode, result.stderr) == (1, f"error: {out}: en/index.html: not written by the last build, and the "
                                                      "new site writes the same path; move them out of the folder and build again\n")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_symlinked_out_keeps_pointing_where_it_did(tmp_path):
    target, link = tmp_path / "real", tmp_path / "link"
    target.mkdir()
    link.symlink_to(target)
    assert build(link).returncode == 0 and build(link).returncode == 0
    assert link.is_symlink() and link.resolve() == target and (target / "en" / "index.html").is_file()


def test_robots_txt_names_the_sitemap(site):
    assert html(site, "robots.txt") == "User-agent: *\nAllow: /\n\nSitemap: https://gpus.arrakis.example/sitemap.xml\n"


@pytest.mark.parametrize("lang, description", [
    ("pt", "O Kimi-K3 tem 2,8T parâmetros. Para servi-lo, conte com cerca de 6.672 GB de memória de GPU em 16 bits, "
           "3.336 GB em 8 bits ou 1.668 GB em 4 bits, incluindo cerca de 20% para o cache KV e as ativações."),
    ("en", "Kimi-K3 has 2.8T parameters. To serve it, plan for about 6,672 GB of GPU memory at 16 bits, "
           "3,336 GB at 8 bits or 1,668 GB at 4 bits, including about 20% for the KV cache and activations."),
])
def test_model_pages_describe_themselves_with_their_numbers(site, lang, description):
    assert f'<meta name="description" content="{description}">' in html(site, f"{lang}/models/kimi-k3.html")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("page", ["index", "models", "gpus", "gpus/b300", "fit"])
def test_every_page_has_a_description(site, lang, page):
    found = re.search(r'<meta name="description" content="([^"]{40,})">', html(site, f"{lang}/{page}.html"))
    assert found, page


@pytest.mark.parametrize("lang, title, home", [("pt", "Página não encontrada", "Início"), ("en", "Page not found", "Home")])
def test_the_404_page_speaks_the_language_and_links_home(site, lang, title, home):
    page = html(site, f"{lang}/404.html")
    assert f"<h1>{title}</h1>" in page and "404 - Not found" not in page
    assert f'<a href="/{lang}/index.html">{home}</a>' in page and f'<a href="/{lang}/models.html">' in page


@pytest.mark.parametrize("lang, deploy, models", [
    ("pt", "Implante o Kimi-K3 na Arrakis", "Todos os modelos"),
    ("en", "Deploy Kimi-K3 on Arrakis", "All models"),
])
def test_links_say_where_they_go(site, lang, deploy, models):
    twin = html(site, f"{lang}/models/kimi-k3.html.md")
    assert f"[{deploy}](" in twin and "console" in twin.split(f"[{deploy}](")[1].split("\n")[0]
    assert f"[{models}](/{lang}/models.html.md)" in twin and "[/models]" not in twin


@pytest.mark.parametrize("lang, release", [("pt", "27 de julho de 2026"), ("en", "July 27, 2026")])
def test_dates_are_written_as_each_language_writes_them(site, lang, release):
    assert f"| {release} |" in html(site, f"{lang}/models/kimi-k3.html.md")
    assert "2026-07-27" not in html(site, f"{lang}/models/kimi-k3.html.md").split("## ")[3]  # the about table


@pytest.mark.parametrize("lang, label", [("pt", "Nesta página:"), ("en", "On this page:")])
def test_model_pages_open_with_a_list_of_their_sections(site, lang, label):
    page = html(site, f"{lang}/models/deepseek-v3.html")
    listed = re.search(rf"<strong>{label}</strong>(.*?)</p>", page).group(1)
    anchors = re.findall(r'href="#([a-z-]+)"', listed)
    assert anchors == ["serve", "fine-tune", "calculator", "weights", "setup", "gpus-per-type", "own-gpu", "commands",
                       "questions", "sources"]
    assert all(f'id="{anchor}"' in page for anchor in anchors)
    assert label not in html(site, f"{lang}/models/deepseek-v3.html.md")  # the twin has no anchors to list


@pytest.mark.parametrize("lang, heading", [("pt", "## Pesos por componente"), ("en", "## Weights by component")])
def test_folded_sections_are_in_the_html_and_the_twin(site, lang, heading):
    page = html(site, f"{lang}/models/kimi-k3.html")
    for anchor in ("weights", "formats", "sources"):
        folded = re.search(rf'<details class="vram-fold"( data-pagefind-ignore="all")? id="{anchor}" open="open">\s*<summary>', page)
        assert folded, anchor
    weights = page[page.index('id="weights"'):page.index('id="formats"')]
    assert "<table class=\"vram-table\">" in weights and ("2,779,832,501,856" in weights or "2.779.832.501.856" in weights)
    assert heading in html(site, f"{lang}/models/kimi-k3.html.md")


def test_a_full_disk_names_the_output_and_keeps_the_previous_site(tmp_path):
    """A write that fails (a file-size limit stands for a full disk: EFBIG as ENOSPC) is one line
    naming the output, not a file of the tool's own it was copying; the previous site stays."""
    import resource
    import signal
    import subprocess
    import sys

    out = tmp_path / "site"
    assert build(out).returncode == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))  # the theme bundle, copied from the venv, fails

    result = subprocess.run([sys.executable, "-m", "generator", "build", "--content", str(FIXTURE), "--out", str(out),
                             "--base-url", "https://other.example/"], capture_output=True, text=True, preexec_fn=limit)
    assert result.returncode == 1 and "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    named = result.stderr.removeprefix("error: ").split(": ")[0]
    assert named == str(out) or named.startswith((f"{out}/", f"{tmp_path}/.site."))
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_build_runs_the_cycle_collector_less_often_and_sets_it_back():
    before = gc.get_threshold()
    with fewer_collections():
        assert gc.get_threshold() == (100_000, 20, 20)
        assert gc.get_freeze_count() > 0  # what was alive at the start is left out of its scans
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError), fewer_collections():  # a failed build too
        raise RuntimeError
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
