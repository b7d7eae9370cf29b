"""Write the docs tree, run one MkDocs build per language, then the post-build files.

The whole site is built in a staging folder beside the target and moved into place only when
everything succeeded, so a failed build leaves the previous site as it was.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import yaml

from generator import pages as page_models
from generator import paths
from generator.postbuild import write_llms_txt, write_root_index, write_sitemap
from generator.records import Catalog, Site
from generator.structured_data import faq_items, json_ld, markdown_text
from generator.render import TEMPLATES_DIR, Renderer

OVERRIDES_DIR = TEMPLATES_DIR / "overrides"

# Material for MkDocs' own language codes for the site languages.
THEME_LANGUAGES = {"pt": "pt-BR", "en": "en"}
LANGUAGE_NAMES = {"pt": "Português", "en": "English"}
SECTION_TITLES = {"models": "Models", "gpus": "GPUs"}  # msgids the templates use too


class BuildError(Exception):
    """A build that could not finish; the message is one line for the user."""


@dataclass(frozen=True)
class Alternate:
    lang: str
    name: str
    href: str  # relative to the page
    url: str  # absolute


def alternates(catalog: Catalog, lang: str, page: str) -> list[Alternate]:
    site = catalog.site
    return [
        Alternate(
            lang=other,
            name=LANGUAGE_NAMES[other],
            href=paths.relative_html_link(lang, page, other, page),
            url=site.base_url + paths.html_file(other, page),
        )
        for other in site.languages
    ]


def _breadcrumbs(site: Site, lang: str, page: str, title: str, renderer: Renderer) -> list[tuple[str, str]]:
    _ = renderer.gettext
    crumbs = [(_("Home"), site.base_url + paths.html_file(lang, "index"))]
    section = page.split("/")[0] if "/" in page else None
    if section:
        crumbs.append((_(SECTION_TITLES[section]), site.base_url + paths.html_file(lang, section)))
    if page != "index":
        crumbs.append((title, site.base_url + paths.html_file(lang, page)))
    return crumbs


def _front_matter(catalog: Catalog, lang: str, page: str, body: str, renderer: Renderer) -> str:
    title = markdown_text(body.splitlines()[0].removeprefix("# "))
    meta = {
        "alternates": [vars(a) for a in alternates(catalog, lang, page)],
        "x_default": catalog.site.base_url + paths.html_file(catalog.site.languages[0], page),
    }
    structured = json_ld(
        faq_items(body, renderer.gettext("Questions")),
        _breadcrumbs(catalog.site, lang, page, title, renderer),
    )
    if structured:
        meta["json_ld"] = structured
    return "---\n" + yaml.safe_dump(meta, sort_keys=True, allow_unicode=True, width=10**9) + "---\n\n"


def _mkdocs_config(catalog: Catalog, lang: str, renderer: Renderer, docs_dir: Path, site_dir: Path) -> dict:
    site = catalog.site
    _ = renderer.gettext
    base = paths.base_path(site.base_url)
    return {
        "site_name": _("%(brand)s GPU requirements") % {"brand": site.brand},
        "site_url": site.base_url + lang + "/",
        "docs_dir": str(docs_dir),
        "site_dir": str(site_dir),
        "use_directory_urls": False,
        "strict": True,
        "theme": {
            "name": "material",
            "language": THEME_LANGUAGES[lang],
            "custom_dir": str(OVERRIDES_DIR),
            "font": False,  # no Google Fonts: the site must not fetch anything from elsewhere
            "features": ["navigation.tabs"],
        },
        # DESIGN: a nav of a few section pages; model and GPU pages are linked from the indexes.
        "nav": [
            {_("Home"): "index.md"},
            {_("Models"): "models.md"},
            {_("GPUs"): "gpus.md"},
        ],
        "not_in_nav": "/models/\n/gpus/\n",
        "plugins": [{"search": {"lang": [lang]}}],
        "markdown_extensions": ["tables", {"toc": {"permalink": False}}],
        "extra_css": ["assets/stylesheets/vram.css"],
        "extra": {
            "alternate": [
                {"name": LANGUAGE_NAMES[other], "link": f"{base}{other}/", "lang": other}
                for other in site.languages
            ],
            "generator": False,
        },
    }


def _run_mkdocs(config_file: Path) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    logger = logging.getLogger("mkdocs")
    collected: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                collected.append(record.getMessage().splitlines()[0])

    handler = Collect()
    logger.addHandler(handler)
    propagate = logger.propagate
    logger.propagate = False
    try:
        build(load_config(config_file=str(config_file)))
    except (MkDocsException, SystemExit) as error:
        detail = collected[0] if collected else str(error)
        raise BuildError(f"mkdocs build failed ({config_file.name}): {detail}") from None
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _sitemaps_for_material(lang_dir: Path) -> None:
    # NOTE: Material's JavaScript fetches "sitemap.xml" next to every <link rel="alternate">
    # (to keep readers on the same page when they switch language); our alternates are pages
    # in models/ and gpus/, so those folders get a copy of the language's sitemap.
    for folder in ("models", "gpus"):
        shutil.copyfile(lang_dir / "sitemap.xml", lang_dir / folder / "sitemap.xml")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _source_date_epoch(catalog: Catalog) -> str:
    date = dt.date.fromisoformat(catalog.site.prices_date)
    return str(int(dt.datetime(date.year, date.month, date.day, tzinfo=dt.timezone.utc).timestamp()))


def _check_out_dir(out_dir: Path) -> None:
    """Refuse to replace a folder that is not a site this tool built (never delete a user's files)."""
    if out_dir.exists() and (
        not out_dir.is_dir() or (any(out_dir.iterdir()) and not (out_dir / "llms.txt").is_file())
    ):
        raise BuildError(f"{out_dir}: exists and is not a site built by this tool; remove it or choose another --out")


def build_site(catalog: Catalog, out_dir: Path, progress: Callable[[str], None] = lambda _: None) -> None:
    """Build the whole site into `out_dir`, atomically."""
    out_dir = out_dir.absolute()
    _check_out_dir(out_dir)
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.building-", dir=out_dir.parent))
    except OSError as error:
        raise BuildError(f"{out_dir}: cannot create the output folder ({error.strerror or error})") from None
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    os.environ["SOURCE_DATE_EPOCH"] = _source_date_epoch(catalog)
    try:
        site_dir = staging / "site"
        pages = page_models.build_pages(catalog)
        twins: list[tuple[str, str, str]] = []
        for lang in catalog.site.languages:
            renderer = Renderer(catalog.site, lang)
            docs_dir = staging / "docs" / lang
            for page in pages:
                body = renderer.render(page, twin=False)
                front_matter = _front_matter(catalog, lang, page.path, body, renderer)
                _write(docs_dir / paths.source_file(page.path), front_matter + body)
            config = _mkdocs_config(catalog, lang, renderer, docs_dir, site_dir / lang)
            config_file = staging / f"mkdocs-{lang}.yml"
            _write(config_file, yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
            progress(f"{lang}: {len(pages)} pages written, building HTML")
            _run_mkdocs(config_file)
            _sitemaps_for_material(site_dir / lang)
            for page in pages:
                twin = renderer.render(page, twin=True)
                _write(site_dir / paths.twin_file(lang, page.path), twin)
                twins.append((lang, page.path, twin.splitlines()[0].removeprefix("# ")))
        page_paths = [page.path for page in pages]
        write_sitemap(site_dir, catalog.site, page_paths)
        write_llms_txt(site_dir, catalog.site, twins)
        write_root_index(site_dir, catalog.site, LANGUAGE_NAMES)
        _swap_into_place(site_dir, out_dir, staging)
    except OSError as error:
        raise BuildError(f"{error.filename or out_dir}: {error.strerror or error}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_into_place(new_site: Path, out_dir: Path, staging: Path) -> None:
    if out_dir.exists():
        out_dir.rename(staging / "previous")
    new_site.rename(out_dir)
