"""The site's search index: Pagefind reads the built pages and writes its bundle beside them.

Pagefind indexes the text inside `data-pagefind-body` (partials/content.html), one index per
`<html lang>`, split in chunks: a search downloads the chunks of its words and the fragments of the
results it shows, not the whole index (benchmarks/search_weight.py measures it at 5,000 models).
The search page (overrides/search.html) runs its UI.

Pagefind holds the pages it indexes in memory (about 0.5 MB each), so a large site is indexed in
parts of at most PART_PAGES pages of one language: each part is a bundle of its own
(pagefind/, pagefind/part-1/, ...), and the search page merges them (Pagefind's mergeIndex), so a
search still looks at every page while the build's memory stays bounded whatever the site's size.

A rebuild indexes again only the parts whose pages changed in what Pagefind reads (their text, not
their tables); each language's part waits in the build cache with the key of what it was made of,
and beside it its pages as Pagefind reads them, cut again only where a page was written since.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path

from generator.site import paths
from generator.site.errors import BuildError
from generator.site.files import write_if_changed

SEARCH_BUNDLE = "pagefind"  # folder of the site root that holds the index and the UI


# Left out of the index: tables of figures and commands. Their words are on the pages' prose too (a
# GPU's name, a format), and Pagefind's memory grows with what it indexes.
NOT_INDEXED = "table, pre"
CUT_KEPT = 32 * 2**20  # what Pagefind reads of the pages written since, kept from their digest to their run (bytes)


# Pages of one language in one Pagefind run. A one-model edit indexes again its page's part in each
# language, a model added or removed its part and the part of the other pages: the smaller the part,
# the sooner (at 1,000 models, a part of 212 pages in about 0.5 s, of 529 in 1.0 s). Each part
# costs a first search its metadata and index chunks, a few KB and requests (Pagefind's runtime is loaded once, by the first bundle): at 5,000 models, in 37 parts of a
# language, a first search downloads 453 to 622 KB (benchmarks/search_weight.py; target 1 MB).
PART_PAGES = 250
# Pages Pagefind holds at once, its runs side by side together (about 0.4 to 0.6 MB each, measured on
# model pages at 1,000 models), so the build stays under 1 GB (benchmarks/build_scale.py) whatever
# --search-part-pages asks: two runs of 250 pages go together, two of 843 one after the other.
PAGES_AT_ONCE = 1200
MODEL_PAGES = paths.model_page("")  # the start of a model's page path


def _even_parts(ordered: list[str], part_pages: int) -> list[list[str]]:
    count = max(1, -(-len(ordered) // part_pages))
    size = -(-len(ordered) // count) if ordered else 0
    return [ordered[index * size:(index + 1) * size] for index in range(count)]


def _chunked_parts(pages: list[str], part_pages: int) -> list[list[str]]:
    """`pages`, sorted, in parts of at most `part_pages`, each cut before a page its digest marks, no
    sooner than part_pages / 5 pages into a part (a page in part_pages × 4/5 is marked up to
    part_pages × 3/5 pages, one in part_pages / 12 after, so that a part seldom reaches its most):
    where a part ends depends on the pages near it, not on how many come before, so a page added
    or removed changes its own part, and seldom the next (content-defined chunking; at 1,000 and
    5,000 models, 1.02 to 1.08 parts a model added or removed, on average). Sorted, a part holds
    models of one family, whose pages share words: a first search at 5,000 models fetched 604 to
    1,064 KB of index chunks from parts of pages spread by their digest."""
    least, normal = part_pages // 5, part_pages * 3 // 5
    divisors = (max(1, part_pages * 4 // 5), max(1, part_pages // 12))
    parts: list[list[str]] = []
    part: list[str] = []
    for page in sorted(pages):
        if part and (len(part) >= part_pages or (len(part) >= least and _marked(page, divisors[len(part) >= normal]))):
            parts.append(part)
            part = []
        part.append(page)
    return parts + [part] if part else parts


def _marked(page: str, divisor: int) -> bool:
    return int.from_bytes(hashlib.sha256(page.encode()).digest()[:8], "big") % divisor == 0


def search_parts(page_paths: list[str], part_pages: int = PART_PAGES) -> list[list[str]]:
    """The pages (`models/kimi-k3`) of each part, at most `part_pages` pages each, sorted: all in one
    where they fit; else the pages of the site's models, one per model, in parts of their own cut
    where their paths say (_chunked_parts: a model added re-indexes one of them), and the others
    (GPUs, indexes: few, and the ones a model added changes) in even parts before them."""
    if len(page_paths) <= part_pages:
        return [sorted(page_paths)]
    model_pages = [page for page in page_paths if page.startswith(MODEL_PAGES)]
    others = sorted(page for page in page_paths if not page.startswith(MODEL_PAGES))
    return (_even_parts(others, part_pages) if others else []) + _chunked_parts(model_pages, part_pages)


def bundle_folder(part: int) -> str:
    """A part's bundle below the site root: the first at pagefind/, the others inside it."""
    return SEARCH_BUNDLE if part == 0 else f"{SEARCH_BUNDLE}/part-{part}"


@functools.cache
def _pagefind_binary() -> str:
    """The Pagefind program the `pagefind` package runs (`python -m pagefind` finds it the same way,
    PAGEFIND_BINARY_PATH first), run without it: an interpreter's start less for each part."""
    from pagefind.service import get_executable

    binary = get_executable()
    if binary is None:
        raise BuildError("search index: no Pagefind program found (the pagefind[bin] package installs one)")
    return str(binary)


def _pagefind(site_dir: Path, lang: str, output: Path) -> dict:
    """One language's pages below `site_dir` indexed into `output`; its entry (pagefind-entry.json) is returned."""
    command = [_pagefind_binary(), "--site", str(site_dir), "--glob", f"{lang}/**/*.html",
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


# What Pagefind reads of a page, cut from it before it reads it: the same index, read faster, and the
# bytes a page's search digest is taken of, so a page whose tables alone changed (a GPU page when a
# model's figures change) or whose navigation changed does not make its part indexed again. Kept:
# the <html> tag (its lang) and the data-pagefind-body element (Pagefind reads only that where a
# page of the site has one, which every page of ours does, partials/content.html); left out inside
# it: the elements marked data-pagefind-ignore="all" and the ones of NOT_INDEXED (tables and code
# blocks, which do not nest in our pages). Catalog text never holds a tag: it is escaped.
_HTML_TAG = re.compile(rb"<html\b[^>]*>")
_BODY_START = re.compile(rb"<(\w+)\b[^>]*\sdata-pagefind-body\b[^>]*>")
_IGNORED_START = re.compile(rb"<(\w+)\b[^>]*\sdata-pagefind-ignore=\"all\"[^>]*>")
_NOT_INDEXED_START = re.compile(rb"<(table|pre)\b")


@functools.cache
def _tags_of(name: bytes) -> re.Pattern:
    """The start and end tags of the elements named `name` (`<div ...>`, `</div>`)."""
    return re.compile(rb"<(/?)%s\b[^>]*>" % re.escape(name))


def _element_end(html: bytes, start: re.Match) -> int:
    """Where the element `start` opens ends: after its end tag, elements of its name inside it
    counted; the page's end where it is not closed."""
    depth = 0
    for tag in _tags_of(start.group(1)).finditer(html, start.start()):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return tag.end()
    return len(html)


def _without_not_indexed(html: bytes) -> bytes:
    """`html` without its tables and code blocks, each up to the first end tag of its name (found
    with bytes.find: a regular expression read a GPU page's 300 KB of tables eight times slower)."""
    kept, position, start = [], 0, 0
    while found := _NOT_INDEXED_START.search(html, start):
        end = html.find(b"</%s>" % found.group(1), found.end())
        if end < 0:  # not closed: left as it is
            start = found.end()
            continue
        kept.append(html[position:found.start()])
        position = start = end + len(found.group(1)) + 3
    return b"".join(kept) + html[position:]


def _without_ignored(html: bytes) -> bytes:
    kept, position = [], 0
    while found := _IGNORED_START.search(html, position):
        kept.append(html[position:found.start()])
        position = _element_end(html, found)
    return b"".join(kept) + html[position:]


def indexed_html(html: bytes) -> bytes:
    """What Pagefind reads of a page's HTML (its index is the same from these bytes as from the page)."""
    body = _BODY_START.search(html)
    if body is not None:
        html_tag = _HTML_TAG.search(html)
        html = b"".join((html_tag.group(0) if html_tag else b"", b"<body>",
                         html[body.start():_element_end(html, body)], b"</body></html>"))
    return _without_ignored(_without_not_indexed(html))  # the tables first: the rest is read in a tenth of the bytes


class _Digests:
    """Each page's digest of what Pagefind reads (indexed_html), kept with the file's size and mtime:
    a page MkDocs did not write again is not read again."""

    def __init__(self, site_dir: Path, state_file: Path):
        self.site_dir, self.state_file = site_dir, state_file
        try:
            self.kept = json.loads(state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.kept = {}
        self.now: dict[str, list] = {}
        # the pages ("en:models/kimi-k3") written since the last build, with what Pagefind reads of
        # them, kept for its run up to CUT_KEPT bytes (a full build's pages are read again there)
        self.read_again: dict[str, bytes | None] = {}
        self.kept_bytes = 0

    def of(self, lang: str, page: str) -> str:
        path = self.site_dir / paths.html_file(lang, page)
        stat = path.stat()
        name = f"{lang}:{page}"
        kept = self.kept.get(name)
        if not (isinstance(kept, list) and kept[:2] == [stat.st_size, stat.st_mtime_ns]):
            cut = indexed_html(path.read_bytes())
            self.kept_bytes += len(cut)
            self.read_again[name] = cut if self.kept_bytes <= CUT_KEPT else None
            kept = [stat.st_size, stat.st_mtime_ns, hashlib.sha256(cut).hexdigest()]
        self.now[name] = kept
        return kept[2]

    def save(self) -> None:
        write_if_changed(self.state_file, json.dumps(self.now, sort_keys=True))


def _part_key(lang: str, pages: list[str], digests: _Digests) -> str:
    """What one language's part of the index is made of: Pagefind's version and options, and each
    page's path and digest."""
    digest = hashlib.sha256(repr((version("pagefind"), NOT_INDEXED, lang)).encode())
    for page in pages:
        digest.update(f"{page}\0{digests.of(lang, page)}\n".encode())
    return digest.hexdigest()


def _index_part(site_dir: Path, lang: str, pages: list[str], output: Path, copies: Path,
                read_again: dict[str, bytes | None] | None = None) -> None:
    """Pagefind over `pages` of `lang`, each cut to what it reads (indexed_html), into `output`.
    The cut pages wait in `copies`, kept between builds: a page is cut again when it is missing
    there or in `read_again` (by its "lang:page" name: written since, and cut already), and a page of another part goes."""
    shutil.rmtree(output, ignore_errors=True)
    wanted = {copies / paths.html_file(lang, page): page for page in pages}
    if copies.is_dir():
        for path in sorted(copies.rglob("*.html")):
            if path not in wanted:
                path.unlink()
    read_again = read_again or {}
    for target, page in wanted.items():
        name = f"{lang}:{page}"
        cut = read_again.get(name)
        if cut is None and (name in read_again or not target.is_file()):
            cut = indexed_html((site_dir / paths.html_file(lang, page)).read_bytes())
        if cut is not None:
            write_if_changed(target, cut)
    _pagefind(copies, lang, output)


def _merged(outputs: list[Path]) -> dict[Path, bytes]:
    """One part's bundle from each language's: their entries listed together, the files they share
    written once."""
    files: dict[Path, bytes] = {}
    entry: dict = {}
    for output in outputs:
        found = json.loads((output / "pagefind-entry.json").read_text(encoding="utf-8"))
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


def _in_rounds(runs: list[tuple], jobs: int, most_pages: int) -> list[list[tuple]]:
    """The Pagefind runs, each (lang, pages, ...), grouped in rounds that run at the same time: at
    most `jobs` runs, and at most `most_pages` pages indexed at once (Pagefind's memory grows with them)."""
    rounds: list[list[tuple]] = []
    for run in runs:
        last = rounds[-1] if rounds else None
        if last and len(last) < jobs and sum(len(other[1]) for other in last) + len(run[1]) <= most_pages:
            last.append(run)
        else:
            rounds.append([run])
    return rounds


def write_search_index(site_dir: Path, languages: tuple[str, ...], page_paths: list[str], part_pages: int = PART_PAGES,
                       work: Path | None = None, jobs: int = 1) -> int:
    """Index every page of `site_dir` into `site_dir/pagefind/`, in the parts of search_parts (the
    search page merges them); return how many parts of a language were indexed again. `work`: a
    folder kept between builds (the build cache's) where each language's part waits with the key of
    what it was made of: a part whose pages Pagefind reads the same bytes of is not indexed again.
    Files whose bytes did not change keep their mtime, and files no longer written go."""
    parts = search_parts(page_paths, part_pages)
    bundle = site_dir / SEARCH_BUNDLE
    with contextlib.ExitStack() as stack:
        if work is None:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=".search-", dir=site_dir.parent)))
        work.mkdir(parents=True, exist_ok=True)
        digests = _Digests(site_dir, work / "digests.json")
        runs = []
        for part, pages in enumerate(parts):
            for lang in languages:
                output, key = work / f"{part}-{lang}", _part_key(lang, pages, digests)
                key_file = work / f"{part}-{lang}.key"
                if not (key_file.is_file() and key_file.read_text(encoding="utf-8") == key and (output / "pagefind-entry.json").is_file()):
                    key_file.unlink(missing_ok=True)  # written again once the part is
                    runs.append((lang, pages, output, key_file, key))
        with ThreadPoolExecutor(max(1, jobs)) as pool:  # each run is a Pagefind process of its own
            read_again = digests.read_again
            for round_ in _in_rounds(runs, jobs, max(part_pages, PAGES_AT_ONCE)):
                for done in [pool.submit(_index_part, site_dir, lang, pages, output, output.with_name(f"{output.name}.pages"), read_again)
                             for lang, pages, output, _, _ in round_]:
                    done.result()
                for _, _, _, key_file, key in round_:
                    key_file.write_text(key, encoding="utf-8")
        names: set[Path] = set()  # every file of the bundle
        for part in range(len(parts)):
            names |= _write_part(bundle, part, [work / f"{part}-{lang}" for lang in languages], work / f"{part}.files")
        wanted = {f"{part}-{lang}" for part in range(len(parts)) for lang in languages} | {f"{part}.files" for part in range(len(parts))}
        for stale in sorted(work.glob("*-*")) + sorted(work.glob("*.files")):  # parts of a larger site, or of languages no longer built
            if stale.name.removesuffix(".key").removesuffix(".pages") not in wanted:
                if stale.is_dir():
                    shutil.rmtree(stale)
                else:
                    stale.unlink()
        digests.save()
    for path in sorted(bundle.rglob("*")):
        if path.is_file() and path.relative_to(bundle) not in names:
            path.unlink()
    return len(runs)


def _write_part(bundle: Path, part: int, outputs: list[Path], manifest: Path) -> set[Path]:
    """One part's bundle, its languages' outputs merged (_merged), written into `bundle`; the names of
    its files (below `bundle`) returned. `manifest` keeps them with the key of the outputs they were
    merged from: a part whose languages were not indexed again is neither read nor written again."""
    prefix = Path(bundle_folder(part)).relative_to(SEARCH_BUNDLE)
    key = hashlib.sha256("\n".join(output.with_name(f"{output.name}.key").read_text(encoding="utf-8")
                                    for output in outputs).encode()).hexdigest()
    try:
        kept = json.loads(manifest.read_text(encoding="utf-8"))
        if kept["key"] == key and (bundle / prefix / "pagefind-entry.json").is_file():
            return {Path(name) for name in kept["names"]}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    files = {prefix / name: data for name, data in _merged(outputs).items()}
    for name, data in sorted(files.items()):
        write_if_changed(bundle / name, data)
    write_if_changed(manifest, json.dumps({"key": key, "names": sorted(name.as_posix() for name in files)}))
    return set(files)
