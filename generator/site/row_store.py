"""The rows of a page made of one row per model (view_models.PageRows), kept in the build cache
between builds.

A GPU page shows every model's GPU counts and llama.cpp verdict (GpuModelRow), and the fit page every
model's vLLM verdict (FitPageRow): at 1,000 models, making their rows again, and comparing the pages
they make, took most of a one-model rebuild (53 pages × 1,000 rows). A row depends on its model alone
(the GPUs, site and code are in the build's key, cache.py), so it is kept: a page's file maps each
model's content key (its model page's, view_models.site_pages) to the digest of the row's JSON, and a
second file maps each digest to that JSON (lines appended: json_lines.py). A row is made again only when its model's key changed;
the page is keyed by its rows' digests, in order, so a page whose rows are all the same is known
unchanged without being built (language.py), and the rows' JSON is read only where it must be.
An edit that leaves a model's row as it was writes only the first, small, file. JSON, not pickle:
the cache folder is read back, never executed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import orjson

from generator.site import paths
from generator.site.files import write_if_changed
from generator.site.json_lines import JsonLines
from generator.site.view_models import FitPageRow, GpuLlamaRow, GpuModelRow, ListedModel, PageRows


def rows_file(cache_root: Path, page: str) -> Path:
    return cache_root / "rows" / f"{page}.json"


def fragments_file(cache_root: Path, lang: str, page: str) -> Path:
    return cache_root / "rows" / f"{page}.{lang}.rows.jsonl"


def data_file(file: Path) -> Path:
    """Beside a page's file of digests, the rows' JSON by digest (json_lines.py)."""
    return file.with_name(f"{file.stem}.data.jsonl")


def _read(file: Path) -> dict:
    try:
        kept = orjson.loads(file.read_bytes())
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _packed(row) -> list:
    """A row's fields in order for the cache, without its model (the catalog's is put back: the
    row is kept under its model's content key); a row inside it packed the same way."""
    return [_packed(value) if dataclasses.is_dataclass(value) else list(value) if isinstance(value, tuple) else value
            for field in dataclasses.fields(row) if field.name != "model" for value in (getattr(row, field.name),)]


def _restored(row_type: type, values: list | None, model: ListedModel):
    """A row from its packed fields (_packed), with `model`: as it was made. Lists, not objects
    of named fields: a GPU page reads back 1,000 rows at each model added (a third of the time)."""
    if values is None:
        return None
    if type(values) is not list:
        raise ValueError("not a packed row")
    if row_type is GpuModelRow:
        counts, llama = values
        return GpuModelRow(model, tuple(counts), _restored(GpuLlamaRow, llama, model))
    if row_type in (GpuLlamaRow, FitPageRow):  # the model is their first field (tests/test_incremental.py)
        return row_type(model, *values)
    raise TypeError(f"no stored form for {row_type.__name__}")


def _digest(model: ListedModel, values: list | None) -> str:
    """The digest of all that a row shows: its model's listing and its packed fields."""
    shown = [dataclasses.astuple(model), values]
    return hashlib.sha256(json.dumps(shown, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class StoredRows:
    """One page's rows (`page_rows`): from `file` for the models whose content key (`model_keys`:
    model page path → key) is one they were made for, made now for the others. `key`: the digest of
    every row, in order, which is all that the page shows of its models (a row made again in `rows`,
    its JSON lost, may change it)."""

    def __init__(self, file: Path, page_rows: PageRows, model_keys: dict[str, str]):
        self.file, self.page_rows = file, page_rows
        kept = _read(file)  # {model key: digest}
        self.made: dict[int, tuple] = {}  # by position: (row, its JSON), for the rows made now
        self.model_keys = [model_keys[paths.model_page(sized.model.slug)] for sized in page_rows.models]
        self.digests: dict[str, str] = {}  # model key: digest, in the models' order
        self.data: JsonLines | None = None  # the rows' JSON, once read
        for index, model_key in enumerate(self.model_keys):
            digest = kept.get(model_key)
            self.digests[model_key] = digest if isinstance(digest, str) else self._make(index)
        self.changed = bool(self.made) or kept != self.digests

    @property
    def key(self) -> str:
        return hashlib.sha256("\n".join(self.digests.values()).encode()).hexdigest()

    def _make(self, index: int) -> str:
        sized = self.page_rows.models[index]
        row = self.page_rows.row(sized)
        data = None if row is None else _packed(row)
        self.made[index] = (row, data)
        return _digest(sized.listed_model, data)

    def rows(self) -> tuple:
        """Every row, in the models' order: the page's build takes them (PageSpec.page). A row whose
        JSON the cache lost, or holds unreadable, is made again."""
        stored = self._data().entries if len(self.made) < len(self.digests) else {}
        rows, models, row_type = [], self.page_rows.models, self.page_rows.row_type
        for index, digest in enumerate(self.digests.values()):
            if index not in self.made:
                try:
                    rows.append(_restored(row_type, stored[digest], models[index].listed_model))
                    continue
                except (KeyError, TypeError, AttributeError, ValueError):
                    self.digests[self.model_keys[index]] = self._make(index)
                    self.changed = True
            rows.append(self.made[index][0])
        return tuple(rows)

    def _data(self) -> JsonLines:
        if self.data is None:
            self.data = JsonLines(data_file(self.file))
        return self.data

    def by_model(self) -> dict[str, str]:
        """Each model's row digest, by model slug (RowFragments)."""
        return {sized.model.slug: digest for sized, digest in zip(self.page_rows.models, self.digests.values())}

    def save(self) -> None:
        """Keep the rows for the next build: the digests where they changed, and the JSON of rows
        made now that the cache did not hold (json_lines.py: rows no longer shown go when it is
        written again)."""
        if not self.changed:
            return
        data = self._data()
        new = {digest: self.made[index][1] for index, digest in enumerate(self.digests.values())
               if index in self.made and digest not in data.entries}
        data.save(new, set(self.digests.values()))
        write_if_changed(self.file, orjson.dumps(self.digests, option=orjson.OPT_SORT_KEYS))


def shown_digests(rows) -> dict[str, str]:
    """Each row's digest by its model's slug, for a page keyed by its view model (the models index):
    the digest of the row's repr, which holds all that the row shows."""
    return {row.model.slug: hashlib.sha256(repr(row).encode()).hexdigest() for row in rows}


class RowFragments:
    """A page's table rows in one language as its template wrote them (row_tables.py: the twin's
    Markdown, the HTML page's HTML), kept between builds by their macro and the digest of their
    model's row (`digests`, StoredRows.by_model): a rebuild writes only the rows of models added or
    edited (json_lines.py). Rows of models no longer on the page go when the file is written again."""

    def __init__(self, file: Path, digests: dict[str, str]):
        self.digests = digests
        self.log = JsonLines(file)
        self.kept = self.log.entries  # {"<macro> <digest>": {"md": text, "html": text}}
        self.made: set[str] = set()  # the keys put since
        self.found: dict[tuple, list] = {}  # each table's kept entries (texts), by its macro and models

    @property
    def changed(self) -> bool:
        return bool(self.made)

    def texts(self, macro: str, slugs: list[str], form: str) -> list[str | None]:
        """The text of each model's row in `form`; None where none is kept (or what is kept is not text)."""
        found = (macro, tuple(slugs))
        entries = self.found.get(found)
        if entries is None:  # the rows of a table, asked for as HTML (the page) and as Markdown (its twin)
            kept, digests, prefix = self.kept, self.digests, f"{macro} "
            entries = self.found[found] = [kept.get(prefix + digests[slug]) for slug in slugs]
        texts = [entry.get(form) if type(entry) is dict else None for entry in entries]
        return [text if type(text) is str else None for text in texts]

    def put(self, macro: str, slug: str, form: str, text: str) -> None:
        key = f"{macro} {self.digests[slug]}"
        entry = self.kept.get(key)
        entry = self.kept[key] = {**(entry if isinstance(entry, dict) else {}), form: text}
        self.made.add(key)
        for (found_macro, slugs), entries in self.found.items():  # the tables found before see it
            if found_macro == macro and slug in slugs:
                entries[slugs.index(slug)] = entry

    def save(self) -> None:
        current = set(self.digests.values())
        self.log.save({key: self.kept[key] for key in sorted(self.made)},
                      {key for key in self.kept if key.partition(" ")[2] in current})
        self.made = set()
