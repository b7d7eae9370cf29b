"""Putting a finished site in place of the previous one, and never replacing anything else."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from generator.site.errors import BuildError
from generator.site.files import write_if_changed

# Written at the root of every site this tool builds; a folder without it is never replaced.
MARKER = ".vram-guide-site"


def check_out_dir(out_dir: Path) -> None:
    """Refuse to replace a folder that is not a site this tool built (never delete a user's files)."""
    if out_dir.exists() and (not out_dir.is_dir() or (any(out_dir.iterdir()) and not (out_dir / MARKER).is_file())):
        raise BuildError(f"{out_dir}: exists and is not a site built by this tool (no {MARKER}); choose another --out")


def mark(site_dir: Path) -> None:
    write_if_changed(site_dir / MARKER, "A site built by `python -m generator build`; the next build replaces this folder.\n")


def staging_dir(out_dir: Path) -> Path:
    """A new empty folder beside `out_dir` (same file system, so that renames are atomic)."""
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.building-", dir=out_dir.parent))
    except OSError as error:
        raise BuildError(f"{out_dir}: cannot create the output folder ({error.strerror or error})") from None


def publish(site_dir: Path, out_dir: Path, staging: Path) -> None:
    """Copy the finished site into `staging`, then swap it with the previous `out_dir`."""
    shutil.copytree(site_dir, staging / "site", copy_function=shutil.copy2)
    if out_dir.exists():
        out_dir.rename(staging / "previous")
    (staging / "site").rename(out_dir)
