"""One MkDocs build of one language: its configuration, its log, its progress, its environment.

The only module that knows MkDocs' API, so the backend can be swapped later (DESIGN.md).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import logging
import os
import zlib
from pathlib import Path
from typing import Callable, Iterator

from generator.catalog.records import Site
from generator.site import paths
from generator.site.errors import BuildError
from generator.languages import LANGUAGES
from generator.site.progress import Progress
from generator.site.render import COMPILED_DIR, TEMPLATES_DIR, CompiledTemplates, Renderer
from generator.site.row_tables import MARKDOWN_EXTENSIONS
from generator.site.search_index import SEARCH_BUNDLE

OVERRIDES_DIR = TEMPLATES_DIR / "overrides"


def mkdocs_config(site: Site, lang: str, renderer: Renderer, docs_dir: Path, site_dir: Path,
                  merged_bundles: tuple[str, ...] = ()) -> dict:
    """`merged_bundles`: the search index's parts after the first (search_index.py), below the site root."""
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
            "language": LANGUAGES[lang].theme_language,
            "custom_dir": str(OVERRIDES_DIR),
            "font": False,  # no Google Fonts: the site must not fetch anything from elsewhere
            "features": ["navigation.tabs"],
            # overrides/search.html: the search page (Pagefind, search_index.py), like the 404 page
            "static_templates": ["search.html"],
        },
        # DESIGN: a nav of a few section pages; model and GPU pages are linked from the indexes.
        "nav": [
            {_("Home"): "index.md"},
            {_("Models"): "models.md"},
            {_("GPUs"): "gpus.md"},
            {_("What fits my GPUs"): "fit.md"},
        ],
        "not_in_nav": "/models/\n/gpus/\n",
        # no Material search: its index holds every page's full text (tens of MB at thousands of
        # models); Pagefind's (search_index.py) is split in chunks a search downloads a few of
        "plugins": [],
        "markdown_extensions": MARKDOWN_EXTENSIONS,
        "extra_css": ["assets/stylesheets/vram.css"],
        "extra": {
            "alternate": [
                {"name": LANGUAGES[other].name, "link": f"{base}{other}/", "lang": other}
                for other in site.languages
            ],
            "generator": False,
            # overrides/search.html: the search page, Pagefind's UI with its words in the language
            "search_page": {
                "title": _("Search"),
                "text": _("Search the text of every model and GPU page: a model, a family, a GPU, a term such as \"mixture of experts\"."),
                "noscript": _("Search needs JavaScript. Every model is listed on the models page and every GPU on the GPUs page."),
                # the bundle relative to {lang}/search.html; results at the site's path (Pagefind
                # wants results from the root: "/docs/pt/models/x.html")
                "bundle": f"../{SEARCH_BUNDLE}/",
                "merge": [f"../{folder}/" for folder in merged_bundles],  # the index's other parts
                "base": base,
                "strings": {
                    "placeholder": _("Search models, GPUs and terms"),
                    "clear_search": _("Clear"),
                    "load_more": _("More results"),
                    "search_label": _("Search this site"),
                    "filters_label": _("Filters"),
                    "zero_results": _("No results for [SEARCH_TERM]"),
                    "many_results": _("[COUNT] results for [SEARCH_TERM]"),
                    "one_result": _("[COUNT] result for [SEARCH_TERM]"),
                    "alt_search": _("No results for [SEARCH_TERM]. Showing results for [DIFFERENT_TERM] instead"),
                    "search_suggestion": _("No results for [SEARCH_TERM]. Try one of these searches:"),
                    "searching": _("Searching for [SEARCH_TERM]..."),
                },
            },
            "search_form": {"label": _("Search")},  # partials/header.html
            # overrides/404.html: the not-found page in the site's language, with links that work
            # from any address (it is served for every missing path)
            "not_found": {
                "title": _("Page not found"),
                "text": _("There is no page at this address. The models and GPUs are listed here:"),
                "home": f"{base}{lang}/index.html",
                "home_text": _("Home"),
                "models": f"{base}{lang}/models.html",
                "models_text": _("All models"),
                "gpus": f"{base}{lang}/gpus.html",
                "gpus_text": _("GPUs"),
            },
        },
    }


@contextlib.contextmanager
def reproducible_environment(prices_date: str) -> Iterator[None]:
    """SOURCE_DATE_EPOCH (MkDocs' build date) from the prices' date, and no MkDocs 2 notice;
    the process environment is restored afterwards."""
    date = dt.date.fromisoformat(prices_date)
    epoch = int(dt.datetime(date.year, date.month, date.day, tzinfo=dt.timezone.utc).timestamp())
    wanted = {"SOURCE_DATE_EPOCH": str(epoch), "NO_MKDOCS_2_WARNING": os.environ.get("NO_MKDOCS_2_WARNING", "1")}
    before = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _not_the_dirty_warning(record: logging.LogRecord) -> bool:
    # NOTE: MkDocs warns that a dirty build may leave navigation stale, and strict mode turns the
    # warning into a failure. Our navigation is three fixed section pages, and model and GPU pages
    # are out of it, so rebuilding only the changed pages gives the same bytes as a full build
    # (tests/test_incremental.py checks it): drop that one warning.
    return "'dirty' build" not in record.getMessage()


class _Collect(logging.Handler):
    """Keeps the first line of every warning or error MkDocs logs."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self.lines.append(record.getMessage().splitlines()[0])


def _theme_loader(searchpath: list[str]):
    """The theme's template loader, whose list of files skips its dot folders. MkDocs lists every
    file of the theme (structure/files.py, add_files_from_theme) to copy its static files, and
    leaves out whatever is below a folder whose name starts with a dot (its patterns '.*' and
    '*/.*'): walking Material's .icons, 14,000 files, was a third of a language's MkDocs time when
    a model is added at 1,000 models."""
    import jinja2

    class ThemeLoader(jinja2.FileSystemLoader):
        def list_templates(self) -> list[str]:
            found = set()
            for root in self.searchpath:
                for folder, folders, files in os.walk(root, followlinks=self.followlinks):
                    folders[:] = [name for name in folders if not name.startswith(".")]
                    below = os.path.relpath(folder, root).replace(os.path.sep, "/")
                    found.update(name if below == "." else f"{below}/{name}" for name in files)
            return sorted(found)

    return ThemeLoader(searchpath)


def _load(config_file: Path, progress: Progress, rewrite: Callable[[str, int], str]):
    """The configuration, with the plugin that counts pages and rewrites what MkDocs writes."""
    from mkdocs.config import load_config
    from mkdocs.plugins import BasePlugin

    class CountAndRewritePages(BasePlugin):
        # NOTE: MkDocs reads every page into HTML before it writes the first (commands/build.py), and
        # held all of them: over 1 GB per language at 5,000 models. Each page's HTML waits here
        # compressed until its turn (a page's template reads its own content alone), and its Markdown
        # is let go once read.
        def __init__(self):
            super().__init__()
            self.waiting: dict[str, bytes] = {}

        def on_page_content(self, html, page, config, files):
            self.waiting[page.file.src_uri] = zlib.compress(html.encode("utf-8"), 1)
            page.markdown = ""
            return ""

        def on_page_context(self, context, page, config, nav):
            page.content = zlib.decompress(self.waiting.pop(page.file.src_uri)).decode("utf-8")
            return context

        def on_post_page(self, output, page, config):
            page.content = ""
            progress.advance()
            return rewrite(output, page.file.dest_uri.count("/"))

        def on_post_template(self, output_content, template_name, config):
            return rewrite(output_content, template_name.count("/"))

        def on_config(self, config):
            theme, make_env = config.theme, config.theme.get_env

            def get_env():  # the theme's environment, its loader _theme_loader
                env = make_env()
                env.loader = _theme_loader(list(theme.dirs))
                return env
            theme.get_env = get_env
            return config

        def on_env(self, env, config, files):  # the theme's templates, compiled once like ours (render.py)
            env.bytecode_cache = CompiledTemplates(TEMPLATES_DIR / COMPILED_DIR)
            return env

    config = load_config(config_file=str(config_file))
    config.plugins["vram-guide-pages"] = CountAndRewritePages()
    return config


@contextlib.contextmanager
def _quiet_log(config_file: Path) -> Iterator[None]:
    """MkDocs' log kept quiet; its first warning or error becomes a BuildError."""
    from mkdocs.exceptions import MkDocsException

    logger = logging.getLogger("mkdocs")
    build_logger = logging.getLogger("mkdocs.commands.build")
    collect = _Collect()
    logger.addHandler(collect)
    build_logger.addFilter(_not_the_dirty_warning)
    propagate, logger.propagate = logger.propagate, False
    try:
        yield
        if collect.lines:
            raise BuildError(f"mkdocs ({config_file.name}): {collect.lines[0]}")
    except (MkDocsException, SystemExit) as error:
        detail = collect.lines[0] if collect.lines else str(error)
        raise BuildError(f"mkdocs build failed ({config_file.name}): {detail}") from None
    finally:
        logger.removeHandler(collect)
        build_logger.removeFilter(_not_the_dirty_warning)
        logger.propagate = propagate


def run_mkdocs(config_file: Path, dirty: bool, progress: Progress, rewrite: Callable[[str, int], str]) -> None:
    """Build with MkDocs; its log is kept quiet, and its first warning becomes a BuildError.
    `rewrite(html, depth)` is applied to every page and template it writes (shared_assets.py);
    depth: the folders between the page and its language folder."""
    from mkdocs.commands.build import build

    with _quiet_log(config_file):
        build(_load(config_file, progress, rewrite), dirty=dirty)


class LivePages:
    """One language's MkDocs site kept in memory (the preview): a page's Markdown source is made
    HTML again alone, with the navigation and theme of the full build. It uses MkDocs 1.6's own
    steps of a build (mkdocs/commands/build.py: _populate_page, then _build_page)."""

    def __init__(self, config_file: Path, rewrite: Callable[[str, int], str]):
        from mkdocs.commands.build import _populate_page
        from mkdocs.structure.files import get_files
        from mkdocs.structure.nav import get_navigation
        from mkdocs.structure.pages import Page

        self.config_file = config_file
        with _quiet_log(config_file):
            config = _load(config_file, Progress(io.StringIO()), rewrite)
            config = config.plugins.on_config(config)
            files = get_files(config)
            env = config.theme.get_env()
            files.add_files_from_theme(env, config)
            nav = get_navigation(files, config)
            for file in files.documentation_pages():
                if file.page is None:
                    Page(None, file, config)
            for page in nav.pages:  # the header's sections: their titles
                _populate_page(page, config, files)
            env.get_template("main.html")  # compiled now, not on the first edit
        self.config, self.files, self.env, self.nav = config, files, env, nav

    def rebuild(self, source: str) -> None:
        """Make `source` (a path below docs_dir: models/kimi-k3.md) HTML again, from its Markdown."""
        from mkdocs.commands.build import _build_page, _populate_page

        file = self.files.get_file_from_path(source)
        if file is None or file.page is None:
            raise BuildError(f"{source}: not a page of the preview's site (restart it)")
        with _quiet_log(self.config_file):
            _populate_page(file.page, self.config, self.files)
            _build_page(file.page, self.config, self.files.documentation_pages(), self.nav, self.env)
