"""`inventory import`: the operator's own stock from its CSV or JSON feed, checked row by row, then
written whole into inventory.yaml (the market's prices stay in gpus.yaml).

A feed has one row per GPU type in stock, with the columns
- gpu: a slug of gpus.yaml;
- machines: the GPUs per machine of each shape in stock, ascending (`1 2 4 8` in a CSV cell,
  `[1, 2, 4, 8]` in JSON);
- multi_node: whether several machines can be joined into one setup (true or false);
- price_per_gpu_hour: the operator's price in site.yaml's currency (empty or null: on request);
- date: the day the row was read, YYYY-MM-DD, not after today;
- source: where it was read (the feed's URL or name).
A GPU type the feed leaves out is not in stock. Every row is checked before anything is written;
any problem is one line naming the feed's line, and nothing is written.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from generator.catalog.bounded_read import FileRefused, read_regular_file
from generator.catalog.feed_rows import FeedError, checked_row, csv_records, json_records
from generator.catalog.fields import DATE, PRICE
from generator.catalog.records import Gpu, StockOffer
from generator.catalog.schema import boolean, gpu_slug, machine_shapes, note_text

COLUMNS = ("gpu", "machines", "multi_node", "price_per_gpu_hour", "date", "source")
FEED_MAX_BYTES = 4 * 2**20  # one row per GPU type: a few kilobytes in practice
YES, NO = ("true", "yes", "1"), ("false", "no", "0")


@dataclass(frozen=True)
class StockRow:
    line: int  # in the feed
    offer: StockOffer


def _cell(column: str, raw: Any) -> Any:
    """A CSV cell (text) as the value JSON would give: the shapes a list, the flag a boolean."""
    if not isinstance(raw, str) or not raw:
        return raw
    if column == "machines":
        return [int(part) if part.isdigit() else part for part in raw.replace(",", " ").split()]
    if column == "multi_node":
        lowered = raw.lower()
        return True if lowered in YES else False if lowered in NO else raw
    return raw


CHECKS = {"gpu": gpu_slug, "machines": machine_shapes, "multi_node": boolean, "price_per_gpu_hour": PRICE,
          "date": DATE, "source": note_text}


def _row(line: int, record: dict, path: Path, gpus: dict[str, Gpu], today: dt.date) -> tuple[StockRow | None, list[str]]:
    values, problems = checked_row(line, record, path, CHECKS, gpus, today, ("price_per_gpu_hour",), _cell)
    if problems:
        return None, problems
    offer = StockOffer(gpu=values["gpu"], machines=values["machines"], multi_node=values["multi_node"],
                       price_per_gpu_hour=values.get("price_per_gpu_hour"), date=values["date"], source=values["source"])
    return StockRow(line, offer), []


def read_inventory_feed(path: Path, gpus: tuple[Gpu, ...], today: dt.date) -> list[StockOffer]:
    """Every row of the feed, checked; FeedError with one line per problem."""
    try:
        text = read_regular_file(path, FEED_MAX_BYTES, "the most an inventory feed may hold").decode("utf-8-sig")
    except (OSError, FileRefused) as error:
        raise FeedError([f"{path}: cannot read it ({getattr(error, 'strerror', None) or error})"]) from None
    except UnicodeDecodeError:
        raise FeedError([f"{path}: not UTF-8 text"]) from None
    records = json_records(text, path, COLUMNS) if path.suffix.lower() == ".json" else csv_records(text, path, COLUMNS)
    slugs = {gpu.slug: gpu for gpu in gpus}  # in gpus.yaml's order, as an error lists them
    rows, problems, first_line = [], [], {}
    for line, record in records:
        row, found = _row(line, record, path, slugs, today)
        problems += found
        if row is None:
            continue
        if row.offer.gpu in first_line:
            problems.append(f"{path}:{line}: gpu: {row.offer.gpu} is listed twice (also line {first_line[row.offer.gpu]}; "
                            "one row per GPU type)")
            continue
        first_line[row.offer.gpu] = line
        rows.append(row)
    if problems:
        raise FeedError(problems)
    if not rows:
        raise FeedError([f"{path}: no stock rows (a platform with nothing in stock has no inventory to publish)"])
    return [row.offer for row in rows]


HEADER = """\
# The operator's own platform: what is in stock now, at its prices, as `inventory import` read it
# from the operator's feed (the market's prices are in gpus.yaml). One entry per GPU type: the GPUs
# per machine of each shape in stock, whether machines can be joined into one setup (multi_node),
# the price per GPU-hour (none: on request), the day it was read and where.
"""


def _price(value: Decimal) -> str:
    return format(value, "f")


def inventory_yaml(offers: list[StockOffer], sample: bool = False) -> str:
    """The inventory.yaml text of `offers` (strings JSON-quoted, which YAML reads as they are)."""
    lines = [HEADER.rstrip("\n"), f"sample: {'true' if sample else 'false'}", "offers:"]
    for offer in offers:
        lines += [f"  - gpu: {offer.gpu}", f"    machines: [{', '.join(map(str, offer.machines))}]",
                  f"    multi_node: {'true' if offer.multi_node else 'false'}"]
        if offer.price_per_gpu_hour is not None:
            lines.append(f"    price_per_gpu_hour: {_price(offer.price_per_gpu_hour)}")
        lines += [f"    date: {offer.date}", f"    source: {json.dumps(offer.source, ensure_ascii=False)}"]
    return "\n".join(lines) + "\n"
