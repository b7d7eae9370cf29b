"""Putting a finished site in place of the previous one, and never replacing anything else.

A build works in a staging folder beside the output (`.<out>.building-*`, marked as this tool's),
copies the finished site there, then swaps it with the previous site in two renames. The swap
ignores Ctrl-C, and any failure in it moves the previous site back, so the output folder always
holds a complete site. A staging folder left by a killed build is removed by the next build.

The site's marker lists every file the build wrote: a folder is this tool's only if its marker is
such a list, and a file the list does not name (a deployer's `CNAME`, `uploads/report.pdf`) is
carried into the new site, or the build refuses, naming it, when the new site writes the same path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import signal
import tempfile
import threading
from pathlib import Path
from typing import Callable, Iterator

from generator.site.errors import BuildError
from generator.site.files import empty_folder, write_if_changed

# Written at the root of every site this tool builds, with the list of the files the build wrote; a
# folder without it (or with anything else in it) is never replaced.
MARKER = ".vram-guide-site"
MARKER_HEADER = ("A site built by `python -m generator build`: the next build replaces the files listed below "
                 "and keeps every other one.\nfiles:\n")
# Written in every staging folder; only a folder holding it, for this output, is ever cleaned.
STAGING_MARKER = ".vram-guide-staging"


def _entries(folder: Path) -> list[str]:
    """Every file, symlink and empty folder under `folder` (never following a link), relative, sorted
    as paths sort. Each folder's entries are read once, their kind without a stat of each."""
    found: list[str] = []

    def visit(directory: str, prefix: str) -> int:
        with os.scandir(directory) as listing:
            entries = list(listing)
        for entry in entries:
            name = prefix + entry.name
            if entry.is_symlink() or entry.is_file(follow_symlinks=False):
                found.append(name)
            elif entry.is_dir(follow_symlinks=False) and visit(entry.path, name + "/") == 0:
                found.append(name)  # an empty folder
        return len(entries)
    visit(str(folder), "")
    return sorted((name for name in found if name != MARKER), key=lambda name: name.split("/"))


def built_files(out_dir: Path) -> set[str] | None:
    """The files the build that made `out_dir` wrote, from its marker; None when the marker is
    missing or is not such a list (an empty or planted file proves nothing)."""
    marker = out_dir / MARKER
    if marker.is_symlink() or not marker.is_file():
        return None
    try:
        text = marker.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith(MARKER_HEADER) or not text.endswith("\n"):
        return None
    names = text[len(MARKER_HEADER):-1].split("\n")
    if not names or any(not name or name.startswith("/") or ".." in name.split("/") for name in names):
        return None
    return set(names)


def check_out_dir(out_dir: Path) -> None:
    """Refuse to build into a folder that is not a site this tool built (never delete a user's files)."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir() or (any(out_dir.iterdir()) and built_files(out_dir) is None):
        raise BuildError(f"{out_dir}: exists and is not a site built by this tool (no list of its files in {MARKER}); "
                         "choose another --out")


def mark(site_dir: Path) -> None:
    """Write the marker: the list of every file of the finished site."""
    write_if_changed(site_dir / MARKER, MARKER_HEADER + "".join(f"{name}\n" for name in _entries(site_dir)))


def carry_deployer_files(out_dir: Path, new_site: Path) -> None:
    """Copy into `new_site` what `out_dir` holds that its build did not write; refuse, naming them,
    when the new site writes the same paths."""
    if not out_dir.is_dir():
        return
    built = built_files(out_dir) or set()
    theirs = [name for name in _entries(out_dir) if name not in built]
    clashes = [name for name in theirs if (new_site / name).exists() or (new_site / name).is_symlink()]
    if clashes:
        shown = ", ".join(clashes[:5]) + (f" and {len(clashes) - 5} more" if len(clashes) > 5 else "")
        raise BuildError(f"{out_dir}: {shown}: not written by the last build, and the new site writes the same "
                         "path; move them out of the folder and build again")
    for name in theirs:
        source, target = out_dir / name, new_site / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir() and not source.is_symlink():
            target.mkdir()
        else:
            shutil.copy2(source, target, follow_symlinks=False)


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


def _linked_or_copied(site_dir: Path, out_dir: Path) -> Callable[[str, str], str]:
    """copytree's copy: a file whose size and mtime are its copy's in the previous site (copy2 kept
    the mtime; a file the build wrote again has a new one) is hard-linked to that copy, not copied.
    The sites are never written into in place (a build swaps whole folders; the preview replaces a
    file in one rename), so a link shared by the two is never changed under the other. A one-model
    rebuild at 1,000 models copied all 371 MB. (A built file edited in the output folder with its
    size and mtime kept, as `cp -p` keeps them, stays as edited: a site is changed through content/.)"""
    def copy(source: str, target: str) -> str:
        previous = out_dir / Path(source).relative_to(site_dir)
        try:
            now, then = os.stat(source), os.lstat(previous)
            if stat.S_ISREG(then.st_mode) and (now.st_size, now.st_mtime_ns, now.st_mode) == (then.st_size, then.st_mtime_ns, then.st_mode):
                os.link(previous, target)
                return target
        except OSError:  # no previous copy, or no link here (another file system): copied
            pass
        return shutil.copy2(source, target)
    return copy


def publish(site_dir: Path, out_dir: Path, staging: Path, on_swapped: Callable[[], None]) -> None:
    """Copy the finished site into `staging`, then swap it with the previous `out_dir`; `on_swapped`
    runs once the new site is in place, before Ctrl-C is let through again."""
    shutil.copytree(site_dir, staging / "site", copy_function=_linked_or_copied(site_dir, out_dir))
    carry_deployer_files(out_dir, staging / "site")
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
