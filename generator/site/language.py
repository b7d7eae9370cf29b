"""One language of the site: Markdown sources, one MkDocs build, the twins."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from typing import Callable

from generator.catalog.records import Catalog
from generator.site import paths
from generator.site.cache import BuildCache, KeepMtimes, remove_stale
from generator.site.files import write_if_changed
from generator.site.front_matter import front_matter
from generator.site.mkdocs_runner import mkdocs_config, run_mkdocs
from generator.site.progress import Progress
from generator.site.render import Renderer
from generator.site.shared_assets import point_at_shared_assets
from generator.site.view_models import Page, PageSpec

# Files MkDocs writes on every build, dirty or not.
ALWAYS_REWRITTEN = ("404.html", "search.html", "sitemap.xml", "sitemap.xml.gz")


@dataclass
class Sources:
    """One language's Markdown sources as written: each page's title, the twins rendered on the way,
    and how many sources changed."""

    titles: dict[str, str] = field(default_factory=dict)
    twins: dict[str, str] = field(default_factory=dict)
    written: int = 0


def write_sources(catalog: Catalog, specs: list[PageSpec], renderers: dict[str, Renderer], cache: BuildCache,
                  progress: Progress, on_built: Callable[[Page], None]) -> dict[str, Sources]:
    """Write each page's Markdown source in every language; a page's view model is built once for all
    of them (and given to `on_built`: the API), and not at all where every language's source is
    unchanged (a model page whose content key is the cache's)."""
    done = {lang: Sources() for lang in renderers}
    progress.start("Markdown", len(specs))
    for spec in specs:
        page = None
        for lang, renderer in renderers.items():
            entry_key = f"{lang}:{spec.path}"
            entry = cache.pages.get(entry_key)
            source = cache.docs_dir(lang) / paths.source_file(spec.path)
            sources = done[lang]
            if spec.cache_key and entry and entry["hash"] == spec.cache_key and source.is_file():
                sources.titles[spec.path] = entry["title"]
                continue
            if page is None:
                page = spec.build()
                on_built(page)
            rendered = renderer.render_page(page, twin=False)
            sources.written += write_if_changed(source, front_matter(catalog.site, lang, spec.path, rendered, renderer) + rendered.markdown)
            sources.twins[spec.path] = renderer.render(page, twin=True)
            cache.pages[entry_key] = {"hash": spec.cache_key, "title": rendered.title}
            sources.titles[spec.path] = rendered.title
        progress.advance()
    progress.finish_line()
    for lang in renderers:
        docs_dir = cache.docs_dir(lang)
        remove_stale(docs_dir, {docs_dir / paths.source_file(s.path) for s in specs}, (".md",))
    return done


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


def build_language(catalog: Catalog, lang: str, specs: list[PageSpec], renderer: Renderer, sources: Sources,
                   cache: BuildCache, progress: Progress) -> None:
    """Build `lang`'s HTML from its Markdown sources (write_sources) into the cache's site folder."""
    lang_dir = cache.site_dir / lang
    config = mkdocs_config(catalog.site, lang, renderer, cache.docs_dir(lang), lang_dir)
    config_file = cache.root / f"mkdocs-{lang}.yml"
    write_if_changed(config_file, json.dumps(config, indent=1, ensure_ascii=False))
    dirty = cache.valid and lang_dir.is_dir()
    rewritten = KeepMtimes(lang_dir, ALWAYS_REWRITTEN)
    progress.start(f"{lang}: HTML", sources.written if dirty else len(specs))
    base = paths.base_path(catalog.site.base_url)
    rewrite = functools.partial(point_at_shared_assets, absolute_prefix=f"{base}{lang}/", shared_prefix=base)
    run_mkdocs(config_file, dirty, progress, rewrite)
    progress.finish_line()
    _write_twins(lang, specs, sources.twins, renderer, cache)
    rewritten.restore()
