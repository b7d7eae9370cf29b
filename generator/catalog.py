"""Load content/ into typed records; reject bad input with one line per problem.

This is the only module that reads content/. Every problem found is reported at once, as
`path:line: field: what is wrong (what is expected)`, and no record is returned when any exists.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable
from urllib.parse import urlsplit

from generator.records import Catalog, Gpu, Model, Site, Source
from generator.paths import slugify
from generator.yamlfile import YamlFile, YamlSyntaxError, read_yaml


class CatalogError(Exception):
    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


# ---- value checkers: return the converted value or raise ValueError("what is wrong (expected)")


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be non-empty text")
    if any(ord(ch) < 32 for ch in value):
        raise ValueError("must be a single line of text (no control characters)")
    return value.strip()


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"must be a positive integer (got {value!r})")
    if value <= 0:
        raise ValueError(f"must be a positive integer (got {value})")
    return value


def _positive_decimal(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"must be a positive number (got {value!r})")
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"must be a positive number (got {value!r})") from None
    if not number.is_finite() or number <= 0:
        raise ValueError(f"must be a positive number (got {value!r})")
    return number


def _iso_date(value: Any) -> str:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise ValueError(f"must be a date YYYY-MM-DD (got {value!r})")


def _https_url(value: Any) -> str:
    text = _text(value)
    parts = urlsplit(text)
    if parts.scheme != "https" or not parts.netloc or any(ch in text for ch in " <>\"'`"):
        raise ValueError(f"must be an https:// URL (got {text!r})")
    return text


def _base_url(value: Any) -> str:
    url = _https_url(value)
    if not url.endswith("/"):
        raise ValueError(f"must end with '/' (got {url!r})")
    return url


def _console_url(value: Any) -> str:
    text = _text(value)
    if "{id}" not in text or any(ch in text for ch in " <>\"'`"):
        raise ValueError("must be a URL pattern containing {id}")
    return text


_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")


def _repo_id(value: Any) -> str:
    text = _text(value)
    if not _REPO_ID.fullmatch(text) or ".." in text:
        raise ValueError(f"must be a Hugging Face repo id like org/Name (got {text!r})")
    return text


def _gpu_slug(value: Any) -> str:
    text = _text(value)
    if slugify(text) != text:
        raise ValueError(f"must be lowercase letters, digits and '-' (got {text!r})")
    return text


def _machine_shapes(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("must be a list of GPU counts per machine, like [1, 2, 4, 8]")
    shapes = tuple(_positive_int(item) for item in value)
    if list(shapes) != sorted(set(shapes)) or shapes[-1] > 8:
        raise ValueError(f"must be distinct counts from 1 to 8 in ascending order (got {value})")
    return shapes


def _languages(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError("must be a list of language codes, like [pt, en]")
    codes = tuple(_text(item) for item in value)
    if len(set(codes)) != len(codes) or not all(re.fullmatch(r"[a-z]{2}", c) for c in codes):
        raise ValueError(f"must be distinct two-letter codes (got {value})")
    return codes


def _currency(value: Any) -> str:
    text = _text(value)
    if text != "USD":
        raise ValueError(f"must be USD, the currency of the prices in gpus.yaml (got {text!r})")
    return text


# ---- record schemas


@dataclass(frozen=True)
class Field:
    check: Callable[[Any], Any]
    required: bool = False
    sourced: bool = False  # written as {value: ..., source: ..., note: ...}


MODEL_FIELDS = {
    "id": Field(_repo_id, required=True),
    "name": Field(_text, required=True),
    "weights": Field(_https_url, required=True),
    "params": Field(_positive_int, required=True, sourced=True),
    "active_params": Field(_positive_int, sourced=True),
    "experts": Field(_positive_int, sourced=True),
    "experts_per_token": Field(_positive_int, sourced=True),
    "context_window": Field(_positive_int, sourced=True),
    "precision": Field(_text, sourced=True),
    "license": Field(_text, sourced=True),
    "release_date": Field(_iso_date, sourced=True),
}

GPU_FIELDS = {
    "slug": Field(_gpu_slug, required=True),
    "name": Field(_text, required=True),
    "vendor": Field(_text, required=True),
    "memory_gb": Field(_positive_decimal, required=True, sourced=True),
    "memory_type": Field(_text, sourced=True),
    "bandwidth_gb_s": Field(_positive_decimal, sourced=True),
    "interconnect": Field(_text, sourced=True),
    "shapes": Field(_machine_shapes, required=True, sourced=True),
    "price_per_gpu_hour": Field(_positive_decimal, sourced=True),
}
PRICE_EXTRA_KEYS = ("provider", "date")

SITE_FIELDS = {
    "brand": Field(_text, required=True),
    "base_url": Field(_base_url, required=True),
    "console_url": Field(_console_url, required=True),
    "languages": Field(_languages, required=True),
    "currency": Field(_currency, required=True),
    "prices_date": Field(_iso_date, required=True),
}


class _Problems:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, file: YamlFile, key_path: str, field: str, message: str) -> None:
        self.lines.append(f"{file.path}:{file.line(key_path)}: {field}: {message}")


def _read_record(
    file: YamlFile,
    data: Any,
    prefix: str,
    fields: dict[str, Field],
    problems: _Problems,
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
            raw = _unwrap_sourced(file, where, raw, extra, problems, sources, name)
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


def _unwrap_sourced(file, where, raw, extra_keys, problems, sources, name):
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
        citation = _text(raw.get("source"))
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


def _model(file: YamlFile, stem: str, problems: _Problems) -> Model | None:
    record = _read_record(file, file.data, "", MODEL_FIELDS, problems)
    if record is None:
        return None
    values, sources = record
    slug = slugify(values["name"])
    checks = [
        (not slug, "name", "must contain letters or digits (the page's slug is made from it)"),
        (slug and slug != stem, "name", f"gives slug '{slug}', so the file must be named {slug}.yaml"),
        (
            values.get("active_params", 0) > values["params"],
            "active_params",
            f"must not exceed params ({values.get('active_params')} > {values['params']})",
        ),
        (
            values.get("experts_per_token", 0) > values.get("experts", float("inf")),
            "experts_per_token",
            "must not exceed experts",
        ),
        (
            ("experts" in values) != ("experts_per_token" in values),
            "experts",
            "experts and experts_per_token go together (mixture-of-experts models give both)",
        ),
    ]
    failed = False
    for bad, field, message in checks:
        if bad:
            problems.add(file, field, field, message)
            failed = True
    if failed:
        return None
    return Model(
        id=values["id"],
        name=values["name"],
        slug=slug,
        weights_url=values["weights"],
        params=values["params"],
        active_params=values.get("active_params"),
        experts=values.get("experts"),
        experts_per_token=values.get("experts_per_token"),
        context_window=values.get("context_window"),
        precision=values.get("precision"),
        license=values.get("license"),
        release_date=values.get("release_date"),
        sources=MappingProxyType(sources),
    )


def _gpus(file: YamlFile, problems: _Problems) -> list[Gpu]:
    entries = file.data.get("gpus") if isinstance(file.data, dict) else None
    if not isinstance(entries, list) or not entries:
        problems.add(file, "gpus", "gpus", "must be a non-empty list of GPUs")
        return []
    gpus = []
    for index, entry in enumerate(entries):
        prefix = f"gpus.{index}."
        extra = {"price_per_gpu_hour": PRICE_EXTRA_KEYS}
        record = _read_record(file, entry, prefix, GPU_FIELDS, problems, extra)
        if record is None:
            continue
        values, sources = record
        price_info = entry["price_per_gpu_hour"] if "price_per_gpu_hour" in values else {}
        price_date = None
        if "date" in price_info:
            try:
                price_date = _iso_date(price_info["date"])
            except ValueError as error:
                problems.add(file, f"{prefix}price_per_gpu_hour.date", f"{prefix}price_per_gpu_hour.date", str(error))
                continue
        bandwidth = values.get("bandwidth_gb_s")
        gpus.append(
            Gpu(
                slug=values["slug"],
                name=values["name"],
                vendor=values["vendor"],
                memory_bytes=int(values["memory_gb"] * 10**9),
                machine_shapes=values["shapes"],
                memory_type=values.get("memory_type"),
                bandwidth_bytes_per_second=int(bandwidth * 10**9) if bandwidth else None,
                interconnect=values.get("interconnect"),
                price_per_gpu_hour=values.get("price_per_gpu_hour"),
                price_provider=price_info.get("provider"),
                price_date=price_date,
                sources=MappingProxyType(sources),
            )
        )
    return gpus


def _site(file: YamlFile, problems: _Problems) -> Site | None:
    record = _read_record(file, file.data, "", SITE_FIELDS, problems)
    if record is None:
        return None
    values, _ = record
    return Site(**values)


def _read(path: Path, problems: _Problems) -> YamlFile | None:
    cwd = Path.cwd()
    display = (path.relative_to(cwd) if path.is_relative_to(cwd) else path).as_posix()
    if not path.is_file():
        problems.lines.append(f"{display}:1: (file): missing file")
        return None
    try:
        return read_yaml(path, display)
    except YamlSyntaxError as error:
        problems.lines.append(str(error))
        return None


def load_catalog(content_dir: Path) -> Catalog:
    """Read site.yaml, gpus.yaml and models/*.yaml; raise CatalogError listing every problem."""
    content_dir = Path(content_dir).absolute()
    problems = _Problems()
    site_file = _read(content_dir / "site.yaml", problems)
    site = _site(site_file, problems) if site_file else None
    gpus_file = _read(content_dir / "gpus.yaml", problems)
    gpus = _gpus(gpus_file, problems) if gpus_file else []
    _check_unique(gpus_file, [(g.slug, i) for i, g in enumerate(gpus)], "gpus.{}.slug", "GPU slug", problems)

    model_paths = sorted((content_dir / "models").glob("*.yaml"))
    if not model_paths:
        problems.lines.append(f"{(content_dir / 'models').as_posix()}:1: (folder): no models/*.yaml files")
    models: list[Model] = []
    seen_ids: dict[str, str] = {}
    for path in model_paths:
        file = _read(path, problems)
        if file is None:
            continue
        model = _model(file, path.stem, problems)
        if model is None:
            continue
        key = model.id.lower()
        if key in seen_ids:
            problems.add(file, "id", "id", f"duplicate id '{model.id}' (already in {seen_ids[key]})")
            continue
        seen_ids[key] = file.path
        models.append(model)

    if problems.lines:
        raise CatalogError(problems.lines)
    assert site is not None
    return Catalog(site=site, gpus=tuple(gpus), models=tuple(models))


def _check_unique(file, keyed, path_pattern, what, problems):
    seen: set[str] = set()
    for key, index in keyed:
        if key in seen:
            problems.add(file, path_pattern.format(index), path_pattern.format(index), f"duplicate {what} '{key}'")
        seen.add(key)
