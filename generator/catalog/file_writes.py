"""How `add-model` and `prices import` write into the catalog: one at a time, all or nothing.

A write goes to a temporary file beside the target, then replaces it in one rename, so a reader
sees the old file or the new one; the temporary file is removed on any failure (a full disk
included). The file keeps its mode (a new file takes the catalog's), and a symlinked file is
written where it points, the link left as it was. Writers read the catalog and write it holding an
flock on the content folder's `.vram-guide-catalog.lock`, waiting for each other, so two runs cannot
lose each other's change, nor read a catalog another one has half written (site.yaml and gpus.yaml).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import tempfile
from pathlib import Path
from typing import Iterator

LOCK_NAME = ".vram-guide-catalog.lock"
NEW_FILE_MODE = 0o644  # a catalog file without a sibling to copy the mode from


@contextlib.contextmanager
def catalog_lock(content_dir: Path) -> Iterator[None]:
    """Hold the content folder's write lock, waiting for another writer to finish."""
    fd = os.open(content_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, NEW_FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def replace_file(path: Path, text: str, root: Path, mode_from: Path | None = None) -> None:
    """Write `text` (newlines as given) to `path` in one rename. The mode is the file's own, else
    `mode_from`'s (a sibling catalog file), else NEW_FILE_MODE. A link is written through only
    when it points inside `root` (the content folder): never a file elsewhere."""
    target = path.resolve()  # a link: the file it points to
    if not target.is_relative_to(root.resolve()):
        raise PermissionError(errno.EPERM, "a link to outside the content folder; copy the file in instead", str(path))
    source = target if target.exists() else mode_from if mode_from is not None and mode_from.exists() else None
    mode = os.stat(source).st_mode & 0o777 if source is not None else NEW_FILE_MODE
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
