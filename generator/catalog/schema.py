"""Checking catalog values: converters, field specs, and reading one record with every problem.

Each problem is one line, `path:line: field: what is wrong (what is expected)`.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Callable
from urllib.parse import urlsplit

from generator.catalog.slugs import slugify
from generator.catalog.records import Source
from generator.catalog.yaml_file import YamlFile


# What add-model writes where it could not determine a fact; `check` reports every one.
TODO = "TODO"


def todo_paths(data: object, path: str = "") -> list[str]:
    """Key paths (a.b.c) whose value is still TODO."""
    if data == TODO:
        return [path]
    if isinstance(data, dict):
        return [todo for key, value in data.items() for todo in todo_paths(value, f"{path}.{key}".lstrip("."))]
    return []


# Value checkers return the converted value or raise ValueError("what is wrong (expected)")


def plain_text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be non-empty text")
    if any(ord(ch) < 32 for ch in value):
        raise ValueError("must be a single line of text (no control characters)")
    return value.strip()


def positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be a positive integer (got {value!r})")
    if value <= 0:
        raise ValueError(f"must be a positive integer (got {value})")
    return value


def non_negative_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"must be an integer, 0 or more (got {value!r})")
    return value


def mapping(value: Any) -> dict:
    if not isinstance(value, dict):
        raise ValueError("must be a mapping of field: value")
    return value


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false (got {value!r})")
    return value


def one_of(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)} (got {value!r})")
        return value

    return check


def api_price(value: Any) -> dict[str, Decimal]:
    keys = ("input", "cached_input", "output")
    if not isinstance(value, dict) or not {"input", "output"} <= set(value) or not set(value) <= set(keys):
        raise ValueError("must be {input: ..., output: ...} with an optional cached_input")
    return {key: positive_decimal(number) for key, number in value.items()}


def positive_decimal(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"must be a positive number (got {value!r})")
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"must be a positive number (got {value!r})") from None
    if not number.is_finite() or number <= 0:
        raise ValueError(f"must be a positive number (got {value!r})")
    return number


def iso_date(value: Any) -> str:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise ValueError(f"must be a date YYYY-MM-DD (got {value!r})")


def https_url(value: Any) -> str:
    text = plain_text(value)
    parts = urlsplit(text)
    if parts.scheme != "https" or not parts.netloc or any(ch in text for ch in " <>\"'`"):
        raise ValueError(f"must be an https:// URL (got {text!r})")
    return text


def base_url(value: Any) -> str:
    url = https_url(value)
    if not url.endswith("/"):
        raise ValueError(f"must end with '/' (got {url!r})")
    return url


def console_url(value: Any) -> str:
    text = plain_text(value)
    if "{id}" not in text or any(ch in text for ch in " <>\"'`"):
        raise ValueError("must be a URL pattern containing {id}")
    return text


REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")


def repo_id(value: Any) -> str:
    text = plain_text(value)
    if not REPO_ID.fullmatch(text) or ".." in text:
        raise ValueError(f"must be a Hugging Face repo id like org/Name (got {text!r})")
    return text


def gpu_slug(value: Any) -> str:
    text = plain_text(value)
    if slugify(text) != text:
        raise ValueError(f"must be lowercase letters, digits and '-' (got {text!r})")
    return text


def machine_shapes(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("must be a list of GPU counts per machine, like [1, 2, 4, 8]")
    shapes = tuple(positive_int(item) for item in value)
    if list(shapes) != sorted(set(shapes)) or shapes[-1] > 8:
        raise ValueError(f"must be distinct counts from 1 to 8 in ascending order (got {value})")
    return shapes


def languages(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("must be a list of language codes, like [pt, en]")
    codes = tuple(plain_text(item) for item in value)
    if len(set(codes)) != len(codes) or not all(re.fullmatch(r"[a-z]{2}", c) for c in codes):
        raise ValueError(f"must be distinct two-letter codes (got {value})")
    return codes


def currency(value: Any) -> str:
    text = plain_text(value)
    if text != "USD":
        raise ValueError(f"must be USD, the currency of the prices in gpus.yaml (got {text!r})")
    return text


@dataclass(frozen=True)
class Field:
    check: Callable[[Any], Any]
    required: bool = False
    sourced: bool = False  # written as {value: ..., source: ..., note: ...}


class Problems:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, file: YamlFile, key_path: str, field: str, message: str) -> None:
        self.lines.append(f"{file.path}:{file.line(key_path)}: {field}: {message}")


def read_record(
    file: YamlFile,
    data: Any,
    prefix: str,
    fields: dict[str, Field],
    problems: Problems,
    extra_sourced_keys: dict[str, tuple[str, ...]] | None = None,
) -> tuple[dict[str, Any], dict[str, Source]] | None:
    """Check one mapping against `fields`; return (values, sources) or None if it had problems."""
    label = prefix.rstrip(".") or "(document)"
    if not isinstance(data, dict):
        problems.add(file, prefix.rstrip("."), label, "must be a mapping of field: value")
        return None
    before = len(problems.lines)
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    for key in data:
        if str(key) not in fields:
            hint = difflib.get_close_matches(str(key), list(fields), n=1)
            expected = f"did you mean '{hint[0]}'?" if hint else "known fields: " + ", ".join(fields)
            problems.add(file, f"{prefix}{key}", f"{prefix}{key}", f"unknown field ({expected})")
    for name, spec in fields.items():
        where = f"{prefix}{name}"
        if name not in data or data[name] is None:
            if spec.required:
                problems.add(file, prefix.rstrip("."), where, "missing required field")
            continue
        raw = data[name]
        if spec.sourced:
            extra = (extra_sourced_keys or {}).get(name, ())
            raw = unwrap_sourced(file, where, raw, extra, problems, sources, name)
            if raw is None:
                continue
        try:
            values[name] = spec.check(raw)
        except ValueError as error:
            problems.add(file, f"{where}.value" if spec.sourced else where, where, str(error))
    for key, line in file.duplicate_keys:
        if key.startswith(prefix) and key[len(prefix):] in fields:
            problems.lines.append(f"{file.path}:{line}: {key}: duplicate key")
    if len(problems.lines) > before:
        return None
    return values, sources


def unwrap_sourced(file, where, raw, extra_keys, problems, sources, name):
    if not isinstance(raw, dict):
        problems.add(file, where, where, "must be a mapping {value: ..., source: ...}")
        return None
    allowed = ("value", "source", "note", *extra_keys)
    for key in raw:
        if key not in allowed:
            hint = difflib.get_close_matches(str(key), allowed, n=1)
            expected = f"did you mean '{hint[0]}'?" if hint else "expected: " + ", ".join(allowed)
            problems.add(file, f"{where}.{key}", f"{where}.{key}", f"unknown field ({expected})")
    try:
        citation = plain_text(raw.get("source"))
    except ValueError:
        problems.add(file, where, f"{where}.source", "missing source (every fact needs one)")
        return None
    note = raw.get("note")
    if note is not None and not isinstance(note, str):
        problems.add(file, f"{where}.note", f"{where}.note", "must be text")
    if raw.get("value") is None:
        problems.add(file, where, f"{where}.value", "missing value")
        return None
    sources[name] = Source(citation, note.strip() if isinstance(note, str) else None)
    return raw["value"]


