"""What read_yaml made of each catalog file, kept by the file's bytes between runs.

Parsing 1,000 model files takes about 1.5 s, most of a one-model rebuild's reading of the catalog,
and a rebuild's catalog is the last one but for a file or two. A file whose bytes (sha256) are a
kept entry's gets that entry's data, lines and duplicate keys without being parsed; the others are
parsed, with every check, and kept if they were read. Entries are JSON, each value tagged with its
type (a mapping keeps its keys' types and order, a date stays a date): the folder they are kept in
is read back, never executed. An entry made by another version of the parser or of this code is
not used, and a file that cannot be read back is as if there were none.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

from generator.catalog.file_writes import replace_file

# What the kept entries depend on besides the files: the parser and the code that reads and tags.
_VERSION = hashlib.sha256(
    yaml.__version__.encode() + Path(__file__).read_bytes() + (Path(__file__).parent / "yaml_file.py").read_bytes()
).hexdigest()


class _Untaggable(Exception):
    pass


def _tagged(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {"m": [[_tagged(key), _tagged(item)] for key, item in value.items()]}
    if isinstance(value, list):
        return {"l": [_tagged(item) for item in value]}
    if isinstance(value, dt.datetime):  # before date: a datetime is a date
        return {"t": value.isoformat()}
    if isinstance(value, dt.date):
        return {"d": value.isoformat()}
    raise _Untaggable(type(value).__name__)


def _untagged(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    (tag, content), = value.items()
    if tag == "m":
        return {_untagged(key): _untagged(item) for key, item in content}
    if tag == "l":
        return [_untagged(item) for item in content]
    if tag == "t":
        return dt.datetime.fromisoformat(content)
    if tag == "d":
        return dt.date.fromisoformat(content)
    raise ValueError(f"unknown tag {tag!r}")


class ParsedFiles:
    """Kept read_yaml results by sha256 of a file's bytes, read from `file` (None, or a file that
    cannot be read: none yet); the live preview keeps them in memory between edits."""

    def __init__(self, file: Path | None = None):
        self.kept: dict[str, Any] = {}
        self.used: dict[str, Any] = {}
        if file is None:
            return
        try:
            stored = json.loads(file.read_text(encoding="utf-8"))
            if isinstance(stored, dict) and stored.get("version") == _VERSION and isinstance(stored.get("files"), dict):
                self.kept = stored["files"]
        except (OSError, ValueError):
            pass

    @staticmethod
    def key(raw: bytes) -> str:
        return hashlib.sha256(raw).hexdigest()

    def get(self, key: str) -> tuple[Any, dict[str, int], tuple[tuple[str, int], ...]] | None:
        """(data, lines, duplicate keys) of the file whose bytes have `key`, or None."""
        entry = self.kept.get(key)
        if entry is None:
            return None
        try:
            found = (_untagged(entry["data"]), dict(entry["lines"]), tuple((k, line) for k, line in entry["duplicates"]))
        except (KeyError, TypeError, ValueError):
            return None
        self.used[key] = entry
        return found

    def put(self, key: str, data: Any, lines: dict[str, int], duplicates: tuple[tuple[str, int], ...]) -> None:
        try:
            entry = {"data": _tagged(data), "lines": lines, "duplicates": [list(d) for d in duplicates]}
        except _Untaggable:
            return
        self.kept[key] = self.used[key] = entry

    def save(self, file: Path) -> None:
        """Write the entries this run used (a file edited since drops its older entry) to `file`, in
        one rename: a reader sees the old entries or the new."""
        replace_file(file, json.dumps({"version": _VERSION, "files": self.used}, sort_keys=True), file.parent)
