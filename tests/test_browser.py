"""The site as readers use it, in a real Chromium (Debian's package) driven by Playwright.

The site is the fixture catalog's (tests/fixtures/catalog/): the page types and widgets are the
same whatever the catalog holds.
"""

import os
import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.conftest import FIXTURE, ROOT, run_build

ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
INSTALL = "apt-get install -y chromium"
# The flags this machine needs: no sandbox as root, no GPU, and no background calls to the internet.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update"]
PAGES = ["index", "models", "gpus", "models/kimi-k3", "gpus/b300", "404"]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if shutil.which(CHROMIUM) is None:
        message = f"Chromium is not installed at {CHROMIUM}: install it with `{INSTALL}`"
        if os.environ.get("CI"):
            pytest.fail(message + " (in CI a skipped browser test is a failure)")
        pytest.skip(message)
    return CHROMIUM


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def server(tmp_path_factory, chromium_path):
    """The site built for http://127.0.0.1:PORT/ and served there."""
    out = tmp_path_factory.mktemp("served") / "site"
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(out)))
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    result = run_build(FIXTURE, out, "--base-url", base)
    assert result.returncode == 0, result.stderr
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield base
    httpd.shutdown()


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: m.type == "error" and page.problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: page.problems.append(f"page error: {e}"))
    # a request cut short because the reader moved on to another page is not a failure
    page.on("requestfailed", lambda r: r.failure != "net::ERR_ABORTED" and page.problems.append(f"failed: {r.url} ({r.failure})"))

    def check_response(response):
        if response.status >= 400 and not response.url.endswith("/404.html"):
            page.problems.append(f"{response.status}: {response.url}")
        if not response.url.startswith(server):
            page.problems.append(f"outside the site: {response.url}")

    page.on("response", check_response)
    yield page
    context.close()


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
    page.goto(f"{server}{lang}/{path}.html")
    page.hover(".md-header__option .md-select")
    page.click(f".md-select__link[hreflang={other}]")
    page.wait_for_url(f"{server}{other}/{path}.html")
    assert page.locator("html").get_attribute("lang") == other
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_index_and_gpu_links_resolve(page, server, lang):
    page.goto(f"{server}{lang}/models.html")
    page.click("article a[href='models/kimi-k3.html']")
    page.wait_for_url(f"{server}{lang}/models/kimi-k3.html")
    page.click("article table a[href='../gpus/b300.html'] >> nth=0")
    page.wait_for_url(f"{server}{lang}/gpus/b300.html")
    assert "B300" in page.locator("h1").inner_text()
    page.click("article a[href='../models/kimi-k3.html'] >> nth=0")
    page.wait_for_url(f"{server}{lang}/models/kimi-k3.html")
    assert page.problems == []


@pytest.mark.parametrize("lang, query, slug", [("pt", "Qwen3-Next", "qwen3-next-80b-a3b-instruct"), ("en", "Kimi-K3", "kimi-k3")])
def test_search_finds_a_model_by_name_and_opens_it(page, server, lang, query, slug):
    page.goto(f"{server}{lang}/index.html")
    page.click(".md-search__input")
    page.locator(".md-search__input").press_sequentially(query, delay=50)  # as a reader types
    result = page.locator(f".md-search-result__link[href$='models/{slug}.html']").first
    result.wait_for(timeout=15_000)
    result.click()
    page.wait_for_url(f"{server}{lang}/models/{slug}.html")
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
@pytest.mark.parametrize("path", ["models/kimi-k3", "models", "gpus/b300"])
def test_nothing_overflows_a_phone_screen(browser, server, lang, path):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    page = context.new_page()
    page.goto(f"{server}{lang}/{path}.html")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    wide = page.evaluate("""() => [...document.querySelectorAll('article table')]
        .filter(t => t.scrollWidth > 390)
        .map(t => getComputedStyle(t.closest('.md-typeset__scrollwrap') || t).overflowX)""")
    assert all(overflow in ("auto", "scroll") for overflow in wide), wide
    context.close()


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
@pytest.mark.parametrize("path", ["models/kimi-k3", "models", "gpus/b300"])
def test_no_serious_accessibility_violation(page, server, lang, path):
    from axe_playwright_python.sync_playwright import Axe

    page.goto(f"{server}{lang}/{path}.html")
    page.wait_for_load_state("networkidle")
    violations = Axe().run(page).response["violations"]
    serious = [(v["id"], v["impact"], len(v["nodes"])) for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == []
