"""The seed page's headline rule, in bytes (GB = 10^9 bytes)."""

import pytest

from generator.sizing.headline import headline_sizing, serving_bytes

KIMI_K3_PARAMS = 2_779_931_837_184
GB = 10**9


@pytest.mark.parametrize(
    "params, bits, expected_bytes",
    [
        (1_000_000_000, 16, 2_400_000_000),  # 2 bytes × 1.2
        (1_000_000_000, 8, 1_200_000_000),
        (1_000_000_000, 4, 600_000_000),
        (7, 4, 4),  # 7 × 0.5 × 1.2 = 4.2, rounded to whole bytes
        (KIMI_K3_PARAMS, 16, 6_671_836_409_242),
    ],
)
def test_serving_bytes(params, bits, expected_bytes):
    assert serving_bytes(params, bits) == expected_bytes


@pytest.mark.parametrize(
    "field, expected_gb",
    [
        # The seed page (Kimi-K3, pt): 6.672 / 3.336 / 1.668 GB to serve; QLoRA 1.946, LoRA 6.672,
        # full fine-tuning 44.479 GB.
        ("serving_16", 6_672),
        ("serving_8", 3_336),
        ("serving_4", 1_668),
        ("qlora", 1_946),
        ("lora", 6_672),
        ("full", 44_479),
    ],
)
def test_kimi_k3_reproduces_the_seed_page(field, expected_gb):
    sizing = headline_sizing(KIMI_K3_PARAMS)
    values = {
        "serving_16": sizing.serving_bytes[16],
        "serving_8": sizing.serving_bytes[8],
        "serving_4": sizing.serving_bytes[4],
        "qlora": sizing.qlora_bytes,
        "lora": sizing.lora_bytes,
        "full": sizing.full_fine_tuning_bytes,
    }
    assert round(values[field] / GB) == expected_gb


@pytest.mark.parametrize("params", [1, 999, 8_030_261_248, 70_553_706_496, KIMI_K3_PARAMS])
def test_more_bits_never_need_less_memory(params):
    sizing = headline_sizing(params)
    assert sizing.serving_bytes[4] <= sizing.serving_bytes[8] <= sizing.serving_bytes[16]
    assert sizing.qlora_bytes <= sizing.lora_bytes <= sizing.full_fine_tuning_bytes
    assert all(isinstance(value, int) and value >= 0 for value in sizing.serving_bytes.values())
