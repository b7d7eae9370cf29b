"""Lighthouse scores of the built site: performance, accessibility, best practices and SEO.

    python benchmarks/lighthouse.py [--site DIR] [--lang pt en] [--pages kimi-k3 models gpu]
                                    [--form-factors mobile desktop] [--runs N] [--reports DIR]

Builds the shipped catalog into a temporary folder (unless --site points at a built site) and
serves it on 127.0.0.1 the way a static host would: gzip for text files (HTML, CSS, JavaScript,
JSON, SVG, XML, Markdown), a year's Cache-Control for files with a hash in their name and a short
one for pages and other files, and the language's 404 page for a missing file. Python's http.server sends neither header, which costs a
mobile page several performance points.

Then runs Lighthouse 12.2.3 (npm, installed into ~/.cache/vram-guide/lighthouse if missing) in
Debian's headless Chromium, once per page, language and form factor: mobile (Lighthouse's default,
simulated slow 4G and a 4x slower CPU) and desktop (--preset=desktop); with --runs N, N times, and
the run with the median performance score is reported. It prints each run's four
category scores (0-100) against the targets (accessibility, best practices and SEO 100;
performance at least 95 on desktop and 90 on mobile), then, for each score below its target, the
audits that failed with their first items (element selector and snippet, URL), and last the audits
Lighthouse could not compute in this Chromium (not counted in the scores).

The site's canonical and hreflang addresses point at content/site.yaml's base_url (the production
host), not at 127.0.0.1. Mobile performance depends on the machine's load: figures, not assertions.
"""

from __future__ import annotations

import argparse
import gzip
import json
import mimetypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
LIGHTHOUSE_VERSION = "12.2.3"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vram-guide" / "lighthouse"
CHROMIUM = "/usr/bin/chromium"
CHROME_FLAGS = "--headless=new --no-sandbox"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
CATEGORY_NAMES = {"performance": "performance", "accessibility": "accessibility",
                  "best-practices": "best practices", "seo": "SEO"}
PAGES = {  # name: path under a language folder
    "kimi-k3": "models/kimi-k3.html",
    "llama-3-1-8b-instruct": "models/llama-3-1-8b-instruct.html",
    "models": "models.html",
    "gpu": "gpus/rtx-4090.html",
}
FORM_FACTORS = ("mobile", "desktop")
LANGUAGES = ("pt", "en")
PERFORMANCE_TARGET = {"mobile": 90, "desktop": 95}

COMPRESSED = {".html", ".css", ".js", ".json", ".svg", ".xml", ".md", ".txt", ".map"}
TYPES = {".md": "text/markdown", ".js": "text/javascript", ".json": "application/json",
         ".svg": "image/svg+xml", ".xml": "application/xml", ".map": "application/json"}
PAGE_CACHE = "max-age=300"  # pages, and files whose name stays the same when they change
ASSET_CACHE = "public, max-age=31536000"  # files with their content's hash in their name
# Material's bundles (main.57a0d79d.min.css) and Pagefind's files (en_7b7d8115c8, pt_411bfd8) carry
# a hash of their content: a new version has a new name, so a year's cache is safe. Others
# (calculator.js, pagefind.js) keep their name: a host caching them a year would serve old ones.
HASHED_NAME = re.compile(r"[._][0-9a-f]{7,}[._]")


def target(category: str, form_factor: str) -> int:
    return PERFORMANCE_TARGET[form_factor] if category == "performance" else 100


# --- the static server ---------------------------------------------------------------------

class StaticSite(BaseHTTPRequestHandler):
    """GET and HEAD of a built site's files, gzip for text, cache headers, the language's 404."""

    protocol_version = "HTTP/1.1"  # keep-alive, as a real host: every answer has a Content-Length
    site: Path
    gzipped: dict[tuple[Path, int], bytes] = {}

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.answer(head=True)

    def do_GET(self):
        self.answer(head=False)

    def resolve(self) -> Path | None:
        path = unquote(urlsplit(self.path).path)
        file = (self.site / path.lstrip("/")).resolve()
        if not file.is_relative_to(self.site):
            return None
        if file.is_dir():
            file = file / "index.html"
        return file if file.is_file() else None

    def answer(self, head: bool) -> None:
        file, status = self.resolve(), 200
        if file is None:
            status = 404
            language = unquote(urlsplit(self.path).path).lstrip("/").split("/", 1)[0]
            page = self.site / language / "404.html"
            file = page if language and page.is_file() else None
        if file is None:
            body, kind, cache, encoding = b"Not found\n", "text/plain; charset=utf-8", "no-store", None
        else:
            body, kind, cache, encoding = self.content(file)
            if status == 404:
                cache = "no-store"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        if file is not None and file.suffix in COMPRESSED:
            self.send_header("Vary", "Accept-Encoding")
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def content(self, file: Path) -> tuple[bytes, str, str, str | None]:
        suffix = file.suffix
        kind = TYPES.get(suffix) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or suffix in COMPRESSED:
            kind += "; charset=utf-8"
        page = suffix == ".html" or file.name.endswith(".html.md")
        cache = ASSET_CACHE if not page and HASHED_NAME.search(file.name) else PAGE_CACHE
        if suffix not in COMPRESSED or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return file.read_bytes(), kind, cache, None
        key = (file, file.stat().st_mtime_ns)
        if key not in self.gzipped:
            self.gzipped[key] = gzip.compress(file.read_bytes(), compresslevel=6, mtime=0)
        return self.gzipped[key], kind, cache, "gzip"


def serve(site: Path) -> tuple[ThreadingHTTPServer, str]:
    handler = type("Handler", (StaticSite,), {"site": site.resolve(), "gzipped": {}})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


# --- Lighthouse ----------------------------------------------------------------------------

def lighthouse_command() -> list[str]:
    """The pinned Lighthouse CLI, installed into the cache folder with npm if it is not there."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"lighthouse.py: {' and '.join(missing)} not found; Lighthouse needs Node.js and npm "
                         f"(e.g. apt-get install nodejs npm)")
    if not Path(CHROMIUM).is_file():
        raise SystemExit(f"lighthouse.py: {CHROMIUM} not found; Lighthouse runs in Debian's Chromium (apt-get install chromium)")
    package = CACHE / "node_modules" / "lighthouse" / "package.json"
    installed = json.loads(package.read_text())["version"] if package.is_file() else None
    if installed != LIGHTHOUSE_VERSION:
        print(f"installing lighthouse@{LIGHTHOUSE_VERSION} into {CACHE}...", file=sys.stderr, flush=True)
        CACHE.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["npm", "install", "--prefix", str(CACHE), "-E", f"lighthouse@{LIGHTHOUSE_VERSION}",
                               "--no-audit", "--no-fund"], capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"lighthouse.py: npm install lighthouse@{LIGHTHOUSE_VERSION} failed:\n{done.stderr[-2000:]}")
    return ["node", str(CACHE / "node_modules" / "lighthouse" / "cli" / "index.js")]


def run_lighthouse(command: list[str], url: str, form_factor: str, output: Path) -> tuple[dict | None, str]:
    """Lighthouse's JSON report of one run, or None and why."""
    arguments = [*command, url, "--output=json", f"--output-path={output}", "--quiet",
                 f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={CHROME_FLAGS}"]
    if form_factor == "desktop":
        arguments.append("--preset=desktop")
    output.unlink(missing_ok=True)
    try:
        done = subprocess.run(arguments, env={**os.environ, "CHROME_PATH": CHROMIUM},
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, "Lighthouse did not finish in 300 s"
    if not output.is_file():
        return None, f"Lighthouse exited with {done.returncode}: {(done.stderr or done.stdout).strip()[-1000:]}"
    report = json.loads(output.read_text(encoding="utf-8"))
    if report.get("runtimeError"):
        return report, f"{report['runtimeError'].get('code')}: {report['runtimeError'].get('message')}"
    return report, ""


# --- reading a report ----------------------------------------------------------------------

def score(report: dict, category: str) -> int | None:
    value = report["categories"].get(category, {}).get("score")
    return None if value is None else round(100 * value)


def failing_audits(report: dict, category: str) -> list[dict]:
    """The category's audits that count against it: a score below 1, heaviest first."""
    audits = report["audits"]
    refs = report["categories"][category]["auditRefs"]
    failing = []
    for ref in refs:
        audit = audits[ref["id"]]
        if audit.get("scoreDisplayMode") == "error":
            if ref.get("weight"):  # an error in a weighted audit leaves the category without a score
                failing.append({**audit, "weight": ref["weight"], "group": ref.get("group")})
            continue
        if audit.get("score") is None or audit["score"] >= 1:
            continue
        if audit.get("scoreDisplayMode") in ("informative", "notApplicable", "manual"):
            continue
        failing.append({**audit, "weight": ref.get("weight", 0), "group": ref.get("group")})
    return sorted(failing, key=lambda audit: (-audit["weight"], audit["score"] or 0))


def detail_items(details: dict | None) -> list[dict]:
    """Items of a table or opportunity, and of the tables inside a list."""
    if not details:
        return []
    if details.get("type") == "list":
        return [item for table in details.get("items", []) for item in detail_items(table)]
    if details.get("type") in ("table", "opportunity"):
        return list(details.get("items", []))
    return []


def clip(text: str, size: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= size else text[: size - 1] + "…"


def describe(item: dict) -> str:
    """One line for a failing item: the element (selector, snippet, why) or the URL, and savings."""
    parts = []
    for key, value in item.items():
        if isinstance(value, dict) and value.get("type") == "node":
            parts.append(f"{key}: {value.get('selector', '?')} {clip(value.get('snippet', ''), 160)}")
            if value.get("explanation"):
                parts.append(clip(value["explanation"], 300))
        elif isinstance(value, dict) and value.get("type") == "source-location":
            parts.append(f"{key}: {value.get('url')}:{value.get('line', 0) + 1}:{value.get('column', 0) + 1}")
        elif isinstance(value, dict) and value.get("type") == "url":
            parts.append(f"{key}: {value.get('value')}")
        elif key == "url" and isinstance(value, str):
            parts.append(value)
    if item.get("groupLabel"):
        parts.append(str(item["groupLabel"]))
    for key, unit, scale in (("totalBytes", "KB", 1024), ("wastedBytes", "KB wasted", 1024),
                             ("wastedMs", "ms wasted", 1), ("cacheLifetimeMs", "ms cache", 1), ("duration", "ms", 1),
                             ("startTime", "ms from the start", 1), ("total", "ms in all", 1),
                             ("scripting", "ms scripting", 1)):
        if isinstance(item.get(key), (int, float)) and item[key]:
            parts.append(f"{item[key] / scale:,.1f} {unit}")
    for key in ("description", "label", "signal", "reason", "statistic", "value", "directive", "failureReason", "issue"):
        value = item.get(key)
        if isinstance(value, (str, int, float)) and value != "":
            parts.append(f"{key}: {clip(value, 160)}")
        elif isinstance(value, dict) and value.get("type") in ("code", "numeric", "text"):
            parts.append(f"{key}: {clip(value.get('value', ''), 160)}")
    subitems = item.get("subItems", {}).get("items", []) if isinstance(item.get("subItems"), dict) else []
    for sub in subitems[:2]:
        parts.append("[" + describe(sub) + "]")
    return "; ".join(parts) if parts else clip(json.dumps(item), 200)


def print_failures(label: str, report: dict, form_factor: str, items: int) -> None:
    for category in CATEGORIES:
        value = score(report, category)
        goal = target(category, form_factor)
        if value is not None and value >= goal:
            continue
        print(f"\n{label}, {form_factor}: {CATEGORY_NAMES[category]} {value if value is not None else 'n/a'} "
              f"(target {'≥ ' if category == 'performance' else ''}{goal})")
        failing = failing_audits(report, category)
        if not failing:
            print("  (no failing audit with a score; see the audits Lighthouse could not compute below)")
        for audit in failing:
            shown = (f"score {audit['score']:.2f}" if audit["score"] is not None else f"error: {clip(audit.get('errorMessage', ''), 200)}")
            shown += f", {audit['displayValue']}" if audit.get("displayValue") else ""
            weight = f", weight {audit['weight']}" if audit["weight"] else ""
            print(f"  - {audit['id']} ({clip(audit['title'], 120)}): {shown}{weight}")
            if audit.get("explanation"):
                print(f"      {clip(audit['explanation'], 400)}")
            for warning in audit.get("warnings") or []:
                print(f"      warning: {clip(warning, 300)}")
            found = detail_items(audit.get("details"))
            for item in found[:items]:
                print(f"      {describe(item)}")
            if len(found) > items:
                print(f"      … and {len(found) - items} more")
        if category == "performance":  # what Total Blocking Time is made of: informative, never failing
            for audit_id in ("long-tasks", "bootup-time"):
                audit = report["audits"].get(audit_id) or {}
                found = detail_items(audit.get("details"))
                if found:
                    print(f"  context: {audit_id} ({clip(audit.get('title', ''), 120)})"
                          + (f", {audit['displayValue']}" if audit.get("displayValue") else ""))
                    for item in found[:items]:
                        print(f"      {describe(item)}")


# --- the run -------------------------------------------------------------------------------

def median_run(tries: list[tuple[dict | None, str]]) -> tuple[dict | None, str]:
    """Of several runs of one page, the one with the median performance score (the lower middle one)."""
    done = sorted((run for run in tries if run[0] is not None), key=lambda run: score(run[0], "performance") or 0)
    return done[(len(done) - 1) // 2] if done else tries[-1]


def canonical(page: Path) -> str:
    """The page's <link rel="canonical"> address, as built."""
    found = re.search(r'<link[^>]*rel="canonical"[^>]*href="([^"]*)"', page.read_text(encoding="utf-8"))
    return found.group(1) if found else "(no canonical link)"


def page_path(name: str) -> str:
    return PAGES.get(name, name)


def cell(value: int | None, goal: int) -> str:
    if value is None:
        return "n/a"
    return f"{value}" if value >= goal else f"**{value}** ✗"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build the shipped catalog into a temporary folder)")
    parser.add_argument("--lang", nargs="+", default=list(LANGUAGES), choices=LANGUAGES)
    parser.add_argument("--pages", nargs="+", default=list(PAGES), metavar="PAGE",
                        help=f"names ({', '.join(PAGES)}) or paths under a language folder, e.g. fit.html")
    parser.add_argument("--form-factors", nargs="+", default=list(FORM_FACTORS), choices=FORM_FACTORS)
    parser.add_argument("--items", type=int, default=3, help="items shown per failing audit (default 3)")
    parser.add_argument("--runs", type=int, default=1,
                        help="Lighthouse runs per page and form factor; the median performance run is shown (default 1)")
    parser.add_argument("--reports", type=Path, help="keep Lighthouse's JSON reports here (default: a temporary folder)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    command = lighthouse_command()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vram-lighthouse-") as scratch:
        site = args.site
        if site is None:
            site = Path(scratch) / "site"
            print("building the site...", file=sys.stderr, flush=True)
            built = subprocess.run([sys.executable, "-m", "generator", "build", "--out", str(site)],
                                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if built.returncode != 0:
                raise SystemExit(f"lighthouse.py: the build failed:\n{built.stderr[-2000:]}")
        build_seconds = time.monotonic() - started
        missing = [f"{lang}/{page_path(name)}" for lang in args.lang for name in args.pages
                   if not (site / lang / page_path(name)).is_file()]
        if missing:
            raise SystemExit(f"lighthouse.py: not in {site}: {', '.join(missing)}")
        reports = args.reports or Path(scratch) / "reports"
        reports.mkdir(parents=True, exist_ok=True)
        canonical_url = canonical(site / args.lang[0] / page_path(args.pages[0]))
        httpd, base = serve(site)
        runs = []
        for lang in args.lang:
            for name in args.pages:
                for form_factor in args.form_factors:
                    label = f"{lang}/{page_path(name)}"
                    print(f"lighthouse {label} {form_factor}...", file=sys.stderr, flush=True)
                    run_started = time.monotonic()
                    tries = []
                    for attempt in range(args.runs):
                        suffix = f"-{attempt + 1}" if args.runs > 1 else ""
                        output = reports / f"{lang}-{name.replace('/', '_')}-{form_factor}{suffix}.json"
                        tries.append(run_lighthouse(command, base + label, form_factor, output))
                    report, problem = median_run(tries)
                    runs.append({"label": label, "form_factor": form_factor, "report": report, "problem": problem,
                                 "seconds": (time.monotonic() - run_started) / args.runs,
                                 "performance": sorted(score(r, "performance") or 0 for r, _ in tries if r)})
        httpd.shutdown()
    total = time.monotonic() - started

    first = next((run["report"] for run in runs if run["report"]), None)
    if first:
        environment = first.get("environment", {})
        indexes = [run["report"].get("environment", {}).get("benchmarkIndex") for run in runs if run["report"]]
        indexes = [index for index in indexes if index is not None]
        speed = (f"; CPU index (Lighthouse's benchmarkIndex, lower when the machine is busy) "
                 f"{min(indexes):.0f}-{max(indexes):.0f}") if indexes else ""
        print(f"Lighthouse {first.get('lighthouseVersion')}, {environment.get('hostUserAgent', '?')}{speed}")
    print(f"served at {base} with gzip and Cache-Control; canonical and hreflang point at the site's base_url, "
          f"e.g. {canonical_url}\n")
    spread = " [range of runs]" if args.runs > 1 else ""
    print(f"| page | form factor | performance (target){spread} | accessibility (100) | best practices (100) | SEO (100) "
          f"| CPU index | run s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for run in runs:
        report = run["report"]
        if report is None:
            print(f"| {run['label']} | {run['form_factor']} | failed: {clip(run['problem'], 120)} | | | | | {run['seconds']:.0f} |")
            continue
        goal = PERFORMANCE_TARGET[run["form_factor"]]
        spread = f" [{run['performance'][0]}-{run['performance'][-1]}]" if len(run["performance"]) > 1 else ""
        cells = [f"{cell(score(report, 'performance'), goal)} (≥ {goal}){spread}"]
        cells += [cell(score(report, category), 100) for category in CATEGORIES[1:]]
        index = report.get("environment", {}).get("benchmarkIndex")
        cells.append("?" if index is None else f"{index:.0f}")
        print(f"| {run['label']} | {run['form_factor']} | {' | '.join(cells)} | {run['seconds']:.0f} |")
    below = sum(1 for run in runs if run["report"] for category in CATEGORIES
                if (score(run["report"], category) or 0) < target(category, run["form_factor"]))
    print(f"\n{len(runs)} pages × form factors, {args.runs} Lighthouse run(s) each, {below} scores below target; "
          f"wall time {total:.0f} s "
          f"({'build ' + format(build_seconds, '.0f') + ' s, ' if args.site is None else ''}"
          f"Lighthouse {args.runs * sum(run['seconds'] for run in runs):.0f} s)")

    for run in runs:
        if run["problem"]:
            print(f"\n{run['label']}, {run['form_factor']}: {run['problem']}")
        if run["report"]:
            print_failures(run["label"], run["report"], run["form_factor"], args.items)

    errored: dict[str, dict] = {}
    for run in runs:
        for audit in (run["report"] or {}).get("audits", {}).values():
            if audit.get("scoreDisplayMode") == "error":
                entry = errored.setdefault(audit["id"], {"runs": 0, "message": audit.get("errorMessage", "")})
                entry["runs"] += 1
    if errored:
        print(f"\nAudits Lighthouse could not compute in this Chromium (not counted in the scores), of {len(runs)} runs shown:")
        for audit_id, entry in sorted(errored.items()):
            print(f"  - {audit_id} ({entry['runs']} runs): {clip(entry['message'], 200)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
