"""`inventory import` and inventory.yaml: the operator's own stock, read from its feed row by row,
written all or nothing; the loader's checks and `check`'s stale stock."""

import datetime as dt
import json
from decimal import Decimal

import pytest

from generator.catalog.loader import CatalogError, load_catalog
from generator.catalog.records import StockOffer
from generator.cli.main import main

HEADER = "gpu,machines,multi_node,price_per_gpu_hour,date,source\n"
TODAY = dt.datetime.now(dt.timezone.utc).date().isoformat()


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_a_csv_feed_becomes_the_inventory(content_copy, tmp_path, capsys):
    feed = write(tmp_path / "stock.csv", HEADER
                 + f"h100-sxm,1 2 4 8,false,2.49,{TODAY},https://operator.example/stock.csv\n"
                 + f"b300,8,true,4.60,{TODAY},https://operator.example/stock.csv\n"
                 + f"rtx-4090,1,no,,{TODAY},https://operator.example/stock.csv\n")
    assert main(["inventory", "import", str(feed), "--content", str(content_copy)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("inventory.yaml: 3 GPU types in stock")
    inventory = load_catalog(content_copy).inventory
    assert not inventory.sample
    assert inventory.offers == (
        StockOffer("h100-sxm", (1, 2, 4, 8), False, Decimal("2.49"), TODAY, "https://operator.example/stock.csv"),
        StockOffer("b300", (8,), True, Decimal("4.60"), TODAY, "https://operator.example/stock.csv"),
        StockOffer("rtx-4090", (1,), False, None, TODAY, "https://operator.example/stock.csv"),  # price on request
    )


def test_a_json_feed_replaces_the_stock_it_held(content_copy, tmp_path):
    first = write(tmp_path / "first.csv", HEADER + f"h100-sxm,8,false,2.49,{TODAY},feed\n")
    assert main(["inventory", "import", str(first), "--content", str(content_copy)]) == 0
    rows = [{"gpu": "mi300x", "machines": [4, 8], "multi_node": True, "price_per_gpu_hour": 1.99, "date": TODAY,
             "source": "https://operator.example/stock.json"}]
    second = write(tmp_path / "stock.json", json.dumps(rows))
    assert main(["inventory", "import", str(second), "--content", str(content_copy)]) == 0
    offers = load_catalog(content_copy).inventory.offers
    assert [(o.gpu, o.machines, o.multi_node, o.price_per_gpu_hour) for o in offers] == [("mi300x", (4, 8), True, Decimal("1.99"))]


def test_bad_rows_are_each_one_line_and_nothing_is_written(content_copy, tmp_path, capsys):
    before = write(content_copy / "inventory.yaml", "sample: true\noffers:\n  - {gpu: h200, machines: [8], multi_node: false, "
                   "date: 2026-01-01, source: earlier}\n").read_text()
    feed = write(tmp_path / "bad.csv", HEADER
                 + "h100-sxm,1 2 16,maybe,-1,2099-01-01,feed\n"
                 + f"nope,8,false,1,{TODAY},feed\n"
                 + f"b300,8,false,4.60,{TODAY},feed\n"
                 + f"b300,8,false,4.60,{TODAY},feed\n"
                 + f"rtx-4090,,false,1,{TODAY},\n")
    assert main(["inventory", "import", str(feed), "--content", str(content_copy)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"{feed}:2: machines: must be an integer from 1 to 8 (got 16)",
        f"{feed}:2: multi_node: must be true or false (got 'maybe')",
        f"{feed}:2: price_per_gpu_hour: must be a number from 0.0001 to 10^6 (got '-1')",
        f"{feed}:2: date: 2099-01-01 is in the future (today is {TODAY})",
        f"{feed}:3: gpu: no GPU 'nope' in gpus.yaml (slugs: h100-sxm, h200, b300, rtx-4090, mi300x, mi325x)",
        f"{feed}:5: gpu: b300 is listed twice (also line 4; one row per GPU type)",
        f"{feed}:6: machines: missing",
        f"{feed}:6: source: missing",
        f"8 problems in {feed}; nothing written.",
    ]
    assert (content_copy / "inventory.yaml").read_text() == before


def test_a_feed_of_other_columns_or_no_rows_is_refused(content_copy, tmp_path, capsys):
    wrong = write(tmp_path / "wrong.csv", "gpu,price\nh100-sxm,2\n")
    assert main(["inventory", "import", str(wrong), "--content", str(content_copy)]) == 2
    empty = write(tmp_path / "empty.json", "[]")
    assert main(["inventory", "import", str(empty), "--content", str(content_copy)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{wrong}:1: the header must be {HEADER.strip()} (got 'gpu,price')"
    assert err[2].startswith(f"{empty}: no stock rows")
    assert not (content_copy / "inventory.yaml").exists()


@pytest.mark.parametrize("entry, problem", [
    ("{gpu: nope, machines: [8], multi_node: false, date: 2026-01-01, source: s}",
     "offers.0.gpu: no GPU 'nope' in gpus.yaml"),
    ("{gpu: h200, machines: [8, 4], multi_node: false, date: 2026-01-01, source: s}",
     "offers.0.machines: must be distinct counts from 1 to 8 in ascending order (got [8, 4])"),
    ("{gpu: h200, machines: [8], date: 2026-01-01, source: s}", "offers.0.multi_node: missing required field"),
])
def test_the_loader_refuses_a_bad_inventory_with_its_line(content_copy, entry, problem):
    write(content_copy / "inventory.yaml", f"sample: false\noffers:\n  - {entry}\n")
    with pytest.raises(CatalogError) as raised:
        load_catalog(content_copy)
    assert [p.split(": ", 1)[1] for p in raised.value.problems] == [problem]
    assert raised.value.problems[0].startswith(f"{(content_copy / 'inventory.yaml').as_posix()}:3: ")


def test_a_gpu_listed_twice_is_refused(content_copy):
    write(content_copy / "inventory.yaml", "sample: false\noffers:\n"
          "  - {gpu: h200, machines: [8], multi_node: false, date: 2026-01-01, source: s}\n"
          "  - {gpu: h200, machines: [4], multi_node: false, date: 2026-01-01, source: s}\n")
    with pytest.raises(CatalogError) as raised:
        load_catalog(content_copy)
    assert raised.value.problems[0].endswith("offers.1.gpu: 'h200' is listed twice (one entry per GPU type)")


def test_check_says_which_stock_is_stale(content_copy, capsys):
    """The stock is read like a price: after 90 days it is said stale (counted from today, UTC)."""
    write(content_copy / "inventory.yaml", "sample: false\noffers:\n"
          f"  - {{gpu: h200, machines: [8], multi_node: false, date: {TODAY}, source: s}}\n"
          "  - {gpu: b300, machines: [8], multi_node: false, date: 2020-01-02, source: s}\n")
    assert main(["check", "--content", str(content_copy)]) == 0
    out = capsys.readouterr().out.splitlines()
    days = (dt.date.fromisoformat(TODAY) - dt.date(2020, 1, 2)).days
    assert out[0].endswith("stale stock reading:")
    assert out[-1].endswith(f"inventory.yaml:4: offers.1.date: stale: the stock of b300 was read {days} days ago "
                            "(2020-01-02; stale after 90): refresh it (inventory import)")


def test_the_shipped_inventory_is_the_sample_of_the_seed_page(catalog):
    """8 × B300 from US$ 36.80 per hour for the 8: the one offer the example brand's page states."""
    inventory = catalog.inventory
    assert inventory.sample
    assert [(o.gpu, o.machines, o.price_per_gpu_hour * 8) for o in inventory.offers] == [("b300", (8,), Decimal("36.80"))]


def test_an_inventory_linked_outside_the_catalog_is_never_written(content_copy, tmp_path, capsys):
    outside = write(tmp_path / "elsewhere.yaml", "not ours\n")
    (content_copy / "inventory.yaml").symlink_to(outside)
    feed = write(tmp_path / "stock.csv", HEADER + f"h100-sxm,8,false,2.49,{TODAY},feed\n")
    assert main(["inventory", "import", str(feed), "--content", str(content_copy)]) == 2
    assert "a link to outside the content folder" in capsys.readouterr().err
    assert outside.read_text() == "not ours\n"
