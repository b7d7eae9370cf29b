"""`inventory import FEED`: the operator's stock, read from its feed, written whole into
content/inventory.yaml, all or nothing (inventory_feed.py says what a feed holds)."""

from __future__ import annotations

import datetime as dt
import sys
import tempfile
from pathlib import Path
from typing import Callable

from generator.catalog.feed_rows import FeedError, report
from generator.catalog.file_writes import replace_file
from generator.catalog.inventory_feed import inventory_yaml, read_inventory_feed
from generator.catalog.loader import INVENTORY_FILE, CatalogError, load_inventory
from generator.catalog.records import Catalog, StockOffer

DESCRIPTION = (
    "Read the operator's stock feed, a CSV with the header gpu,machines,multi_node,price_per_gpu_hour,date,source "
    "or a JSON list of objects with those keys (a .json file): one row per GPU type in stock, with the GPUs per "
    "machine of each shape in stock (\"1 2 4 8\" in a CSV cell, [1, 2, 4, 8] in JSON), whether machines can be "
    "joined (true or false), the operator's price per GPU-hour (empty: on request), the day it was read (not after "
    "today) and where. Only if every row is valid, write them into content/inventory.yaml, replacing the stock it "
    "held (a GPU type the feed leaves out is not in stock); the market's prices in gpus.yaml are not touched. Any "
    "bad row: one line per problem with its line in the feed, exit code 2, nothing written."
)


def import_inventory(catalog: Catalog, feed: Path, content: Path, today: dt.date, one_line: Callable[[str], str]) -> int:
    try:
        offers = read_inventory_feed(feed, catalog.gpus, today)
    except FeedError as error:
        return report(error, feed, one_line)
    text = inventory_yaml(offers)
    target = content / INVENTORY_FILE
    try:  # under the catalog's lock (main._run)
        problem = _loads_with(text, offers, catalog)
        if problem:
            print(f"inventory: the written inventory.yaml would not load ({one_line(problem)}); nothing written",
                  file=sys.stderr)
            return 2
        replace_file(target, text, content.absolute(), mode_from=content / "gpus.yaml")
    except OSError as error:
        print(f"inventory: {target}: {error.strerror or error}; nothing written", file=sys.stderr)
        return 1
    for offer in offers:
        price = "price on request" if offer.price_per_gpu_hour is None else f"{offer.price_per_gpu_hour} per GPU-hour"
        joined = ", machines joined" if offer.multi_node else ""
        print(f"{offer.gpu}: machines of {' or '.join(map(str, offer.machines))} GPUs{joined}, {price} ({offer.date})")
    print(f"wrote {target}: {len(offers)} GPU type{'s' if len(offers) != 1 else ''} in stock")
    return 0


def _loads_with(text: str, offers: list[StockOffer], catalog: Catalog) -> str | None:
    """The first problem of `text` read back as an inventory (in a scratch file), or None when it
    reads back as `offers`."""
    with tempfile.TemporaryDirectory() as scratch:
        trial = Path(scratch) / INVENTORY_FILE
        trial.write_text(text, encoding="utf-8")
        try:
            written = load_inventory(trial, catalog.gpus)
        except CatalogError as error:
            return error.problems[0]
    return None if list(written.offers) == offers else "it does not read back the feed's rows"
