"""Parts of a page made of one table row per model, made outside MkDocs and put in the page after it.

A GPU page lists every model twice (its llama.cpp verdict, the GPUs it needs): at 1,000 models, 300 KB
of HTML that MkDocs made again, in both languages, at every model added or removed (about 0.3 s a page
and language, Python-Markdown's tables and links, for 53 GPU pages). Here a template writes such a
part with `{% call slot("name") %}` and its rows with `table_rows("macro", rows)`, the macro being
one of `_rows.md.j2`, which writes one model's row:

- in the Markdown twin, the part is written where it stands, each row as its macro writes it;
- on the HTML page, MkDocs reads a marker (`<!--vram-rows:name-->`) and the part's HTML, made here with
  Python-Markdown and the extensions MkDocs uses (MARKDOWN_EXTENSIONS), takes its place once MkDocs
  has written the page (`fill`). Its rows link to HTML pages, as MkDocs would have made them.

A row depends on its model's row of the page alone (row_store.py's digest), so each is kept, as
Markdown and as HTML, by that digest (`kept`, row_store.RowFragments): a rebuild converts only the
rows of the models added or edited. Without `kept` (a page made once: tests, `plan`), every row is made.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Callable, Protocol

import markdown
import orjson
from markupsafe import Markup

from generator.site.files import write_if_changed
from generator.site.page_html import wrap_tables
from generator.site.view_models import ListedModel

MARKDOWN_EXTENSIONS = ["tables", "attr_list", "md_in_html", {"toc": {"permalink": False}}]  # MkDocs reads the pages with these (mkdocs_runner.py)


class KeptRows(Protocol):
    """Rows kept between builds (row_store.RowFragments): a row's text by its macro, its model and
    its form ("md": the twin's Markdown; "html": the page's HTML)."""

    def texts(self, macro: str, slugs: list[str], form: str) -> list[str | None]: ...
    def put(self, macro: str, slug: str, form: str, text: str) -> None: ...


def marker(name: str) -> str:
    return f"<!--vram-rows:{name}-->"


def _end(name: str) -> str:
    return f"<!--/vram-rows:{name}-->"


_MARKER_START = marker("")[:-3]
_NAME = re.compile(r"[\w-]+")
_PLACEHOLDER = "vram-rows-{}"
_PLACEHOLDER_ROW = re.compile(r"<tr>\n<td>vram-rows-(\d+)</td>\n(?:<td></td>\n)*</tr>\n")
_SLOT_START = re.compile(r"<!--vram-slot:([\w-]+)-->\n")
_BODY = re.compile(r"<tbody>\n(.*?)</tbody>", re.S)
_ROW = re.compile(r"<tr>\n.*?</tr>\n", re.S)
_CELL_BAR = re.compile(r"(?<!\\)\|")
_INLINE = "vram-inline-{}"
_INLINE_PLACEHOLDER = re.compile(r"vram-inline-(\d+)")
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)


def _model_slugs(items: list) -> list[str]:
    """The model of each of a table's items, all of one kind: a (row or model, page path) pair, or a
    record with a `model` (a GPU page asks for 4,000 a language)."""
    if not items:
        return []
    firsts = [item[0] for item in items] if isinstance(items[0], tuple) else items
    if isinstance(firsts[0], ListedModel):
        return [first.slug for first in firsts]
    return [first.model.slug for first in firsts]


_CONVERTERS = threading.local()  # one Python-Markdown a thread: making one loads its extensions (2 to 5 ms)


def _converted(text: str) -> str:
    converter = getattr(_CONVERTERS, "markdown", None)
    if converter is None:
        names = [extension if isinstance(extension, str) else next(iter(extension)) for extension in MARKDOWN_EXTENSIONS]
        configs = {name: config for extension in MARKDOWN_EXTENSIONS if isinstance(extension, dict) for name, config in extension.items()}
        converter = _CONVERTERS.markdown = markdown.Markdown(extensions=names, extension_configs=configs)
    return converter.reset().convert(text)


class PageParts:
    """One rendering of a page's parts of rows (render.Renderer.render_page): `slot` and
    `table_rows` are the template's (they return Markdown as written, Markup, which the template
    does not escape again); `html()` the HTML of each part, for `fill`."""

    def __init__(self, row_macros: Callable[[], object], twin: bool, kept: KeptRows | None):
        """`row_macros()`: the module of the row macros (rendered when a row is first made)."""
        self.make_row_macros, self.twin, self.kept = row_macros, twin, kept
        self.row_macros = None
        self.slots: dict[str, str] = {}  # name: the part's Markdown, each table's rows a placeholder row
        self.raw: dict[str, str] = {}  # name: the part's HTML
        self.tables: list[tuple[str, list]] = []  # (macro, items) of each placeholder row, by number
        self.lists: list[tuple[str, list, str]] = []  # (macro, items, separator) of each inline placeholder
        self.in_part = False  # a part of the HTML page is being written: its links go to HTML pages
        self.in_raw = False  # a part of raw HTML is: its rows are HTML, written in place

    def slot(self, name: str, raw: bool = False, *, caller: Callable[[], str]) -> str:
        """A part of the HTML page: Markdown, or (`raw`) HTML that MkDocs would have passed as it is
        (the table of every model of the models index and the fit page, 600 KB at 1,000 models:
        Python-Markdown's reading of raw HTML was most of their build)."""
        self.in_part, self.in_raw = not self.twin, raw and not self.twin
        try:
            content = caller()
        finally:
            self.in_part = self.in_raw = False
        if self.twin:
            return content
        (self.raw if raw else self.slots)[name] = str(content)
        return Markup(f"{marker(name)}\n\n")

    def table_rows(self, macro: str, items) -> str:
        """The rows of a table, one line each (the table's head is the template's): in a part of raw
        HTML, the macro's HTML rows."""
        if self.in_raw:
            return Markup("\n".join(self._rows_made(macro, list(items), "html")))
        if not self.twin:
            self.tables.append((macro, list(items)))
            return Markup(f"| {_PLACEHOLDER.format(len(self.tables) - 1)} |")
        return Markup("\n".join(self._rows_made(macro, list(items), "md")))

    def inline_rows(self, macro: str, items, separator: str) -> str:
        """Rows of a sentence (links to models, say): each the macro's Markdown, kept by model as a
        table's rows are, between `separator`s."""
        if not self.twin:
            self.lists.append((macro, list(items), separator))
            return Markup(_INLINE.format(len(self.lists) - 1))
        return Markup(separator.join(self._rows_made(macro, list(items), "md")))

    def _written(self, macro: str, item) -> str:
        if self.row_macros is None:
            self.row_macros = self.make_row_macros()
        return str(getattr(self.row_macros, macro)(item))

    def _kept_texts(self, macro: str, items: list, form: str) -> list[str | None]:
        """The text kept of each item's row in `form` (None: not kept)."""
        if self.kept is None:
            return [None] * len(items)
        return self.kept.texts(macro, _model_slugs(items), form)

    def _rows_made(self, macro: str, items: list, form: str) -> list[str]:
        """Each item's row as its macro writes it, kept or made now (and kept)."""
        texts = self._kept_texts(macro, items, form)
        for index, text in enumerate(texts):
            if text is None:
                texts[index] = self._written(macro, items[index])
                if self.kept is not None:
                    self.kept.put(macro, _model_slugs([items[index]])[0], form, texts[index])
        return texts

    def html(self) -> dict[str, str]:
        """Each part's HTML: its Markdown converted, with its tables' rows and its sentences' rows
        kept or converted now (all the rows not kept, of every table, in one conversion; of every
        sentence, in another)."""
        rows = self._kept_html(self.tables)
        missing = [(number, index) for number, table in enumerate(rows) for index, html in enumerate(table) if html is None]
        if missing:
            self._convert(rows, missing)
        inline = self._kept_html(self.lists)
        if any(html is None for items in inline for html in items):
            self._convert_inline(inline)
        skeleton = "".join(f"<!--vram-slot:{name}-->\n\n{content}\n\n" for name, content in self.slots.items())
        pieces = _SLOT_START.split(_converted(skeleton))[1:] if skeleton else []
        parts = {name: wrap_tables(html.strip("\n")) for name, html in self.raw.items()}
        for name, html in zip(pieces[::2], pieces[1::2]):
            # the sentences first: the rows put in then are not read again
            html = _INLINE_PLACEHOLDER.sub(lambda match: self.lists[int(match.group(1))][2].join(inline[int(match.group(1))]), html)
            html = _PLACEHOLDER_ROW.sub(lambda match: "".join(rows[int(match.group(1))]), html)
            parts[name] = wrap_tables(html.strip("\n"))
        return parts

    def _kept_html(self, groups: list[tuple]) -> list[list[str | None]]:
        """The HTML kept of each group's rows (None: not kept)."""
        return [self._kept_texts(group[0], group[1], "html") for group in groups]

    def _convert_inline(self, inline: list[list[str | None]]) -> None:
        """The missing rows of sentences, each converted as a paragraph, all in one conversion."""
        missing = [(number, index) for number, items in enumerate(inline) for index, html in enumerate(items) if html is None]
        lines = [self._written(self.lists[number][0], self.lists[number][1][index]) for number, index in missing]
        converted = _PARAGRAPH.findall(_converted("\n\n".join(lines)))
        if len(converted) != len(missing):
            raise RuntimeError("a row of a sentence did not convert as one paragraph")
        for (number, index), html in zip(missing, converted):
            inline[number][index] = html
            if self.kept is not None:
                macro, items, _ = self.lists[number]
                self.kept.put(macro, _model_slugs([items[index]])[0], "html", html)

    def _convert(self, rows: list[list[str | None]], missing: list[tuple[int, int]]) -> None:
        by_table: dict[int, list[int]] = {}
        for number, index in missing:
            by_table.setdefault(number, []).append(index)
        documents = []
        for number, indexes in by_table.items():
            macro, items = self.tables[number]
            lines = [self._written(macro, items[index]) for index in indexes]
            width = len(_CELL_BAR.findall(lines[0])) - 1
            documents.append("\n".join(["|" + " x |" * width, "|" + "---|" * width, *lines]))
        bodies = _BODY.findall(_converted("\n\n".join(documents)))
        if len(bodies) != len(by_table):
            raise RuntimeError("a table of rows did not convert as one table")
        for (number, indexes), body in zip(by_table.items(), bodies):
            converted = _ROW.findall(body)
            if len(converted) != len(indexes):
                raise RuntimeError("a row of a table did not convert as one row")
            macro, items = self.tables[number]
            for index, html in zip(indexes, converted):
                rows[number][index] = html
                if self.kept is not None:
                    self.kept.put(macro, _model_slugs([items[index]])[0], "html", html)


def write_parts(file: Path, parts: dict[str, str]) -> None:
    """A page's parts, for `fill` once MkDocs has written the page; none: no file. (orjson: a GPU
    page's parts are 300 KB of HTML a language, each written and read back at each model added.)"""
    if parts:
        write_if_changed(file, orjson.dumps(parts, option=orjson.OPT_SORT_KEYS))
    else:
        file.unlink(missing_ok=True)


def read_parts(file: Path) -> dict[str, str]:
    return orjson.loads(file.read_bytes())


def _markers(html: str):
    """Each marker of a part in `html`, in order: (its start, its name, where it ends: after its
    part's end marker where it was filled, else after itself). With str.find: a regular expression
    that looked for the end marker read a GPU page's 300 KB again at every marker."""
    position = 0
    while (start := html.find(_MARKER_START, position)) >= 0:
        position = start + len(_MARKER_START)
        close = html.find("-->", position)
        name = html[position:close]
        if close < 0 or not _NAME.fullmatch(name):
            continue
        position = close + 3
        end = html.find(_end(name), position)
        if end >= 0:
            position = end + len(_end(name))
        yield start, name, position


def unfilled(html: str) -> bool:
    """Whether a page holds a marker its part has not filled (MkDocs wrote it, and no part yet)."""
    return any(end == start + len(marker(name)) for start, name, end in _markers(html))


def fill(html: str, parts: dict[str, str]) -> str:
    """A page MkDocs wrote (or one filled before) with each part's HTML in its marker's place."""
    pieces, position = [], 0
    for start, name, end in _markers(html):
        if name not in parts:
            raise KeyError(f"no part '{name}' for the page")
        pieces += [html[position:start], marker(name), "\n", parts[name], "\n", _end(name)]
        position = end
    return "".join(pieces) + html[position:]
