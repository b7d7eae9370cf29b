"""The catalog's typed, immutable records. Nothing here reads files or formats text."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType
from typing import Mapping


@dataclass(frozen=True)
class Source:
    """Where a fact comes from: a URL or a precise citation, and an optional remark."""

    citation: str  # one or more citations separated by " ; "
    note: str | None = None

    @property
    def parts(self) -> tuple[tuple[str, bool], ...]:
        """Each citation, and whether it is a plain https URL (pages show those as links)."""
        pieces = (piece.strip() for piece in self.citation.split(" ; "))
        return tuple((p, p.startswith("https://") and " " not in p) for p in pieces if p)


def _no_sources() -> Mapping[str, Source]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Model:
    id: str  # Hugging Face repo id, e.g. "moonshotai/Kimi-K3"
    name: str
    slug: str
    weights_url: str
    params: int  # total parameters, exact where published
    active_params: int | None = None  # mixture-of-experts only
    experts: int | None = None  # routed experts
    experts_per_token: int | None = None
    context_window: int | None = None  # tokens
    precision: str | None = None  # format of the published checkpoint
    license: str | None = None
    release_date: str | None = None  # ISO 8601
    sources: Mapping[str, Source] = field(default_factory=_no_sources)  # field -> provenance

    @property
    def is_mixture_of_experts(self) -> bool:
        return self.experts is not None


@dataclass(frozen=True)
class Gpu:
    slug: str
    name: str
    vendor: str
    memory_bytes: int
    machine_shapes: tuple[int, ...]  # GPUs per rentable machine, ascending (e.g. 1, 2, 4, 8)
    memory_type: str | None = None
    bandwidth_bytes_per_second: int | None = None
    interconnect: str | None = None
    price_per_gpu_hour: Decimal | None = None  # in the site's currency; None: not known
    price_provider: str | None = None
    price_date: str | None = None
    sources: Mapping[str, Source] = field(default_factory=_no_sources)


@dataclass(frozen=True)
class Site:
    brand: str
    base_url: str  # absolute, ends with "/"
    console_url: str  # pattern with "{id}"
    languages: tuple[str, ...]  # first one is the default
    currency: str
    prices_date: str  # ISO 8601: the date the prices were read


@dataclass(frozen=True)
class Catalog:
    site: Site
    gpus: tuple[Gpu, ...]
    models: tuple[Model, ...]
