"""One language of the site: Markdown sources, one MkDocs build, the twins."""

from __future__ import annotations

import functools
import json

from generator.catalog.records import Catalog
from generator.site import paths
from generator.site.cache import BuildCache, KeepMtimes, remove_stale
from generator.site.files import write_if_changed
from generator.site.front_matter import front_matter
from generator.site.mkdocs_runner import mkdocs_config, run_mkdocs
from generator.site.progress import Progress
from generator.site.render import Renderer
from generator.site.shared_assets import point_at_shared_assets
from generator.site.view_models import PageSpec

# Files MkDocs writes on every build, dirty or not.
ALWAYS_REWRITTEN = ("404.html", "search.html", "sitemap.xml", "sitemap.xml.gz")


def _write_sources(catalog, lang, specs, renderer, cache: BuildCache, progress: Progress):
    """Write each page's Markdown source (unchanged model pages are skipped); return the titles
    of every page, the twins rendered on the way, and how many sources were written."""
    docs_dir = cache.docs_dir(lang)
    written, titles, twins = 0, {}, {}
    progress.start(f"{lang}: Markdown", len(specs))
    for spec in specs:
        entry_key = f"{lang}:{spec.path}"
        entry = cache.pages.get(entry_key)
        source = docs_dir / paths.source_file(spec.path)
        if spec.cache_key and entry and entry["hash"] == spec.cache_key and source.is_file():
            titles[spec.path] = entry["title"]
            progress.advance()
            continue
        page = spec.build()
        rendered = renderer.render_page(page, twin=False)
        written += write_if_changed(source, front_matter(catalog.site, lang, spec.path, rendered, renderer) + rendered.markdown)
        twins[spec.path] = renderer.render(page, twin=True)
        cache.pages[entry_key] = {"hash": spec.cache_key, "title": rendered.title}
        titles[spec.path] = rendered.title
        progress.advance()
    progress.finish_line()
    remove_stale(docs_dir, {docs_dir / paths.source_file(s.path) for s in specs}, (".md",))
    return titles, twins, written


def _write_twins(lang, specs, twins, renderer, cache: BuildCache) -> None:
    root = cache.site_dir
    for spec in specs:
        twin_path = root / paths.twin_file(lang, spec.path)
        if spec.path in twins:
            write_if_changed(twin_path, twins[spec.path])
        elif not twin_path.is_file():  # a full MkDocs build cleaned the folder: write it again
            write_if_changed(twin_path, renderer.render(spec.build(), twin=True))
    keep = {root / paths.html_file(lang, s.path) for s in specs} | {root / paths.twin_file(lang, s.path) for s in specs}
    remove_stale(root / lang, keep, (".html", ".html.md"))


def build_language(catalog: Catalog, lang: str, specs: list[PageSpec], cache: BuildCache, progress: Progress) -> dict[str, str]:
    """Build `lang` into the cache's site folder; return each page's title."""
    renderer = Renderer(catalog.site, lang)
    titles, twins, written = _write_sources(catalog, lang, specs, renderer, cache, progress)
    lang_dir = cache.site_dir / lang
    config = mkdocs_config(catalog.site, lang, renderer, cache.docs_dir(lang), lang_dir)
    config_file = cache.root / f"mkdocs-{lang}.yml"
    write_if_changed(config_file, json.dumps(config, indent=1, ensure_ascii=False))
    dirty = cache.valid and lang_dir.is_dir()
    rewritten = KeepMtimes(lang_dir, ALWAYS_REWRITTEN)
    progress.start(f"{lang}: HTML", written if dirty else len(specs))
    base = paths.base_path(catalog.site.base_url)
    rewrite = functools.partial(point_at_shared_assets, absolute_prefix=f"{base}{lang}/", shared_prefix=base)
    run_mkdocs(config_file, dirty, progress, rewrite)
    progress.finish_line()
    _write_twins(lang, specs, twins, renderer, cache)
    rewritten.restore()
    return titles
