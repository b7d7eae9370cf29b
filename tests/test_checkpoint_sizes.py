"""The catalog's quantized checkpoints against the sizes their repos publish (tests/data/checkpoint_sizes.yaml).

Each row is one checkpoint's files as its repo lists them (rounded to the 10 MB the list shows). The
bytes its scheme and parts compute (formats.py over the architecture, scales included) must be within
1 % of them. A row we do not reproduce stays, marked `miss` with its reason, and must still miss.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.catalog.loader import load_catalog
from generator.sizing.detailed import checkpoint_rows

ROOT = Path(__file__).resolve().parent.parent
ROWS = yaml.safe_load((ROOT / "tests" / "data" / "checkpoint_sizes.yaml").read_text(encoding="utf-8"))
CATALOG = load_catalog(ROOT / "content")


def computed_bytes(row) -> int:
    model = next(m for m in CATALOG.models if m.slug == row["model"])
    return next(r.bytes for r in checkpoint_rows(model) if r.weights.repo == row["checkpoint"])


@pytest.mark.parametrize("row", ROWS, ids=[row["checkpoint"] for row in ROWS])
def test_the_scheme_gives_the_published_size(row):
    within = abs(computed_bytes(row) - row["bytes"]) <= 0.01 * row["bytes"]
    if row["status"] == "pass":
        assert within, (computed_bytes(row), row["bytes"])
    else:
        assert not within, f"{row['checkpoint']} is marked a miss ({row['why']}) but now passes"


def test_most_rows_pass_and_each_names_its_source():
    assert len(ROWS) >= 40 and sum(row["status"] == "pass" for row in ROWS) >= 0.7 * len(ROWS)
    for row in ROWS:
        assert row["url"].startswith("https://") and row["quote"], row["checkpoint"]
        assert (row["status"] == "miss") == ("why" in row), row["checkpoint"]
