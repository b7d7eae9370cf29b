"""How old a GPU's price is, and when it counts as stale.

A price is stale when it was read more than STALE_AFTER_DAYS days before a reference date: on the
pages, site.yaml's `prices_date` (the day the catalog's prices were read, so the same content gives
the same pages); in `check`, today (what an editor should refresh now).
"""

from __future__ import annotations

import datetime as dt

from generator.catalog.records import STALE_AFTER_DAYS

__all__ = ["STALE_AFTER_DAYS", "price_age_days", "price_is_stale"]


def price_age_days(price_date: str, as_of: str | dt.date) -> int:
    """Whole days from the price's reading to `as_of` (negative when the price is newer)."""
    reference = as_of if isinstance(as_of, dt.date) else dt.date.fromisoformat(as_of)
    return (reference - dt.date.fromisoformat(price_date)).days


def price_is_stale(price_date: str | None, as_of: str | dt.date) -> bool:
    return price_date is not None and price_age_days(price_date, as_of) > STALE_AFTER_DAYS
