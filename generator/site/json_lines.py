"""A dictionary kept in the build cache as a file of JSON lines (`[key, value]`), written by appending.

The rows a page keeps between builds (row_store.py) are a thousand entries a page at 1,000 models: a
model added or removed changed one of them, yet writing the file again encoded them all (53 GPU
pages, in two languages, took a second of each such rebuild). Here a build appends the entries it
made, and a later line of a key wins; the file is written again, with the entries still wanted
alone, once it holds more lines than twice those. A line cut short (a build killed while it wrote)
is skipped when read: its entry is made again. Read and written with orjson (a GPU page's rows
in one language are 700 KB of HTML in JSON strings: json's decoder took twice as long).
"""

from __future__ import annotations

from pathlib import Path

import orjson

from generator.site.files import write_if_changed


def _line(key: str, value) -> bytes:
    return orjson.dumps([key, value], option=orjson.OPT_SORT_KEYS) + b"\n"


class JsonLines:
    def __init__(self, file: Path):
        self.file = file
        try:
            text = file.read_bytes()
        except OSError:
            text = b""
        self.line_count = text.count(b"\n")  # JSON escapes a newline inside a string
        self.ends_whole = text.endswith(b"\n") or not text  # where an append starts a line of its own
        try:  # every line read at once; one by one where one does not read
            items = orjson.loads(b"[" + text.rstrip(b"\n").replace(b"\n", b",") + b"]")
        except ValueError:
            items = [self._item(line) for line in text.split(b"\n") if line]
        try:  # a later line of a key wins
            self.entries: dict = dict(items)
            whole = all(type(key) is str for key in self.entries)
        except (TypeError, ValueError):
            whole = False
        if not whole:  # a line that is not a [key, value] pair: the pairs alone
            self.entries = {item[0]: item[1] for item in items if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)}

    @staticmethod
    def _item(line: bytes):
        try:
            return orjson.loads(line)
        except ValueError:
            return None

    def save(self, new: dict, wanted: set[str]) -> None:
        """Keep the `new` entries, and of the others those whose key is `wanted`."""
        self.entries.update(new)
        if self.line_count + len(new) > 2 * len(wanted) + 16:
            kept = {key: value for key, value in self.entries.items() if key in wanted}
            write_if_changed(self.file, b"".join(_line(key, kept[key]) for key in sorted(kept)))
            self.entries, self.line_count, self.ends_whole = kept, len(kept), True
        elif new:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            with self.file.open("ab") as file:
                file.write((b"" if self.ends_whole else b"\n") + b"".join(_line(key, value) for key, value in new.items()))
            self.line_count += len(new)
            self.ends_whole = True
