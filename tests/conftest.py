"""Shared fixtures: the shipped catalog, and small catalogs written into temporary folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from generator.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"


@pytest.fixture(scope="session")
def catalog():
    return load_catalog(CONTENT)


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    """A writable copy of the shipped content/ folder."""
    target = tmp_path / "content"
    shutil.copytree(CONTENT, target)
    return target
