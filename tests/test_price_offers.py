"""`prices import` reads the public daily GPU price feed in its own format (a snapshot of offers):
one price per catalog GPU, the cheapest firm on-demand offer, with its provider, day and page.
The sample is real rows of the feed (tests/data/price_feed/README.md)."""

import copy
import datetime as dt
import json
from decimal import Decimal

import pytest

from generator.catalog.loader import load_catalog
from generator.catalog.price_offers import cheapest_offers, provider_name
from generator.cli.main import main
from tests.conftest import FIXTURE, ROOT, twin

SAMPLE = ROOT / "tests" / "data" / "price_feed" / "snapshot-2026-10-10-sample.json"
DAY_AFTER = dt.date(2026, 10, 11)


def UTC_TODAY() -> dt.date:  # the import's today: the feed dates its rows in UTC
    return dt.datetime.now(dt.timezone.utc).date()


@pytest.fixture
def snapshot():
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def gpus():
    return load_catalog(FIXTURE).gpus


def test_each_catalog_gpu_gets_its_cheapest_firm_on_demand_offer(snapshot, gpus):
    offers, notes = cheapest_offers(snapshot, gpus, DAY_AFTER)
    assert [(o.slug, o.price, provider_name(o), o.date, o.source_url) for o in offers] == [
        # Spheron's spot B300 at 5.84 is interruptible: its on-demand 12.36 counts
        ("b300", Decimal("12.36"), "Spheron", "2026-10-10", "https://www.spheron.network/pricing/"),
        # Hyperstack's reserved 2.72 is a term, not by the hour; Scaleway asks 3.5778
        ("h100-sxm", Decimal("3.2"), "Hyperstack", "2026-10-10", "https://www.hyperstack.cloud/gpu-pricing"),
        # Together AI's spot 2.99 is interruptible
        ("h200", Decimal("5.99"), "Together AI", "2026-10-10", "https://www.together.ai/pricing"),
        # RunPod's "secure" tier is firm: 2.39 beats Hot Aisle's 2.99 and Crusoe's 3.45
        ("mi300x", Decimal("2.39"), "RunPod Secure Cloud", "2026-10-10", "https://www.runpod.io/pricing"),
    ]
    # the MI325X has only a spot offer (Vultr, 2.00): no price; B200 and GB200 are not in the fixture
    # catalog; `h100` and `v100` do not name one card (SXM or PCIe; the 16 GB V100 is not the 32 GB)
    assert notes == ["priced in the feed, not in gpus.yaml: b200, gb200",
                     "GPU ids mapped to no catalog GPU (GPU_SLUGS in price_offers.py): 'h100', 'v100'"]


def test_left_out_providers_never_win(snapshot, gpus):
    """Daytona's B200 at 6.25 is the GPU's rate alone and Prime Intellect's 3.49 an aggregator's home
    page: with a catalog B200, Lambda's 6.69 is the price."""
    b200 = next(g for g in load_catalog(ROOT / "content").gpus if g.slug == "b200")
    offers, _ = cheapest_offers(snapshot, gpus + (b200,), DAY_AFTER)
    assert [(o.price, provider_name(o)) for o in offers if o.slug == "b200"] == [(Decimal("6.69"), "Lambda")]


def _offer(**changes):
    row = {"provider": "tensordock", "gpu": "rtx-4090", "vram_gb": 24, "usd_hr": 0.35, "kind": "on-demand",
           "source_url": "https://www.tensordock.com/cloud-gpus.html", "fetched_at": "2026-10-10T08:47:03.141Z"}
    return {**row, **changes}


@pytest.mark.parametrize("row, note", [
    (_offer(usd_hr=-1), "usd_hr: must be a number from 0.0001 to 10^6 (got -1)"),
    (_offer(usd_hr="0.35"), "usd_hr: must be a number from 0.0001 to 10^6 (got '0.35')"),
    (_offer(fetched_at="yesterday"), "fetched_at: must be an ISO 8601 UTC time like 2026-10-10T08:47:03Z (got 'yesterday')"),
    (_offer(fetched_at="2026-10-12T00:00:00Z"), "fetched_at: 2026-10-12 is in the future (today is 2026-10-11)"),
    (_offer(source_url="javascript:alert(1)"), None),
    (_offer(provider="a\nb"), None),
    (_offer(vram_gb=True), "vram_gb: must be a number of GB from 0 to 10,000 (got True)"),
    ("h100", "must be an object (got 'h100')"),
])
def test_a_bad_row_is_skipped_with_its_reason_and_the_others_still_count(snapshot, gpus, row, note):
    snapshot["offers"].append(row)
    offers, notes = cheapest_offers(snapshot, gpus, DAY_AFTER)
    assert "rtx-4090" not in {o.slug for o in offers}
    assert {o.slug for o in offers} == {"b300", "h100-sxm", "h200", "mi300x"}
    skipped = [line for line in notes if line.startswith("offers[22]: ")]
    assert len(skipped) == 1 and skipped[0].endswith(" (row skipped)"), notes
    if note:
        assert skipped[0] == f"offers[22]: {note} (row skipped)"


def test_an_offer_older_than_90_days_is_not_imported(snapshot, gpus):
    snapshot["offers"].append(_offer(fetched_at="2026-07-12T06:00:00Z"))  # 91 days before 2026-10-11
    offers, notes = cheapest_offers(snapshot, gpus, DAY_AFTER)
    assert "rtx-4090" not in {o.slug for o in offers}
    assert "offers[22]: rtx-4090 from tensordock: fetched 2026-07-12, 91 days ago (over 90: row skipped)" in notes
    snapshot["offers"][-1] = _offer(fetched_at="2026-07-13T06:00:00Z")  # 90 days: still fresh
    offers, _ = cheapest_offers(snapshot, gpus, DAY_AFTER)
    assert [(o.price, o.date) for o in offers if o.slug == "rtx-4090"] == [(Decimal("0.35"), "2026-07-13")]


def test_another_card_under_the_same_id_is_skipped(snapshot, gpus):
    snapshot["offers"].append(_offer(vram_gb=48, usd_hr=0.30))  # a 48 GB RTX 4090 is not the catalog's 24 GB one
    offers, notes = cheapest_offers(snapshot, gpus, DAY_AFTER)
    assert "rtx-4090" not in {o.slug for o in offers}
    assert "offers[22]: rtx-4090 of 48 GB is not the catalog's RTX 4090 of 24 GB (row skipped)" in notes


def _dated_yesterday(snapshot) -> dict:
    """The sample with every offer fetched yesterday: the CLI counts the age from today's date."""
    yesterday = (UTC_TODAY() - dt.timedelta(days=1)).isoformat()
    moved = copy.deepcopy(snapshot)
    for row in moved["offers"]:
        row["fetched_at"] = yesterday + row["fetched_at"][10:]
    return moved


def test_the_cli_imports_a_snapshot_keeps_the_operators_own_price_and_says_what_it_skips(
        tmp_path, content_copy, capsys, snapshot):
    feed = tmp_path / "latest.json"
    feed.write_text(json.dumps(_dated_yesterday(snapshot)), encoding="utf-8")
    yesterday = (UTC_TODAY() - dt.timedelta(days=1)).isoformat()
    assert main(["prices", "import", str(feed), "--content", str(content_copy)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1:4] == [
        f"  h100-sxm: 2.69 (RunPod Community Cloud, 2026-09-25) → 3.2 (Hyperstack, {yesterday})",
        f"  h200: 3.59 (RunPod Community Cloud, 2026-09-25) → 5.99 (Together AI, {yesterday})",
        f"  mi300x: 2.39 (RunPod, 2026-08-27) → 2.39 (RunPod Secure Cloud, {yesterday})",
    ]
    assert "  b300: keeps Arrakis's own price (4.6, 2026-08-27)" in err.splitlines()
    assert f"{feed}: priced in the feed, not in gpus.yaml: b200, gb200" in err.splitlines()
    catalog = load_catalog(content_copy)
    by_slug = {g.slug: g for g in catalog.gpus}
    assert (by_slug["b300"].price_per_gpu_hour, by_slug["b300"].price_provider) == (Decimal("4.6"), "Arrakis")
    assert by_slug["rtx-4090"].price_date == "2026-09-25"  # not in the feed: kept as it was
    assert by_slug["h200"].sources["price_per_gpu_hour"].parts[0] == ("https://www.together.ai/pricing", True)
    assert catalog.site.prices_date == yesterday
    assert "$5.99 (Together AI, price of " in twin(catalog, "en", "gpus/h200")


def test_a_snapshot_that_is_not_one_is_refused_and_nothing_is_written(tmp_path, content_copy, capsys):
    before = (content_copy / "gpus.yaml").read_bytes()
    feed = tmp_path / "latest.json"
    feed.write_text(json.dumps({"date": "2026-10-10", "offers": {"h100-sxm": 2.0}}), encoding="utf-8")
    assert main(["prices", "import", str(feed), "--content", str(content_copy)]) == 2
    assert capsys.readouterr().err.splitlines()[0] == f"{feed}: offers: must be a list of offers (got {{'h100-sxm': 2.0}})"
    assert (content_copy / "gpus.yaml").read_bytes() == before


def test_a_scheduled_workflow_fetches_the_feed_imports_it_and_opens_a_pull_request():
    import yaml

    from generator.catalog.price_offers import FEED_URL

    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "prices.yml").read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["schedule"][0]["cron"] and "workflow_dispatch" in triggers
    steps = workflow["jobs"]["import"]["steps"]
    runs = " ".join(step.get("run", "") for step in steps)
    assert FEED_URL in runs and "generator prices import" in runs and "generator check" in runs
    pull_request = next(step for step in steps if step.get("uses", "").startswith("peter-evans/create-pull-request@"))
    assert pull_request["with"]["add-paths"].split() == ["content/gpus.yaml", "content/site.yaml"]


def test_a_snapshot_without_a_skipped_row_still_keeps_the_operators_own_price(tmp_path, content_copy, capsys, snapshot):
    """Spheron's on-demand B300 alone: no row is skipped, and Arrakis's B300 price stays."""
    only = {**_dated_yesterday(snapshot), "offers": [row for row in _dated_yesterday(snapshot)["offers"]
                                                     if (row["provider"], row["gpu"], row["kind"]) == ("spheron", "b300", "on-demand")]}
    feed = tmp_path / "latest.json"
    feed.write_text(json.dumps(only), encoding="utf-8")
    assert main(["prices", "import", str(feed), "--content", str(content_copy)]) == 0
    assert "  b300: keeps Arrakis's own price (4.6, 2026-08-27)" in capsys.readouterr().err.splitlines()
    b300 = next(g for g in load_catalog(content_copy).gpus if g.slug == "b300")
    assert (b300.price_per_gpu_hour, b300.price_provider) == (Decimal("4.6"), "Arrakis")


@pytest.mark.parametrize("kind", [["secure"], {"tier": "secure"}, 7])
def test_a_kind_of_the_wrong_type_is_a_skipped_row(snapshot, gpus, kind):
    snapshot["offers"].append({**snapshot["offers"][2], "kind": kind})
    offers, notes = cheapest_offers(snapshot, gpus, DAY_AFTER)
    assert {o.slug for o in offers} == {"b300", "h100-sxm", "h200", "mi300x"}
    assert [line for line in notes if line.startswith("offers[22]: kind: ")] != []


def test_the_same_price_from_one_provider_is_chosen_whatever_the_feeds_order(snapshot, gpus):
    """RunPod's MI300X at 2.39 twice, read two days apart: the newest reading, in either order."""
    older = {**snapshot["offers"][2], "fetched_at": "2026-10-08T08:00:00Z", "source_url": "https://www.runpod.io/gpu/mi300x"}
    for offers in ([*snapshot["offers"], older], [older, *snapshot["offers"]]):
        chosen, _ = cheapest_offers({**snapshot, "offers": offers}, gpus, DAY_AFTER)
        assert [(o.date, o.source_url) for o in chosen if o.slug == "mi300x"] == [("2026-10-10", "https://www.runpod.io/pricing")]


def test_a_comment_after_prices_date_is_kept_and_the_date_moved(tmp_path, content_copy, capsys, snapshot):
    site = content_copy / "site.yaml"
    site.write_text(site.read_text(encoding="utf-8").replace("prices_date: 2026-09-25", "prices_date: 2026-09-25  # read that day"),
                    encoding="utf-8")
    feed = tmp_path / "latest.json"
    feed.write_text(json.dumps(_dated_yesterday(snapshot)), encoding="utf-8")
    assert main(["prices", "import", str(feed), "--content", str(content_copy)]) == 0
    yesterday = (UTC_TODAY() - dt.timedelta(days=1)).isoformat()
    assert f"prices_date: {yesterday}  # read that day\n" in site.read_text(encoding="utf-8")
    assert load_catalog(content_copy).site.prices_date == yesterday


def test_a_site_yaml_without_a_prices_date_line_to_move_writes_nothing(tmp_path, content_copy, capsys, snapshot):
    site = content_copy / "site.yaml"
    site.write_text(site.read_text(encoding="utf-8").replace("prices_date: 2026-09-25", "prices_date:\n  2026-09-25"),
                    encoding="utf-8")
    before = (content_copy / "gpus.yaml").read_bytes()
    feed = tmp_path / "latest.json"
    feed.write_text(json.dumps(_dated_yesterday(snapshot)), encoding="utf-8")
    assert main(["prices", "import", str(feed), "--content", str(content_copy)]) == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith(f"prices: {site}: no line 'prices_date: YYYY-MM-DD' to move to ")
    assert (content_copy / "gpus.yaml").read_bytes() == before


def test_an_offer_with_a_key_given_twice_is_a_skipped_row_and_the_rest_imported(tmp_path, content_copy, capsys, snapshot):
    text = json.dumps(_dated_yesterday(snapshot))
    assert text.endswith("}") and '"offers": [' in text
    # one more offer whose price is given twice: which one the provider meant cannot be told
    twice = '{"provider": "tensordock", "gpu": "rtx-4090", "vram_gb": 24, "usd_hr": 0.35, "usd_hr": 0.05, ' \
            f'"kind": "on-demand", "source_url": "https://www.tensordock.com/cloud-gpus.html", "fetched_at": "{(UTC_TODAY() - dt.timedelta(days=1)).isoformat()}T08:00:00Z"}}, '
    feed = tmp_path / "latest.json"
    feed.write_text(text.replace('"offers": [', '"offers": [' + twice, 1), encoding="utf-8")
    assert main(["prices", "import", str(feed), "--content", str(content_copy)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert f"{feed}: offers[0]: 'usd_hr': given twice (which one counts is not said) (row skipped)" in err
    assert next(g for g in load_catalog(content_copy).gpus if g.slug == "rtx-4090").price_date == "2026-09-25"
    # at the top, the same is the whole snapshot refused
    feed.write_text(text[:-1] + ', "offers": []}', encoding="utf-8")
    assert main(["prices", "import", str(feed), "--content", str(content_copy)]) == 2
    assert capsys.readouterr().err.startswith(f"{feed}: 'offers': duplicate key in the snapshot")
