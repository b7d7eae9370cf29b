"""Shared fixtures: the shipped catalog, the small fixture catalog, sites built from them, and a real browser.

Page and site tests use the fixture catalog (tests/fixtures/catalog/README.md): six frozen copies of
shipped models, each there for one feature, so that they stay fast and catalog edits do not break
them. The shipped catalog (content/) is checked for validity, for the seed page, and built once as
a whole site (`shipped_site`), so that a model that breaks the build still fails the suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from generator.catalog.loader import load_catalog
from generator.site.render import Renderer
from generator.site.view_models import build_page

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"  # the shipped catalog
FIXTURE = ROOT / "tests" / "fixtures" / "catalog"  # the feature-driven fixture catalog


def run_build(content: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    """`python -m generator build` on a catalog folder, as a reader would run it."""
    return subprocess.run(
        [sys.executable, "-m", "generator", "build", "--content", str(content), "--out", str(out), *extra],
        capture_output=True, text=True, cwd=ROOT,
    )


def twin(catalog, lang: str, path: str) -> str:
    """The Markdown twin of one page (`models/kimi-k3`) in `lang`, built alone."""
    return Renderer(catalog.site, lang).render(build_page(catalog, path), twin=True)


@pytest.fixture(scope="session")
def catalog():
    """The shipped catalog (content/)."""
    return load_catalog(CONTENT)


@pytest.fixture(scope="session")
def seed_catalog(catalog):
    """The shipped catalog with the seed page's price list: the brand's own (the sample stock's
    8 × B300, inventory.yaml), none of the market's, which the daily feed changes (the seed page is
    Arrakis's page, priced from its own stock)."""
    from dataclasses import replace

    # the seed's prices as the seed page had them: current (the shipped prices_date moves with the feed)
    own = tuple(replace(gpu, price_stale=False) if gpu.price_provider == catalog.site.brand else
                replace(gpu, price_per_gpu_hour=None, price_provider=None, price_date=None, price_stale=False)
                for gpu in catalog.gpus)
    return replace(catalog, gpus=own)


@pytest.fixture(scope="session")
def seed_content(tmp_path_factory, catalog) -> Path:
    """content/ with the seed page's price list (seed_catalog: the sample stock, no market price),
    for the commands that read a folder."""
    target = tmp_path_factory.mktemp("seed") / "content"
    shutil.copytree(CONTENT, target)
    gpus = target / "gpus.yaml"
    own = (f"provider: {catalog.site.brand},", f'provider: "{catalog.site.brand}",')
    lines = [line for line in gpus.read_text(encoding="utf-8").split("\n")
             if not line.startswith("    price_per_gpu_hour:") or any(mark in line for mark in own)]
    gpus.write_text("\n".join(lines), encoding="utf-8")
    return target


@pytest.fixture(scope="session")
def fixture_catalog():
    """The fixture catalog (tests/fixtures/catalog/)."""
    return load_catalog(FIXTURE)


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture catalog, in a folder named `content` like the shipped one."""
    target = tmp_path / "content"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("README.md"))
    return target


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The fixture catalog built by the real CLI (MkDocs included), once per test run."""
    out = tmp_path_factory.mktemp("build") / "site"
    result = run_build(FIXTURE, out)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def shipped_site(tmp_path_factory) -> Path:
    """The shipped catalog built by the real CLI, once per test run: every model must build."""
    out = tmp_path_factory.mktemp("shipped") / "site"
    result = run_build(CONTENT, out)
    assert result.returncode == 0, result.stderr
    return out


# ---- a real browser: Debian's Chromium, driven by Playwright --------------------------------------
CHROMIUM = "/usr/bin/chromium"
INSTALL = "apt-get install -y chromium"
# The flags this machine needs: no sandbox as root, no GPU, and no background calls to the internet.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update"]


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
    """The fixture catalog's site built for http://127.0.0.1:PORT/ and served there."""
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
    """A desktop page that records console errors, failed requests and requests outside the site."""
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
