"""What the operator's own platform serves: its GPU types in the machine shapes it has in stock, at
its price (inventory.yaml). Pure choices over records, as setups.py makes over the market's."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from math import log
from typing import Iterable, TypeVar

from generator.catalog.records import Gpu, Inventory
from generator.sizing.setups import MAX_MACHINES, Setup, cheapest, machine_plan

T = TypeVar("T")


def stock_gpus(gpus: tuple[Gpu, ...], inventory: Inventory) -> tuple[tuple[Gpu, bool], ...]:
    """Each GPU type in stock as the operator rents it, in the inventory's order: the catalog's card
    with the stock's machine shapes and the operator's price (none: on request), and whether
    machines of it can be joined into one setup."""
    by_slug = {gpu.slug: gpu for gpu in gpus}
    return tuple((replace(by_slug[offer.gpu], machine_shapes=offer.machines, price_per_gpu_hour=offer.price_per_gpu_hour,
                          price_provider=None, price_date=offer.date, price_stale=offer.stale), offer.multi_node)
                 for offer in inventory.offers if offer.gpu in by_slug)


Offered = tuple[tuple[Gpu, bool], ...]  # stock_gpus: each GPU type in stock, and whether its machines join


def cheapest_in_stock(candidates: Iterable[tuple[Setup, T]]) -> T | None:
    """Of (setup, value) pairs of the stock, the value of the cheapest (setups.cheapest: single
    machines first); where only setups priced on request qualify, of the one of fewest GPUs (single
    machines first, then the inventory's order); else None."""
    candidates = list(candidates)
    on_request = [(setup, value) for setup, value in candidates if setup.price_per_hour is None]
    found = cheapest(candidates)
    if found is not None or not on_request:
        return found
    return min(on_request, key=lambda pair: (pair[0].machines > 1, pair[0].total_gpus))[1]


def offered_setup(required_bytes: int, offered: Offered, usable: Fraction = Fraction(1)) -> Setup | None:
    """The cheapest setup in stock whose usable memory holds `required_bytes`: one machine of a shape
    in stock, or, of a GPU type whose machines the operator joins, as many of its largest as it
    takes, up to MAX_MACHINES (cheapest_in_stock); else None."""
    plans = ((machine_plan(required_bytes, gpu, usable), joined) for gpu, joined in offered)
    return cheapest_in_stock((setup, setup) for setup, joined in plans
                             if setup.machines == 1 or (joined and setup.machines <= MAX_MACHINES))


def in_stock_setup(required_bytes: int, gpus: tuple[Gpu, ...], inventory: Inventory,
                   usable: Fraction = Fraction(1)) -> Setup | None:
    """offered_setup over the inventory's stock (stock_gpus)."""
    return offered_setup(required_bytes, stock_gpus(gpus, inventory), usable)


def highest_held(serving_bytes: dict[int, int], gpus: tuple[Gpu, ...], inventory: Inventory) -> tuple[int, Setup] | None:
    """The highest precision (bits) whose serving memory a setup in stock holds, and that setup."""
    for bits in sorted(serving_bytes, reverse=True):
        setup = in_stock_setup(serving_bytes[bits], gpus, inventory)
        if setup is not None:
            return bits, setup
    return None


def closest_first(params: int, family: str, candidates: list[tuple[str, int, T]], count: int) -> list[T]:
    """Of (family, parameters, item) candidates, the `count` that come closest to a model of `params`
    parameters: its own family first, then by how many times larger or smaller they are."""
    def distance(candidate: tuple[str, int, T]) -> tuple[bool, float]:
        other_family, other_params, _ = candidate
        return other_family != family, abs(log(other_params / params))
    return [item for _, _, item in sorted(candidates, key=distance)[:count]]


def largest_node(gpus: tuple[Gpu, ...], inventory: Inventory) -> Setup | None:
    """The one machine in stock with the most GPU memory (ties: the inventory's order), or None."""
    machines = [Setup(gpu, gpu.machine_shapes[-1]) for gpu, _ in stock_gpus(gpus, inventory)]
    return max(machines, key=lambda setup: setup.memory_bytes, default=None)
