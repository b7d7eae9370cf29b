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


def write_search_index(site_dir: Path) -> None:
    """Index every page of `site_dir` into `site_dir/pagefind/`. Pagefind writes a new bundle beside
    the site; files whose bytes did not change keep their mtime, and files it no longer writes go."""
    with tempfile.TemporaryDirectory(prefix=".search-", dir=site_dir.parent) as work:
        fresh = Path(work) / SEARCH_BUNDLE
        command = [sys.executable, "-m", "pagefind", "--site", str(site_dir), "--output-path", str(fresh), "--silent"]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise BuildError(f"search index: pagefind did not run ({error})") from None
        if done.returncode != 0 or not (fresh / "pagefind-entry.json").is_file():
            detail = next((line for line in (done.stderr + done.stdout).splitlines() if line.strip()), "no output")
            raise BuildError(f"search index: pagefind failed: {detail}")
        # its languages come in the order of a hash map: sorted, the same content gives the same bytes
        entry = fresh / "pagefind-entry.json"
        entry.write_text(json.dumps(json.loads(entry.read_text(encoding="utf-8")), sort_keys=True,
                                    ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        bundle = site_dir / SEARCH_BUNDLE
        names = {path.relative_to(fresh) for path in fresh.rglob("*") if path.is_file()}
        for name in sorted(names):
            write_if_changed(bundle / name, (fresh / name).read_bytes())
        for path in sorted(bundle.rglob("*")):
            if path.is_file() and path.relative_to(bundle) not in names:
                path.unlink()
