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


def test_headline_rooms(detail):
    rooms = [(r.bits, r.serving_bytes, r.weights_bytes, r.room.bytes, r.room.tokens, r.room.users_full_context)
             for r in detail.headline_rooms]
    assert rooms == [
        # 965,200 × 2.4 = 2,316,480 - 1,930,400 (bf16) = 386,080 → 386,080 // 48 = 8,043 tokens
        (16, 2_316_480, 1_930_400, 386_080, 8_043, 0),
        # 965,200 × 0.6 = 579,120 - 547,624 (4bit) = 31,496 → 31,496 // 48 = 656 tokens
        (4, 579_120, 547_624, 31_496, 656, 0),
    ]


def test_gpus_for_the_weights_alone(detail):
    assert [row.for_weights for row in detail.gpu_rows] == [
        # ceil(1,930,400 / 600,001) = 4, ceil(970,408 / 600,001) = 2, ceil(972,296 / 600,001) = 2,
        # ceil(547,624 / 600,001) = 1
        {"bf16": 4, "fp8": 2, "native": 2, "4bit": 1},
        # / 486,000: 3.97 → 4, 1.997 → 2, 2.0006 → 3, 1.13 → 2
        {"bf16": 4, "fp8": 2, "native": 3, "4bit": 2},
    ]


# Setups come from the engine-true planner (its arithmetic: tests/test_formulas_planner.py). A model
# big enough for GiB-sized GPUs: 40 layers of hidden 4,096 and MLP 16,384, 16-bit, 40,000 tokens.
#   bytes: embeddings 100 × 4,096 × 2 = 819,200; attention 40 × (98,304 + 49,152 + 98,304) × 2 =
#   19,660,800; MLP 40 × 3 × 4,096 × 16,384 × 2 = 16,106,127,360; norms 81 × 4,096 × 2 = 663,552;
#   head 819,200 → 16,128,090,112. Loaded on one GPU the vocabulary is padded to 128 rows
#   (1,048,576 bytes each for embeddings and head): 16,128,548,864.
#   KV: 40 layers × 2 × 1 head × 6 × 2 B = 960 bytes a token; a block of 16 tokens 15,360 bytes.
BIG = model(arch(layers=40, hidden_size=4_096, intermediate_size=16_384), context_window=40_000)
GIB = 2**30
# 16 GiB: 0.9 of it, 15,461,882,266 bytes, is less than the weights; on 2 GPUs each loads
#   8,066,572,288 (half of all but the copied KV head and the norms) and starts.
GPU_16 = gpu("sixteen", 16 * GIB, price="0.50")
# 24 GiB: one GPU starts: ceil(0.9 × 25,769,803,776) = 23,192,823,399 - 16,128,548,864 of weights
#   - 268,435,456 of activations (2,048 tokens × 2 B × (3 × 16,384 + 4 × 4,096)) - 536,870,912 of
#   CUDA graphs - 139,586,437 outside PyTorch = 6,119,381,730 for the KV cache.
GPU_24 = gpu("twenty-four", 24 * GIB, price="0.90", bandwidth=10**12)
GPU_80 = gpu("eighty", 80 * GIB)  # no price: planned, never chosen


@pytest.fixture(scope="module")
def setups():
    return detailed_sizing(BIG, (GPU_16, GPU_24, GPU_80))


def test_gpu_rows_give_the_fewest_gpus_that_start(setups):
    rows = [(row.gpu, row.plan.setup.total_gpus, row.plan.price_per_hour, row.tensor_parallel_ok) for row in setups.gpu_rows]
    assert rows == [(GPU_16, 2, Decimal("1.00"), True), (GPU_24, 1, Decimal("0.90"), True), (GPU_80, 1, None, True)]
    assert setups.gpu_rows[0].plan.weights_bytes == 8_066_572_288


def test_the_serving_setup_is_the_cheapest_machine_that_starts(setups):
    serving = setups.serving
    assert (serving.setup.gpu, serving.setup.total_gpus, serving.setup.price_per_hour) == (GPU_24, 1, Decimal("0.90"))
    assert (serving.plan.weights_bytes, serving.plan.available_kv_bytes) == (16_128_548_864, 6_119_381_730)
    assert serving.runtime_bytes == 268_435_456 + 536_870_912 + 139_586_437
    # 6,119,381,730 // 15,360 = 398,397 blocks; 2,500 a sequence of 40,000; 2,048 one of 32,768
    assert (serving.plan.kv_tokens, serving.plan.max_users) == (6_374_352, 159)
    assert (serving.short.context, serving.short.max_users) == (32_768, 194)
    assert serving.plan.changes == () and serving.sglang.engine == "sglang"


def test_speed(setups):
    speed = setups.speed
    assert speed.context == 32_768  # the short context, below the 40,000 window
    # resident: all but the embeddings, 16,127,270,912; KV 960 × 32,768 = 31,457,280
    assert speed.read == TokenRead(resident_bytes=16_127_270_912, expert_bytes=0, kv_bytes=31_457_280)
    assert speed.tokens_per_second == pytest.approx(10**12 / 16_158_728_192, rel=1e-12)
    assert speed.offload == {}  # a dense model has no experts to offload
    assert speed.price_per_hour == Decimal("0.90")


def test_no_priced_gpu_means_no_serving_setup():
    detail = detailed_sizing(BIG, (GPU_80,))
    assert (detail.serving, detail.speed) == (None, None)
    assert detail.gpu_rows[0].plan.setup.total_gpus == 1


def test_a_gpu_on_which_nothing_starts():
    # 1 GiB: 0.9 of it is more than is free once CUDA is up (0.61 GiB), on any number of GPUs
    detail = detailed_sizing(BIG, (gpu("one", GIB, price="0.10", shapes=(1,)),))
    assert (detail.gpu_rows[0].plan, detail.serving) == (None, None)


def test_a_model_without_context_window_uses_32768_tokens():
    detail = detailed_sizing(replace(DENSE, context_window=None), GPUS)
    assert detail.context == 32_768
    assert detail.kv16_full_context_bytes == 1_572_864  # 48 × 32,768
    assert detail.kv8_full_context_bytes == 786_432


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
