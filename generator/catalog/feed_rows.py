"""Rows of a CSV or JSON feed (`prices import`, `inventory import`), each with the line it starts on,
read within bounds: a header of the expected columns, a list of objects, no key twice, at most
MAX_ROWS rows. Any problem is one line naming the feed's line."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import sys
from pathlib import Path
from typing import Any, Callable

from generator.catalog.schema import shown

MAX_ROWS = 10_000  # a feed lists GPU types, not offers: far fewer in practice


class FeedError(Exception):
    """The feed cannot be applied; `problems` holds one line per problem."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def csv_records(text: str, path: Path, columns: tuple[str, ...]) -> list[tuple[int, dict]]:
    """The CSV's rows as dicts with the line each starts on; the header must be `columns`."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if header is None or tuple(cell.strip() for cell in header) != columns:
            raise FeedError([f"{path}:1: the header must be {','.join(columns)} (got {shown(','.join(header or []))})"])
        records, ended = [], reader.line_num
        for cells in reader:
            line, ended = ended + 1, reader.line_num  # a quoted cell may span lines: name the first
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(columns):
                raise FeedError([f"{path}:{line}: expected {len(columns)} columns, got {len(cells)}"])
            records.append((line, dict(zip(columns, cells))))
            if len(records) > MAX_ROWS:
                raise FeedError([f"{path}: more than {MAX_ROWS:,} rows"])
    except csv.Error as error:
        raise FeedError([f"{path}:{reader.line_num}: not a CSV row ({error})"]) from None
    return records


class DuplicateKey(ValueError):
    """A key given twice in one JSON object (the json module would keep the last silently)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    found = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKey(key)
        found[key] = value
    return found


def json_records(text: str, path: Path, columns: tuple[str, ...]) -> list[tuple[int, dict]]:
    """The list's objects with the line each starts on (the json module gives no positions, so the
    list is read one element at a time)."""
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys)
    skip = re.compile(r"[\s,]*")
    position = skip.match(text, 0).end()
    if not text.startswith("[", position):
        raise FeedError([f"{path}:1: must be a JSON list of objects with the keys {', '.join(columns)}"])
    position += 1
    records = []
    while True:
        position = skip.match(text, position).end()
        if text.startswith("]", position):
            break
        line = text.count("\n", 0, position) + 1
        try:
            item, position = decoder.raw_decode(text, position)
        except DuplicateKey as error:
            raise FeedError([f"{path}:{line}: {shown(error.args[0])}: duplicate key (write each key once: the "
                                  "second would silently replace the first)"]) from None
        except (json.JSONDecodeError, RecursionError, ValueError) as error:
            # ValueError: a number of more digits than Python converts (4,300 by default)
            message = (error.msg if isinstance(error, json.JSONDecodeError) else "nested too deeply"
                       if isinstance(error, RecursionError) else "a number with too many digits")
            raise FeedError([f"{path}:{line}: not JSON ({message})"]) from None
        if not isinstance(item, dict):
            raise FeedError([f"{path}:{line}: must be an object with the keys {', '.join(columns)}"])
        records.append((line, item))
        if len(records) > MAX_ROWS:
            raise FeedError([f"{path}: more than {MAX_ROWS:,} rows"])
    if text[position + 1:].strip():
        raise FeedError([f"{path}:{text.count(chr(10), 0, position) + 1}: text after the list"])
    return records


def checked_row(line: int, record: dict, path: Path, checks: dict[str, Callable[[Any], Any]], gpus: dict,
                today: dt.date, optional: tuple[str, ...] = (), cell: Callable[[str, Any], Any] = lambda column, raw: raw,
                ) -> tuple[dict[str, Any], list[str]]:
    """A row's values, each passing its check (`cell` first turns a CSV cell into the value JSON would
    give), and one line per problem: an unknown column, a value missing (but the `optional`) or
    wrong, a GPU not in gpus.yaml, a date after today."""
    problems = [f"{path}:{line}: {shown(key)}: unknown column (expected: {', '.join(checks)})"
                for key in record if key not in checks]
    values: dict[str, Any] = {}
    for column, check in checks.items():
        raw = record.get(column)
        raw = cell(column, raw.strip() if isinstance(raw, str) else raw)
        if raw is None or raw == "":
            if column not in optional:
                problems.append(f"{path}:{line}: {column}: missing")
            continue
        try:
            values[column] = check(raw)
        except ValueError as error:
            problems.append(f"{path}:{line}: {column}: {error}")
    if "gpu" in values and values["gpu"] not in gpus:
        problems.append(f"{path}:{line}: gpu: no GPU {shown(values['gpu'])} in gpus.yaml (slugs: {', '.join(gpus)})")
    if "date" in values and dt.date.fromisoformat(values["date"]) > today:
        problems.append(f"{path}:{line}: date: {values['date']} is in the future (today is {today.isoformat()})")
    return values, problems


def report(error: FeedError, feed: Path, one_line: Callable[[str], str]) -> int:
    """The feed's problems on stderr, one line each, then their count: exit code 2."""
    for problem in error.problems:
        print(one_line(problem), file=sys.stderr)
    count = len(error.problems)
    print(f"{count} problem{'s' if count != 1 else ''} in {feed}; nothing written.", file=sys.stderr)
    return 2
