"""`prices import`: GPU prices from a CSV or JSON feed, checked row by row, then written into
gpus.yaml in place (comments, order and every other line kept).

A feed has the columns gpu, price_per_gpu_hour, provider, date and source: a CSV with that header,
or a JSON list of objects with those keys. Every row is checked (a GPU of the catalog, a price in
the catalog's bounds, an ISO date not after today, one-line text, a source) before anything is
written; any problem is one line naming the feed's line, and nothing is written.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from generator.catalog.bounded_read import FileRefused, read_regular_file
from generator.catalog.feed_rows import DuplicateKey, FeedError, checked_row, csv_records, json_records
from generator.catalog.fields import DATE, PRICE
from generator.catalog.price_offers import DUPLICATE_KEY, FEED_HOME, OfferFeedError, cheapest_offers, is_offer_snapshot, provider_name
from generator.catalog.records import Gpu
from generator.catalog.schema import note_text, plain_text, shown

COLUMNS = ("gpu", "price_per_gpu_hour", "provider", "date", "source")
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
FEED_MAX_BYTES = 64 * 2**20  # a day's snapshot was 291 KB in October 2026, and grows with its providers


@dataclass(frozen=True)
class PriceRow:
    line: int  # in the feed
    gpu: str
    price: Decimal
    provider: str
    date: str
    source: str


@dataclass(frozen=True)
class PriceChange:
    gpu: Gpu  # as the catalog had it
    row: PriceRow


def _row(line: int, record: dict, path: Path, gpus: dict[str, Gpu], today: dt.date) -> tuple[PriceRow | None, list[str]]:
    checks = {"gpu": plain_text, "price_per_gpu_hour": PRICE, "provider": plain_text, "date": DATE, "source": note_text}
    values, problems = checked_row(line, record, path, checks, gpus, today)
    if problems:
        return None, problems
    return PriceRow(line, values["gpu"], values["price_per_gpu_hour"], values["provider"], values["date"], values["source"]), []


@dataclass(frozen=True)
class FeedReading:
    rows: list[PriceRow]
    notes: list[str]  # the rows a snapshot skips, and why
    snapshot: bool  # a daily offer snapshot (price_offers.py), not a list of prices chosen by hand


def read_price_feed(path: Path, gpus: tuple[Gpu, ...], today: dt.date) -> FeedReading:
    """Every row of the feed, checked, and the lines to say beside them; FeedError with one
    line per problem otherwise. A daily offer snapshot (price_offers.py) gives one row per catalog
    GPU it prices, the rows it skips said in those lines."""
    try:
        text = read_regular_file(path, FEED_MAX_BYTES, "the most a price feed may hold").decode("utf-8-sig")
    except (OSError, FileRefused) as error:
        raise FeedError([f"{path}: cannot read it ({getattr(error, 'strerror', None) or error})"]) from None
    except UnicodeDecodeError:
        raise FeedError([f"{path}: not UTF-8 text"]) from None
    if path.suffix.lower() == ".json" and text.lstrip().startswith("{"):
        return FeedReading(*_offer_rows(text, path, gpus, today), snapshot=True)
    records = json_records(text, path, COLUMNS) if path.suffix.lower() == ".json" else csv_records(text, path, COLUMNS)
    by_slug = {gpu.slug: gpu for gpu in gpus}
    rows, problems, seen = [], [], {}
    for line, record in records:
        row, found = _row(line, record, path, by_slug, today)
        problems += found
        if row is None:
            continue
        if row.gpu in seen:
            problems.append(f"{path}:{line}: gpu: {row.gpu} already has a price on line {seen[row.gpu]}")
        seen[row.gpu] = line
        rows.append(row)
    if problems:
        raise FeedError(problems)
    if not rows:
        raise FeedError([f"{path}: no price rows"])
    return FeedReading(rows, [], snapshot=False)


class _Object(dict):
    """A JSON object that remembers a key given twice (the json module would keep the last silently):
    a snapshot's offer with one is a row skipped, not a feed refused (price_offers.DUPLICATE_KEY)."""

    duplicate_key: str | None = None


def _marked_duplicates(pairs: list[tuple[str, object]]) -> dict:
    found = _Object()
    for key, value in pairs:
        if key in found:
            found.duplicate_key = key
        found[key] = value
    return found


def _offer_rows(text: str, path: Path, gpus: tuple[Gpu, ...], today: dt.date) -> tuple[list[PriceRow], list[str]]:
    try:
        data = json.loads(text, object_pairs_hook=_marked_duplicates)
        if getattr(data, DUPLICATE_KEY, None) is not None:
            raise DuplicateKey(getattr(data, DUPLICATE_KEY))
    except DuplicateKey as error:
        raise FeedError([f"{path}: {shown(error.args[0])}: duplicate key in the snapshot"]) from None
    except (json.JSONDecodeError, RecursionError, ValueError) as error:
        message = error.msg if isinstance(error, json.JSONDecodeError) else "nested too deeply or a number too long"
        raise FeedError([f"{path}: not JSON ({message})"]) from None
    if not is_offer_snapshot(data):
        raise FeedError([f"{path}:1: must be a JSON list of objects with the keys {', '.join(COLUMNS)}, or a "
                              "daily offer snapshot (an object with an \"offers\" list)"])
    try:
        offers, notes = cheapest_offers(data, gpus, today)
    except OfferFeedError as error:
        raise FeedError([f"{path}: {error}"]) from None
    snapshot = data.get("date") if isinstance(data.get("date"), str) and DAY.fullmatch(data["date"]) else None
    where = f"{FEED_HOME} (daily snapshot{' of ' + snapshot if snapshot else ''})"
    rows = [PriceRow(offer.index, offer.slug, offer.price, provider_name(offer), offer.date,
                     f"{offer.source_url} ; {where}") for offer in offers]
    if not rows:
        raise FeedError([f"{path}: no firm on-demand offer of a catalog GPU"] + [f"{path}: {note}" for note in notes])
    return rows, [f"{path}: {note}" for note in notes]


def _yaml_text(text: str) -> str:
    """A double-quoted YAML scalar (JSON's string syntax is valid YAML) for one-line text."""
    return json.dumps(text, ensure_ascii=False)


def _price_line(row: PriceRow) -> str:
    return (f"    price_per_gpu_hour: {{value: {row.price:f}, provider: {_yaml_text(row.provider)}, "
            f"date: {row.date}, source: {_yaml_text(row.source)}}}")


def rewrite_prices(text: str, rows: list[PriceRow]) -> str:
    """gpus.yaml with each row's GPU's price replaced (or added at the end of its entry); every
    other line as it was. The file is the catalog's own layout: `  - slug: x` starts an entry and
    its fields are indented by four spaces."""
    lines = text.split("\n")
    ending = "\r" if text.count("\r\n") * 2 > text.count("\n") else ""  # a CRLF file stays CRLF
    for row in rows:
        pattern = re.compile(rf"  - slug: (['\"]?){re.escape(row.gpu)}\1\s*")
        start = next((i for i, line in enumerate(lines) if pattern.fullmatch(line)), None)
        if start is None:
            raise FeedError([f"gpus.yaml: no line `  - slug: {row.gpu}` to find its entry by; "
                                  "write this price by hand, or lay the entry out as the others"])
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("  - ") or not lines[i].startswith("    ")), len(lines))
        price = next((i for i in range(start + 1, end) if lines[i].startswith("    price_per_gpu_hour:")), None)
        if price is None:
            lines.insert(end, _price_line(row) + ending)
            continue
        stop = price + 1
        while stop < end and lines[stop].startswith("     "):  # a block mapping's deeper lines
            stop += 1
        comment = re.search(r"\}(\s+#[^\r]*)\r?$", lines[price])  # a remark after the price stays
        lines[price:stop] = [_price_line(row) + (comment.group(1) if comment else "") + ending]
    return "\n".join(lines)
