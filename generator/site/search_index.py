"""The site's search index: Pagefind reads the built pages and writes its bundle beside them.

Pagefind indexes the text inside `data-pagefind-body` (partials/content.html), one index per
`<html lang>`, split in chunks: a search downloads the chunks of its words and the fragments of the
results it shows, not the whole index (benchmarks/search_weight.py measures it at 5,000 models).
The search page (overrides/search.html) runs its UI.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from generator.site.errors import BuildError
from generator.site.files import write_if_changed

SEARCH_BUNDLE = "pagefind"  # folder of the site root that holds the index and the UI


# Left out of the index: tables of figures and commands. Their words are on the pages' prose too (a
# GPU's name, a format), and Pagefind's memory grows with what it indexes.
NOT_INDEXED = "table, pre"


def _pagefind(site_dir: Path, lang: str, output: Path) -> dict:
    """One language's pages indexed into `output`; its entry (pagefind-entry.json) is returned."""
    command = [sys.executable, "-m", "pagefind", "--site", str(site_dir), "--glob", f"{lang}/**/*.html",
               "--exclude-selectors", NOT_INDEXED, "--output-path", str(output), "--silent"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise BuildError(f"search index: pagefind did not run ({error})") from None
    entry = output / "pagefind-entry.json"
    if done.returncode != 0 or not entry.is_file():
        detail = next((line for line in (done.stderr + done.stdout).splitlines() if line.strip()), "no output")
        raise BuildError(f"search index: pagefind failed: {detail}")
    return json.loads(entry.read_text(encoding="utf-8"))


def write_search_index(site_dir: Path, languages: tuple[str, ...]) -> None:
    """Index every page of `site_dir` into `site_dir/pagefind/`, one language at a time (Pagefind
    holds a language's pages in memory, not the whole site's). The languages' bundles are merged
    into one: their entries listed together, the files they share written once. Files whose bytes
    did not change keep their mtime, and files no longer written go."""
    with tempfile.TemporaryDirectory(prefix=".search-", dir=site_dir.parent) as work:
        files: dict[Path, bytes] = {}
        entry: dict = {}
        for lang in languages:
            output = Path(work) / lang
            part = _pagefind(site_dir, lang, output)
            entry = {**part, "languages": {**entry.get("languages", {}), **part["languages"]}}
            for path in sorted(output.rglob("*")):
                name = path.relative_to(output)
                if path.is_file() and name != Path("pagefind-entry.json"):
                    data = path.read_bytes()
                    if files.setdefault(name, data) != data:
                        raise BuildError(f"search index: pagefind wrote two different {name} for two languages")
        # sorted keys: the same content gives the same bytes
        files[Path("pagefind-entry.json")] = json.dumps(entry, sort_keys=True, ensure_ascii=False,
                                                        separators=(",", ":")).encode("utf-8")
        bundle = site_dir / SEARCH_BUNDLE
        for name, data in sorted(files.items()):
            write_if_changed(bundle / name, data)
        for path in sorted(bundle.rglob("*")):
            if path.is_file() and path.relative_to(bundle) not in files:
                path.unlink()
