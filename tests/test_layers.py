"""The pipeline's one direction: catalog -> sizing -> site, the CLI on top; sizing is pure."""

import ast
import os
from pathlib import Path

import pytest

from tests.conftest import FIXTURE

GENERATOR = Path(__file__).resolve().parent.parent / "generator"

# What each package may import from the project (besides itself).
# generator/languages.py (the site's languages, one record each) sits below the catalog, which reads
# which text it takes from it; sizing knows no language.
ALLOWED = {
    "catalog": {"generator.languages"},
    "sizing": {"generator.catalog.records"},
    "site": {"generator.languages", "generator.catalog.records", "generator.sizing"},
    "cli": {"generator.languages", "generator.catalog", "generator.sizing", "generator.site"},
}
# Outside libraries and I/O the pure sizing core must never touch.
NOT_IN_SIZING = {"yaml", "jinja2", "babel", "mkdocs", "markupsafe", "markdown_it", "pathlib", "os", "io", "json", "shutil"}


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def modules(package: str) -> list[Path]:
    return sorted((GENERATOR / package).glob("*.py"))


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_each_package_imports_only_the_layers_below_it(package):
    own = f"generator.{package}"
    for path in modules(package):
        for name in imports(path):
            if not name.startswith("generator.") or name.startswith(own):
                continue
            allowed = any(name == a or name.startswith(a + ".") for a in ALLOWED[package])
            # `from generator.catalog import records` names the package and the module
            allowed = allowed or any(a.startswith(name + ".") for a in ALLOWED[package])
            assert allowed, f"{path.relative_to(GENERATOR.parent)} imports {name}"


def test_the_languages_record_imports_nothing_of_the_project():
    assert not {name for name in imports(GENERATOR / "languages.py") if name.startswith("generator")}


def test_every_test_file_the_code_cites_exists():
    """A comment that sends a reader to `tests/...` sends them to a file that is there."""
    import re

    root = GENERATOR.parent
    sources = [*GENERATOR.rglob("*.py"), *(root / "site_templates").rglob("*.js")]
    cited = {match for path in sources for match in re.findall(r"tests/[\w/]+\.(?:py|yaml|md)", path.read_text(encoding="utf-8"))}
    assert cited and sorted(path for path in cited if not (root / path).is_file()) == []


def test_sizing_is_pure_math():
    for path in modules("sizing"):
        roots = {name.split(".")[0] for name in imports(path)}
        assert not roots & NOT_IN_SIZING, f"{path.name} imports {roots & NOT_IN_SIZING}"


def test_the_packages_are_all_listed():
    assert {p.name for p in GENERATOR.iterdir() if (p / "__init__.py").is_file()} == set(ALLOWED)


def test_a_build_leaves_no_process_wide_state(tmp_path):
    from generator.catalog.loader import load_catalog
    from generator.site.build import build_site

    before = dict(os.environ)
    build_site(load_catalog(FIXTURE), tmp_path / "site")
    assert dict(os.environ) == before
