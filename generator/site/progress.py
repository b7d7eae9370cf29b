"""Build progress: a line that updates on a terminal; nothing but the summary elsewhere."""

from __future__ import annotations

import sys
from typing import TextIO


class Progress:
    def __init__(self, stream: TextIO = sys.stderr):
        self.stream = stream
        self.live = stream.isatty()
        self.label = ""
        self.total = 0
        self.done = 0
        self.published = False  # the new site is in place: a Ctrl-C after that cannot undo the build

    def site_published(self) -> None:
        self.published = True

    def start(self, label: str, total: int) -> None:
        self.label, self.total, self.done = label, total, 0
        self._show()

    def advance(self, count: int = 1) -> None:
        self.done += count
        if self.done == self.total or self.done % 25 == 0:
            self._show()

    def _show(self) -> None:
        if self.live:
            count = f": {self.done}/{self.total} pages" if self.total else "..."
            self.stream.write(f"\r\033[K{self.label}{count}")
            self.stream.flush()

    def finish_line(self) -> None:
        if self.live:
            self.stream.write("\n")
            self.stream.flush()
