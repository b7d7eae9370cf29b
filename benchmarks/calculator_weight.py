"""What the calculator adds to a page, and how fast it answers: figures, not assertions.

    python benchmarks/calculator_weight.py [--site DIR] [--screenshots DIR]

Builds the shipped catalog (unless --site points at a built site), then prints:
- the JavaScript a model page loads for the calculator, raw and gzip-compressed (target ≤ 30 KB);
- the data a model page fetches (the shared GPU and engine file plus its model's file), gzip
  (target ≤ 15 KB), and the fit page's data;
- in Chromium, the time from an input change to the figures written, on a model page and on the
  fit page (median of 30 changes; one frame is 16.7 ms), and whether any request left the site.
With --screenshots, saves the calculator and the fit page as PNG files there (the README's).
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import subprocess
import sys
import tempfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
SCRIPTS = ("tables.js", "planner.js", "calculator.js")  # what a model page with a calculator loads
MODEL = "qwen3-32b"


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def kb(size: int) -> str:
    return f"{size / 1024:.1f} KB"


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(site: Path) -> tuple[ThreadingHTTPServer, str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def timings(base: str, screenshots: Path | None) -> None:
    from playwright.sync_api import sync_playwright

    outside = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("request", lambda r: r.url.startswith(base) or outside.append(r.url))
        for path, root, field in ((f"en/models/{MODEL}.html", "#calculator", "context"), ("en/fit.html", "[data-vram-fit]", "context")):
            page.goto(base + path)
            page.wait_for_function(f"document.querySelector('{root} [data-vram-form], {root}') && "
                                   f"!document.querySelector('{root} form').closest('[hidden]')")
            if screenshots is not None:  # before the timing changes the question
                screenshots.mkdir(parents=True, exist_ok=True)
                page.add_style_tag(content=".md-header, .md-tabs { position: static !important; }")
                name = "calculator" if "models" in path else "fit"
                target = page.locator("#calculator") if name == "calculator" else page
                target.screenshot(path=str(screenshots / f"screenshot-{name}-en.png"))
            times = page.evaluate(
                """([root, field]) => {
                    const input = document.querySelector(root + ' input[name=' + field + ']');
                    const values = [];
                    for (let i = 0; i < 30; i++) {
                        input.value = String(4096 + 1024 * i);
                        const start = performance.now();
                        input.dispatchEvent(new Event('input', {bubbles: true}));
                        values.push(performance.now() - start);
                    }
                    return values;
                }""",
                [root, field],
            )
            print(f"{path}: input change to figures written, median {statistics.median(times):.1f} ms, "
                  f"max {max(times):.1f} ms (one frame: 16.7 ms)")
        browser.close()
    print(f"requests outside the site: {len(outside)}" + (f" ({sorted(set(outside))})" if outside else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build the shipped catalog)")
    parser.add_argument("--screenshots", type=Path, help="save the calculator and fit page screenshots here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        site = args.site or Path(scratch) / "site"
        httpd, base = serve(site)
        if args.site is None:  # built for the address it is served at, as a local preview would be
            subprocess.run([sys.executable, "-m", "generator", "build", "--out", str(site), "--base-url", base],
                           cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        scripts = [site / "assets" / "javascripts" / name for name in SCRIPTS]
        raw = sum(len(path.read_bytes()) for path in scripts)
        print(f"JavaScript ({', '.join(SCRIPTS)}): {kb(raw)} raw, {kb(sum(gz(p.read_bytes()) for p in scripts))} gzip (target ≤ 30 KB)")
        plan = site / "assets" / "plan"
        shared = gz((plan / "shared.json").read_bytes())
        models = sorted(gz(path.read_bytes()) for path in (plan / "models").glob("*.json"))
        print(f"data per model page: shared.json {kb(shared)} gzip + its model's file "
              f"{kb(statistics.median(models))} gzip (largest {kb(models[-1])}): "
              f"{kb(shared + models[-1])} at most (target ≤ 15 KB)")
        print(f"fit page data: models.json {kb(gz((plan / 'models.json').read_bytes()))} gzip for {len(models)} models")
        timings(base, args.screenshots)
        httpd.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
