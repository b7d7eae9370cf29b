"""The memory of a process and every process it starts, sampled while it runs (Linux /proc).

A build forks page workers, runs the two languages' MkDocs builds in processes of their own and
Pagefind as a subprocess; the peak of the largest one (ru_maxrss) says little of what the machine
needs. This sums, every `interval` seconds, the proportional set size (PSS: pages shared by forked
workers counted once in all) of the whole tree, and keeps the highest sum.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path


def _parents() -> dict[int, list[int]]:
    """Each running process's children, from /proc/<pid>/stat (its fourth field is the parent)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat[stat.rindex(")") + 2:].split()[1])  # the name, in parentheses, may hold spaces
            children.setdefault(parent, []).append(int(entry.name))
    return children


def _tree(pid: int) -> list[int]:
    children = _parents()
    tree, pending = [], [pid]
    while pending:
        current = pending.pop()
        tree.append(current)
        pending += children.get(current, [])
    return tree


def _pss_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:  # the process ended meanwhile
        pass
    return 0


class TreeMemory:
    """Samples the tree of `pid` on a thread until `stop()`; `peak_bytes` and `peak_processes`."""

    def __init__(self, pid: int, interval: float = 0.2):
        self.pid, self.interval = pid, interval
        self.peak_bytes, self.peak_processes = 0, 0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.is_set() and os.path.exists(f"/proc/{self.pid}"):
            tree = _tree(self.pid)
            total = sum(_pss_bytes(pid) for pid in tree)
            if total > self.peak_bytes:
                self.peak_bytes, self.peak_processes = total, len(tree)
            time.sleep(self.interval)

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()
