"""Write the docs tree, run one MkDocs build per language, then the post-build files.

The site is built in a cache folder beside the target (`.<out>.cache/`), kept between builds:
pages whose Markdown did not change keep their bytes and mtime, and MkDocs rebuilds only the
pages whose Markdown changed. The finished site is copied to a staging folder and moved into
place only when everything succeeded, so a failed build leaves the previous site as it was.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from generator.site import view_models as page_models
from generator.site import paths
from generator.site.files import write_if_changed
from generator.site.postbuild import write_llms_txt, write_root_index, write_search_index, write_sitemap
from generator.site.progress import Progress
from generator.catalog.records import Catalog, Site
from generator.site.render import LOCALES_DIR, TEMPLATES_DIR, Renderer
from generator.site.structured_data import faq_items, json_ld, markdown_text

OVERRIDES_DIR = TEMPLATES_DIR / "overrides"
HOOKS_FILE = Path(__file__).with_name("mkdocs_hooks.py")

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


def _front_matter(catalog: Catalog, lang: str, page: str, title: str, body: str, renderer: Renderer) -> str:
    meta = {
        "alternates": [vars(a) for a in alternates(catalog, lang, page)],
        "x_default": catalog.site.base_url + paths.html_file(catalog.site.languages[0], page),
        "search": {"exclude": True},  # the search index is ours (postbuild.write_search_index)
    }
    structured = json_ld(
        faq_items(body, renderer.gettext("Questions")),
        _breadcrumbs(catalog.site, lang, page, title, renderer),
    )
    if structured:
        meta["json_ld"] = structured
    # JSON is YAML, and much faster to write than YAML for thousands of pages
    return "---\n" + json.dumps(meta, sort_keys=True, ensure_ascii=False) + "\n---\n\n"


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
        "hooks": [str(HOOKS_FILE)],
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


def _run_mkdocs(config_file: Path, dirty: bool) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    logger = logging.getLogger("mkdocs")
    collected: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                collected.append(record.getMessage().splitlines()[0])

    # NOTE: MkDocs warns that a dirty build may leave navigation stale, and strict mode turns the
    # warning into a failure. Our navigation is three fixed section pages, and model and GPU pages
    # are out of it, so rebuilding only the changed pages gives the same bytes as a full build
    # (tests/test_incremental.py checks it): drop that one warning.
    def not_the_dirty_warning(record: logging.LogRecord) -> bool:
        return "'dirty' build" not in record.getMessage()

    build_logger = logging.getLogger("mkdocs.commands.build")
    handler = Collect()
    logger.addHandler(handler)
    build_logger.addFilter(not_the_dirty_warning)
    propagate = logger.propagate
    logger.propagate = False
    try:
        build(load_config(config_file=str(config_file)), dirty=dirty)
    except (MkDocsException, SystemExit) as error:
        detail = collected[0] if collected else str(error)
        raise BuildError(f"mkdocs build failed ({config_file.name}): {detail}") from None
    finally:
        logger.removeHandler(handler)
        build_logger.removeFilter(not_the_dirty_warning)
        logger.propagate = propagate


def _sitemaps_for_material(lang_dir: Path) -> None:
    # NOTE: Material's JavaScript fetches "sitemap.xml" next to every <link rel="alternate">
    # (to keep readers on the same page when they switch language); our alternates are pages
    # in models/ and gpus/, so those folders get a copy of the language's sitemap.
    for folder in ("models", "gpus"):
        write_if_changed(lang_dir / folder / "sitemap.xml", (lang_dir / "sitemap.xml").read_text(encoding="utf-8"))


def _source_date_epoch(catalog: Catalog) -> str:
    date = dt.date.fromisoformat(catalog.site.prices_date)
    return str(int(dt.datetime(date.year, date.month, date.day, tzinfo=dt.timezone.utc).timestamp()))


# Written at the root of every site this tool builds; a folder without it is never replaced.
MARKER = ".vram-guide-site"


def _check_out_dir(out_dir: Path) -> None:
    """Refuse to replace a folder that is not a site this tool built (never delete a user's files)."""
    if out_dir.exists() and (not out_dir.is_dir() or (any(out_dir.iterdir()) and not (out_dir / MARKER).is_file())):
        raise BuildError(f"{out_dir}: exists and is not a site built by this tool (no {MARKER}); choose another --out")


def _build_key(catalog: Catalog) -> str:
    """What every page depends on besides its own model: when it changes, everything is rebuilt."""
    digest = hashlib.sha256()
    digest.update(repr((catalog.site, catalog.gpus, version("mkdocs"), version("mkdocs-material"))).encode())
    code = Path(__file__).parent
    for folder, pattern in ((TEMPLATES_DIR, "**/*"), (LOCALES_DIR, "**/*.po"), (code, "*.py")):
        for path in sorted(folder.glob(pattern)):
            if path.is_file():
                digest.update(path.relative_to(folder).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


class _Cache:
    """The folder kept between builds: docs/<lang> (Markdown), site/ (MkDocs' output), state.json."""

    def __init__(self, out_dir: Path, key: str):
        self.root = out_dir.parent / f".{out_dir.name}.cache"
        self.state_file = self.root / "state.json"
        state = {}
        try:
            state = json.loads(self.state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
        self.valid = state.get("key") == key and state.get("complete") is True
        if not self.valid and self.root.exists():
            shutil.rmtree(self.root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.key = key
        self.pages: dict[str, dict] = state.get("pages", {}) if self.valid else {}
        self._save(complete=False)  # a build that dies from here on leaves an invalid cache

    def _save(self, complete: bool) -> None:
        state = {"key": self.key, "complete": complete, "pages": self.pages}
        self.state_file.write_text(json.dumps(state, sort_keys=True), encoding="utf-8")

    def finish(self) -> None:
        self._save(complete=True)


# Files MkDocs writes on every build, dirty or not.
ALWAYS_REWRITTEN = ("404.html", "sitemap.xml", "sitemap.xml.gz", "search/search_index.json")


class _Unchanged:
    """Give back their old mtime to files rewritten with the very same bytes."""

    def __init__(self, folder: Path, names: tuple[str, ...]):
        self.before = {}
        for name in names:
            path = folder / name
            if path.is_file():
                self.before[path] = (path.read_bytes(), path.stat().st_mtime_ns)

    def restore(self) -> None:
        for path, (data, mtime) in self.before.items():
            if path.is_file() and path.read_bytes() == data:
                os.utime(path, ns=(mtime, mtime))


def _remove_stale(folder: Path, keep: set[Path], suffixes: tuple[str, ...]) -> None:
    for sub in ("models", "gpus"):
        for path in (folder / sub).glob("*"):
            if path.name.endswith(suffixes) and path not in keep:
                path.unlink()


def _write_language(catalog, lang, specs, cache: _Cache, progress: Progress) -> list[tuple[str, str, str]]:
    """Write the Markdown of every page, run MkDocs, write the twins; return (lang, page, title)."""
    renderer = Renderer(catalog.site, lang)
    docs_dir, site_dir = cache.root / "docs" / lang, cache.root / "site" / lang
    written, titles, twins = 0, [], {}
    progress.start(f"{lang}: Markdown", len(specs))
    for spec in specs:
        entry_key = f"{lang}:{spec.path}"
        entry = cache.pages.get(entry_key)
        source = docs_dir / paths.source_file(spec.path)
        if spec.cache_key and entry and entry["hash"] == spec.cache_key and source.is_file():
            titles.append((lang, spec.path, entry["title"]))
            progress.advance()
            continue
        page = spec.build()
        body = renderer.render(page, twin=False)
        title = markdown_text(body.splitlines()[0].removeprefix("# "))
        written += write_if_changed(source, _front_matter(catalog, lang, spec.path, title, body, renderer) + body)
        twins[spec.path] = renderer.render(page, twin=True)
        cache.pages[entry_key] = {"hash": spec.cache_key, "title": title}
        titles.append((lang, spec.path, title))
        progress.advance()
    progress.finish_line()
    _remove_stale(docs_dir, {docs_dir / paths.source_file(s.path) for s in specs}, (".md",))
    config = _mkdocs_config(catalog, lang, renderer, docs_dir, site_dir)
    config_file = cache.root / f"mkdocs-{lang}.yml"
    write_if_changed(config_file, json.dumps(config, indent=1, ensure_ascii=False))
    dirty = cache.valid and site_dir.is_dir()
    rewritten = _Unchanged(site_dir, ALWAYS_REWRITTEN)
    progress.start(f"{lang}: HTML", written if dirty else len(specs))
    _run_mkdocs(config_file, dirty)
    progress.finish_line()
    for spec in specs:
        twin_path = site_dir.parent / paths.twin_file(lang, spec.path)
        if spec.path in twins:
            write_if_changed(twin_path, twins[spec.path])
        elif not twin_path.is_file():  # a full MkDocs build cleaned the folder: write it again
            write_if_changed(twin_path, renderer.render(spec.build(), twin=True))
    keep = {site_dir.parent / paths.html_file(lang, s.path) for s in specs}
    keep |= {site_dir.parent / paths.twin_file(lang, s.path) for s in specs}
    _remove_stale(site_dir, keep, (".html", ".html.md"))
    _sitemaps_for_material(site_dir)
    write_search_index(site_dir, [(page, title) for _, page, title in titles])
    rewritten.restore()
    return titles


def build_site(catalog: Catalog, out_dir: Path, progress: Progress | None = None) -> int:
    """Build the whole site into `out_dir`, atomically; return the number of pages written."""
    from generator.site import progress as progress_module

    progress = progress or Progress()
    progress_module.current = progress
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
        cache = _Cache(out_dir, _build_key(catalog))
        specs = page_models.site_pages(catalog)
        titles = []
        for lang in catalog.site.languages:
            titles += _write_language(catalog, lang, specs, cache, progress)
        site_dir = cache.root / "site"
        write_sitemap(site_dir, catalog.site, [spec.path for spec in specs])
        write_llms_txt(site_dir, catalog.site, titles)
        write_root_index(site_dir, catalog.site, LANGUAGE_NAMES)
        write_if_changed(site_dir / MARKER, "A site built by `python -m generator build`; the next build replaces this folder.\n")
        shutil.copytree(site_dir, staging / "site", copy_function=shutil.copy2)
        _swap_into_place(staging / "site", out_dir, staging)
        cache.finish()
    except OSError as error:
        raise BuildError(f"{error.filename or out_dir}: {error.strerror or error}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return len(specs) * len(catalog.site.languages)


def _swap_into_place(new_site: Path, out_dir: Path, staging: Path) -> None:
    if out_dir.exists():
        out_dir.rename(staging / "previous")
    new_site.rename(out_dir)
