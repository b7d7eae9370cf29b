"""The folder kept beside the site between builds, so that a rebuild rewrites only what changed.

`.<out>.cache/` holds docs/<lang> (the Markdown MkDocs reads), site/ (MkDocs' output),
state.json (the build key, and each model page's content key and title) and the marker
`.vram-guide-cache`: a folder of that name without the marker is someone else's, and is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib.metadata import version
from pathlib import Path

from generator.catalog.records import Catalog
from generator.site.errors import BuildError
from generator.site.files import empty_folder, write_if_changed
from generator.site.publish import uninterruptible
from generator.languages import LOCALES_DIR
from generator.site.render import COMPILED_DIR, TEMPLATES_DIR

# Written in every cache folder this tool makes; a cache folder without it is never emptied.
CACHE_MARKER = ".vram-guide-cache"
PARSED_CATALOG = "parsed-catalog"  # the folder of what the catalog's files parsed to (build.parsed_catalog_folder)
CODE_DIR = Path(__file__).resolve().parents[1]  # generator/: a code change rebuilds every page


def build_key(catalog: Catalog) -> str:
    """What every page depends on besides its own model: when it changes, everything is rebuilt."""
    digest = hashlib.sha256()
    digest.update(repr((catalog.site, catalog.gpus, catalog.inventory, version("mkdocs"), version("mkdocs-material"))).encode())
    for folder, pattern in ((TEMPLATES_DIR, "**/*"), (LOCALES_DIR, "**/*.po"), (CODE_DIR, "**/*.py")):
        for path in sorted(folder.glob(pattern)):
            if path.is_file() and COMPILED_DIR not in path.relative_to(folder).parts:
                digest.update(path.relative_to(folder).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def cache_dir(out_dir: Path) -> Path:
    return out_dir.parent / f".{out_dir.name}.cache"


def is_ours(root: Path) -> bool:
    """Whether `root` is a cache folder this tool made: its marker in it, and no link in its place."""
    return not root.is_symlink() and (root / CACHE_MARKER).is_file()


def check_cache_dir(out_dir: Path) -> None:
    """Refuse a cache folder this tool did not make (never delete or write into a user's files)."""
    root = cache_dir(out_dir)
    if (root.exists() or root.is_symlink()) and not is_ours(root):
        raise BuildError(f"{root}: exists and was not made by this tool (no {CACHE_MARKER}); "
                         "move it away or choose another --out")


class BuildCache:
    """The cache folder of one output folder; invalid (and emptied) when its key differs."""

    def __init__(self, out_dir: Path, key: str):
        check_cache_dir(out_dir)
        self.root = cache_dir(out_dir)
        self.state_file = self.root / "state.json"
        state = {}
        try:
            state = json.loads(self.state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
        self.valid = state.get("key") == key and state.get("complete") is True
        if not self.valid and self.root.exists():
            # the marker stays: an interrupted build leaves the folder ours; and the parsed catalog,
            # whose entries name the code they were made by (catalog/parsed_files.py)
            empty_folder(self.root, CACHE_MARKER, PARSED_CATALOG)
        with uninterruptible():  # the folder is never left without its marker
            self.root.mkdir(exist_ok=True)
            write_if_changed(self.root / CACHE_MARKER, "The build cache of `python -m generator build`; the next build may empty it.\n")
        self.key = key
        self.pages: dict[str, dict] = state.get("pages", {}) if self.valid else {}
        self._save(complete=False)  # a build that dies from here on leaves an invalid cache

    def docs_dir(self, lang: str) -> Path:
        return self.root / "docs" / lang

    @property
    def site_dir(self) -> Path:
        return self.root / "site"

    def _save(self, complete: bool) -> None:
        state = {"key": self.key, "complete": complete, "pages": self.pages}
        self.state_file.write_text(json.dumps(state, sort_keys=True), encoding="utf-8")

    def finish(self) -> None:
        self._save(complete=True)


def _recorded_pages(out_dir: Path) -> tuple[dict, dict] | None:
    """The last build's state (state.json) and its record of each page ("en:models/kimi-k3" → its
    key and title); None where the cache cannot be read."""
    try:
        state = json.loads((cache_dir(out_dir) / "state.json").read_text(encoding="utf-8"))
        pages = state["pages"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return (state, pages) if isinstance(pages, dict) else None


def page_keys(out_dir: Path, lang: str) -> dict[str, str]:
    """The key of each page of `lang` (its path: "models/kimi-k3") the last build recorded; none where
    the cache cannot be read."""
    recorded = _recorded_pages(out_dir)
    if recorded is None:
        return {}
    return {name.split(":", 1)[1]: entry["hash"] for name, entry in recorded[1].items()
            if name.startswith(f"{lang}:") and isinstance(entry, dict) and "hash" in entry}


def forget_pages(out_dir: Path, names: list[str]) -> None:
    """Drop the cache's record of the pages `names` ("en:models/kimi-k3"): the live preview writes
    their sources outside a build, so the next build makes them again rather than trust its key."""
    recorded = _recorded_pages(out_dir)
    if recorded is None:
        return
    state, pages = recorded
    for name in names:
        pages.pop(name, None)
    write_if_changed(cache_dir(out_dir) / "state.json", json.dumps(state, sort_keys=True))


class KeepMtimes:
    """Give back their old mtime to files rewritten with the very same bytes."""

    def __init__(self, folder: Path, names: tuple[str, ...]):
        self.before = {}
        for name in names:
            path = folder / name
            if path.is_file():
                self.before[path] = (path.read_bytes(), path.stat().st_mtime_ns)

    def restore(self) -> None:
        for path, (data, mtime) in self.before.items():
            if path.is_file() and path.read_bytes() == data:
                os.utime(path, ns=(mtime, mtime))


def remove_stale(folder: Path, keep: set[Path], suffixes: tuple[str, ...]) -> None:
    """Delete model and GPU pages of `folder` that this build no longer has."""
    for sub in ("models", "gpus"):
        for path in (folder / sub).glob("*"):
            if path.name.endswith(suffixes) and path not in keep:
                path.unlink()
