"""Every price on a page shows the day it was read; over 90 days before the catalog's reading day
(site.yaml's prices_date) the pages mark it stale, and `check` lists what is stale today."""

import datetime as dt
import re

import pytest

from generator.catalog.loader import CatalogError, load_catalog
from generator.catalog.price_age import price_age_days, price_is_stale
from generator.cli.main import main
from tests.conftest import twin


@pytest.mark.parametrize("price_date, as_of, days, stale", [
    ("2026-09-25", "2026-09-25", 0, False),
    ("2026-06-27", "2026-09-25", 90, False),  # 3 + 31 + 31 + 25 days: the last day it is fresh
    ("2026-06-26", "2026-09-25", 91, True),
    ("2026-01-01", "2026-09-25", 267, True),  # 31+28+31+30+31+30+31+31 = 243, + 24
    ("2025-12-31", "2026-03-31", 90, False),  # across a year: 31 + 28 + 31
    ("2026-10-01", "2026-09-25", -6, False),  # read after the reference day: not stale
])
def test_a_price_is_stale_after_90_days(price_date, as_of, days, stale):
    assert price_age_days(price_date, as_of) == days
    assert price_is_stale(price_date, as_of) is stale


def test_no_price_is_never_stale():
    assert price_is_stale(None, "2026-09-25") is False


def _set_price_date(content, slug, date):
    gpus = content / "gpus.yaml"
    text = gpus.read_text(encoding="utf-8")
    entry = text.index(f"  - slug: {slug}\n")
    start = text.index("date: ", text.index("price_per_gpu_hour:", entry)) + len("date: ")
    gpus.write_text(text[:start] + date + text[start + 10:], encoding="utf-8")


def test_pages_mark_a_stale_price_and_date_a_fresh_one(content_copy):
    _set_price_date(content_copy, "h100-sxm", "2026-06-26")  # 91 days before prices_date 2026-09-25
    _set_price_date(content_copy, "h200", "2026-06-27")  # 90 days: fresh
    catalog = load_catalog(content_copy)
    assert {g.slug: g.price_stale for g in catalog.gpus}["h100-sxm"] is True
    page = twin(catalog, "en", "gpus/h100-sxm")
    assert "(price of June 26, 2026, over 90 days old)" in page
    assert "| Price per GPU-hour | $2.69 (RunPod Community Cloud, price of June 26, 2026, over 90 days old) |" in page
    assert "(preço de 26 de junho de 2026, com mais de 90 dias)" in twin(catalog, "pt", "gpus/h100-sxm")
    index = twin(catalog, "en", "gpus")
    assert "| $2.69 (price of June 26, 2026, over 90 days old) |" in index
    assert "| $3.59 (price of June 27, 2026) |" in index


def test_every_price_on_a_model_page_shows_its_date(fixture_catalog):
    """Each amount per hour on the pages is followed by the day its GPU's price was read."""
    for slug in ("kimi-k3", "llama-3-1-8b-instruct"):
        for lang, per_hour in (("en", r"\$[\d.,]+ per hour(?: for the \d+ GPUs)?"),
                               ("pt", r"US\$\xa0[\d.,]+ por hora(?: pelas \d+ GPUs)?")):
            page = twin(fixture_catalog, lang, f"models/{slug}")
            amounts = re.findall(rf"{per_hour}(?: \([^)]*\))?", page)
            assert amounts, (slug, lang)
            undated = [a for a in amounts if not re.search(r"\((price of|preço de) ", a)]
            assert undated == [], (slug, lang, undated)
            # the price column of "GPUs per type" too (the table whose header starts with GPU | BF16)
            money = r"\$[\d.,]+" if lang == "en" else r"US\$\xa0[\d.,]+"
            table = re.search(r"^\| GPU \| (Setup to serve it|Configuração para servi-lo) \|.*?(?=\n\n)", page, re.MULTILINE | re.DOTALL).group(0)
            cells = re.findall(rf"\| ({money}[^|]*) \|(?: [\d,.]+ \|){{4}}$", table, re.MULTILINE)
            assert cells and all(re.search(r"\((price of|preço de) ", cell) for cell in cells), (slug, lang, cells)


def test_a_price_needs_its_provider_and_date(content_copy):
    gpus = content_copy / "gpus.yaml"
    text = gpus.read_text(encoding="utf-8")
    gpus.write_text(text.replace("provider: RunPod Community Cloud, date: 2026-09-25, ", "", 1), encoding="utf-8")
    with pytest.raises(CatalogError) as raised:
        load_catalog(content_copy)
    assert any(re.fullmatch(r".*gpus\.yaml:\d+: gpus\.0\.price_per_gpu_hour\.provider: required with a price "
                            r"\(the provider that asks it\)", line) for line in raised.value.problems), raised.value.problems


def test_a_price_read_after_prices_date_is_refused(content_copy):
    _set_price_date(content_copy, "h100-sxm", "2026-10-01")
    with pytest.raises(CatalogError) as raised:
        load_catalog(content_copy)
    assert raised.value.problems == [
        f"{(content_copy / 'site.yaml').as_posix()}:12: prices_date: 2026-09-25 is before h100-sxm's price (2026-10-01); "
        "it is the day the prices were read, from which their age is counted: set it to that day"]


def test_check_lists_the_prices_stale_today(content_copy, capsys):
    """Every price read today (and prices_date today) but the RTX 4090's, read on 2020-01-02: one
    stale line, with the days counted from today (UTC, as the feeds date their rows)."""
    today = dt.datetime.now(dt.timezone.utc).date()
    gpus = content_copy / "gpus.yaml"
    gpus.write_text(re.sub(r"date: \d{4}-\d{2}-\d{2}", f"date: {today.isoformat()}", gpus.read_text(encoding="utf-8")),
                    encoding="utf-8")
    site = content_copy / "site.yaml"
    site.write_text(site.read_text(encoding="utf-8").replace("prices_date: 2026-09-25", f"prices_date: {today.isoformat()}"),
                    encoding="utf-8")
    _set_price_date(content_copy, "rtx-4090", "2020-01-02")
    days = (today - dt.date(2020, 1, 2)).days
    assert main(["check", "--content", str(content_copy)]) == 0  # stale is said, not refused
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("no problems; 1 stale price:") and len(out) == 2
    assert re.fullmatch(rf".*gpus\.yaml:\d+: gpus\.3\.price_per_gpu_hour\.date: stale: rtx-4090's price was read "
                        rf"{days} days ago \(2020-01-02; stale after 90\): refresh it \(prices import\)", out[1]), out


def test_check_says_the_operators_own_price_is_refreshed_by_hand(content_copy, capsys):
    _set_price_date(content_copy, "b300", "2020-01-02")  # Arrakis's own price: the feed never replaces it
    assert main(["check", "--content", str(content_copy)]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if "b300's price" in line)
    assert line.endswith("(2020-01-02; stale after 90): refresh it by hand: the operator's own")
