"""Where a one-model rebuild spends its time: each stage of `build`, timed in this process.

    python benchmarks/rebuild_stages.py --content DIR --out DIR [--edit | --add-or-remove]

`--content` and `--out` name a catalog and a site already built from it (benchmarks/build_scale.py
builds synthetic ones: `--sizes 1000` and keep its folder, or any `python -m generator build`).
With `--edit`, one model is edited first as build_scale.py edits it (its context window); with
`--add-or-remove`, a model is added, or removed at the next run, as build_scale.py does. The
build then runs as `python -m generator build` runs it; each stage's wall seconds are printed, and
its CPU seconds (user and system, of this process and of the workers and programs it ran: MkDocs,
Pagefind), which a shared machine changes less than wall time. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import functools
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.build_scale import add_or_remove_one_model, edit_one_model  # noqa: E402

STAGES = ("site_pages", "write_sources", "build_languages", "share_assets", "write_sitemap", "write_llms_txt",
          "write_root_index", "write_plan_data", "write_search_index", "mark", "publish", "remove_staging")


def cpu_seconds() -> float:
    """User and system seconds of this process and of its children that have ended."""
    return sum(usage.ru_utime + usage.ru_stime for usage in
               (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)))


def timed(module, name: str, lines: list[tuple[str, float, float]]) -> None:
    function = getattr(module, name)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        started, cpu = time.monotonic(), cpu_seconds()
        try:
            return function(*args, **kwargs)
        finally:
            lines.append((name, time.monotonic() - started, cpu_seconds() - cpu))
    setattr(module, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--content", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    change = parser.add_mutually_exclusive_group()
    change.add_argument("--edit", action="store_true", help="edit one model first")
    change.add_argument("--add-or-remove", action="store_true", help="add a model first, or remove the one added before")
    args = parser.parse_args()
    if args.edit:
        edit_one_model(args.content)
    if args.add_or_remove:
        print(f"a model {add_or_remove_one_model(args.content)}", file=sys.stderr)
    started, cpu = time.monotonic(), cpu_seconds()
    from generator.catalog.loader import load_catalog
    from generator.catalog.parsed_files import ParsedFiles
    from generator.cli.main import model_problems
    from generator.site import build
    lines: list[tuple[str, float, float]] = [("imports", time.monotonic() - started, cpu_seconds() - cpu)]
    for name in STAGES:
        timed(build, name, lines)
    loading, loading_cpu = time.monotonic(), cpu_seconds()
    kept = build.parsed_catalog_folder(args.out)  # as `build` reads the catalog
    parsed = ParsedFiles(kept)
    catalog = load_catalog(args.content, model_problems, parsed)
    if kept is not None:
        parsed.save(kept)
    lines.append(("load_catalog", time.monotonic() - loading, cpu_seconds() - loading_cpu))
    build.build_site(catalog, args.out)
    total, total_cpu = time.monotonic() - started, cpu_seconds() - cpu
    print("| stage | s | CPU s |")
    print("|---|---:|---:|")
    for name, seconds, cpu_used in lines:
        print(f"| {name} | {seconds:.2f} | {cpu_used:.2f} |")
    print(f"| **total** | **{total:.2f}** | **{total_cpu:.2f}** |")


if __name__ == "__main__":
    main()
