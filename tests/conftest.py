"""Shared fixtures: the shipped catalog, the small fixture catalog, and catalogs in temporary folders."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from generator.catalog.loader import load_catalog

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "content"  # the shipped catalog
FIXTURE = ROOT / "tests" / "fixtures" / "catalog"  # the feature-driven fixture catalog


@pytest.fixture(scope="session")
def catalog():
    """The shipped catalog (content/)."""
    return load_catalog(CONTENT)


@pytest.fixture(scope="session")
def fixture_catalog():
    """The fixture catalog (tests/fixtures/catalog/)."""
    return load_catalog(FIXTURE)


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    """A writable copy of the shipped content/ folder."""
    target = tmp_path / "content"
    shutil.copytree(CONTENT, target)
    return target


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The shipped catalog built by the real CLI (MkDocs included), once per test run."""
    out = tmp_path_factory.mktemp("build") / "site"
    result = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--out", str(out)], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    return out
