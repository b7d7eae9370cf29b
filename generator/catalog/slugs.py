"""Slugs: the lowercase [a-z0-9-] names of model pages and GPUs, made from catalog names."""

from __future__ import annotations

import re


def slugify(name: str) -> str:
    """`Kimi-K3` -> `kimi-k3`: lowercase, runs of anything but [a-z0-9] become one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
