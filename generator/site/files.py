"""Writing files so that unchanged content keeps its bytes and its mtime, and a reader (the
preview's server sending a page while it is remade) sees the old file or the new one, never half."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

_UMASK = os.umask(0)
os.umask(_UMASK)
NEW_FILE_MODE = 0o666 & ~_UMASK  # what open() would give a new file


def write_if_changed(path: Path, text: str | bytes) -> bool:
    """Write `text` (or bytes) unless the file already holds it; return whether it was written."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
    replace_bytes(path, data)
    return True


def replace_bytes(path: Path, data: bytes) -> None:
    """`data` into `path` in one rename: written beside it, then put in its place. The file keeps
    its mode; the temporary file is removed on any failure."""
    try:
        mode = os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        mode = NEW_FILE_MODE
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def empty_folder(folder: Path, keep: str) -> None:
    """Delete everything in `folder` but the file `keep` (a marker that must outlive an interrupted delete)."""
    for child in folder.iterdir():
        if child.name == keep:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
