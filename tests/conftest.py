"""Shared fixtures: the shipped catalog, the small fixture catalog, and sites built from them.

Page and site tests use the fixture catalog (tests/fixtures/catalog/README.md): six frozen copies of
shipped models, each there for one feature, so that they stay fast and catalog edits do not break
them. The shipped catalog (content/) is checked for validity, for the seed page, and built once as
a whole site (`shipped_site`), so that a model that breaks the build still fails the suite.
"""

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


def run_build(content: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    """`python -m generator build` on a catalog folder, as a reader would run it."""
    return subprocess.run(
        [sys.executable, "-m", "generator", "build", "--content", str(content), "--out", str(out), *extra],
        capture_output=True, text=True, cwd=ROOT,
    )


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
    """A writable copy of the fixture catalog, in a folder named `content` like the shipped one."""
    target = tmp_path / "content"
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("README.md"))
    return target


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The fixture catalog built by the real CLI (MkDocs included), once per test run."""
    out = tmp_path_factory.mktemp("build") / "site"
    result = run_build(FIXTURE, out)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def shipped_site(tmp_path_factory) -> Path:
    """The shipped catalog built by the real CLI, once per test run: every model must build."""
    out = tmp_path_factory.mktemp("shipped") / "site"
    result = run_build(CONTENT, out)
    assert result.returncode == 0, result.stderr
    return out
