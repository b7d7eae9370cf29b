"""The rows of a page made of one row per model (view_models.PageRows), kept in the build cache
between builds.

A GPU page shows every model's GPU counts and llama.cpp verdict (GpuModelRow), and the fit page every
model's vLLM verdict (FitPageRow): at 1,000 models, making their rows again, and comparing the pages
they make, took most of a one-model rebuild (53 pages × 1,000 rows). A row depends on its model alone
(the GPUs, site and code are in the build's key, cache.py), so it is kept under the model's content
key (its model page's, view_models.site_pages) with the digest of its JSON, and made again only when
that key changed. The page is then keyed by its rows' digests, in order: a page whose rows are all
the same is known unchanged without being built (language.py). JSON, not pickle: the cache folder is
read back, never executed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from generator.site import paths
from generator.site.files import write_if_changed
from generator.site.view_models import FitPageRow, GpuLlamaRow, GpuModelRow, ListedModel, PageRows


def rows_file(cache_root: Path, page: str) -> Path:
    return cache_root / "rows" / f"{page}.json"


def _restored(row_type: type, data: dict | None):
    """A row from its JSON (dataclasses.asdict's), as it was made."""
    if data is None:
        return None
    if row_type is GpuModelRow:
        return GpuModelRow(ListedModel(**data["model"]), tuple(data["counts"]), _restored(GpuLlamaRow, data["llama_cpp"]))
    if row_type in (GpuLlamaRow, FitPageRow):
        return row_type(**{**data, "model": ListedModel(**data["model"])})
    raise TypeError(f"no stored form for {row_type.__name__}")


def _digest(data: dict | None) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class StoredRows:
    """One page's rows (`page_rows`), from `file` for the models whose content key (`model_keys`:
    model page path → key) is one they were made for, made now for the others. `key`: the digest of
    every row, in order, which is all that the page shows of its models."""

    def __init__(self, file: Path, page_rows: PageRows, model_keys: dict[str, str]):
        self.file, self.row_type = file, page_rows.row_type
        try:
            kept = json.loads(file.read_text(encoding="utf-8"))  # {model key: [digest, row's JSON]}
        except (OSError, ValueError):
            kept = {}
        if not isinstance(kept, dict):
            kept = {}
        self.made: dict[int, object] = {}  # the rows made now, by position
        self.entries: dict[str, list] = {}
        for index, sized in enumerate(page_rows.models):
            model_key = model_keys[paths.model_page(sized.model.slug)]
            entry = kept.get(model_key)
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
                row = self.made[index] = page_rows.row(sized)
                data = None if row is None else dataclasses.asdict(row)
                entry = [_digest(data), data]
            self.entries[model_key] = entry
        self.changed = bool(self.made) or len(kept) != len(self.entries)
        self.key = hashlib.sha256("\n".join(digest for digest, _ in self.entries.values()).encode()).hexdigest()

    def rows(self) -> tuple:
        """Every row, in the models' order: the page's build takes them (PageSpec.page)."""
        return tuple(self.made[index] if index in self.made else _restored(self.row_type, data)
                     for index, (_, data) in enumerate(self.entries.values()))

    def save(self) -> None:
        """Keep the rows for the next build, where some were made or some model went."""
        if self.changed:
            write_if_changed(self.file, json.dumps(self.entries, sort_keys=True))
