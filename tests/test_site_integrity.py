"""Whole-site checks over the built HTML: links, anchors, languages, canonical URLs, JSON-LD.

Most checks read the fixture catalog's site (`built_site`); those that take `site` read it and
the shipped catalog's (`shipped_site`), the suite's one build of the whole of content/, so that a
shipped model that breaks the site fails here.
"""

import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

import pytest

BASE = "https://gpus.arrakis.example/"
LANGS = ("pt", "en")


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids, self.head_links, self.scripts = [], set(), [], []
        self.html_lang, self._script, self.text = None, None, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.html_lang = attrs.get("lang")
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag in ("link", "script", "img") and (attrs.get("href") or attrs.get("src")):
            self.links.append(attrs.get("href") or attrs.get("src"))
        if tag == "link":
            self.head_links.append(attrs)
        if tag == "script" and attrs.get("type") == "application/ld+json":
            self._script = []

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append("".join(self._script))
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self._script.append(data)
        else:
            self.text.append(data)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def html_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.parts)


@pytest.fixture(params=["fixture", "shipped"])
def site(request) -> Path:
    """The fixture catalog's site, then the shipped catalog's."""
    return request.getfixturevalue("built_site" if request.param == "fixture" else "shipped_site")


# Pages of no content of their own, kept out of the sitemap and llms.txt (the search page says
# noindex, the not-found page is served for every missing address).
NOT_CONTENT = {"404.html", "search.html"}


def test_the_search_page_is_out_of_search_engines(built_site):
    for lang in LANGS:
        assert '<meta name="robots" content="noindex">' in (built_site / lang / "search.html").read_text()


def test_every_shipped_model_and_gpu_has_a_page_and_a_twin_in_both_languages(shipped_site, catalog):
    pages = [f"models/{m.slug}" for m in catalog.models] + [f"gpus/{g.slug}" for g in catalog.gpus]
    for lang in LANGS:
        for page in pages + ["index", "models", "gpus"]:
            assert (shipped_site / f"{lang}/{page}.html").is_file(), (lang, page)
            assert (shipped_site / f"{lang}/{page}.html.md").is_file(), (lang, page)
        index = (shipped_site / lang / "models.html").read_text(encoding="utf-8")
        assert [m.slug for m in catalog.models if f'href="models/{m.slug}.html"' not in index] == []


def test_both_languages_load_their_assets_from_one_folder(site):
    assert [lang for lang in LANGS if (site / lang / "assets").exists()] == []
    outside = set()
    for lang in LANGS:
        for path in [*html_pages(site / lang)]:
            for link in parse(path).links:
                if "assets/" in link and not link.startswith("http"):
                    target = (site / link.lstrip("/")) if link.startswith("/") else (path.parent / link)
                    if site / "assets" not in target.resolve().parents:
                        outside.add(f"{path.relative_to(site)}: {link}")
    assert outside == set()
    assert (site / "assets" / "javascripts" / "calculator.js").is_file()


def test_no_broken_internal_link_or_anchor(site):
    parsed = {path: parse(path) for path in html_pages(site)}
    broken = []
    for path, page in parsed.items():
        for link in page.links:
            url, fragment = urldefrag(link)
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "/console/")):
                continue  # other sites, and the cloud's console next to the site
            target = (site / unquote(parts.path).lstrip("/")) if url.startswith("/") else (path.parent / unquote(parts.path))
            target = target.resolve() if url else path
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(site)}: {link}")
            elif fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else parse(target).ids
                if fragment not in ids:
                    broken.append(f"{path.relative_to(site)}: {link} (no #{fragment})")
    assert broken == []


def test_every_page_has_lang_canonical_and_absolute_hreflang_alternates(built_site):
    for lang in LANGS:
        for path in html_pages(built_site / lang):
            if path.name in NOT_CONTENT:
                continue
            page = parse(path)
            relative = path.relative_to(built_site).as_posix()
            assert page.html_lang == lang, relative
            canonical = [link["href"] for link in page.head_links if link.get("rel") == "canonical"]
            assert canonical == [BASE + relative], relative
            alternates = {link["hreflang"]: link["href"] for link in page.head_links if link.get("rel") == "alternate" and link.get("hreflang")}
            own = relative.split("/", 1)[1]
            assert alternates == {"pt": f"{BASE}pt/{own}", "en": f"{BASE}en/{own}", "x-default": f"{BASE}pt/{own}"}, relative


def test_the_sitemap_lists_every_page_and_llms_txt_every_twin(site):
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = {u.find("s:loc", ns).text for u in ET.parse(site / "sitemap.xml").getroot().findall("s:url", ns)}
    pages = {BASE + p.relative_to(site).as_posix() for lang in LANGS for p in html_pages(site / lang) if p.name not in NOT_CONTENT}
    assert locs == pages
    llms = (site / "llms.txt").read_text()
    for url in pages:
        assert f"({url}.md)" in llms
        assert (site / (url.removeprefix(BASE) + ".md")).is_file()


@pytest.mark.parametrize("lang", LANGS)
def test_json_ld_parses_and_its_faq_is_the_pages_own_text(site, lang, request):
    # the shipped catalog has an inventory.yaml: its pages also answer "Can I run it on Arrakis today?"
    questions = 5 if "shipped" in request.node.callspec.id else 4
    for path in (site / lang / "models").glob("*.html"):
        page = parse(path)
        assert len(page.scripts) == 1, path
        data = json.loads(page.scripts[0])
        types = {node["@type"]: node for node in data["@graph"]}
        faq = types["FAQPage"]["mainEntity"]
        assert len(faq) == questions
        visible = " ".join("".join(page.text).split())
        for item in faq:  # spaces compared as spaces (prices in Portuguese hold a no-break space)
            answer = " ".join(item["acceptedAnswer"]["text"].split())
            assert item["name"] in visible and answer in visible, item["name"]
        crumbs = types["BreadcrumbList"]["itemListElement"]
        assert [c["item"] for c in crumbs] == [f"{BASE}{lang}/index.html", f"{BASE}{lang}/models.html", BASE + path.relative_to(site).as_posix()]


def test_kimi_k3_faq_in_json_ld(built_site):
    data = json.loads(parse(built_site / "pt" / "models" / "kimi-k3.html").scripts[0])
    faq = next(node for node in data["@graph"] if node["@type"] == "FAQPage")["mainEntity"]
    assert faq[1] == {"@type": "Question", "name": "Posso rodar o Kimi-K3 em uma única GPU?",
                      "acceptedAnswer": {"@type": "Answer", "text": "Não. Mesmo em 4 bits ele precisa de cerca de 1.668 GB: 8 GPUs B300."}}


@pytest.mark.parametrize("lang", LANGS)
def test_a_404_page_per_language(built_site, lang):
    page = (built_site / lang / "404.html").read_text()
    assert f'<html lang="{lang}"' in page and {"pt": "Página não encontrada", "en": "Page not found"}[lang] in page
