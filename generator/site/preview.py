"""The live preview (`serve`): build once, serve on localhost, and remake what an edit changes.

After the full build (build.py), each language's MkDocs site stays in memory (mkdocs_runner.py
LivePages). When a file of the catalog changes:
- a model's file alone: that model's pages (both languages, HTML and twin), its API file and its
  plan tables are made again first, and the browser reloads; then those of the pages that list every
  model (home, indexes, the fit page, the GPU pages) whose key changed (language.page_key: what they
  show of their models) follow, and it reloads again;
- anything else (site.yaml, gpus.yaml, the stock, a model added or removed): an incremental build.
A catalog that does not load keeps the previous site on screen and prints its problems. The search
index is made again only by those builds: a model edited in the preview is found by its old text
until the next `build`.

The pages are written into the build's cache folder, as a build writes them, and copied into the
output folder; the cache's records are left as they were, so the next `build` remakes those pages
and gives the same bytes.
"""

from __future__ import annotations

import json
import multiprocessing
import time
from multiprocessing.sharedctypes import Synchronized
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

from generator.catalog.records import Catalog
from generator.site import paths
from generator.site.api import ApiWriter, api_file
from generator.site.build import build_site
from generator.site.cache import cache_dir, forget_pages, page_keys
from generator.site.files import write_if_changed
from generator.site.language import page_key
from generator.site.front_matter import front_matter
from generator.site.mkdocs_runner import LivePages
from generator.site.parallel import available_cores, run_all
from generator.site.progress import Progress
from generator.site.render import TEMPLATES, Renderer
from generator.site.page_html import page_rewrite
from generator.site.row_store import StoredRows, rows_file
from generator.site.row_tables import fill
from generator.site.structured_data import inert_json
from generator.site.view_models import PageSpec, site_pages
from generator.sizing.plan_data import largest_machine, model_tables, quant_tables

FORK = multiprocessing.get_context("fork")
POLL_SECONDS = 0.2  # how often the catalog's files are looked at
# Injected into the HTML the preview serves (never into the built files): reload on a new version.
RELOAD = (b"<script>(function(){var v=null;setInterval(function(){fetch('/__preview__/version').then(function(r)"
          b"{return r.text()}).then(function(t){if(v!==null&&t!==v)location.reload();v=t}).catch(function(){})},500)})()"
          b"</script>")


def content_state(content: Path) -> dict[str, tuple[int, int]]:
    """Each file of the catalog folder: its modification time and size."""
    return {str(path.relative_to(content)): (stat.st_mtime_ns, stat.st_size)
            for path in sorted(content.rglob("*")) if path.is_file() and not path.name.startswith(".")
            for stat in (path.stat(),)}


@dataclass
class Preview:
    content: Path
    out: Path
    catalog: Catalog
    jobs: int
    say: Callable[[str], None]
    # how many times the pages changed, shared with the server's process (the browser reloads on a new one)
    version: Synchronized = field(default_factory=lambda: FORK.Value("q", 0))
    live: dict[str, LivePages] = field(default_factory=dict)
    renderers: dict[str, Renderer] = field(default_factory=dict)  # kept: their templates are compiled once
    model_keys: dict[str, str] = field(default_factory=dict)  # model page path -> content key (row_store.py)
    # the key of each page that lists every model as shown (language.page_key): one that did not change is not remade
    listing_keys: dict[str, str] = field(default_factory=dict)

    @property
    def site_dir(self) -> Path:
        """Where the build writes the site before it is published: the preview writes there too."""
        return cache_dir(self.out) / "site"

    def build(self) -> None:
        """An incremental build of the whole site, then each language's MkDocs site in memory."""
        build_site(self.catalog, self.out, Progress(), self.jobs)
        self.listing_keys = page_keys(self.out, self.catalog.site.languages[0])
        base = paths.base_path(self.catalog.site.base_url)
        self.live = {lang: LivePages(cache_dir(self.out) / f"mkdocs-{lang}.yml", page_rewrite(base, lang))
                     for lang in self.catalog.site.languages}
        self.renderers = {lang: Renderer(self.catalog.site, lang) for lang in self.catalog.site.languages}
        for renderer in self.renderers.values():  # compiled now, not on the first edit
            for template in TEMPLATES.values():
                renderer.env.get_template(template)
        self.version.value += 1

    def update(self, catalog: Catalog) -> None:
        """Remake what changed from the catalog shown to `catalog`."""
        before, self.catalog = self.catalog, catalog
        old = {m.slug: repr(m) for m in before.models}
        new = {m.slug: repr(m) for m in catalog.models}
        # by repr, as the build's cache keys: a translation of a GPU's name is a change too (LocalizedText
        # compares as its English)
        shared = repr((before.site, before.gpus, before.inventory)) != repr((catalog.site, catalog.gpus, catalog.inventory))
        if shared or old.keys() != new.keys():
            started = time.monotonic()
            self.build()
            self.say(f"rebuilt the site in {time.monotonic() - started:.1f} s")
            return
        changed = sorted(slug for slug in new if new[slug] != old[slug])
        if not changed:
            return
        started = time.monotonic()
        specs = {spec.path: spec for spec in site_pages(catalog)}
        self.model_keys = {path: spec.cache_key for path, spec in specs.items() if spec.cache_key}
        model_pages = [specs[paths.model_page(slug)] for slug in changed]
        self._remake(model_pages)
        self._plan_tables(changed)
        self.version.value += 1
        self.say(f"{', '.join(changed)}: its pages in {time.monotonic() - started:.1f} s")
        listing = {spec.path: page_key(spec, cache_dir(self.out), self.model_keys)[0]  # the pages that list every model
                   for spec in specs.values() if spec.cache_key is None}
        remade = [specs[path] for path, key in listing.items() if key != self.listing_keys.get(path)]
        self._remake(remade)
        self.listing_keys.update(listing)
        self.version.value += 1
        self.say(f"and {len(remade)} of the {len(listing)} pages that list every model (the others show the same), "
                 f"in {time.monotonic() - started:.1f} s in all")

    def _remake(self, specs: list[PageSpec]) -> None:
        """The pages of `specs` made again (on the build's workers, which inherit the MkDocs sites),
        then copied into the output folder."""
        global _JOB
        forget_pages(self.out, [f"{lang}:{spec.path}" for spec in specs for lang in self.catalog.site.languages])
        _JOB = (self, specs)
        try:
            written = [name for names in run_all(_remake_page, range(len(specs)), self.jobs or available_cores()) for name in names]
        finally:
            _JOB = None
        self._publish(written)

    def remake_page(self, spec: PageSpec) -> list[str]:
        """One page in every language (source, HTML, twin) and its API file; the files written."""
        site = self.catalog.site
        rows = None
        if spec.rows:  # a GPU page, the fit page: the rows the last build kept, for the models not edited since
            rows = StoredRows(rows_file(cache_dir(self.out), spec.path), spec.rows, self.model_keys).rows()
        page = spec.page(rows)
        ApiWriter(self.site_dir, self.catalog).write(page)
        written = [api_file(spec.path)] if api_file(spec.path) else []
        for lang, live in self.live.items():
            renderer = self.renderers[lang]
            rendered = renderer.render_page(page, twin=False)
            source = cache_dir(self.out) / "docs" / lang / paths.source_file(spec.path)
            write_if_changed(source, front_matter(site, lang, spec.path, rendered, renderer) + rendered.markdown)
            live.rebuild(paths.source_file(spec.path))
            if rendered.parts:  # the page's parts (its tables of every model), in the page MkDocs wrote (row_tables.py)
                page_file = self.site_dir / paths.html_file(lang, spec.path)
                write_if_changed(page_file, fill(page_file.read_text(encoding="utf-8"), rendered.parts))
            write_if_changed(self.site_dir / paths.twin_file(lang, spec.path), renderer.render(page, twin=True))
            written += [paths.html_file(lang, spec.path), paths.twin_file(lang, spec.path)]
        return written

    def _plan_tables(self, slugs: list[str]) -> None:
        """The calculator's tables of the models edited, in their file and in the fit page's files."""
        folder = self.site_dir / paths.PLAN_DATA_DIR
        machine = largest_machine(self.catalog.gpus)
        tables = {m.slug: model_tables(m, machine) for m in self.catalog.models if m.slug in slugs and m.architecture}
        written = []
        for slug, data in tables.items():
            write_if_changed(folder / "models" / f"{slug}.json", inert_json(data))
            written.append(f"{paths.PLAN_DATA_DIR}/models/{slug}.json")
        every = json.loads((folder / "models.json").read_text(encoding="utf-8"))
        every = [dict(tables[d["slug"]], llama_cpp=None) if d["slug"] in tables else d for d in every]
        write_if_changed(folder / "models.json", inert_json(every))
        written.append(f"{paths.PLAN_DATA_DIR}/models.json")
        for quant_file in sorted((folder / "llama-cpp").glob("*.json")):
            by_slug = json.loads(quant_file.read_text(encoding="utf-8"))
            by_slug.update(quant_tables(list(tables.values()), quant_file.stem))
            write_if_changed(quant_file, inert_json(by_slug))
            written.append(f"{paths.PLAN_DATA_DIR}/llama-cpp/{quant_file.name}")
        self._publish(written)

    def _publish(self, relative: list[str]) -> None:
        """Copy what the preview remade from the build's folder into the output folder."""
        for name in relative:
            source = self.site_dir / name
            if source.is_file():
                write_if_changed(self.out / name, source.read_bytes())


# The preview and the pages being made again: forked workers inherit them (parallel.py).
_JOB: tuple | None = None


def _remake_page(index: int) -> list[str]:
    preview, specs = _JOB
    return preview.remake_page(specs[index])


def handler(version: Synchronized, directory: Path):
    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(directory), **kwargs)

        def log_message(self, *args):  # quiet: the terminal shows what was remade
            pass

        def do_GET(self):
            if self.path == "/__preview__/version":
                return self._send(str(version.value).encode(), "text/plain")
            path = Path(self.translate_path(self.path))
            if path.is_dir():
                path = path / "index.html"
            if path.suffix == ".html" and path.is_file():  # the page, with the script that reloads it
                return self._send(path.read_bytes().replace(b"</body>", RELOAD + b"</body>", 1), "text/html; charset=utf-8")
            super().do_GET()

        def _send(self, body: bytes, content_type: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def end_headers(self):
            self.send_header("Cache-Control", "no-store")  # an edit shows on reload, never a cached copy
            super().end_headers()

    return Handler


def serve_forever(preview: Preview, port: int, load: Callable[[], Catalog | None]) -> None:
    """Build, serve the output folder on 127.0.0.1:`port` and remake what each edit changes, until
    Ctrl-C. The port is taken first (a port in use fails before the build). The server runs in a
    process of its own, forked when no thread runs here: the builds fork their workers from this
    one, which must hold no thread's lock when it does."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler(preview.version, preview.out))
    try:
        preview.build()
    except BaseException:
        server.server_close()
        raise
    process = FORK.Process(target=server.serve_forever, daemon=True)
    process.start()
    server.socket.close()
    preview.say(f"serving {preview.out}/ at http://127.0.0.1:{port}/ ; edit {preview.content}/ and the pages follow "
                "(Ctrl-C stops)")
    state = content_state(preview.content)
    try:
        while True:
            time.sleep(POLL_SECONDS)
            now = content_state(preview.content)
            if now == state:
                continue
            state = now
            catalog = load()
            if catalog is not None:
                preview.update(catalog)
    finally:
        process.terminate()
        process.join(timeout=5)
