"""Putting a finished site in place of the previous one, and never replacing anything else.

A build works in a staging folder beside the output (`.<out>.building-*`, marked as this tool's),
copies the finished site there, then swaps it with the previous site in two renames. The swap
ignores Ctrl-C, and any failure in it moves the previous site back, so the output folder always
holds a complete site. A staging folder left by a killed build is removed by the next build.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import tempfile
import threading
from pathlib import Path
from typing import Callable, Iterator

from generator.site.errors import BuildError
from generator.site.files import empty_folder, write_if_changed

# Written at the root of every site this tool builds; a folder without it is never replaced.
MARKER = ".vram-guide-site"
# Written in every staging folder; only a folder holding it, for this output, is ever cleaned.
STAGING_MARKER = ".vram-guide-staging"


def check_out_dir(out_dir: Path) -> None:
    """Refuse to replace a folder that is not a site this tool built (never delete a user's files)."""
    if out_dir.exists() and (not out_dir.is_dir() or (any(out_dir.iterdir()) and not (out_dir / MARKER).is_file())):
        raise BuildError(f"{out_dir}: exists and is not a site built by this tool (no {MARKER}); choose another --out")


def mark(site_dir: Path) -> None:
    write_if_changed(site_dir / MARKER, "A site built by `python -m generator build`; the next build replaces this folder.\n")


@contextlib.contextmanager
def uninterruptible() -> Iterator[None]:
    """Ctrl-C is ignored inside: for steps that must not stop half-way (only the main thread gets it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _staging_text(out_dir: Path) -> str:
    return f"A staging folder of `python -m generator build` for {out_dir.name}/; the next build deletes it.\n"


def _staging_prefix(out_dir: Path) -> str:
    return f".{out_dir.name}.building-"


def staging_dir(out_dir: Path) -> Path:
    """A new empty folder beside `out_dir` (same file system, so that renames are atomic), marked."""
    try:
        with uninterruptible():
            staging = Path(tempfile.mkdtemp(prefix=_staging_prefix(out_dir), dir=out_dir.parent))
            write_if_changed(staging / STAGING_MARKER, _staging_text(out_dir))
    except OSError as error:
        raise BuildError(f"{out_dir}: cannot create a staging folder beside it ({error.strerror or error})") from None
    return staging


def remove_staging(staging: Path) -> None:
    """Delete a staging folder, its marker last: a build killed half-way through leaves it marked."""
    with uninterruptible(), contextlib.suppress(OSError):
        empty_folder(staging, STAGING_MARKER)
        shutil.rmtree(staging)


def remove_stale_staging(out_dir: Path) -> None:
    """Delete the staging folders a killed build of `out_dir` left, and only those (they carry the
    marker). If it was killed between the two renames, its previous site goes back in place first."""
    for folder in sorted(out_dir.parent.glob(_staging_prefix(out_dir) + "*")):
        marker = folder / STAGING_MARKER
        if folder.is_symlink() or not marker.is_file() or marker.read_bytes() != _staging_text(out_dir).encode():
            continue
        with uninterruptible():
            if not out_dir.exists() and (folder / "previous" / MARKER).is_file():
                (folder / "previous").rename(out_dir)
        remove_staging(folder)


def publish(site_dir: Path, out_dir: Path, staging: Path, on_swapped: Callable[[], None]) -> None:
    """Copy the finished site into `staging`, then swap it with the previous `out_dir`; `on_swapped`
    runs once the new site is in place, before Ctrl-C is let through again."""
    shutil.copytree(site_dir, staging / "site", copy_function=shutil.copy2)
    previous = staging / "previous"
    with uninterruptible():
        try:
            if out_dir.exists():
                out_dir.rename(previous)
            (staging / "site").rename(out_dir)
        except BaseException:
            if previous.is_dir() and not out_dir.exists():
                previous.rename(out_dir)
            raise
        on_swapped()
