"""Writing files so that unchanged content keeps its bytes and its mtime, and a reader (the
preview's server sending a page while it is remade) sees the old file or the new one, never half."""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path


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
    its mode (a new one gets open()'s, under the umask); the temporary file is removed on any failure."""
    try:
        mode = os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        mode = None
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def empty_folder(folder: Path, *keep: str) -> None:
    """Delete everything in `folder` but what `keep` names (a marker that must outlive an interrupted
    delete, a folder that outlives the others)."""
    for child in folder.iterdir():
        if child.name in keep:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
