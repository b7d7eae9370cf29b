"""Load content/ into typed records; reject bad input with one line per problem.

This is the only module that reads content/. Every problem found is reported at once, as
`path:line: field: what is wrong (what is expected)`, and no record is returned when any exists.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Callable

from generator.catalog.fields import GPU_FIELDS, PRICE_EXTRA_KEYS, SITE_FIELDS
from generator.catalog.model_reader import read_model
from generator.catalog.records import Catalog, Gpu, Model, Site
from generator.catalog.schema import Problems, read_record
from generator.catalog.yaml_file import YamlFile, YamlSyntaxError, read_yaml


class CatalogError(Exception):
    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def _gpus(file: YamlFile, problems: Problems) -> list[Gpu]:
    entries = file.data.get("gpus") if isinstance(file.data, dict) else None
    if not isinstance(entries, list) or not entries:
        problems.add(file, "gpus", "gpus", "must be a non-empty list of GPUs")
        return []
    gpus = []
    for index, entry in enumerate(entries):
        prefix = f"gpus.{index}."
        extra = {"price_per_gpu_hour": PRICE_EXTRA_KEYS}
        record = read_record(file, entry, prefix, GPU_FIELDS, problems, extra)
        if record is None:
            continue
        values, sources = record
        price_info = _price_info(file, entry, values, prefix, problems)
        if price_info is None:
            continue
        bandwidth = values.get("bandwidth_gb_s")
        gpus.append(
            Gpu(
                slug=values["slug"],
                name=values["name"],
                vendor=values["vendor"],
                memory_bytes=int(values["memory_gb"] * 10**9),
                reported_memory_bytes=_gib(values.get("reported_memory_gib")),
                compute_capability=values.get("compute_capability"),
                machine_shapes=values["shapes"],
                memory_type=values.get("memory_type"),
                bandwidth_bytes_per_second=int(bandwidth * 10**9) if bandwidth else None,
                interconnect=values.get("interconnect"),
                price_per_gpu_hour=values.get("price_per_gpu_hour"),
                price_provider=price_info.get("provider"),
                price_date=price_info.get("date"),
                sources=MappingProxyType(sources),
            )
        )
    return gpus


def _gib(value: Decimal | None) -> int | None:
    return None if value is None else int(value * 2**30)


def _price_info(file: YamlFile, entry: dict, values: dict, prefix: str, problems: Problems) -> dict | None:
    """The price's provider and date, checked; None after adding a problem."""
    raw = entry["price_per_gpu_hour"] if "price_per_gpu_hour" in values else {}
    info = {}
    for key, check in PRICE_EXTRA_KEYS.items():
        if raw.get(key) is None:
            continue
        try:
            info[key] = check(raw[key])
        except ValueError as error:
            where = f"{prefix}price_per_gpu_hour.{key}"
            problems.add(file, where, where, str(error))
            return None
    return info


def _site(file: YamlFile, problems: Problems) -> Site | None:
    record = read_record(file, file.data, "", SITE_FIELDS, problems)
    if record is None:
        return None
    values, _ = record
    return Site(**values)


def _read(path: Path, problems: Problems, root: Path) -> YamlFile | None:
    """`path`'s YAML, or None after adding its problem; a link to outside `root` (the content
    folder) is refused, not followed."""
    cwd = Path.cwd()
    display = (path.relative_to(cwd) if path.is_relative_to(cwd) else path).as_posix()
    if not path.exists():
        problems.lines.append(f"{display}:1: (file): missing file")
        return None
    if path.is_symlink() and not path.resolve().is_relative_to(root.resolve()):
        problems.lines.append(f"{display}:1: (file): a link to outside the content folder ({path.resolve()}); "
                              "copy the file in instead")
        return None
    try:
        file = read_yaml(path, display)
    except YamlSyntaxError as error:
        problems.lines.append(str(error))
        return None
    for key, _ in file.duplicate_keys:  # YAML keeps the last of two equal keys: the first would vanish unseen
        problems.add(file, key, key, "duplicate key (write each key once: the second would silently replace the first)")
    return None if file.duplicate_keys else file


def load_catalog(content_dir: Path, model_rules: Callable[[Model], list[tuple[str, str]]] | None = None) -> Catalog:
    """Read site.yaml, gpus.yaml and models/*.yaml; raise CatalogError listing every problem.
    `model_rules`: (field, problem) for what a read model contradicts beyond its fields (the CLI
    passes sizing.catalog_rules.model_problems)."""
    content_dir = Path(content_dir).absolute()
    problems = Problems()
    site_file = _read(content_dir / "site.yaml", problems, content_dir)
    site = _site(site_file, problems) if site_file else None
    gpus = _read_gpus(content_dir / "gpus.yaml", problems, content_dir)

    model_paths = sorted((content_dir / "models").glob("*.yaml"))
    if not model_paths:
        problems.lines.append(f"{(content_dir / 'models').as_posix()}:1: (folder): no models/*.yaml files")
    models: list[Model] = []
    seen_ids: dict[str, str] = {}
    for path in model_paths:
        file = _read(path, problems, content_dir)
        if file is None:
            continue
        model = read_model(file, path.stem, problems)
        if model is None:
            continue
        broken = model_rules(model) if model_rules else []
        for field, message in broken:
            problems.add(file, field, field, message)
        if broken:
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


def load_gpus(path: Path) -> tuple[Gpu, ...]:
    """Read one GPU file on its own (`prices import` checks its rewrite); raise CatalogError."""
    problems = Problems()
    path = Path(path).absolute()
    gpus = _read_gpus(path, problems, path.parent)
    if problems.lines:
        raise CatalogError(problems.lines)
    return tuple(gpus)


def _read_gpus(path: Path, problems: Problems, root: Path) -> list[Gpu]:
    file = _read(path, problems, root)
    gpus = _gpus(file, problems) if file else []
    _check_unique(file, [(g.slug, i) for i, g in enumerate(gpus)], "gpus.{}.slug", "GPU slug", problems)
    return gpus


def _check_unique(file, keyed, path_pattern, what, problems):
    seen: set[str] = set()
    for key, index in keyed:
        if key in seen:
            problems.add(file, path_pattern.format(index), path_pattern.format(index), f"duplicate {what} '{key}'")
        seen.add(key)
