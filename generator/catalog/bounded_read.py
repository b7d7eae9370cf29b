"""Open files given by someone else without letting them block, flood memory or hide a device."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


class FileRefused(Exception):
    """Not a regular file, or larger than the caller's limit; the message says which."""


def mib(limit: int) -> str:
    return f"{limit / 2**20:g} MiB"


def open_regular_file(path: Path) -> BinaryIO:
    """`path` opened for reading if it is a regular file (a symlink to one is followed); OSError otherwise.

    It is opened without blocking and checked on the open handle, so a FIFO or a device is refused
    instead of blocking or streaming forever.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    file = os.fdopen(descriptor, "rb")
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        file.close()
        raise FileRefused("not a regular file")
    return file


def read_regular_file(path: Path, limit: int, whose_limit: str) -> bytes:
    """The bytes of `path` if it is a regular file of at most `limit` bytes (`whose_limit` says why)."""
    with open_regular_file(path) as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise FileRefused(f"larger than {mib(limit)}, {whose_limit}")
    return data
