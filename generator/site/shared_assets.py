"""One assets folder for every language: site/assets/, not a copy per language.

Each language's MkDocs build copies the theme's files (and ours) into its own `assets/`: byte for
byte the same files at two addresses, downloaded again by a reader who switches language. The
pages are pointed at the site's `assets/` as MkDocs writes them (see mkdocs_runner.py), and after
each build the language's copy is moved there.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from generator.site.errors import BuildError
from generator.site.files import write_if_changed
from generator.site.paths import PLAN_DATA_DIR

ASSETS = "assets"
# The theme's files for its own search, which the site does not use (search_index.py): not published.
UNUSED_THEME_FILES = ("javascripts/lunr/", "javascripts/workers/search.")

# An asset's address in a <link> or <script> MkDocs writes: "assets/…", "./assets/…", "../assets/…",
# "/pt/assets/…" (the 404 page's, from the site's path). Catalog text never reaches a tag: it is
# escaped (render.py).
_TAG_ADDRESS = r'(<(?:link|script)\b[^>]*?\s(?:href|src)=")'  # up to the address's first character
_ASSET_REFERENCE = re.compile(_TAG_ADDRESS + r'(\./)?((?:\.\./)*)assets/')


def point_at_shared_assets(html: str, depth: int, absolute_prefix: str, shared_prefix: str) -> str:
    """`html` of a page `depth` folders below its language folder, with its language's assets
    addresses moved to the site's: "../assets/x" → "../../assets/x" at depth 1, and the absolute
    "/pt/assets/x" (`absolute_prefix`) → "/assets/x" (`shared_prefix`). Already moved addresses are
    left as they are, so a page can go through it twice."""

    def move(found: re.Match) -> str:
        if found.group(2) is None and len(found.group(3)) // 3 != depth:
            return found.group(0)
        return f"{found.group(1)}{'../' * (depth + 1)}{ASSETS}/"

    html = _ASSET_REFERENCE.sub(move, html)
    return re.sub(_TAG_ADDRESS + re.escape(absolute_prefix + ASSETS + "/"),
                  lambda found: found.group(1) + shared_prefix + ASSETS + "/", html)


def share_assets(site_dir: Path, languages: tuple[str, ...]) -> None:
    """Move each language's `assets/` into the site's `assets/` (but the theme's search files), and
    remove files there that no language has any more (a theme update's old bundle) and the folders
    that leaves empty; the calculator's data stays."""
    moved: dict[str, bytes] = {}
    for lang in languages:
        folder = site_dir / lang / ASSETS
        for path in sorted(folder.rglob("*")) if folder.is_dir() else ():
            if not path.is_file():
                continue
            name = path.relative_to(folder).as_posix()
            if name.startswith(UNUSED_THEME_FILES):
                continue
            data = path.read_bytes()
            if moved.setdefault(name, data) != data:
                raise BuildError(f"{path}: differs between languages, so they cannot share {ASSETS}/{name}")
            write_if_changed(site_dir / ASSETS / name, data)
        if folder.is_dir():
            shutil.rmtree(folder)
    plan_data = site_dir / PLAN_DATA_DIR
    for path in sorted((site_dir / ASSETS).rglob("*"), reverse=True):  # files before their folders
        name = path.relative_to(site_dir / ASSETS).as_posix()
        if path == plan_data or plan_data in path.parents:
            continue
        if path.is_file() and name not in moved:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
