"""GPU counts, machine plans, the cheapest setup and parallel sizes: hand-computed tables."""

from decimal import Decimal
from fractions import Fraction

import pytest

from generator.sizing.setups import (
    Setup,
    cheapest_setup,
    gpus_for_weights,
    gpus_needed,
    machine_plan,
    parallel_sizes,
    tensor_parallel_fits,
)
from tests.formula_records import arch, gpu, gqa, linear, mla

NINE_TENTHS = Fraction(9, 10)
G100 = gpu("g100", 100, price="1.00")  # 100 bytes a GPU; machines of 1, 2, 4 or 8
ONE_OR_EIGHT = gpu("one-or-eight", 100, price="1.00", shapes=(1, 8))
UP_TO_FOUR = gpu("up-to-four", 100, price="1.00", shapes=(1, 2, 4))
PAIRS = gpu("pairs", 100, price="1.00", shapes=(2, 4))


@pytest.mark.parametrize(
    "required, device, usable, expected",
    [
        pytest.param(0, G100, 1, 1, id="nothing-still-one-gpu"),
        pytest.param(100, G100, 1, 1, id="exactly-one"),
        pytest.param(101, G100, 1, 2, id="one-byte-more"),
        pytest.param(201, G100, 1, 4, id="just-over-two"),
        pytest.param(401, G100, 1, 8, id="just-over-four"),
        pytest.param(800, G100, 1, 8, id="exactly-eight"),
        pytest.param(801, G100, 1, None, id="no-machine-holds-it"),
        pytest.param(90, G100, NINE_TENTHS, 1, id="usable-exactly-90"),  # 100 × 0.9
        pytest.param(91, G100, NINE_TENTHS, 2, id="usable-91"),
        pytest.param(181, G100, NINE_TENTHS, 4, id="usable-over-180"),
        pytest.param(720, G100, NINE_TENTHS, 8, id="usable-exactly-720"),  # 8 × 90
        pytest.param(721, G100, NINE_TENTHS, None, id="usable-over-720"),
        pytest.param(101, ONE_OR_EIGHT, 1, 8, id="shapes-skip-two-and-four"),
        pytest.param(1, PAIRS, 1, 2, id="smallest-shape-is-two"),
    ],
)
def test_gpus_needed(required, device, usable, expected):
    assert gpus_needed(required, device, usable) == expected


def test_gpus_needed_defaults_to_all_the_memory():
    assert gpus_needed(100, G100) == 1
    assert gpus_needed(800, G100) == 8


@pytest.mark.parametrize(
    "weights, expected",
    [
        pytest.param(0, 0, id="none"),
        pytest.param(1, 1, id="one-byte"),
        pytest.param(100, 1, id="exactly-one"),
        pytest.param(101, 2, id="ceil"),
        pytest.param(1_000, 10, id="beyond-the-largest-machine"),
        pytest.param(1_001, 11, id="beyond-and-ceil"),
    ],
)
def test_gpus_for_weights(weights, expected):
    assert gpus_for_weights(weights, G100) == expected


@pytest.mark.parametrize(
    "required, device, usable, expected",
    [
        pytest.param(300, G100, 1, (4, 1), id="one-machine-of-four"),
        pytest.param(800, G100, 1, (8, 1), id="one-full-machine"),
        pytest.param(801, G100, 1, (8, 2), id="two-machines"),  # ceil(801 / 800)
        pytest.param(1_600, G100, 1, (8, 2), id="exactly-two-machines"),
        pytest.param(1_601, G100, 1, (8, 3), id="three-machines"),
        pytest.param(721, G100, NINE_TENTHS, (8, 2), id="usable-two-machines"),  # ceil(721 / 720)
        pytest.param(1_440, G100, NINE_TENTHS, (8, 2), id="usable-exactly-two"),
        pytest.param(1_441, G100, NINE_TENTHS, (8, 3), id="usable-three"),
        pytest.param(401, UP_TO_FOUR, 1, (4, 2), id="largest-machine-of-four"),  # ceil(401 / 400)
        pytest.param(361, UP_TO_FOUR, NINE_TENTHS, (4, 2), id="largest-of-four-usable"),  # ceil(361 / 360)
    ],
)
def test_machine_plan(required, device, usable, expected):
    plan = machine_plan(required, device, usable)
    assert (plan.gpu, plan.gpus_per_machine, plan.machines) == (device, *expected)


def test_machine_plan_defaults_to_all_the_memory():
    full, over = machine_plan(800, G100), machine_plan(801, G100)
    assert ((full.gpus_per_machine, full.machines), (over.gpus_per_machine, over.machines)) == ((8, 1), (8, 2))


def test_setup_totals():
    device = gpu("priced", 100, price="1.25", bandwidth=1_000)
    setup = Setup(device, 4, machines=3)
    assert setup.total_gpus == 12
    assert setup.memory_bytes == 1_200  # 12 × 100
    assert setup.bandwidth_per_machine == 4_000  # 4 × 1,000: one machine's GPUs
    assert setup.price_per_hour == Decimal("15.00")  # 12 × 1.25
    assert Setup(device, 2).machines == 1


def test_setup_without_bandwidth_or_price():
    setup = Setup(gpu("unknown", 100), 8)
    assert (setup.bandwidth_per_machine, setup.price_per_hour) == (None, None)


CHEAP = gpu("cheap", 100, price="1.00")
PRICEY = gpu("pricey", 200, price="3.00")
WIDE = gpu("wide", 150, price="1.50")
UNPRICED = gpu("unpriced", 1_000)
FOUR_MAX = gpu("four-max", 500, price="0.50", shapes=(1, 2, 4))
BIG_ONE = gpu("big-one", 1_000, price="50.00", shapes=(1,))
TWO_SMALL = gpu("two-small", 100, price="1.00")
ONE_BIG = gpu("one-big", 200, price="2.00")
FIRST = gpu("first", 100, price="1.00")
SECOND = gpu("second", 100, price="1.00")


@pytest.mark.parametrize(
    "required, gpus, usable, multi_node, expected",
    [
        # 2 × $1.00 beats 1 × $3.00
        pytest.param(200, (CHEAP, PRICEY), 1, False, ("cheap", 2, 1), id="cheaper-beats-fewer-gpus"),
        pytest.param(200, (PRICEY,), 1, False, ("pricey", 1, 1), id="only-one-gpu-kind"),
        # 4 × $1.00 beats 2 × $3.00
        pytest.param(250, (PRICEY, CHEAP), 1, False, ("cheap", 4, 1), id="order-does-not-matter"),
        # $2.00 either way: one GPU wins, whatever the catalog order
        pytest.param(200, (TWO_SMALL, ONE_BIG), 1, False, ("one-big", 1, 1), id="tie-fewer-gpus"),
        pytest.param(200, (ONE_BIG, TWO_SMALL), 1, False, ("one-big", 1, 1), id="tie-fewer-gpus-reversed"),
        pytest.param(100, (FIRST, SECOND), 1, False, ("first", 1, 1), id="full-tie-catalog-order"),
        pytest.param(100, (SECOND, FIRST), 1, False, ("second", 1, 1), id="full-tie-catalog-order-reversed"),
        pytest.param(150, (UNPRICED, CHEAP), 1, False, ("cheap", 2, 1), id="unpriced-skipped"),
        pytest.param(150, (UNPRICED,), 1, False, None, id="only-unpriced"),
        pytest.param(150, (UNPRICED,), 1, True, None, id="only-unpriced-multi-node"),
        pytest.param(90, (CHEAP,), NINE_TENTHS, False, ("cheap", 1, 1), id="usable-fits-one"),
        pytest.param(91, (CHEAP,), NINE_TENTHS, False, ("cheap", 2, 1), id="usable-needs-two"),
        pytest.param(900, (CHEAP,), 1, False, None, id="nothing-fits-one-machine"),
        pytest.param(900, (CHEAP,), 1, True, ("cheap", 8, 2), id="multi-node"),  # ceil(900 / 800)
        # largest machine of 4 GPUs: never grouped
        pytest.param(2_001, (FOUR_MAX,), 1, True, None, id="multi-node-needs-8-gpu-machines"),
        pytest.param(2_001, (FOUR_MAX, CHEAP), 1, True, ("cheap", 8, 3), id="multi-node-skips-4-gpu-machines"),
        # one machine at $50 beats two machines at $16
        pytest.param(900, (CHEAP, BIG_ONE), 1, True, ("big-one", 1, 1), id="one-machine-before-several"),
        # 3 × 8 × $1.00 = $24 beats 2 × 8 × $3.00 = $48
        pytest.param(1_700, (PRICEY, CHEAP), 1, True, ("cheap", 8, 3), id="multi-node-cheapest"),
        # 3 × 8 × $1.00 = $24 ties 2 × 8 × $1.50 = $24: 16 GPUs beat 24
        pytest.param(1_700, (CHEAP, WIDE), 1, True, ("wide", 8, 2), id="multi-node-tie-fewer-gpus"),
        pytest.param(1_500, (CHEAP,), NINE_TENTHS, True, ("cheap", 8, 3), id="multi-node-usable"),  # ceil(1,500 / 720)
    ],
)
def test_cheapest_setup(required, gpus, usable, multi_node, expected):
    setup = cheapest_setup(required, gpus, usable, multi_node=multi_node)
    if expected is None:
        assert setup is None
    else:
        assert (setup.gpu.slug, setup.gpus_per_machine, setup.machines) == expected


def test_cheapest_setup_defaults_to_one_machine_and_all_the_memory():
    assert cheapest_setup(800, (CHEAP,)).gpus_per_machine == 8
    assert cheapest_setup(801, (CHEAP,)) is None


@pytest.mark.parametrize(
    "architecture, size, fits",
    [
        pytest.param(arch(attention=gqa(heads=6, kv_heads=6)), 1, True, id="one-gpu"),
        pytest.param(arch(attention=gqa(heads=8, kv_heads=8)), 4, True, id="kv-heads-divide"),
        pytest.param(arch(attention=gqa(heads=8, kv_heads=2)), 4, True, id="kv-heads-divide-the-size"),
        pytest.param(arch(attention=gqa(heads=8, kv_heads=4)), 8, True, id="kv-heads-copied"),
        pytest.param(arch(attention=gqa(heads=6, kv_heads=6)), 4, False, id="query-heads-do-not-split"),
        pytest.param(arch(attention=gqa(heads=12, kv_heads=3)), 2, False, id="kv-3-over-2"),
        pytest.param(arch(attention=gqa(heads=12, kv_heads=3)), 3, True, id="kv-3-over-3"),
        pytest.param(arch(attention=gqa(heads=12, kv_heads=6)), 4, False, id="kv-6-over-4"),
        pytest.param(arch(attention=mla(heads=8)), 8, True, id="mla-heads"),
        pytest.param(arch(attention=mla(heads=8)), 3, False, id="mla-heads-do-not-split"),
        pytest.param(arch(attention=mla(heads=12)), 3, True, id="mla-has-no-kv-heads"),
        # linear attention: 4 key heads and 6 value heads must both split
        pytest.param(
            arch(attention=gqa(heads=12, kv_heads=12), linear_attention=linear(key_heads=4, value_heads=6)),
            2,
            True,
            id="linear-both-split",
        ),
        pytest.param(
            arch(attention=gqa(heads=12, kv_heads=12), linear_attention=linear(key_heads=4, value_heads=6)),
            4,
            False,
            id="linear-value-heads-do-not-split",
        ),
        pytest.param(
            arch(attention=gqa(heads=12, kv_heads=12), linear_attention=linear(key_heads=4, value_heads=6)),
            3,
            False,
            id="linear-key-heads-do-not-split",
        ),
    ],
)
def test_tensor_parallel_fits(architecture, size, fits):
    assert tensor_parallel_fits(architecture, size) is fits


@pytest.mark.parametrize(
    "architecture, setup, expected",
    [
        pytest.param(arch(attention=gqa(heads=8, kv_heads=8)), Setup(G100, 8), (8, 1), id="whole-machine"),
        pytest.param(arch(attention=gqa(heads=8, kv_heads=8)), Setup(G100, 1), (1, 1), id="one-gpu"),
        # 8 does not split 12 heads: tensor 4, two pipeline stages
        pytest.param(arch(attention=gqa(heads=12, kv_heads=4)), Setup(G100, 8), (4, 2), id="pipeline-fallback"),
        # of 1, 2, 3, 6: 6 and 3 fail the 4 KV heads
        pytest.param(arch(attention=gqa(heads=12, kv_heads=4)), Setup(G100, 6), (2, 3), id="six-gpus"),
        pytest.param(arch(attention=gqa(heads=8, kv_heads=8)), Setup(G100, 8, 3), (8, 3), id="machines-are-stages"),
        # 6 heads over 4 GPUs: tensor 2, and 2 × 2 machines / 2 = 4 stages
        pytest.param(arch(attention=gqa(heads=6, kv_heads=6)), Setup(G100, 4, 2), (2, 4), id="both"),
        pytest.param(arch(attention=mla(heads=8)), Setup(G100, 8), (8, 1), id="mla"),
    ],
)
def test_parallel_sizes(architecture, setup, expected):
    sizes = parallel_sizes(architecture, setup)
    assert sizes == expected
    assert all(type(size) is int for size in sizes)  # they go into launch commands as written
