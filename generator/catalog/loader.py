"""Load content/ into typed records; reject bad input with one line per problem.

This is the only module that reads content/. Every problem found is reported at once, as
`path:line: field: what is wrong (what is expected)`, and no record is returned when any exists.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Callable

from generator.catalog.fields import GPU_FIELDS, INVENTORY_FIELDS, PRICE_EXTRA_KEYS, PRICE_EXTRA_KEYS_SAID, SITE_FIELDS, STOCK_FIELDS
from generator.catalog.model_reader import read_model
from generator.catalog.price_age import STALE_AFTER_DAYS, price_age_days, price_is_stale
from generator.catalog.records import TENSOR_KINDS, Catalog, Gpu, Inventory, Model, Site, StockOffer
from generator.catalog.schema import Problems, read_record
from generator.catalog.parsed_files import ParsedFiles
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
        gpus.append(
            Gpu(
                slug=values["slug"],
                name=values["name"],
                vendor=values["vendor"],
                memory_bytes=int(values["memory_gb"] * 10**9),
                reported_memory_bytes=_gib(values.get("reported_memory_gib")),
                gpu_memory_share=values.get("gpu_memory_share"),
                compute_capability=values.get("compute_capability"),
                machine_shapes=values["shapes"],
                memory_type=values.get("memory_type"),
                bandwidth_bytes_per_second=_gb(values.get("bandwidth_gb_s")),
                interconnect=values.get("interconnect"),
                tensor_flops=MappingProxyType({kind: int(values[f"tensor_tflops_{kind}"] * 10**12) for kind in TENSOR_KINDS
                                               if f"tensor_tflops_{kind}" in values}),
                peer_link=values.get("peer_link"),
                peer_bandwidth_bytes_per_second=_gb(values.get("peer_gb_s")),
                price_per_gpu_hour=values.get("price_per_gpu_hour"),
                price_provider=price_info.get("provider"),
                price_date=price_info.get("date"),
                sources=MappingProxyType(sources),
            )
        )
    return gpus


def _gb(value: Decimal | None) -> int | None:
    return None if value is None else int(value * 10**9)


def _gib(value: Decimal | None) -> int | None:
    return None if value is None else int(value * 2**30)


def _price_info(file: YamlFile, entry: dict, values: dict, prefix: str, problems: Problems) -> dict | None:
    """The price's provider and date, checked; None after adding a problem."""
    raw = entry["price_per_gpu_hour"] if "price_per_gpu_hour" in values else {}
    info = {}
    for key, check in PRICE_EXTRA_KEYS.items():
        if raw.get(key) is None:
            if "price_per_gpu_hour" in values:  # every price on a page shows who asked it and when
                where = f"{prefix}price_per_gpu_hour.{key}"
                problems.add(file, where, where, f"required with a price (the {PRICE_EXTRA_KEYS_SAID[key]})")
                return None
            continue
        try:
            info[key] = check(raw[key])
        except ValueError as error:
            where = f"{prefix}price_per_gpu_hour.{key}"
            problems.add(file, where, where, str(error))
            return None
    return info


INVENTORY_FILE = "inventory.yaml"


def _inventory(file: YamlFile, gpu_slugs: set[str], problems: Problems) -> Inventory | None:
    """The operator's stock: every offer checked, a GPU of gpus.yaml listed once."""
    record = read_record(file, file.data, "", INVENTORY_FIELDS, problems)
    if record is None:
        return None
    values, _ = record
    offers, seen = [], set()
    for index, entry in enumerate(values["offers"]):
        prefix = f"offers.{index}."
        stock = read_record(file, entry, prefix, STOCK_FIELDS, problems)
        if stock is None:
            continue
        offer, _ = stock
        if offer["gpu"] not in gpu_slugs:
            problems.add(file, f"{prefix}gpu", f"{prefix}gpu", f"no GPU '{offer['gpu']}' in gpus.yaml")
            continue
        if offer["gpu"] in seen:
            problems.add(file, f"{prefix}gpu", f"{prefix}gpu", f"'{offer['gpu']}' is listed twice (one entry per GPU type)")
            continue
        seen.add(offer["gpu"])
        offers.append(StockOffer(gpu=offer["gpu"], machines=offer["machines"], multi_node=offer["multi_node"],
                                 price_per_gpu_hour=offer.get("price_per_gpu_hour"), date=offer["date"],
                                 source=offer["source"]))
    return Inventory(sample=values["sample"], offers=tuple(offers))


def _site(file: YamlFile, problems: Problems) -> Site | None:
    record = read_record(file, file.data, "", SITE_FIELDS, problems)
    if record is None:
        return None
    values, _ = record
    return Site(**values)


def _read(path: Path, problems: Problems, root: Path, parsed: ParsedFiles | None = None) -> YamlFile | None:
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
        file = read_yaml(path, display, parsed)
    except YamlSyntaxError as error:
        problems.lines.append(str(error))
        return None
    for key, _ in file.duplicate_keys:  # YAML keeps the last of two equal keys: the first would vanish unseen
        problems.add(file, key, key, "duplicate key (write each key once: the second would silently replace the first)")
    return None if file.duplicate_keys else file


def load_catalog(content_dir: Path, model_rules: Callable[[Model], list[tuple[str, str]]] | None = None,
                 parsed: ParsedFiles | None = None) -> Catalog:
    """Read site.yaml, gpus.yaml and models/*.yaml; raise CatalogError listing every problem.
    `model_rules`: (field, problem) for what a read model contradicts beyond its fields (the CLI
    passes sizing.catalog_rules.model_problems); `parsed`: the files' YAML as earlier runs read
    it, by their bytes (parsed_files.py)."""
    content_dir = Path(content_dir).absolute()
    problems = Problems()
    site_file = _read(content_dir / "site.yaml", problems, content_dir, parsed)
    site = _site(site_file, problems) if site_file else None
    gpus = _read_gpus(content_dir / "gpus.yaml", problems, content_dir, parsed)
    if site is not None and site_file is not None:
        for gpu in gpus:
            if gpu.price_date is not None and gpu.price_date > site.prices_date:  # ISO dates order as text
                problems.add(site_file, "prices_date", "prices_date",
                             f"{site.prices_date} is before {gpu.slug}'s price ({gpu.price_date}); it is the day the "
                             "prices were read, from which their age is counted: set it to that day")
                break

    inventory_path = content_dir / INVENTORY_FILE
    inventory_file = _read(inventory_path, problems, content_dir, parsed) if inventory_path.exists() or inventory_path.is_symlink() else None
    inventory = _inventory(inventory_file, {gpu.slug for gpu in gpus}, problems) if inventory_file else None

    model_paths = sorted((content_dir / "models").glob("*.yaml"))
    if not model_paths:
        problems.lines.append(f"{(content_dir / 'models').as_posix()}:1: (folder): no models/*.yaml files")
    models: list[Model] = []
    seen_ids: dict[str, str] = {}
    for path in model_paths:
        file = _read(path, problems, content_dir, parsed)
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
    dated = tuple(replace(gpu, price_stale=price_is_stale(gpu.price_date, site.prices_date)) for gpu in gpus)
    if inventory is not None:
        inventory = replace(inventory, offers=tuple(replace(offer, stale=price_is_stale(offer.date, site.prices_date))
                                                    for offer in inventory.offers))
    return Catalog(site=site, gpus=dated, models=tuple(models), inventory=inventory)


def stale_price_lines(content_dir: Path, today: dt.date, brand: str) -> list[str]:
    """One line per price read more than STALE_AFTER_DAYS days before `today`, where gpus.yaml has
    it: what `check` says beside a clean catalog (a stale price is shown, marked, not refused)."""
    problems = Problems()
    content_dir = Path(content_dir).absolute()
    file = _read(content_dir / "gpus.yaml", problems, content_dir)
    for index, gpu in enumerate(_gpus(file, problems) if file else []):
        if price_is_stale(gpu.price_date, today):
            where = f"gpus.{index}.price_per_gpu_hour.date"
            how = "by hand: the operator's own" if gpu.price_provider == brand else "(prices import)"
            problems.add(file, where, where, f"stale: {gpu.slug}'s price was read {price_age_days(gpu.price_date, today)} days "
                         f"ago ({gpu.price_date}; stale after {STALE_AFTER_DAYS}): refresh it {how}")
    return problems.lines


def stale_stock_lines(content_dir: Path, today: dt.date) -> list[str]:
    """One line per inventory.yaml offer read more than STALE_AFTER_DAYS days before `today`."""
    problems = Problems()
    content_dir = Path(content_dir).absolute()
    path = content_dir / INVENTORY_FILE
    file = _read(path, problems, content_dir) if path.exists() else None
    offers = file.data.get("offers") if file is not None and isinstance(file.data, dict) else None
    for index, entry in enumerate(offers if isinstance(offers, list) else []):
        date = entry.get("date") if isinstance(entry, dict) else None
        if date is not None and price_is_stale(str(date), today):
            where = f"offers.{index}.date"
            problems.add(file, where, where, f"stale: the stock of {entry.get('gpu')} was read "
                         f"{price_age_days(str(date), today)} days ago ({date}; stale after {STALE_AFTER_DAYS}): "
                         "refresh it (inventory import)")
    return problems.lines


def load_inventory(path: Path, gpus: tuple[Gpu, ...]) -> Inventory:
    """Read one inventory file on its own, against the catalog's GPUs (`inventory import` checks
    what it writes); raise CatalogError."""
    problems = Problems()
    path = Path(path).absolute()
    file = _read(path, problems, path.parent)
    inventory = _inventory(file, {gpu.slug for gpu in gpus}, problems) if file else None
    if problems.lines or inventory is None:
        raise CatalogError(problems.lines or [f"{path}: no inventory"])
    return inventory


def load_gpus(path: Path) -> tuple[Gpu, ...]:
    """Read one GPU file on its own (`prices import` checks its rewrite); raise CatalogError."""
    problems = Problems()
    path = Path(path).absolute()
    gpus = _read_gpus(path, problems, path.parent)
    if problems.lines:
        raise CatalogError(problems.lines)
    return tuple(gpus)


def _read_gpus(path: Path, problems: Problems, root: Path, parsed: ParsedFiles | None = None) -> list[Gpu]:
    file = _read(path, problems, root, parsed)
    gpus = _gpus(file, problems) if file else []
    _check_unique(file, [(g.slug, i) for i, g in enumerate(gpus)], "gpus.{}.slug", "GPU slug", problems)
    return gpus


def _check_unique(file, keyed, path_pattern, what, problems):
    seen: set[str] = set()
    for key, index in keyed:
        if key in seen:
            problems.add(file, path_pattern.format(index), path_pattern.format(index), f"duplicate {what} '{key}'")
        seen.add(key)
