"""What a reader downloads for a first search: figures, not assertions.

    python benchmarks/search_weight.py [--models 5000] [--site DIR] [--screenshot FILE]

Builds a synthetic catalog of --models models (benchmarks/synthetic.py: the shipped models cycled
under new names), or takes a built --site, serves it, and in Chromium opens a Kimi-K3 page, types
words in the header's search box and waits for the results. Every file the browser received is
counted once, as served (this server does not compress) and gzip-compressed (what a static host
sends; Pagefind's index files are already compressed), apart for the model page and for the
search. Target: at most 1 MB for the first search at 5,000 models. With --screenshot, saves the
Portuguese results for "especialistas" (docs/screenshot-search-pt.png in the README).
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.build_scale import run_build  # noqa: E402
from benchmarks.calculator_weight import serve  # noqa: E402
from benchmarks.synthetic import write_catalog  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
SEARCHES = [("pt", "especialistas"), ("pt", "RTX 4090"), ("en", "mixture of experts"), ("en", "sliding window"), ("en", "Qwen3")]


def first_search(browser, base: str, model_page: str, words: str, screenshot: Path | None = None) -> dict:
    """Bytes of one first search: the model page (its HTML, styles, scripts, data), then the search
    (the search page, Pagefind's scripts, wasm, index chunks and the results' fragments). A file is
    counted once: the second page takes the first one's from the browser cache on a real host."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    bodies: dict[str, tuple[str, bytes]] = {}
    phase = ["page"]

    def received(response) -> None:
        url = response.url.split("?")[0]
        if response.status == 200 and url not in bodies:
            bodies[url] = (phase[0], response.body())

    page.on("response", received)
    page.goto(base + model_page)
    page.wait_for_load_state("networkidle")
    phase[0] = "search"
    box = page.locator("header form[role=search] input[name=q]")
    box.fill(words)
    box.press("Enter")
    page.locator(".pagefind-ui__result-link").first.wait_for(timeout=60_000)
    page.wait_for_load_state("networkidle")
    shown = page.locator(".pagefind-ui__result").count()
    if screenshot:
        page.screenshot(path=str(screenshot))
    context.close()
    figures = {"shown": shown}
    for name in ("page", "search"):
        parts = [body for kind, body in bodies.values() if kind == name]
        figures[name] = (len(parts), sum(map(len, parts)), sum(min(len(b), len(gzip.compress(b, mtime=0))) for b in parts))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", type=int, default=5000, help="synthetic catalog size (default 5000)")
    parser.add_argument("--site", type=Path, help="a built site to measure instead of building one")
    parser.add_argument("--screenshot", type=Path, help="save the Portuguese results for 'especialistas' here")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="vram-search-") as temporary:
        site = args.site
        if site is None:
            print(f"building {args.models:,} models...", file=sys.stderr, flush=True)
            content = write_catalog(Path(temporary) / "content", args.models)
            site = Path(temporary) / "site"
            seconds, _ = run_build(content, site)
            print(f"built in {seconds:.0f} s", file=sys.stderr)
        bundle = site / "pagefind"
        size = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file())
        pages = len(list(site.glob("*/models/*.html"))) + len(list(site.glob("*/gpus/*.html")))
        print(f"Pagefind bundle: {size / 1e6:.1f} MB for {pages:,} model and GPU pages (both languages)")
        server, base = serve(site)
        print()
        print("| language | words | model page: requests, KB, KB gzip | then the search: requests, KB, KB gzip | results shown |")
        print("|---|---|---:|---:|---:|")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            for lang, words in SEARCHES:
                shot = args.screenshot if args.screenshot and (lang, words) == ("pt", "especialistas") else None
                # a Kimi-K3 page (the synthetic catalogs rename models: kimi-k3-s39)
                model_page = min(p.relative_to(site).as_posix() for p in site.glob(f"{lang}/models/kimi-k3*.html"))
                f = first_search(browser, base, model_page, words, shot)
                cells = [f"{n}, {raw / 1000:.0f}, {packed / 1000:.0f}" for n, raw, packed in (f["page"], f["search"])]
                print(f"| {lang} | {words} | {cells[0]} | {cells[1]} | {f['shown']} |")
            browser.close()
        server.shutdown()
    print("\nthe search: from pressing Enter on the model page to the results on screen, each file once;"
          " target ≤ 1,000 KB")


if __name__ == "__main__":
    main()
