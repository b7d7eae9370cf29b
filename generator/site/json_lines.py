"""A dictionary kept in the build cache as a file of JSON lines (`[key, value]`), written by appending.

The rows a page keeps between builds (row_store.py) are a thousand entries a page at 1,000 models: a
model added or removed changed one of them, yet writing the file again encoded them all (53 GPU
pages, in two languages, took a second of each such rebuild). Here a build appends the entries it
made, and a later line of a key wins; the file is written again, with the entries still wanted
alone, once it holds more lines than twice those. A line cut short (a build killed while it wrote)
is skipped when read: its entry is made again.
"""

from __future__ import annotations

import json
from pathlib import Path

from generator.site.files import write_if_changed


def _line(key: str, value) -> str:
    return json.dumps([key, value], sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


class JsonLines:
    def __init__(self, file: Path):
        self.file = file
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, ValueError):
            text = ""
        self.line_count = text.count("\n")  # JSON escapes a newline inside a string
        self.ends_whole = text.endswith("\n") or not text  # where an append starts a line of its own
        self.entries: dict = {}
        try:  # every line read at once; one by one where one does not read
            items = json.loads(f"[{text.rstrip(chr(10)).replace(chr(10), ',')}]")
        except ValueError:
            items = [self._item(line) for line in text.split("\n") if line]
        for item in items:
            if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str):
                self.entries[item[0]] = item[1]

    @staticmethod
    def _item(line: str):
        try:
            return json.loads(line)
        except ValueError:
            return None

    def save(self, new: dict, wanted: set[str]) -> None:
        """Keep the `new` entries, and of the others those whose key is `wanted`."""
        self.entries.update(new)
        if self.line_count + len(new) > 2 * len(wanted) + 16:
            kept = {key: value for key, value in self.entries.items() if key in wanted}
            write_if_changed(self.file, "".join(_line(key, kept[key]) for key in sorted(kept)))
            self.entries, self.line_count, self.ends_whole = kept, len(kept), True
        elif new:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            with self.file.open("a", encoding="utf-8") as file:
                file.write(("" if self.ends_whole else "\n") + "".join(_line(key, value) for key, value in new.items()))
            self.line_count += len(new)
            self.ends_whole = True
