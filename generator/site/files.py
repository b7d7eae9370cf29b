"""Writing files so that unchanged content keeps its bytes and its mtime."""

from __future__ import annotations

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
    path.write_bytes(data)
    return True


def empty_folder(folder: Path, keep: str) -> None:
    """Delete everything in `folder` but the file `keep` (a marker that must outlive an interrupted delete)."""
    for child in folder.iterdir():
        if child.name == keep:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
