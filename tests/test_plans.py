"""The smallest-setup choice: cheapest machine whose memory holds the requirement."""

from decimal import Decimal

import pytest

from generator.sizing.setups import Setup, gpus_needed, smallest_setup
from generator.catalog.records import Gpu

GB = 10**9


def gpu(slug, memory_gb, price, shapes=(1, 2, 4, 8)):
    return Gpu(
        slug=slug,
        name=slug.upper(),
        vendor="Test",
        memory_bytes=memory_gb * GB,
        machine_shapes=tuple(shapes),
        price_per_gpu_hour=None if price is None else Decimal(price),
    )


SMALL = gpu("small", 24, "0.34")
MEDIUM = gpu("medium", 80, "2.69")
LARGE = gpu("large", 288, "4.60")
UNPRICED = gpu("unpriced", 256, None)
ONE_OR_EIGHT = gpu("one-or-eight", 192, "2.39", shapes=(1, 8))


@pytest.mark.parametrize(
    "required_gb, gpus, expected",
    [
        # exact fit: memory equal to the requirement holds it
        (24, (SMALL,), ("small", 1, "0.34")),
        (48, (SMALL,), ("small", 2, "0.68")),
        # just above a shape: the next shape up
        (49, (SMALL,), ("small", 4, "1.36")),
        # the cheapest hourly price wins over the fewest GPUs
        (80, (MEDIUM, SMALL), ("small", 4, "1.36")),
        # the seed page: 1,668 GB at 4 bits -> 8 × B300 at US$ 36.80
        (1_668, (SMALL, MEDIUM, LARGE, UNPRICED, ONE_OR_EIGHT), ("large", 8, "36.80")),
        # GPUs without a known price never compete
        (2_000, (UNPRICED,), None),
        # machine shapes are respected: 2 × 192 GB is not offered, so 8 of them
        (300, (ONE_OR_EIGHT,), ("one-or-eight", 8, "19.12")),
        # nothing fits in one machine
        (6_672, (SMALL, MEDIUM, LARGE, ONE_OR_EIGHT), None),
    ],
)
def test_smallest_setup(required_gb, gpus, expected):
    setup = smallest_setup(required_gb * GB, gpus)
    if expected is None:
        assert setup is None
    else:
        slug, count, price = expected
        assert (setup.gpu.slug, setup.gpus_per_machine, setup.price_per_hour) == (slug, count, Decimal(price))
        assert setup.memory_bytes >= required_gb * GB


def test_equal_prices_go_to_fewer_gpus():
    two_small = gpu("two-small", 40, "1.00")
    one_big = gpu("one-big", 80, "2.00")
    # 2 × 40 GB at $1.00 and 1 × 80 GB at $2.00 both cost $2.00 per hour: one GPU wins,
    # whatever the catalog order.
    for order in ((two_small, one_big), (one_big, two_small)):
        setup = smallest_setup(80 * GB, order)
        assert (setup.gpu.slug, setup.gpus_per_machine) == ("one-big", 1)


def test_equal_price_and_count_keep_catalog_order():
    first, second = gpu("first", 80, "1.00"), gpu("second", 80, "1.00")
    assert smallest_setup(80 * GB, (first, second)).gpu.slug == "first"
    assert smallest_setup(80 * GB, (second, first)).gpu.slug == "second"


@pytest.mark.parametrize(
    "required_gb, expected", [(1, 1), (192, 1), (193, 8), (1_536, 8), (1_537, None)]
)
def test_gpus_needed_uses_the_machine_shapes(required_gb, expected):
    assert gpus_needed(required_gb * GB, ONE_OR_EIGHT) == expected


def test_setup_price_is_per_machine():
    assert Setup(LARGE, 8).price_per_hour == Decimal("36.80")
    assert Setup(UNPRICED, 8).price_per_hour is None
