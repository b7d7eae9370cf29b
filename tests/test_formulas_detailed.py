"""The detailed sizing of a tiny dense model on two small GPUs: every figure worked out by hand."""

from dataclasses import replace
from decimal import Decimal

import pytest

from generator.sizing.detailed import detailed_sizing
from generator.sizing.kv_cache import KvCache
from generator.sizing.speed import TokenRead
from tests.formula_records import arch, by_component, gpu, model

# The base dense model with a wide MLP (16 × 10,000) stored in FP8, a 40,000-token context.
# Parameters: embeddings 1,600; attention 1,920; MLP 16 × 10,000 × 3 × 2 = 960,000; norms 80;
# head 1,600 → 965,200.
# Bytes per format:
#   bf16   965,200 × 2                                                        = 1,930,400
#   native attention 3,840 + MLP 960,000 + 474 blocks × 4 = 961,896 + 6,560    =   972,296
#          (16 × 10,000: 1 row block × 79 col blocks × 6 tensors = 474)
#   fp8    attention 1,952 + 961,896 + 6,560                                   =   970,408
#   4bit   attention 1,064 + MLP 480,000 + 60,000 scales + 6,560               =   547,624
#   2bit   attention 1,952 + MLP 240,000 + 60,000 × 2 + 6,560                   =   368,512
# (6,560: the BF16 embeddings 3,200, norms 160 and head 3,200.)
# KV: 2 layers × 2 × 1 KV head × 6 = 24 values a token: 48 bytes at 16 bits, 24 at 8.
DENSE = model(
    arch(intermediate_size=10_000, formats={"dense_mlp": "fp8_block128"}),
    params=965_200,
    context_window=40_000,
)
# Serving needs 972,296 + 48 × 40,000 = 2,892,296 bytes, in 90 % of the memory:
#   A: 4 × 600,001 × 0.9 = 2,160,003.6 is short, 8 GPUs hold it: 8 × $0.50 = $4.00 an hour
#   B: 4 × 486,000 × 0.9 = 1,749,600 is short, 8 GPUs hold it: 8 × $0.60 = $4.80 an hour
GPU_A = gpu("a", 600_001, price="0.50", bandwidth=635_490)
GPU_B = gpu("b", 486_000, price="0.60")
GPUS = (GPU_A, GPU_B)


@pytest.fixture(scope="module")
def detail():
    return detailed_sizing(DENSE, GPUS)


def test_weights(detail):
    assert detail.params_by_component == by_component(
        embeddings=1_600, attention=1_920, dense_mlp=960_000, router_and_norms=80, output_head=1_600
    )
    assert detail.native_bytes_by_component == by_component(
        embeddings=3_200, attention=3_840, dense_mlp=961_896, router_and_norms=160, output_head=3_200
    )
    assert detail.native_bytes == 972_296
    assert [(f.key, f.bytes) for f in detail.formats] == [
        ("bf16", 1_930_400),
        ("native", 972_296),
        ("fp8", 970_408),
        ("4bit", 547_624),
        ("2bit", 368_512),
    ]


def test_kv_cache(detail):
    assert (detail.kv16, detail.kv8) == (KvCache(48, 0, 0, 0), KvCache(24, 0, 0, 0))
    assert detail.context == 40_000
    assert detail.kv16_full_context_bytes == 1_920_000  # 48 × 40,000
    assert detail.kv8_full_context_bytes == 960_000  # 24 × 40,000


def test_capacity(detail):
    capacity = detail.capacity
    assert (capacity.setup.gpu, capacity.setup.gpus_per_machine, capacity.setup.machines) == (GPU_A, 8, 1)
    assert capacity.weights_bytes == 972_296
    assert capacity.overhead_bytes == 480_001  # 10 % of 8 × 600,001 = 480,000.8, rounded
    assert capacity.room.bytes == 3_347_711  # 4,800,008 - 480,001 - 972,296
    assert capacity.room.tokens == 69_743  # 3,347,711 // 48
    assert capacity.room.users_full_context == 1  # 3,347,711 // 1,920,000
    assert capacity.room.users_short_context == 2  # 3,347,711 // (48 × 32,768 = 1,572,864)
    assert capacity.tensor_parallel_ok is False  # 4 query heads do not split over 8 GPUs


def test_headline_rooms(detail):
    rooms = [(r.bits, r.serving_bytes, r.weights_bytes, r.room.bytes, r.room.tokens, r.room.users_full_context)
             for r in detail.headline_rooms]
    assert rooms == [
        # 965,200 × 2.4 = 2,316,480 - 1,930,400 (bf16) = 386,080 → 386,080 // 48 = 8,043 tokens
        (16, 2_316_480, 1_930_400, 386_080, 8_043, 0),
        # 965,200 × 0.6 = 579,120 - 547,624 (4bit) = 31,496 → 31,496 // 48 = 656 tokens
        (4, 579_120, 547_624, 31_496, 656, 0),
    ]


def test_gpu_rows(detail):
    rows = [(row.gpu, row.for_weights, (row.plan.gpus_per_machine, row.plan.machines), row.tensor_parallel_ok)
            for row in detail.gpu_rows]
    assert rows == [
        # ceil(1,930,400 / 600,001) = 4, ceil(970,408 / 600,001) = 2, ceil(972,296 / 600,001) = 2,
        # ceil(547,624 / 600,001) = 1
        (GPU_A, {"bf16": 4, "fp8": 2, "native": 2, "4bit": 1}, (8, 1), False),
        # / 486,000: 3.97 → 4, 1.997 → 2, 2.0006 → 3, 1.13 → 2
        (GPU_B, {"bf16": 4, "fp8": 2, "native": 3, "4bit": 2}, (8, 1), False),
    ]


def test_speed(detail):
    speed = detail.speed
    assert speed.context == 32_768  # the short context, below the 40,000 window
    # resident: attention 3,840 + MLP 961,896 + norms 160 + head 3,200 (embeddings not read);
    # KV 48 × 32,768
    assert speed.read == TokenRead(resident_bytes=969_096, expert_bytes=0, kv_bytes=1_572_864)
    assert speed.tokens_per_second == pytest.approx(2.0, rel=1e-12)  # 8 × 635,490 / 2,541,960
    assert speed.offload == {}  # a dense model has no experts to offload
    assert speed.price_per_hour == Decimal("4.00")
    assert str(speed.price_per_million_tokens) == "555.56"  # 4.00 × 10^6 / 7,200 tokens an hour


def test_a_gpu_that_holds_it_alone():
    # 4,000,000 × 0.9 holds 2,892,296: one GPU, whose bandwidth is not known
    big = gpu("big", 4_000_000, price="4.50")
    detail = detailed_sizing(DENSE, (big,))
    capacity = detail.capacity
    assert (capacity.setup.gpus_per_machine, capacity.setup.machines) == (1, 1)
    assert capacity.overhead_bytes == 400_000
    assert capacity.room.bytes == 2_627_704  # 4,000,000 - 400,000 - 972,296
    assert capacity.room.tokens == 54_743  # 2,627,704 // 48
    assert (capacity.room.users_full_context, capacity.room.users_short_context) == (1, 1)
    assert capacity.tensor_parallel_ok is True
    assert detail.speed is None
    assert detail.gpu_rows[0].for_weights == {"bf16": 1, "fp8": 1, "native": 1, "4bit": 1}


def test_no_priced_gpu_means_no_capacity():
    detail = detailed_sizing(DENSE, (gpu("unpriced", 600_001, bandwidth=1),))
    assert (detail.capacity, detail.speed) == (None, None)
    row = detail.gpu_rows[0]
    assert (row.plan.gpus_per_machine, row.plan.machines, row.for_weights["bf16"]) == (8, 1, 4)


def test_a_model_without_context_window_uses_32768_tokens():
    detail = detailed_sizing(replace(DENSE, context_window=None), GPUS)
    assert detail.context == 32_768
    assert detail.kv16_full_context_bytes == 1_572_864  # 48 × 32,768
    assert detail.kv8_full_context_bytes == 786_432
    # still 8 × A (needs 972,296 + 1,572,864 = 2,545,160 > 2,160,003.6)
    assert (detail.capacity.setup.gpu, detail.capacity.setup.gpus_per_machine) == (GPU_A, 8)
    assert (detail.capacity.room.users_full_context, detail.capacity.room.users_short_context) == (2, 2)


@pytest.mark.parametrize(
    "params, context, expected",
    [
        # a 1,000-token context (48,000 bytes): 386,080 // 48,000 = 8 users at 16 bits, 0 at 4
        pytest.param(965_200, 1_000, [(386_080, 8_043, 8), (31_496, 656, 0)], id="short-context"),
        # 500,000 parameters: 1,200,000 - 1,930,400 and 300,000 - 547,624, no room at all
        pytest.param(500_000, 1_000, [(-730_400, 0, 0), (-247_624, 0, 0)], id="negative-room"),
    ],
)
def test_headline_room_users_and_negative_room(params, context, expected):
    detail = detailed_sizing(replace(DENSE, params=params, context_window=context), GPUS)
    rooms = [(r.room.bytes, r.room.tokens, r.room.users_full_context) for r in detail.headline_rooms]
    assert rooms == expected
