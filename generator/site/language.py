"""One language of the site: Markdown sources, one MkDocs build, the twins."""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from generator.catalog.records import Catalog
from generator.site import paths
from generator.site.cache import BuildCache, KeepMtimes, remove_stale
from generator.site.files import write_if_changed
from generator.site.front_matter import front_matter
from generator.site.mkdocs_runner import mkdocs_config, run_mkdocs
from generator.site.parallel import run_all
from generator.site.progress import Progress
from generator.site.render import Renderer
from generator.site.row_store import RowFragments, StoredRows, fragments_file, rows_file, shown_digests
from generator.site.row_tables import fill, read_parts, unfilled, write_parts
from generator.site.page_html import page_rewrite
from generator.site.view_models import ModelsIndexPage, Page, PageSpec

# Files MkDocs writes on every build, dirty or not.
ALWAYS_REWRITTEN = ("404.html", "search.html", "sitemap.xml", "sitemap.xml.gz")


@dataclass
class Sources:
    """One language's Markdown sources as written: each page's title, the pages made again (their
    twins are in the cache's twins folder, not in memory), and how many sources changed."""

    titles: dict[str, str] = field(default_factory=dict)
    remade: set[str] = field(default_factory=set)
    written: int = 0


def parts_copy(cache: BuildCache, lang: str, page: str) -> Path:
    """Where the HTML of a page's parts of rows waits for MkDocs to have written the page (row_tables.py)."""
    return cache.root / "parts" / lang / f"{page}.json"


def twin_copy(cache: BuildCache, lang: str, page: str) -> Path:
    """Where a page's Markdown twin waits for MkDocs to have built its language (a build that is not
    dirty empties the language's folder first)."""
    return cache.root / "twins" / paths.twin_file(lang, page)


# The build's pages, set while write_sources runs: forked workers inherit them (parallel.py).
_JOB: tuple | None = None


def page_key(spec: PageSpec, cache_root: Path, model_keys: dict[str, str]) -> tuple[str, Page | None, StoredRows | None]:
    """A page's key in the build cache, and what was made to know it: a model page's is its model's
    (cache_key); a page of rows' the digest of its rows (row_store.py, `model_keys`: model page path
    → key), returned; any other page's the digest of its view model, which holds all that the page
    shows, returned."""
    if spec.cache_key is not None:
        return spec.cache_key, None, None
    if spec.rows:
        stored = StoredRows(rows_file(cache_root, spec.path), spec.rows, model_keys)
        return stored.key, None, stored
    page = spec.page()
    return hashlib.sha256(repr(page).encode()).hexdigest(), page, None


def _page_sources(index: int) -> list[tuple[str, str, int, dict | None]]:
    """One page in every language: (lang, title, sources written, cache entry), its twin written to
    twin_copy; nothing is rendered for a language whose source is unchanged (entry None). A model
    page is keyed by its model (and not built when unchanged); a page of rows (a GPU page, the fit
    page) by its rows, those of the models that did not change kept from an earlier build
    (row_store.py), and not built when unchanged either; every other page by its view model."""
    catalog, specs, renderers, cache, on_built, model_keys = _JOB
    spec, results = specs[index], []
    key, page, stored = page_key(spec, cache.root, model_keys)
    unchanged = {lang for lang in renderers if (entry := cache.pages.get(f"{lang}:{spec.path}"))
                 and entry["hash"] == key and (cache.docs_dir(lang) / paths.source_file(spec.path)).is_file()}
    if page is not None and len(unchanged) < len(renderers):  # an unchanged page's API file is unchanged too
        on_built(page)
    digests = None  # each model's row digest (row_store.py), for the rows kept of a page of rows
    for lang, renderer in renderers.items():
        source = cache.docs_dir(lang) / paths.source_file(spec.path)
        if lang in unchanged:
            results.append((lang, cache.pages[f"{lang}:{spec.path}"]["title"], 0, None))
            continue
        if page is None:
            page = spec.page(stored.rows() if stored else None)
            on_built(page)
        if digests is None:
            digests = stored.by_model() if stored else shown_digests(page.rows) if isinstance(page, ModelsIndexPage) else None
        kept = RowFragments(fragments_file(cache.root, lang, spec.path), digests) if digests is not None else None
        rendered = renderer.render_page(page, twin=False, kept=kept)
        written = write_if_changed(source, front_matter(catalog.site, lang, spec.path, rendered, renderer) + rendered.markdown)
        write_if_changed(twin_copy(cache, lang, spec.path), renderer.render(page, twin=True, kept=kept))
        write_parts(parts_copy(cache, lang, spec.path), rendered.parts)
        if kept is not None:
            kept.save()
        results.append((lang, rendered.title, written, {"hash": key, "title": rendered.title}))
    if stored is not None:
        stored.save()
        for _, _, _, entry in results:  # the key of the rows the page was built from
            if entry is not None:
                entry["hash"] = stored.key
    return results


def write_sources(catalog: Catalog, specs: list[PageSpec], renderers: dict[str, Renderer], cache: BuildCache,
                  progress: Progress, on_built: Callable[[Page], None], jobs: int = 1) -> dict[str, Sources]:
    """Write each page's Markdown source in every language, on `jobs` workers; a page's view model is
    built once for all of them (and given to `on_built`: the API), and not at all where every
    language's source is unchanged (a model page whose content key is the cache's)."""
    global _JOB
    done = {lang: Sources() for lang in renderers}
    progress.start("Markdown", len(specs))
    model_keys = {spec.path: spec.cache_key for spec in specs if spec.cache_key}
    _JOB = (catalog, specs, renderers, cache, on_built, model_keys)
    try:
        for spec, results in zip(specs, run_all(_page_sources, range(len(specs)), jobs)):
            for lang, title, written, entry in results:
                sources = done[lang]
                sources.titles[spec.path] = title
                sources.written += written
                if entry is not None:
                    sources.remade.add(spec.path)
                    cache.pages[f"{lang}:{spec.path}"] = entry
            progress.advance()
    finally:
        _JOB = None
    progress.finish_line()
    for lang in renderers:
        docs_dir = cache.docs_dir(lang)
        remove_stale(docs_dir, {docs_dir / paths.source_file(s.path) for s in specs}, (".md",))
        twins = cache.root / "twins" / lang
        remove_stale(twins, {twin_copy(cache, lang, s.path) for s in specs}, (".html.md",))
        parts = cache.root / "parts" / lang
        remove_stale(parts, {parts_copy(cache, lang, s.path) for s in specs}, (".json",))
    return done


def _fill_parts(lang, specs, remade, cache: BuildCache) -> None:
    """The parts of the pages that have them, in the HTML MkDocs wrote (row_tables.py): of each page
    made again, and of any MkDocs wrote again unchanged (a marker not filled)."""
    for spec in specs:
        parts_file = parts_copy(cache, lang, spec.path)
        if not parts_file.is_file():
            continue
        page_file = cache.site_dir / paths.html_file(lang, spec.path)
        html = page_file.read_text(encoding="utf-8")
        if spec.path in remade or unfilled(html):
            write_if_changed(page_file, fill(html, read_parts(parts_file)))


def _write_twins(lang, specs, remade, cache: BuildCache) -> None:
    """Each page's twin beside its HTML: the one made this build, or kept from an earlier one (a
    build that is not dirty emptied the folder: every page's twin is copied again)."""
    root = cache.site_dir
    for spec in specs:
        twin_path = root / paths.twin_file(lang, spec.path)
        if spec.path in remade or not twin_path.is_file():
            write_if_changed(twin_path, twin_copy(cache, lang, spec.path).read_bytes())
    keep = {root / paths.html_file(lang, s.path) for s in specs} | {root / paths.twin_file(lang, s.path) for s in specs}
    remove_stale(root / lang, keep, (".html", ".html.md"))


def build_language(catalog: Catalog, lang: str, specs: list[PageSpec], renderer: Renderer, sources: Sources,
                   cache: BuildCache, progress: Progress, merged_bundles: tuple[str, ...] = ()) -> None:
    """Build `lang`'s HTML from its Markdown sources (write_sources) into the cache's site folder."""
    lang_dir = cache.site_dir / lang
    config = mkdocs_config(catalog.site, lang, renderer, cache.docs_dir(lang), lang_dir, merged_bundles)
    config_file = cache.root / f"mkdocs-{lang}.yml"
    write_if_changed(config_file, json.dumps(config, indent=1, ensure_ascii=False))
    dirty = cache.valid and lang_dir.is_dir()
    rewritten = KeepMtimes(lang_dir, ALWAYS_REWRITTEN)
    progress.start(f"{lang}: HTML", sources.written if dirty else len(specs))
    run_mkdocs(config_file, dirty, progress, page_rewrite(paths.base_path(catalog.site.base_url), lang))
    progress.finish_line()
    _fill_parts(lang, specs, sources.remade, cache)
    _write_twins(lang, specs, sources.remade, cache)
    rewritten.restore()


def _language_html(lang: str) -> None:
    catalog, specs, renderers, sources, cache, merged_bundles = _JOB
    build_language(catalog, lang, specs, renderers[lang], sources[lang], cache, Progress(io.StringIO()), merged_bundles)  # quiet


def build_languages(catalog: Catalog, specs: list[PageSpec], renderers: dict[str, Renderer], sources: dict[str, Sources],
                    cache: BuildCache, progress: Progress, jobs: int = 1, merged_bundles: tuple[str, ...] = ()) -> None:
    """Every language's HTML: one after the other with their progress, or at the same time on
    `jobs` workers (each MkDocs build is one process's work), with one progress line for all."""
    global _JOB
    if jobs <= 1 or len(renderers) <= 1:
        for lang, renderer in renderers.items():
            build_language(catalog, lang, specs, renderer, sources[lang], cache, progress, merged_bundles)
        return
    progress.start(f"HTML ({', '.join(renderers)} at once)", 0)
    _JOB = (catalog, specs, renderers, sources, cache, merged_bundles)
    try:
        for _ in run_all(_language_html, list(renderers), jobs):
            pass
    finally:
        _JOB = None
    progress.finish_line()
