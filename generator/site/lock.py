"""One build at a time into an output folder: an flock on `.<out>.lock` beside it.

The lock is held while the build runs and released when it ends, however it ends (the kernel
releases it when the process dies), so a lock file left behind never blocks. The file says which
process holds it; a file of that name that this tool did not write is refused, never overwritten.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
from pathlib import Path
from typing import Iterator

from generator.site.errors import BuildError

LOCK_TEXT = "vram-guide build lock, held by pid {pid}\n"
LOCK_LINE = re.compile(r"vram-guide build lock, held by pid (\d+)\n")


def lock_file(out_dir: Path) -> Path:
    return out_dir.parent / f".{out_dir.name}.lock"


def _ours(text: bytes) -> bool:
    return not text or LOCK_LINE.fullmatch(text.decode("utf-8", "replace")) is not None


def _holder(fd: int) -> str:
    found = LOCK_LINE.fullmatch(os.pread(fd, 100, 0).decode("utf-8", "replace"))
    return f"pid {found.group(1)}" if found else "another process"


@contextlib.contextmanager
def build_lock(out_dir: Path) -> Iterator[None]:
    """Hold the lock of `out_dir` (creating the folder it sits in), or refuse at once."""
    lock = lock_file(out_dir)
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BuildError(f"{out_dir}: cannot create the output folder ({error.strerror or error})") from None
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as error:
        raise BuildError(f"{lock}: cannot open the build lock ({error.strerror or error})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildError(f"{out_dir}: another build is writing it (lock {lock.name} held by {_holder(fd)}); "
                             "wait for it to finish") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode) or not _ours(os.pread(fd, 100, 0)):
            raise BuildError(f"{lock}: exists and was not made by this tool; move it away or choose another --out")
        os.ftruncate(fd, 0)
        os.pwrite(fd, LOCK_TEXT.format(pid=os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)
