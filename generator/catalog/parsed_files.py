"""What read_yaml made of each catalog file, kept by the file's bytes between runs.

Parsing 1,000 model files takes about 1.5 s, most of a one-model rebuild's reading of the catalog,
and a rebuild's catalog is the last one but for a file or two. A file whose bytes (sha256) are a
kept entry's gets that entry's data, lines and duplicate keys without being parsed; the others are
parsed, with every check, and kept if they were read. Entries are JSON, each value tagged with its
type (a mapping keeps its keys' types and order, a date stays a date), one file per catalog file:
the folder they are kept in is read back, never executed. An entry made by another version of the
parser or of this code is not used, and a file that cannot be read back is as if there were none.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from generator.catalog.file_writes import replace_file

# What the kept entries depend on besides the files: Python, the parser (with libyaml or not) and the
# code that reads and tags.
_VERSION = hashlib.sha256(
    repr((sys.version, yaml.__version__, getattr(yaml, "__with_libyaml__", False))).encode()
    + b"".join((Path(__file__).parent / name).read_bytes() for name in ("parsed_files.py", "yaml_file.py", "bounded_read.py"))
).hexdigest()
# The name of a kept file: the sha256 of the catalog file's bytes.
_KEPT_NAME = re.compile(r"[0-9a-f]{64}\.json")


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
    """Kept read_yaml results by sha256 of a file's bytes: one JSON file each in `folder` (None, or a
    folder that cannot be read: none kept yet), read as they are asked for. What this run parsed
    anew waits here as JSON text until `save` (the CLI saves once the catalog is read, so a build
    does not hold it)."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder
        self.fresh: dict[str, str] = {}  # key -> the JSON text of what was parsed anew
        self.used: set[str] = set()

    @staticmethod
    def key(raw: bytes) -> str:
        return hashlib.sha256(raw).hexdigest()

    def get(self, key: str) -> tuple[Any, dict[str, int], tuple[tuple[str, int], ...]] | None:
        """(data, lines, duplicate keys) of the file whose bytes have `key`, or None."""
        text = self.fresh.get(key)
        if text is None and self.folder is not None:
            try:
                text = (self.folder / f"{key}.json").read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
        if text is None:
            return None
        try:
            entry = json.loads(text)
            if entry["version"] != _VERSION:
                return None
            found = (_untagged(entry["data"]), dict(entry["lines"]), tuple((k, line) for k, line in entry["duplicates"]))
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            return None
        self.used.add(key)
        return found

    def put(self, key: str, data: Any, lines: dict[str, int], duplicates: tuple[tuple[str, int], ...]) -> None:
        try:
            entry = {"version": _VERSION, "data": _tagged(data), "lines": lines, "duplicates": [list(d) for d in duplicates]}
            text = json.dumps(entry, sort_keys=True)
        except (_Untaggable, ValueError, RecursionError):  # a value JSON does not write (a 5,000-digit hex number)
            return
        self.fresh[key] = text
        self.used.add(key)

    def save(self, folder: Path) -> None:
        """Write what was parsed anew into `folder` (each file in one rename), and remove the kept
        files this run did not use (a file edited since: its older bytes)."""
        folder.mkdir(exist_ok=True)
        for key, text in sorted(self.fresh.items()):
            replace_file(folder / f"{key}.json", text, folder)
        for kept in folder.glob("*.json"):
            if _KEPT_NAME.fullmatch(kept.name) and kept.stem not in self.used:
                kept.unlink()
        self.folder, self.fresh = folder, {}
