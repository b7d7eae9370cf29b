"""The rows of every model a page's earlier build made, kept in the build cache between builds.

A GPU page lists every model's llama.cpp verdict (GpuLlamaRow), and the fit page every model's vLLM
verdict (FitPageRow): at 1,000 models, making their rows again took most of a one-model rebuild
(53 pages × 1,000 llama.cpp plans; 1,000 vLLM plans). A row depends on its model alone (the GPUs,
site and code are in the build's key, cache.py), so it is kept under the model's content key (its
model page's, view_models.site_pages) and made again only when that key changed. JSON, not pickle:
the cache folder is read back, never executed.
"""

from __future__ import annotations

import json
from pathlib import Path

from generator.site import paths
from generator.site.files import write_if_changed
from generator.catalog.records import Model
from generator.site.view_models import FitPage, FitPageRow, GpuLlamaRow, GpuPage, ListedModel

Row = GpuLlamaRow | FitPageRow  # each with the ListedModel it is of


def rows_file(cache_root: Path, page: str) -> Path:
    return cache_root / "rows" / f"{page}.json"


class StoredRows:
    """The rows `file` holds, for the models whose content key is still the one they were made for
    (`model_keys`: model page path → its content key); nothing where the file is missing or
    unreadable. A KnownRows (view_models.gpu_page, fit_page) of `row_type` that counts the models it
    had no row for."""

    def __init__(self, file: Path, model_keys: dict[str, str], row_type: type[Row]):
        self.model_keys, self.missed = model_keys, 0
        try:
            self.stored = {key: row_type(**{**data, "model": ListedModel(**data["model"])})
                           for key, data in json.loads(file.read_text(encoding="utf-8")).items()}
        except (OSError, ValueError, TypeError, KeyError):
            self.stored = {}

    def __call__(self, model: Model) -> Row | None:
        row = self.stored.get(self.model_keys.get(paths.model_page(model.slug), ""))
        self.missed += row is None
        return row


def _rows(page: GpuPage | FitPage) -> list[Row]:
    if isinstance(page, GpuPage):
        return [row for _, group in page.llama_cpp.groups for row, _ in group]
    return [row for row, _ in page.rows]


def keep_rows(file: Path, page: GpuPage | FitPage, model_keys: dict[str, str]) -> None:
    """Write `page`'s rows to `file`, each under its model's content key."""
    rows = {model_keys[paths.model_page(row.model.slug)]: {**vars(row), "model": vars(row.model)} for row in _rows(page)}
    write_if_changed(file, json.dumps(rows, sort_keys=True))


