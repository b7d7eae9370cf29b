"""Build the whole site: every language into the cache, the root files, then publish atomically.

The site is built in a cache folder beside the target (`.<out>.cache/`, see cache.py), kept
between builds, then copied to a staging folder and moved into place only when everything
succeeded, so a failed or interrupted build leaves the previous site as it was (publish.py).
One build at a time writes an output folder (lock.py).
"""

from __future__ import annotations

import contextlib
import gc
from pathlib import Path
from typing import Iterator

from generator.catalog.records import Catalog
from generator.site.cache import PARSED_CATALOG, BuildCache, build_key, cache_dir, is_ours
from generator.site.errors import BuildError
from generator.site import paths
from generator.site.api import ApiWriter
from generator.site.language import build_languages, write_sources
from generator.site.parallel import available_cores
from generator.site.lock import build_lock
from generator.site.mkdocs_runner import reproducible_environment
from generator.site.postbuild import write_llms_txt, write_plan_data, write_robots_txt, write_root_index, write_sitemap
from generator.site.progress import Progress
from generator.site.render import Renderer
from generator.site.search_index import PART_PAGES, bundle_folder, search_parts, write_search_index
from generator.site.shared_assets import share_assets
from generator.site.publish import check_out_dir, mark, publish, remove_stale_staging, remove_staging, staging_dir
from generator.site.view_models import site_pages


def _written_path(error: OSError, out_dir: Path) -> Path:
    """What a failed write names: the file, when it is the output's (the site, its staging folder or
    its cache beside it), else the output folder (not a file of the tool's own it was copying)."""
    ours = (str(out_dir) + "/", str(out_dir.parent / f".{out_dir.name}."))  # the site, and .site.cache/.building-
    for name in (error.filename2, error.filename):
        if name and str(Path(name).absolute()).startswith(ours):
            return Path(name)
    return out_dir


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """CPython's cycle collector run less often while a build runs, and without the objects alive at
    its start (the catalog). A build allocates millions of small containers and frees them by their
    counts (the rows a page keeps read back as JSON, the pages' templates): at the default thresholds
    the collector scanned them again and again, a third of the Markdown written for a model added at
    1,000 models (benchmarks/rebuild_stages.py). The thresholds are set back afterwards."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(100_000, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def output_folder(out_dir: Path) -> Path:
    """Where a build of `out_dir` writes: a link is built where it points (the link stays as it was)."""
    out_dir = out_dir.absolute()
    return out_dir.resolve() if out_dir.is_symlink() else out_dir


def parsed_catalog_folder(out_dir: Path) -> Path | None:
    """Where the build cache of `out_dir` keeps what the catalog's files parsed to
    (catalog/parsed_files.py); None where there is no cache folder of this tool's yet (a first
    build: the next one keeps them) or a link was planted in its place (never followed)."""
    root = cache_dir(output_folder(out_dir))
    folder = root / PARSED_CATALOG
    return folder if is_ours(root) and not folder.is_symlink() else None


def build_site(catalog: Catalog, out_dir: Path, progress: Progress | None = None, jobs: int | None = None,
               search_part_pages: int = PART_PAGES) -> int:
    """Build the whole site into `out_dir`, atomically; return the number of pages written. `jobs`:
    processes for the pages and the languages (default: the cores this process may use);
    `search_part_pages`: pages of one language the search index takes in one part (search_index.py)."""
    progress = progress or Progress()
    jobs = available_cores() if jobs is None else jobs
    out_dir = output_folder(out_dir)
    check_out_dir(out_dir)
    with build_lock(out_dir), fewer_collections():
        remove_stale_staging(out_dir)
        staging = staging_dir(out_dir)
        try:
            with reproducible_environment(catalog.site.prices_date):
                cache = BuildCache(out_dir, build_key(catalog))
                specs = site_pages(catalog)
                renderers = {lang: Renderer(catalog.site, lang) for lang in catalog.site.languages}
                api = ApiWriter(cache.site_dir, catalog)
                sources = write_sources(catalog, specs, renderers, cache, progress, api.write, jobs)
                api.finish([spec.path for spec in specs])
                parts = search_parts([spec.path for spec in specs], search_part_pages)
                merged = tuple(bundle_folder(part) for part in range(1, len(parts)))
                build_languages(catalog, specs, renderers, sources, cache, progress, jobs, merged)
                titles = [(lang, page, title) for lang in renderers for page, title in sources[lang].titles.items()]
            site_dir = cache.site_dir
            share_assets(site_dir, catalog.site.languages)
            write_sitemap(site_dir, catalog.site, [spec.path for spec in specs])
            write_robots_txt(site_dir, catalog.site)
            write_llms_txt(site_dir, catalog.site, titles)
            write_root_index(site_dir, catalog.site)
            remade = {page for lang_sources in sources.values() for page in lang_sources.remade}
            write_plan_data(site_dir, catalog, frozenset(m.slug for m in catalog.models if paths.model_page(m.slug) not in remade),
                            cache.root / "plan-parts.json")
            progress.start("search index", 0)
            write_search_index(site_dir, catalog.site.languages, [spec.path for spec in specs], search_part_pages,
                               cache.root / "search", jobs)
            progress.finish_line()
            mark(site_dir)
            cache.finish()
            publish(site_dir, out_dir, staging, on_swapped=progress.site_published)
        except OSError as error:
            raise BuildError(f"{_written_path(error, out_dir)}: {error.strerror or error}") from None
        finally:
            remove_staging(staging)
    return len(specs) * len(catalog.site.languages)
