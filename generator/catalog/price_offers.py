"""A public daily GPU price feed, read in its own format: one price per catalog GPU.

The feed is gpurentalprices.com's open dataset (CC BY 4.0; mirrored with its README at
github.com/adriannutiu/gpu-rental-prices, and on Hugging Face as gpurentalprices/gpu-rental-prices):
one JSON snapshot a day, `{"date", "generated_at", "offers": [...], "providers", "meta"}`, each offer
documented as `{"provider", "gpu", "vram_gb", "usd_hr", "kind", "source_url", "fetched_at"}`
("Record schema (offers[])": `usd_hr` is USD per GPU per hour, also for machines of several GPUs;
`kind` "secure"/on-demand is firm, "community"/spot interruptible). Other keys are ignored.

The mapping, row by row (what README.md's "Prices" section documents):
- only firm on-demand offers count (FIRM_KINDS); reserved, spot, community, marketplace and
  serverless prices are not what a reader rents by the hour;
- the feed's GPU id names the catalog GPU by GPU_SLUGS; ids that do not name one form factor
  (`h100`, `a100`, `v100`) map to nothing;
- an offer whose memory is more than MEMORY_TOLERANCE off the catalog GPU's is another card;
- the providers of LEFT_OUT_PROVIDERS are skipped, each for the reason given;
- per catalog GPU, the cheapest offer wins (ties: the provider first in alphabetical order, then
  the newest reading: never the feed's order), with its provider, the day it was fetched and its
  source page; an offer fetched more than STALE_AFTER_DAYS days before today is not imported;
- a row that breaks the schema is skipped with one line saying why, never imported.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal

from generator.catalog.fields import PRICE
from generator.catalog.price_age import STALE_AFTER_DAYS, price_age_days, price_is_stale
from generator.catalog.records import Gpu
from generator.catalog.schema import https_url, plain_text, shown

FEED_URL = "https://raw.githubusercontent.com/adriannutiu/gpu-rental-prices/main/data/latest.json"
FEED_HOME = "https://github.com/adriannutiu/gpu-rental-prices"
FIRM_KINDS = frozenset({"on-demand", "secure"})
MEMORY_TOLERANCE = Decimal("0.10")  # B200 is sold as 180 and 192 GB, B300 as 268 to 288 GB
MAX_OFFERS = 100_000  # a day lists a few thousand

# The feed's GPU ids (its README: "normalized GPU id") → catalog slugs.
GPU_SLUGS = {
    "a10": "a10", "a100-sxm-40": "a100-40gb", "a100-sxm-80": "a100-80gb", "a40": "a40", "b200": "b200",
    "b300": "b300", "gb200": "gb200", "gb300": "gb300", "gh200": "gh200", "h100-nvl": "h100-nvl",
    "h100-pcie": "h100-pcie", "h100-sxm": "h100-sxm",
    "h200": "h200",  # the feed has an id of its own for the NVL card (h200-nvl): this is the SXM part
    "h200-nvl": "h200-nvl", "l4": "l4", "l40": "l40", "l40s": "l40s", "mi300x": "mi300x", "mi325x": "mi325x",
    "mi350x": "mi350x", "mi355x": "mi355x", "rtx-3090": "rtx-3090", "rtx-4060-ti-16gb": "rtx-4060-ti-16gb",
    "rtx-4070-ti-super": "rtx-4070-ti-super", "rtx-4090": "rtx-4090", "rtx-5060-ti-16gb": "rtx-5060-ti-16gb",
    "rtx-5070-ti": "rtx-5070-ti", "rtx-5080": "rtx-5080", "rtx-5090": "rtx-5090",
    "rtx-6000-ada": "rtx-6000-ada", "rtx-a4000": "rtx-a4000", "rtx-a5000": "rtx-a5000", "rtx-a6000": "rtx-a6000",
    "rtx-pro-4500": "rtx-pro-4500",
    # the server and workstation editions: the same 96 GB at 1,792 GB/s (not the 300 W Max-Q)
    "rtx-pro-6000": "rtx-pro-6000", "rtx-pro-6000-server": "rtx-pro-6000", "rtx-pro-6000-wk": "rtx-pro-6000",
    "t4": "t4",
}
# The names pages show for the feed's provider slugs.
PROVIDERS = {
    "aws": "AWS", "azure": "Azure", "baseten": "Baseten", "cerebrium": "Cerebrium", "coreweave": "CoreWeave",
    "crusoe": "Crusoe", "datacrunch": "DataCrunch", "daytona": "Daytona", "digitalocean": "DigitalOcean",
    "fal": "fal", "fireworks": "Fireworks", "gcp": "Google Cloud", "gmicloud": "GMI Cloud", "hotaisle": "Hot Aisle",
    "hyperstack": "Hyperstack", "impossiblecloud": "Impossible Cloud", "jarvislabs": "JarvisLabs", "koyeb": "Koyeb",
    "lambda": "Lambda", "latitude": "Latitude.sh", "lium": "Lium", "massedcompute": "Massed Compute",
    "modal": "Modal", "nebius": "Nebius", "ovh": "OVHcloud", "primeintellect": "Prime Intellect",
    "replicate": "Replicate", "runpod": "RunPod", "salad": "Salad", "scaleway": "Scaleway", "sfcompute": "SF Compute",
    "spheron": "Spheron",
    "synteq": "Synteq", "tensordock": "TensorDock", "thundercompute": "Thunder Compute", "together": "Together AI",
    "voltagepark": "Voltage Park", "vultr": "Vultr",
}
SECURE_NAMES = {"runpod": "RunPod Secure Cloud"}  # kind "secure": the provider's firm tier
LEFT_OUT_PROVIDERS = {
    "gcp": "its price is the GPU attached to a VM that is billed apart",
    "daytona": "its rows are the GPU's rate only, CPU, memory and disk billed apart",
    "primeintellect": "an aggregator's home page, not the price list of the cloud that rents the GPU",
}
DUPLICATE_KEY = "duplicate_key"  # the attribute price_feed.py gives an object with a key given twice
FETCHED_AT = re.compile(r"(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z")


@dataclass(frozen=True)
class Offer:
    index: int  # in the feed's offers list
    slug: str  # catalog GPU
    price: Decimal
    provider: str  # the feed's slug
    kind: str
    date: str  # the day it was fetched (UTC)
    source_url: str


class OfferFeedError(Exception):
    """The snapshot itself cannot be read (not one bad row: those are skipped)."""


def is_offer_snapshot(data: object) -> bool:
    return isinstance(data, dict) and "offers" in data


def provider_name(offer: Offer) -> str:
    if offer.kind == "secure" and offer.provider in SECURE_NAMES:
        return SECURE_NAMES[offer.provider]
    return PROVIDERS.get(offer.provider, offer.provider)


def cheapest_offers(data: dict, gpus: tuple[Gpu, ...], today: dt.date) -> tuple[list[Offer], list[str]]:
    """The cheapest firm on-demand offer of each catalog GPU the snapshot prices, and one line for
    each row skipped for a reason an editor should see (bad rows, other cards, stale offers, GPU
    ids of no catalog GPU)."""
    offers = data.get("offers")
    if not isinstance(offers, list):
        raise OfferFeedError(f"offers: must be a list of offers (got {shown(offers)})")
    if len(offers) > MAX_OFFERS:
        raise OfferFeedError(f"offers: more than {MAX_OFFERS:,}")
    by_slug = {gpu.slug: gpu for gpu in gpus}
    best: dict[str, Offer] = {}
    notes: list[str] = []
    missing: set[str] = set()  # mapped, but not in gpus.yaml
    for index, raw in enumerate(offers):
        offer, problem = _offer(index, raw, today)
        if problem:
            notes.append(f"offers[{index}]: {problem} (row skipped)")
            continue
        if offer is None:
            continue
        gpu = by_slug.get(offer.slug)
        if gpu is None:
            missing.add(offer.slug)
            continue
        memory = Decimal(str(raw["vram_gb"]))
        catalog_gb = Decimal(gpu.memory_bytes) / 10**9
        if abs(memory - catalog_gb) > MEMORY_TOLERANCE * catalog_gb:
            notes.append(f"offers[{index}]: {raw['gpu']} of {memory:f} GB is not the catalog's {gpu.name} of "
                         f"{catalog_gb:f} GB (row skipped)")
            continue
        if price_is_stale(offer.date, today):
            notes.append(f"offers[{index}]: {offer.slug} from {offer.provider}: fetched {offer.date}, "
                         f"{price_age_days(offer.date, today)} days ago (over {STALE_AFTER_DAYS}: row skipped)")
            continue
        held = best.get(offer.slug)
        if held is None or _rank(offer) < _rank(held):
            best[offer.slug] = offer
    if missing:
        notes.append(f"priced in the feed, not in gpus.yaml: {', '.join(sorted(missing))}")
    return sorted(best.values(), key=lambda offer: offer.slug), notes + _unmapped_line(offers)


def _rank(offer: Offer) -> tuple:
    """The cheapest first; then by provider, the newest reading, the tier and the page: never the
    feed's order."""
    return offer.price, offer.provider, -dt.date.fromisoformat(offer.date).toordinal(), offer.kind, offer.source_url


def _offer(index: int, raw: object, today: dt.date) -> tuple[Offer | None, str | None]:
    """(offer, None) for a firm offer of a mapped GPU; (None, None) for a valid row that does not
    count; (None, problem) for a row that breaks the schema."""
    if not isinstance(raw, dict):
        return None, f"must be an object (got {shown(raw)})"
    if getattr(raw, DUPLICATE_KEY, None) is not None:
        return None, f"{shown(getattr(raw, DUPLICATE_KEY))}: given twice (which one counts is not said)"
    for key in ("provider", "gpu", "kind"):
        try:
            plain_text(raw.get(key))
        except ValueError as error:
            return None, f"{key}: {error}"
    try:
        usd_hr = raw.get("usd_hr")
        if isinstance(usd_hr, bool) or not isinstance(usd_hr, (int, float)):  # a JSON number, as documented
            raise ValueError(f"must be a number from 0.0001 to 10^6 (got {shown(usd_hr)})")
        price = PRICE(round(usd_hr, 4))  # the feed's floats: 7.099199999999999 is 7.0992
    except ValueError as error:
        return None, f"usd_hr: {error}"
    memory = raw.get("vram_gb")
    if isinstance(memory, bool) or not isinstance(memory, (int, float)) or not 0 < memory <= 10_000:
        return None, f"vram_gb: must be a number of GB from 0 to 10,000 (got {shown(memory)})"
    try:
        source_url = https_url(raw.get("source_url"))
    except ValueError as error:
        return None, f"source_url: {error}"
    fetched = raw.get("fetched_at")
    match = FETCHED_AT.fullmatch(fetched) if isinstance(fetched, str) else None
    try:
        day = dt.date.fromisoformat(match.group(1)) if match else None
    except ValueError:
        day = None
    if day is None:
        return None, f"fetched_at: must be an ISO 8601 UTC time like 2026-10-10T08:47:03Z (got {shown(fetched)})"
    if day > today:
        return None, f"fetched_at: {day.isoformat()} is in the future (today is {today.isoformat()})"
    if raw["kind"] not in FIRM_KINDS or raw["provider"] in LEFT_OUT_PROVIDERS or raw["gpu"] not in GPU_SLUGS:
        return None, None
    return Offer(index, GPU_SLUGS[raw["gpu"]], price, raw["provider"], raw["kind"], day.isoformat(), source_url), None


def _unmapped_line(offers: list) -> list[str]:
    """The feed's GPU ids with firm offers that name no catalog GPU, in one line (a card to add, or
    an id to map)."""
    ids = sorted({raw["gpu"] for raw in offers if isinstance(raw, dict) and isinstance(raw.get("gpu"), str)
                  and isinstance(raw.get("kind"), str) and raw["kind"] in FIRM_KINDS and raw["gpu"] not in GPU_SLUGS})
    return [f"GPU ids mapped to no catalog GPU (GPU_SLUGS in price_offers.py): {', '.join(shown(i) for i in ids)}"] if ids else []
