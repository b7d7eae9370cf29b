"""Build the whole site: every language into the cache, the root files, then publish atomically.

The site is built in a cache folder beside the target (`.<out>.cache/`, see cache.py), kept
between builds, then copied to a staging folder and moved into place only when everything
succeeded, so a failed build leaves the previous site as it was.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from generator.catalog.records import Catalog
from generator.site.cache import BuildCache, build_key
from generator.site.errors import BuildError
from generator.site.front_matter import LANGUAGE_NAMES
from generator.site.language import build_language
from generator.site.mkdocs_runner import reproducible_environment
from generator.site.postbuild import write_llms_txt, write_root_index, write_sitemap
from generator.site.progress import Progress
from generator.site.publish import check_out_dir, mark, publish, staging_dir
from generator.site.view_models import site_pages


def build_site(catalog: Catalog, out_dir: Path, progress: Progress | None = None) -> int:
    """Build the whole site into `out_dir`, atomically; return the number of pages written."""
    progress = progress or Progress()
    out_dir = out_dir.absolute()
    check_out_dir(out_dir)
    staging = staging_dir(out_dir)
    try:
        with reproducible_environment(catalog.site.prices_date):
            cache = BuildCache(out_dir, build_key(catalog))
            specs = site_pages(catalog)
            titles = [
                (lang, page, title)
                for lang in catalog.site.languages
                for page, title in build_language(catalog, lang, specs, cache, progress).items()
            ]
        site_dir = cache.site_dir
        write_sitemap(site_dir, catalog.site, [spec.path for spec in specs])
        write_llms_txt(site_dir, catalog.site, titles)
        write_root_index(site_dir, catalog.site, LANGUAGE_NAMES)
        mark(site_dir)
        publish(site_dir, out_dir, staging)
        cache.finish()
    except OSError as error:
        raise BuildError(f"{error.filename or out_dir}: {error.strerror or error}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return len(specs) * len(catalog.site.languages)
