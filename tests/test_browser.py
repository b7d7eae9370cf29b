"""The site as readers use it, in a real Chromium (Debian's package) driven by Playwright
(the browser fixtures are in conftest.py).

The site is the fixture catalog's (tests/fixtures/catalog/): the page types and widgets are the
same whatever the catalog holds.
"""

import re
import shutil
import threading
from functools import partial
from http.server import ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from tests.conftest import FIXTURE, ROOT, QuietHandler, run_build

ARTIFACTS = ROOT / "test-artifacts"
PAGES = ["index", "models", "gpus", "models/kimi-k3", "gpus/b300", "fit", "search", "404"]


@pytest.mark.parametrize("lang", ["pt", "en"])
@pytest.mark.parametrize("path", PAGES)
def test_every_page_type_loads_cleanly(page, server, lang, path):
    page.goto(f"{server}{lang}/{path}.html")
    page.wait_for_load_state("networkidle")
    assert page.locator("h1").first.is_visible()
    assert page.problems == []


@pytest.mark.parametrize("lang, other", [("pt", "en"), ("en", "pt")])
@pytest.mark.parametrize("path", ["models/kimi-k3", "gpus/b300", "models"])
def test_language_switcher_opens_the_same_page(page, server, lang, other, path):
    assets = []  # (language of the page, address of a style, script or image)
    page.on("request", lambda r: r.resource_type in ("stylesheet", "script", "image")
            and assets.append((page.url.removeprefix(server)[:2], r.url)))
    page.goto(f"{server}{lang}/{path}.html")
    page.wait_for_load_state("networkidle")
    page.hover(".md-header__option .md-select")
    page.click(f".md-select__link[hreflang={other}]")
    # a model page's calculator keeps its question in the address, and the switch keeps it too
    page.wait_for_url(f"{server}{other}/{path}.html*")
    page.wait_for_load_state("networkidle")
    assert page.locator("html").get_attribute("lang") == other
    # the other language's page asks for the very files the first one had: nothing to download again
    first = {url for page_lang, url in assets if page_lang == lang}
    assert first and {url for page_lang, url in assets if page_lang == other} <= first
    assert all(url.startswith(f"{server}assets/") for url in first)
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_index_and_gpu_links_resolve(page, server, lang):
    page.goto(f"{server}{lang}/models.html")
    page.click("article a[href='models/kimi-k3.html']")
    page.wait_for_url(f"{server}{lang}/models/kimi-k3.html*")  # the calculator then writes its question
    page.click("article table a[href='../gpus/b300.html'] >> nth=0")
    page.wait_for_url(f"{server}{lang}/gpus/b300.html")
    assert "B300" in page.locator("h1").inner_text()
    page.click("article a[href='../models/kimi-k3.html'] >> nth=0")
    page.wait_for_url(f"{server}{lang}/models/kimi-k3.html*")  # the calculator then writes its question
    assert page.problems == []


# (language, words a reader types, a page the results must link to): terms of the pages' text, not
# only titles, in each language; a GPU; a model family.
SEARCHES = [
    ("en", "mixture of experts", "models/kimi-k3"),
    ("en", "sliding window", "models/mistral-7b-v0-1"),
    ("pt", "especialistas", "models/kimi-k3"),
    ("pt", "janela deslizante", "models/mistral-7b-v0-1"),
    ("en", "B300", "gpus/b300"),
    ("pt", "B300", "gpus/b300"),
    ("pt", "Qwen3", "models/qwen3-next-80b-a3b-instruct"),
    ("en", "Llama", "models/llama-3-1-8b-instruct"),
]
# The search page's words in each language (Pagefind's UI, translated by gettext).
SEARCH_WORDS = {"pt": ("Busque modelos, GPUs e termos", r"^\d+ resultados? para {}$"),
                "en": ("Search models, GPUs and terms", r"^\d+ results? for {}$")}


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang, words, target", SEARCHES)
def test_search_finds_words_of_the_pages_text_and_opens_the_page(page, server, width, lang, words, target):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{server}{lang}/models/deepseek-v2.html")
    form = page.locator("header form[role=search]")
    if width >= 960:  # the header's box; on a phone its button opens the search page and its box
        form.locator("input[name=q]").fill(words)
        form.locator("input[name=q]").press("Enter")
    else:
        assert not form.locator("input[name=q]").is_visible()
        form.locator("button").click()
        page.wait_for_url(f"{server}{lang}/search.html*")
        page.locator(".pagefind-ui__search-input").press_sequentially(words, delay=30)  # as a reader types
    page.wait_for_url(f"{server}{lang}/search.html*")
    placeholder, found = SEARCH_WORDS[lang]
    assert page.locator(".pagefind-ui__search-input").get_attribute("placeholder") == placeholder
    # the results of the whole words (a reader's first letters are searched too, as they type)
    page.locator(".pagefind-ui__message").filter(has_text=re.compile(found.format(re.escape(words)))).wait_for(timeout=30_000)
    # every result is a page of this language (the message comes first, then the results one by one)
    page.locator(".pagefind-ui__result-link").first.wait_for(timeout=30_000)
    links = page.locator(".pagefind-ui__result-link").evaluate_all("links => links.map(a => a.pathname)")
    assert links and all(link.startswith(f"/{lang}/") for link in links)
    result = page.locator(f".pagefind-ui__result-link[href='/{lang}/{target}.html']").first
    more = page.locator(".pagefind-ui__button")  # "More results", while the page is not shown yet
    for _ in range(40):  # the results render one by one, each once its fragment is loaded
        if result.count():
            break
        if more.is_visible():
            more.click()
        page.wait_for_timeout(250)
    result.click()
    page.wait_for_url(f"{server}{lang}/{target}.html*")
    assert page.problems == []


@pytest.fixture(scope="module")
def site_in_search_parts(tmp_path_factory, chromium_path):
    """The fixture catalog with its search index in parts of 5 pages of a language (16 pages: 6 parts),
    served: what a site of a thousand models or more gets with the default of 250 pages a part."""
    out = tmp_path_factory.mktemp("parts") / "site"
    result = run_build(FIXTURE, out, "--search-part-pages", "5")
    assert result.returncode == 0, result.stderr
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(out)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield out, f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.mark.parametrize("lang, words", [("en", "RTX 4090"), ("pt", "RTX 4090")])
def test_a_search_index_in_parts_finds_pages_of_every_part(browser, site_in_search_parts, lang, words):
    out, base = site_in_search_parts
    parts = sorted(p.parent.relative_to(out).as_posix() for p in out.rglob("pagefind-entry.json"))
    assert parts == ["pagefind"] + [f"pagefind/part-{part}" for part in range(1, 6)]
    page = browser.new_context().new_page()
    page.goto(f"{base}{lang}/search.html?q={words.replace(' ', '+')}")
    page.locator(".pagefind-ui__result-link").first.wait_for(timeout=30_000)
    more = page.locator(".pagefind-ui__button")
    for _ in range(20):  # every result shown
        if not more.is_visible():
            break
        more.click()
        page.wait_for_timeout(250)
    links = set(page.locator(".pagefind-ui__result-link").evaluate_all("links => links.map(a => a.pathname)"))
    # the GPU's page (part 1: gpus/mi300x to models) and model pages (parts 3 and 4) come together
    assert f"/{lang}/gpus/rtx-4090.html" in links
    assert f"/{lang}/models/llama-3-1-8b-instruct.html" in links and f"/{lang}/models/mistral-7b-v0-1.html" in links
    assert all(link.startswith(f"/{lang}/") for link in links)
    page.context.close()


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_search_page_without_words_waits_for_them_in_its_language(page, server, lang):
    page.goto(f"{server}{lang}/search.html")
    box = page.locator(".pagefind-ui__search-input")
    box.wait_for()
    assert box.get_attribute("placeholder") == SEARCH_WORDS[lang][0]
    assert page.locator("html").get_attribute("lang") == lang
    assert page.evaluate("document.activeElement.classList.contains('pagefind-ui__search-input')")
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
@pytest.mark.parametrize("path", ["models/kimi-k3", "models/llama-3-1-8b-instruct", "models", "gpus/b300", "fit", "search.html?q=B300"])
def test_nothing_overflows_a_phone_screen(browser, server, lang, path):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    page = context.new_page()
    page.goto(f"{server}{lang}/{path}" if "." in path else f"{server}{lang}/{path}.html")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    wide = page.evaluate("""() => [...document.querySelectorAll('article table')]
        .filter(t => t.scrollWidth > 390)
        .map(t => getComputedStyle(t.closest('.md-typeset__scrollwrap') || t).overflowX)""")
    assert all(overflow in ("auto", "scroll") for overflow in wide), wide
    context.close()


# What vLLM does on each of the headline's setups, right under the headline table (one story per
# page): the fixture's Llama-3.1-8B-Instruct holds 36,800 tokens on one RTX 4090 at 16 bits, and
# needs 2 for its full 131,072-token context, as "A setup to serve it" says further down.
STORY = {
    "pt": ("Com 16 bits, em 1 × RTX 4090, o vLLM 0.33.0 inicia com até 36.800 tokens de contexto, não os 131.072 completos.",
           "Para uma sequência no contexto completo: 2 × RTX 4090, a partir de US$\u00a00,68 por hora"),
    "en": ("At 16 bits on 1 × RTX 4090, vLLM 0.33.0 starts with up to 36,800 tokens of context, not the full 131,072.",
           "For one sequence at the full context: 2 × RTX 4090, from $0.68 per hour"),
}


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_headline_table_is_followed_by_what_the_engine_does_on_its_setups(page, server, lang, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{server}{lang}/models/llama-3-1-8b-instruct.html")
    items = page.locator("article h2#serve ~ .md-typeset__scrollwrap + p + ul").first.locator("li")
    assert items.count() == 4  # 16, 8 and 4 bits, then the full context
    assert items.nth(0).inner_text() == STORY[lang][0]
    assert items.nth(3).inner_text().startswith(STORY[lang][1])
    assert items.nth(0).is_visible()
    setup = page.locator("h2#setup + p")
    assert "2 × RTX 4090" in setup.inner_text()
    assert page.problems == []


@pytest.mark.parametrize("lang, other", [("pt", "en"), ("en", "pt")])
def test_the_language_switch_keeps_the_search(page, server, lang, other):
    page.goto(f"{server}{lang}/search.html?q=B300")
    page.locator(".pagefind-ui__result-link").first.wait_for(timeout=30_000)
    page.hover(".md-header__option .md-select")
    page.click(f".md-select__link[hreflang={other}]")
    page.wait_for_url(f"{server}{other}/search.html?q=B300")
    page.locator(f".pagefind-ui__result-link[href='/{other}/gpus/b300.html']").first.wait_for(timeout=30_000)
    assert page.problems == []


@pytest.mark.parametrize("words", ['<img src=x onerror="document.title=1">', '"><script>document.title=2</script>', "B300" * 2000])
def test_hostile_search_words_in_the_address_stay_text(page, server, words):
    from urllib.parse import quote

    page.goto(f"{server}en/search.html?q={quote(words)}")
    message = page.locator(".pagefind-ui__message")
    message.wait_for(timeout=30_000)
    assert page.title() not in ("1", "2")
    assert page.locator("#vram-search img, #vram-search script").count() == 0
    assert words[:200] in message.inner_text()  # as text, and at most 200 characters of it searched
    assert len(words) <= 200 or words[:201] not in message.inner_text()
    assert page.problems == []


# Catalog text in the page's language (content/models/kimi-k3.yaml gives its format in both).
PUBLISHED_FORMAT = {"pt": "MXFP4 (especialistas roteados) + BF16 (restante)", "en": "MXFP4 (routed experts) + BF16 (rest)"}


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("lang", ["pt", "en"])
def test_catalog_text_is_in_the_pages_language(page, server, lang, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{server}{lang}/models/kimi-k3.html")
    row = page.locator("article tr", has_text={"pt": "Formato publicado", "en": "Published format"}[lang])
    row.scroll_into_view_if_needed()  # tables are laid out as they come near the screen
    expect(row.locator("td").nth(1)).to_have_text(PUBLISHED_FORMAT[lang], use_inner_text=True)
    other = PUBLISHED_FORMAT["en" if lang == "pt" else "pt"]
    assert other not in page.locator("article").text_content()  # the whole text, laid out or not


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_screenshots_of_the_kimi_k3_page(browser, server, lang):
    ARTIFACTS.mkdir(exist_ok=True)
    for name, viewport in (("desktop", {"width": 1280, "height": 1000}), ("phone", {"width": 390, "height": 844})):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.goto(f"{server}{lang}/models/kimi-k3.html")
        page.wait_for_load_state("networkidle")
        path = ARTIFACTS / f"kimi-k3-{lang}-{name}.png"
        page.screenshot(path=str(path), full_page=False)
        assert path.stat().st_size > 10_000
        context.close()


@pytest.mark.parametrize("lang", ["pt", "en"])
@pytest.mark.parametrize("path", ["models/kimi-k3", "models", "gpus/b300", "fit"])
def test_no_serious_accessibility_violation(page, server, lang, path):
    from axe_playwright_python.sync_playwright import Axe

    page.goto(f"{server}{lang}/{path}.html")
    page.wait_for_load_state("networkidle")
    violations = Axe().run(page).response["violations"]
    serious = [(v["id"], v["impact"], len(v["nodes"])) for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_gpus_index_sorts_and_filters_like_the_models_index(page, server, fixture_catalog, lang):
    page.goto(f"{server}{lang}/gpus.html?vendor=AMD")
    page.wait_for_function("!document.querySelector('[data-vram-index] form').hidden")
    rows = "[...document.querySelectorAll('tr[data-gpu]')].filter(r => !r.hidden)"
    assert page.locator("tr[data-gpu]").count() == len(fixture_catalog.gpus)
    amd = {g.slug for g in fixture_catalog.gpus if g.vendor == "AMD"}
    assert set(page.evaluate(f"() => {rows}.map(r => r.dataset.gpu)")) == amd == {"mi300x", "mi325x"}
    page.select_option("[data-vram-index] select[name=vendor]", "")
    page.fill("[data-vram-index] input[name=memory-gb]", "150")  # at least 150 GB
    assert set(page.evaluate(f"() => {rows}.map(r => r.dataset.gpu)")) == {
        g.slug for g in fixture_catalog.gpus if g.memory_bytes >= 150e9}
    assert "memory-gb=150" in page.url
    page.fill("[data-vram-index] input[name=memory-gb]", "")
    page.check("[data-vram-index] input[name=priced]")
    assert set(page.evaluate(f"() => {rows}.map(r => r.dataset.gpu)")) == {
        g.slug for g in fixture_catalog.gpus if g.price_per_gpu_hour is not None}
    page.uncheck("[data-vram-index] input[name=priced]")
    # by price, cheapest first, the GPUs without a price last whichever the direction
    page.click("button[data-sort=price]")
    prices = page.evaluate(f"() => {rows}.map(r => r.dataset.price)")
    priced = [p for p in prices if p]
    assert [float(p) for p in priced] == sorted(float(p) for p in priced) and prices[len(priced):] == [""] * (len(prices) - len(priced))
    page.click("button[data-sort=price]")
    prices = page.evaluate(f"() => {rows}.map(r => r.dataset.price)")
    assert [float(p) for p in prices if p] == sorted((float(p) for p in prices if p), reverse=True) and prices[-1] == ""
    page.click("button[data-sort=memory]")
    memories = page.evaluate(f"() => {rows}.map(r => Number(r.dataset.memory))")
    assert memories == sorted(memories)
    assert page.problems == []


@pytest.mark.parametrize("path, scripts", [
    ("en/index.html", []), ("pt/gpus/h100-sxm.html", []), ("en/search.html", []),
    ("en/gpus.html", ["tables.js"]), ("pt/models.html", ["tables.js"]),
    ("en/models/llama-3-1-8b-instruct.html", ["tables.js", "planner.js", "calculator.js"]),
    ("pt/fit.html", ["tables.js", "planner.js", "calculator.js"]),
    ("index.html", None),  # the root page: it sends the reader to a language
])
def test_a_page_loads_only_the_scripts_it_uses_and_its_icon_once(page, server, path, scripts):
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{server}{path}")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)  # a calculator's answer, and anything it would fetch after
    ours = [url.rsplit("/", 1)[1] for url in requests if "/assets/javascripts/" in url and "bundle." not in url]
    if scripts is not None:
        assert ours == scripts
    icons = [url for url in requests if "favicon" in url]
    assert len(icons) == 1 and icons[0].endswith("/assets/images/favicon.png"), icons
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_models_index_sorts_and_filters(page, server, fixture_catalog, lang):
    page.goto(f"{server}{lang}/models.html?bits=4&fits-in-gb=100")
    page.wait_for_function("!document.querySelector('[data-vram-index] form').hidden")
    rows = "[...document.querySelectorAll('tr[data-model]')].filter(r => !r.hidden)"
    # served newest first, the release date column marked so (fixture dates, tests/fixtures/catalog/models)
    assert page.evaluate("() => [...document.querySelectorAll('tr[data-model]')].map(r => r.dataset.model)") == [
        "kimi-k3", "qwen3-next-80b-a3b-instruct", "deepseek-v3", "llama-3-1-8b-instruct", "deepseek-v2",
        "mistral-7b-v0-1"]
    assert page.get_attribute("th:has(button[data-sort=released])", "aria-sort") == "descending"
    assert page.locator("tr[data-model=kimi-k3] time").inner_text() == {"en": "July 27, 2026", "pt": "27 de julho de 2026"}[lang]
    page.click("button[data-sort=released]")  # a first click reverses the served order: oldest first
    assert page.evaluate("() => [...document.querySelectorAll('tr[data-model]')].map(r => r.dataset.released)") == [
        "2023-09-27", "2024-05-06", "2024-07-23", "2024-12-26", "2025-09-11", "2026-07-27"]
    assert page.get_attribute("th:has(button[data-sort=released])", "aria-sort") == "ascending"
    visible = page.evaluate(f"() => {rows}.map(r => Number(r.dataset.bytes4))")
    assert visible and all(size <= 100e9 for size in visible)
    assert page.locator("tr[data-model]").count() == len(fixture_catalog.models)
    page.fill("[data-vram-index] input[name=fits-in-gb]", "")
    page.select_option("[data-vram-index] select[name=family]", "deepseek-ai")
    assert set(page.evaluate(f"() => {rows}.map(r => r.dataset.family)")) == {"deepseek-ai"}
    assert "family=deepseek-ai" in page.url
    page.select_option("[data-vram-index] select[name=family]", "")
    page.click("button[data-sort=bytes16]")
    sizes = page.evaluate(f"() => {rows}.map(r => Number(r.dataset.bytes16))")
    assert sizes == sorted(sizes) and len(sizes) == len(fixture_catalog.models)
    page.click("button[data-sort=bytes16]")  # again: largest first
    assert page.evaluate(f"() => {rows}.map(r => Number(r.dataset.bytes16))") == sorted(sizes, reverse=True)
    assert page.get_attribute("th:has(button[data-sort=bytes16])", "aria-sort") == "descending"
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_detailed_sections_fold_on_phones_and_open_on_demand(browser, server, lang):
    for width, opened in ((1280, True), (390, False)):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.goto(f"{server}{lang}/models/kimi-k3.html")
        page.wait_for_load_state("networkidle")
        states = page.evaluate("() => [...document.querySelectorAll('details.vram-fold')].map(d => [d.id, d.open])")
        assert [name for name, _ in states] == ["weights", "formats", "checkpoints", "kv-cache", "gpus-per-type", "method", "sources"]
        assert all(state == opened for _, state in states), (width, states)
        if not opened:  # a tap opens one; its table was in the page all along
            page.click("details#weights > summary")
            assert page.evaluate("document.querySelector('details#weights').open")
            assert page.locator("details#weights table").is_visible()
        context.close()


def test_a_local_preview_of_the_production_build_requests_nothing_outside(browser, tmp_path):
    """Built for its production address and opened from a local server (python -m http.server):
    the theme fetches no sitemap beside the hreflang alternates, so nothing leaves the preview."""
    out = tmp_path / "site"
    assert run_build(FIXTURE, out).returncode == 0
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(out)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    context = browser.new_context()
    page = context.new_page()
    requests, errors = [], []
    page.on("request", lambda request: requests.append(request.url))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    for path in ("pt/models/kimi-k3.html", "en/gpus/b300.html", "en/models.html"):
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
    context.close()
    httpd.shutdown()
    assert [url for url in requests if not url.startswith(base)] == [] and errors == []
    assert not any(url.endswith("sitemap.xml") for url in requests)


def test_the_models_index_filters_what_runs_on_the_platform_today(browser, tmp_path):
    """The fixture catalog with a stock of one RTX 4090 (24 GB): at 4 bits only the 8B and 7B models
    (about 4.8 and 4.3 GB) fit a setup in stock; the box keeps only them, and the address says so.
    The calculator and the fit page plan on that stock when asked ("In stock on Arrakis"): its one
    GPU type, its one machine shape, its price."""
    content = tmp_path / "content"
    shutil.copytree(FIXTURE, content, ignore=shutil.ignore_patterns("README.md"))
    (content / "inventory.yaml").write_text("sample: false\noffers:\n  - {gpu: rtx-4090, machines: [1], multi_node: false, "
                                            "price_per_gpu_hour: 0.40, date: 2026-07-18, source: feed}\n", encoding="utf-8")
    out = tmp_path / "site"
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(out)))
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    assert run_build(content, out, "--base-url", base).returncode == 0
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    page = browser.new_context().new_page()
    try:
        for lang, label in (("en", "Runs on Arrakis today"), ("pt", "Roda hoje na Arrakis")):
            page.goto(f"{base}{lang}/models.html")
            page.wait_for_function("!document.querySelector('[data-vram-index] form').hidden")
            shown = "() => [...document.querySelectorAll('tr[data-model]')].filter(r => !r.hidden).map(r => r.dataset.model)"
            assert len(page.evaluate(shown)) == 6
            page.get_by_label(label).check()
            assert sorted(page.evaluate(shown)) == ["llama-3-1-8b-instruct", "mistral-7b-v0-1"]
            assert "in-stock=1" in page.url
            page.goto(f"{base}{lang}/models.html?in-stock=1")  # the address asks it again
            page.wait_for_function("!document.querySelector('[data-vram-index] form').hidden")
            assert sorted(page.evaluate(shown)) == ["llama-3-1-8b-instruct", "mistral-7b-v0-1"]
        # the calculator plans on the stock: its one GPU type, its machine shape and its price
        enabled = "sel => [...document.querySelector(sel).options].filter(o => !o.disabled).map(o => o.value)"
        page.goto(f"{base}en/models/llama-3-1-8b-instruct.html?offer=stock&gpu=h100-sxm&count=1&context=8192")
        price = page.locator("#calculator [data-out='price_per_hour']")
        price.wait_for(state="visible")
        page.wait_for_function("document.querySelector(\"#calculator [data-out='price_per_hour']\").textContent !== ''")
        assert page.evaluate(enabled, "#calculator select[name=gpu]") == ["rtx-4090"]
        assert price.text_content() == "$0.40 per hour (price of July 18, 2026)"
        assert "offer=stock" in page.url and "gpu=rtx-4090" in page.url
        page.fill("#calculator input[name=count]", "2")  # no machine of 2 in stock, nor joined ones
        note = page.locator("#calculator [data-out='note']")
        note.wait_for(state="visible")
        assert note.inner_text() == "GPUs per machine in stock on Arrakis for the RTX 4090: 1."
        page.select_option("#calculator select[name=offer]", "any")  # the market again: every GPU
        assert len(page.evaluate(enabled, "#calculator select[name=gpu]")) > 5
        page.wait_for_function("!location.search.includes('offer=stock')")
        # the fit page too, in Portuguese
        page.goto(f"{base}pt/fit.html?offer=stock")
        page.wait_for_function("document.querySelector('[data-vram-fit] form') && !document.querySelector('[data-vram-fit] form').hidden")
        assert page.evaluate(enabled, "[data-vram-fit] select[name=gpu]") == ["rtx-4090"]
        assert page.locator("[data-vram-fit] select[name=offer] option:checked").inner_text() == "Em estoque na Arrakis"
    finally:
        page.context.close()
        httpd.shutdown()
