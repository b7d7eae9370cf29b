"""The site's search index: Pagefind reads the built pages and writes its bundle beside them.

Pagefind indexes the text inside `data-pagefind-body` (partials/content.html), one index per
`<html lang>`, split in chunks: a search downloads the chunks of its words and the fragments of the
results it shows, not the whole index (benchmarks/search_weight.py measures it at 5,000 models).
The search page (overrides/search.html) runs its UI.

Pagefind holds the pages it indexes in memory (about 0.5 MB each), so a large site is indexed in
parts of at most PART_PAGES pages of one language: each part is a bundle of its own
(pagefind/, pagefind/part-1/, ...), and the search page merges them (Pagefind's mergeIndex), so a
search still looks at every page while the build's memory stays bounded whatever the site's size.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from generator.site import paths
from generator.site.errors import BuildError
from generator.site.files import write_if_changed

SEARCH_BUNDLE = "pagefind"  # folder of the site root that holds the index and the UI


# Left out of the index: tables of figures and commands. Their words are on the pages' prose too (a
# GPU's name, a format), and Pagefind's memory grows with what it indexes.
NOT_INDEXED = "table, pre"


PART_PAGES = 1000  # pages of one language in one Pagefind run: about 0.5 GB of its memory


def search_parts(page_paths: list[str], part_pages: int = PART_PAGES) -> list[list[str]]:
    """The pages (`models/kimi-k3`) of each part, in even parts of at most `part_pages` pages."""
    ordered = sorted(page_paths)
    count = max(1, -(-len(ordered) // part_pages))
    size = -(-len(ordered) // count) if ordered else 0
    return [ordered[index * size:(index + 1) * size] for index in range(count)]


def bundle_folder(part: int) -> str:
    """A part's bundle below the site root: the first at pagefind/, the others inside it."""
    return SEARCH_BUNDLE if part == 0 else f"{SEARCH_BUNDLE}/part-{part}"


def _pagefind(site_dir: Path, lang: str, output: Path) -> dict:
    """One language's pages below `site_dir` indexed into `output`; its entry (pagefind-entry.json) is returned."""
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


def _pages_of(site_dir: Path, lang: str, pages: list[str], into: Path) -> Path:
    """A folder laid out like the site with only `pages` of `lang` in it (links to the same files)."""
    for page in pages:
        source, target = site_dir / paths.html_file(lang, page), into / paths.html_file(lang, page)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, target)
        except OSError:  # another file system, or links refused: a copy
            shutil.copyfile(source, target)
    return into


def _bundle(site_dir: Path, languages: tuple[str, ...], parts: list[list[str]], part: int, work: Path) -> dict[Path, bytes]:
    """One part's bundle: each language's pages of the part indexed, one language at a time, and
    merged: their entries listed together, the files they share written once."""
    files: dict[Path, bytes] = {}
    entry: dict = {}
    for lang in languages:
        output = work / f"{part}-{lang}"
        pages = site_dir if len(parts) == 1 else _pages_of(site_dir, lang, parts[part], work / f"{part}-{lang}-pages")
        found = _pagefind(pages, lang, output)
        entry = {**found, "languages": {**entry.get("languages", {}), **found["languages"]}}
        for path in sorted(output.rglob("*")):
            name = path.relative_to(output)
            if path.is_file() and name != Path("pagefind-entry.json"):
                data = path.read_bytes()
                if files.setdefault(name, data) != data:
                    raise BuildError(f"search index: pagefind wrote two different {name} for two languages")
    # sorted keys: the same content gives the same bytes
    files[Path("pagefind-entry.json")] = json.dumps(entry, sort_keys=True, ensure_ascii=False,
                                                    separators=(",", ":")).encode("utf-8")
    return files


def write_search_index(site_dir: Path, languages: tuple[str, ...], page_paths: list[str], part_pages: int = PART_PAGES) -> None:
    """Index every page of `site_dir` into `site_dir/pagefind/`, in the parts of search_parts (the
    search page merges them). Files whose bytes did not change keep their mtime, and files no
    longer written go."""
    parts = search_parts(page_paths, part_pages)
    bundle = site_dir / SEARCH_BUNDLE
    files: dict[Path, bytes] = {}
    with tempfile.TemporaryDirectory(prefix=".search-", dir=site_dir.parent) as work:
        for part in range(len(parts)):
            prefix = Path(bundle_folder(part)).relative_to(SEARCH_BUNDLE)
            for name, data in _bundle(site_dir, languages, parts, part, Path(work)).items():
                files[prefix / name] = data
    for name, data in sorted(files.items()):
        write_if_changed(bundle / name, data)
    for path in sorted(bundle.rglob("*")):
        if path.is_file() and path.relative_to(bundle) not in files:
            path.unlink()
