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

from generator.languages import LANGUAGES, SOURCE_LANGUAGE
from generator.catalog.slugs import slugify
from generator.catalog.records import LocalizedText, RopeScaling, Source
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


# The text rule, for every string that reaches a page, a twin, llms.txt, the sitemap or JSON-LD:
# one line, with no character that ends a line or a Markdown block (C0 incl. NUL, DEL, C1 incl.
# U+0085, U+2028/U+2029) and no format character: those that reorder what the reader sees (bidi
# marks such as U+061C, overrides, isolates) or hide in it (U+200B, U+FEFF, tags). The class is
# every Cc, Cf, Zl and Zp character of Unicode 14 (Python 3.11's unicodedata);
# tests/test_hostile_text.py holds it to the running Python's categories.
NOT_TEXT = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
NAME_LENGTH = 200  # names, ids, vendors, providers, short facts: one cell of a table
NOTE_LENGTH = 1000  # a fact's remark or its citations (several URLs joined by " ; "): a paragraph


def single_line(value: Any, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be non-empty text")
    # printable ASCII holds none of NOT_TEXT (a thousand models' names and notes: the pattern's
    # classes read each character)
    found = None if value.isascii() and value.isprintable() else NOT_TEXT.search(value)
    if found:
        raise ValueError(
            "must be a single line of text without control, format, separator or bidi characters"
            f" (found U+{ord(found.group()):04X})"
        )
    text = value.strip()
    if len(text) > limit:
        raise ValueError(f"must be at most {limit} characters (got {len(text)})")
    return text


def plain_text(value: Any) -> str:
    return single_line(value, NAME_LENGTH)


def note_text(value: Any) -> str:
    return single_line(value, NOTE_LENGTH)




def localized(check: Callable[[Any], str]) -> Callable[[Any], LocalizedText]:
    """Text pages show, in English (`text`) or in several languages (`{en: text, pt: texto}`);
    each text passes `check`."""

    def read(value: Any) -> LocalizedText:
        if not isinstance(value, dict):
            return LocalizedText(check(value))
        codes = [str(code) for code in value]
        if SOURCE_LANGUAGE not in codes or not set(codes) <= set(LANGUAGES):
            raise ValueError(f"must be text, or a mapping of languages ({', '.join(sorted(LANGUAGES))}) to text"
                             f" with '{SOURCE_LANGUAGE}' (got {shown(codes)})")
        texts = {}
        for code, text in value.items():
            try:
                texts[code] = check(text)
            except ValueError as error:
                raise ValueError(f"{code}: {error}") from None
        english = texts.pop(SOURCE_LANGUAGE)
        return LocalizedText(english, tuple(sorted(texts.items())))

    return read


def shown(value: Any) -> str:
    """`value` for a problem line; a number too long to print (a 5,000-digit integer) is summarized."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return "a number of more than 30 digits"
    if isinstance(value, dt.date):
        return value.isoformat()
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def power(number: int | Decimal) -> str:
    """A bound as people read it: 10^15 rather than 1000000000000000."""
    text = f"{Decimal(number).normalize():f}"
    return f"10^{len(text) - 1}" if re.fullmatch("10{6,}", text) else text


def whole_number(low: int, high: int) -> Callable[[Any], int]:
    """An integer from `low` to `high` (the bound says why in fields.py)."""

    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"must be an integer from {low} to {power(high)} (got {shown(value)})")
        return value

    return check


def decimal_number(low: Decimal, high: Decimal) -> Callable[[Any], Decimal]:
    """A number from `low` to `high`, exact (YAML floats are read through their text)."""

    def check(value: Any) -> Decimal:
        expected = f"must be a number from {power(low)} to {power(high)} (got {shown(value)})"
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError(expected)
        if isinstance(value, int) and abs(value) >= 10**30:
            raise ValueError(expected)
        try:
            number = Decimal(str(value).strip())
        except InvalidOperation:
            raise ValueError(expected) from None
        if not number.is_finite() or not low <= number <= high:
            raise ValueError(expected)
        return number

    return check


def mapping(value: Any) -> dict:
    if not isinstance(value, dict):
        raise ValueError("must be a mapping of field: value")
    return value


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false (got {shown(value)})")
    return value


def one_of(*choices: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)} (got {shown(value)})")
        return value

    return check


def one_of_numbers(*choices: int) -> Callable[[Any], int]:
    """One of a few integers (booleans refused)."""

    def check(value: Any) -> int:
        if isinstance(value, bool) or value not in choices:
            raise ValueError(f"must be one of {', '.join(map(str, choices))} (got {shown(value)})")
        return value

    return check


def mappings(limit: int) -> Callable[[Any], list]:
    """A list of 1 to `limit` mappings (each checked by its reader)."""

    def check(value: Any) -> list:
        if not isinstance(value, list) or not 1 <= len(value) <= limit or not all(isinstance(v, dict) for v in value):
            raise ValueError(f"must be a list of 1 to {limit} mappings of field: value")
        return value

    return check


def value_list(item: Callable[[Any], Any], limit: int, what: str) -> Callable[[Any], tuple]:
    """A list of 1 to `limit` values, each passing `item` (`what` names them in the error)."""

    def check(value: Any) -> tuple:
        if not isinstance(value, list) or not 1 <= len(value) <= limit:
            raise ValueError(f"must be a list of 1 to {limit} {what}")
        return tuple(item(entry) for entry in value)

    return check


def distinct_list(item: Callable[[Any], Any], limit: int, what: str) -> Callable[[Any], tuple]:
    """A list of 1 to `limit` distinct values, each passing `item` (`what` names them in the error)."""

    values = value_list(item, limit, what)

    def check(value: Any) -> tuple:
        items = values(value)
        if len(set(items)) != len(items):
            raise ValueError(f"must list each of the {what} once (got {shown(value)})")
        return items

    return check


def api_price(price: Callable[[Any], Decimal], date: Callable[[Any], str]) -> Callable[[Any], dict[str, Any]]:
    """{input, output} per million tokens, an optional cached_input, and the day the price was read."""
    keys = ("input", "cached_input", "output", "date")

    def check(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict) or not {"input", "output"} <= set(value) or not set(value) <= set(keys):
            raise ValueError("must be {input: ..., output: ...} with an optional cached_input and date")
        return {key: date(number) if key == "date" else price(number) for key, number in value.items()}

    return check


def rope_scaling(context: Callable[[Any], int], factor: Callable[[Any], Decimal],
                 theta: Callable[[Any], Decimal]) -> Callable[[Any], RopeScaling]:
    keys = ("native_context", "rope_type", "factor", "original_max_position_embeddings", "rope_theta")

    def check(value: Any) -> RopeScaling:
        if not isinstance(value, dict) or set(value) != set(keys):
            raise ValueError(f"must be {{{', '.join(f'{key}: ...' for key in keys)}}}")
        if value["rope_type"] != "yarn":
            raise ValueError(f"rope_type: must be yarn (got {shown(value['rope_type'])})")
        return RopeScaling(context(value["native_context"]), "yarn", factor(value["factor"]),
                           context(value["original_max_position_embeddings"]), theta(value["rope_theta"]))

    return check


def iso_date(first_year: int, last_year: int) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        date = value if isinstance(value, dt.date) and not isinstance(value, dt.datetime) else None
        if isinstance(value, str):
            try:
                date = dt.date.fromisoformat(value)
            except ValueError:
                pass
        if date is None or not first_year <= date.year <= last_year:
            raise ValueError(f"must be a date YYYY-MM-DD from {first_year} to {last_year} (got {shown(value)})")
        return date.isoformat()

    return check


URL_BREAKERS = " <>\"'`\\"  # end a URL early in Markdown or HTML (spaces, quotes, < >, backslashes)


def https_url(value: Any) -> str:
    text = plain_text(value)
    try:
        parts = urlsplit(text)
    except ValueError:  # a malformed [IPv6] host
        parts = urlsplit("")
    if parts.scheme != "https" or not parts.netloc or any(ch in text for ch in URL_BREAKERS):
        raise ValueError(f"must be an https:// URL without spaces, quotes, <, > or backslashes (got {text!r})")
    return text


def link_target(value: Any) -> str:
    """An https:// URL, or a path on the site's own host (root-relative: /console/...)."""
    text = plain_text(value)
    if text.startswith("/") and not text.startswith("//") and not any(ch in text for ch in URL_BREAKERS):
        return text
    try:
        return https_url(text)
    except ValueError:
        raise ValueError(
            "must be an https:// URL or a root-relative path like /console/,"
            f" without spaces, quotes, <, > or backslashes (got {text!r})"
        ) from None


def _site_root(text: str, scheme: str) -> str:
    """A site's root URL: `scheme`, a host, a path ending in '/', and no credentials, query or
    fragment (they would reach every canonical link, the sitemap, robots.txt and llms.txt)."""
    try:
        parts = urlsplit(text)
        hostname = parts.hostname
        parts.port  # a port that is not a number raises here
    except ValueError:
        hostname = None
    if parts.scheme != scheme or not hostname or any(ch in text for ch in URL_BREAKERS):
        raise ValueError(f"must be an {scheme}:// URL without spaces, quotes, <, > or backslashes (got {text!r})")
    if "@" in parts.netloc:
        raise ValueError(f"must not hold a user name or password (got {text!r})")
    if parts.query or parts.fragment or "?" in text or "#" in text:
        raise ValueError(f"must have no query (?) or fragment (#) (got {text!r})")
    if not parts.path.endswith("/"):
        raise ValueError(f"must end with '/' (got {text!r})")
    return text


def base_url(value: Any) -> str:
    return _site_root(https_url(value), "https")


# Hosts that are this machine: a preview on them may be served over http.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def preview_base_url(value: Any) -> str:
    """--base-url: site.yaml's rule, except that a preview on this machine may be served over http
    (the host decided on the parsed URL: http://localhost:80@evil.example/ is evil.example's)."""
    text = plain_text(value)
    try:
        local = urlsplit(text).scheme == "http" and urlsplit(text).hostname in LOCAL_HOSTS
    except ValueError:
        local = False
    return _site_root(text, "http") if local else base_url(text)


def console_url(value: Any) -> str:
    text = link_target(value)
    if "{id}" not in text:
        raise ValueError(f"must be a URL pattern containing {{id}} (got {text!r})")
    return text


REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")
LAYER_PATTERN = re.compile(r"[M*\-E]{1,1000}")


def layer_pattern(value: Any) -> str:
    """One letter per layer, as NemotronH's hybrid_override_pattern: M Mamba2, * attention, - MLP, E MoE."""
    if not isinstance(value, str) or not LAYER_PATTERN.fullmatch(value):
        raise ValueError(f"must be 1 to 1,000 letters among M, *, - and E, one per layer (got {shown(value)[:60]})")
    return value


MODEL_CLASS = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def model_class(value: Any) -> str:
    """A config.json `architectures` entry: a Python class name (Qwen3ForCausalLM)."""
    if not isinstance(value, str) or not MODEL_CLASS.fullmatch(value):
        raise ValueError(f"must be a model class name like Qwen3ForCausalLM (got {shown(value)[:60]})")
    return value


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
    shapes = tuple(whole_number(1, 8)(item) for item in value)
    if list(shapes) != sorted(set(shapes)):
        raise ValueError(f"must be distinct counts from 1 to 8 in ascending order (got {shown(list(shapes))})")
    return shapes


def languages(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("must be a list of language codes, like [pt, en]")
    codes = tuple(plain_text(item) for item in value)
    if len(set(codes)) != len(codes) or not all(re.fullmatch(r"[a-z]{2}", c) for c in codes):
        raise ValueError(f"must be distinct two-letter codes (got {shown(value)})")
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
        self.lines.append(f"{file.path}:{file.line(key_path)}: {field_label(field)}: {message}")


def field_label(field: str) -> str:
    """A field's path for a problem line: one line even when a key holds a newline or is huge."""
    if NOT_TEXT.search(field) or len(field) > NAME_LENGTH:
        return repr(field)[:NAME_LENGTH]
    return field


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
    if raw.get("source") is None:
        problems.add(file, where, f"{where}.source", "missing source (every fact needs one)")
        return None
    texts = {}
    for key, check in (("source", note_text), ("note", localized(note_text))):
        try:
            texts[key] = None if raw.get(key) is None else check(raw[key])
        except ValueError as error:
            problems.add(file, f"{where}.{key}", f"{where}.{key}", str(error))
            return None
    if raw.get("value") is None:
        problems.add(file, where, f"{where}.value", "missing value")
        return None
    sources[name] = Source(texts["source"], texts["note"])
    return raw["value"]


