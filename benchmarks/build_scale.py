"""Build synthetic catalogs of N models and print how the build scales.

    python benchmarks/build_scale.py [--sizes 100 1000 5000] [--incremental-size 1000]

For each N: a full build (wall seconds, seconds per page, the peak RSS of its largest process and the
summed memory of all its processes (tree_memory.py), HTML bytes
per model page, the search bundle's size), and a floor measured in the same run: the same Markdown
rendered to HTML files with markdown-it-py and a minimal Jinja2 template. Then, at
--incremental-size, a one-model edit rebuilt, and a model added and removed, each rebuilt. What a
first search downloads: benchmarks/search_weight.py.
Figures, not assertions: the machine is shared, compare ratios from one run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jinja2
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.synthetic import write_catalog  # noqa: E402
from generator.catalog.slugs import slugify  # noqa: E402
from benchmarks.tree_memory import TreeMemory  # noqa: E402

FLOOR_TEMPLATE = jinja2.Template(
    "<!doctype html><html lang='{{ lang }}'><head><meta charset='utf-8'><title>{{ title }}</title></head>"
    "<body><main>{{ body }}</main></body></html>"
)


def run_build(content: Path, out: Path, memory: dict | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one `python -m generator build` process and the largest
    of its children. `memory`, when given, receives the peak of the whole process tree's summed
    PSS (`tree_mb`, tree_memory.py) and how many processes it had then (`tree_processes`)."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "generator", "build", "--content", str(content), "--out", str(out)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    tree = TreeMemory(process.pid)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - started
    tree.stop()
    if status != 0:
        raise SystemExit(f"build failed: {process.stderr.read().decode()[-2000:]}")
    if memory is not None:
        memory.update(tree_mb=tree.peak_bytes / 2**20, tree_processes=tree.peak_processes)
    return seconds, usage.ru_maxrss * 1024


def floor_seconds(docs: Path, out: Path) -> float:
    """The same Markdown to HTML files with markdown-it-py and a minimal Jinja2 template."""
    markdown = MarkdownIt("commonmark").enable("table")
    started = time.monotonic()
    for source in docs.rglob("*.md"):
        text = source.read_text(encoding="utf-8")
        body = text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
        html = FLOOR_TEMPLATE.render(lang=source.relative_to(docs).parts[0], title=source.stem, body=markdown.render(body))
        target = out / source.relative_to(docs).with_suffix(".html")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
    return time.monotonic() - started


def measure(count: int, work: Path) -> dict:
    content = write_catalog(work / "content", count)
    out = work / "site"
    memory: dict = {}
    seconds, rss = run_build(content, out, memory)
    pages = sum(1 for lang in ("pt", "en") for page in (out / lang).rglob("*.html") if page.name not in ("404.html", "search.html"))
    floor = floor_seconds(work / ".site.cache" / "docs", work / "floor")
    model_pages = list((out / "pt" / "models").glob("*.html"))
    return {
        "models": count,
        "pages": pages,
        "seconds": seconds,
        "per_page_ms": 1000 * seconds / pages,
        "peak_rss_mb": rss / 2**20,
        "tree_mb": memory["tree_mb"],
        "html_kb_per_model_page": sum(p.stat().st_size for p in model_pages) / len(model_pages) / 1000,
        "search_bundle_mb": sum(p.stat().st_size for p in (out / "pagefind").rglob("*") if p.is_file()) / 1e6,
        "floor_seconds": floor,
        "ratio_to_floor": seconds / floor,
        "content": content,
        "out": out,
    }


def edit_one_model(content: Path) -> None:
    """The first model's context window doubled from the synthetic catalogs' 131,072 tokens, or
    halved back: its own pages change; the GPU pages ask for 32,768 tokens of a model at most, so
    theirs stay. Edits go back and forth, so that repeated runs time the same pages (a window
    doubled at every run grew the model page's searches with it)."""
    path = sorted((content / "models").glob("*.yaml"))[0]
    text = path.read_text(encoding="utf-8")
    found = re.search(r"^context_window:\n  value: (\d+)$", text, re.M)
    window = int(found.group(1))
    edited = window * 2 if window <= 131072 else window // 2
    path.write_text(text[:found.start(1)] + str(edited) + text[found.end(1):], encoding="utf-8")


def add_or_remove_one_model(content: Path) -> str:
    """A copy of the first model under a new name added to the catalog, or removed where it is
    there: every GPU page, the fit page and the indexes list every model. Returns "added" or "removed"."""
    first = next(path for path in sorted((content / "models").glob("*.yaml")) if not path.stem.endswith("-added"))
    text = first.read_text(encoding="utf-8")
    name = re.search(r"^name: (.+)$", text, re.M).group(1).strip().strip("'\"") + "-added"
    copy = content / "models" / f"{slugify(name)}.yaml"
    if copy.exists():
        copy.unlink()
        return "removed"
    text = re.sub(r"^name: .+$", f"name: {name}", text, count=1, flags=re.M)
    text = re.sub(r"^id: (.+)$", lambda found: f"id: {found.group(1)}-added", text, count=1, flags=re.M)
    copy.write_text(text, encoding="utf-8")
    return "added"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    parser.add_argument("--incremental-size", type=int, default=1000)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="vram-bench-") as temporary:
        for count in args.sizes:
            work = Path(temporary) / f"n{count}"
            print(f"building {count} models...", file=sys.stderr, flush=True)
            row = measure(count, work)
            if count == args.incremental_size:
                edit_one_model(row["content"])
                row["incremental_seconds"], _ = run_build(row["content"], row["out"])
                for _ in ("added", "removed"):
                    change = add_or_remove_one_model(row["content"])
                    row[f"{change}_seconds"], _ = run_build(row["content"], row["out"])
            rows.append(row)
            shutil.rmtree(work)
    print("| models | pages (pt + en) | build s | ms / page | floor s | × floor | peak RSS MB | all processes MB | HTML KB / model page | search bundle MB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['models']:,} | {r['pages']:,} | {r['seconds']:.1f} | {r['per_page_ms']:.1f} | {r['floor_seconds']:.1f} | "
              f"{r['ratio_to_floor']:.1f} | {r['peak_rss_mb']:.0f} | {r['tree_mb']:.0f} | {r['html_kb_per_model_page']:.1f} | {r['search_bundle_mb']:.1f} |")
    print()
    by_count = {r["models"]: r for r in rows}
    if 100 in by_count and 1000 in by_count:
        print(f"growth: 1,000 models take {by_count[1000]['seconds'] / by_count[100]['seconds']:.1f}× the time of 100 (target ≤ 11×)")
    for r in rows:
        if "incremental_seconds" in r:
            print(f"one model edited in {r['models']:,}: rebuilt in {r['incremental_seconds']:.1f} s, "
                  f"{100 * r['incremental_seconds'] / r['seconds']:.0f} % of the full build (target ≤ 25 %)")
            print(f"one model added to {r['models']:,}: rebuilt in {r['added_seconds']:.1f} s; "
                  f"removed: {r['removed_seconds']:.1f} s (target ≤ 5 s, as an edit)")


if __name__ == "__main__":
    main()
