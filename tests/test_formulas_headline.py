"""The headline rule: serving at 16/8/4 bits × 1.2, QLoRA, LoRA and full fine-tuning, in bytes."""

import pytest

from generator.sizing.headline import headline_sizing, serving_bytes


@pytest.mark.parametrize(
    "params, serving_16, serving_8, serving_4, qlora, lora, full",
    [
        # serving P × bits / 8 × 1.2; QLoRA P × 0.5 × 1.4; LoRA P × 2 × 1.2; full P × 16
        pytest.param(10, 24, 12, 6, 7, 24, 160, id="10-exact"),
        # 16.8, 8.4, 4.2, 4.9, 16.8 → nearest whole byte
        pytest.param(7, 17, 8, 4, 5, 17, 112, id="7-rounded"),
        # 7.2, 3.6, 1.8, 2.1, 7.2
        pytest.param(3, 7, 4, 2, 2, 7, 48, id="3-rounded"),
        # 2.4, 1.2, 0.6, 0.7, 2.4
        pytest.param(1, 2, 1, 1, 1, 2, 16, id="1-param"),
        pytest.param(0, 0, 0, 0, 0, 0, 0, id="0-params"),
        # QLoRA 5 × 0.7 = 3.5: a half rounds to the even neighbour, 4
        pytest.param(5, 12, 6, 3, 4, 12, 80, id="5-half-to-even-up"),
        # QLoRA 15 × 0.7 = 10.5: to the even neighbour, 10
        pytest.param(15, 36, 18, 9, 10, 36, 240, id="15-half-to-even-down"),
        pytest.param(
            1_000_000_000,
            2_400_000_000,
            1_200_000_000,
            600_000_000,
            700_000_000,
            2_400_000_000,
            16_000_000_000,
            id="1B",
        ),
    ],
)
def test_headline_sizing(params, serving_16, serving_8, serving_4, qlora, lora, full):
    sizing = headline_sizing(params)
    assert sizing.serving_bytes == {16: serving_16, 8: serving_8, 4: serving_4}
    assert (sizing.qlora_bytes, sizing.lora_bytes, sizing.full_fine_tuning_bytes) == (qlora, lora, full)


def test_headline_serving_bits_are_16_8_4_in_that_order():
    assert list(headline_sizing(10).serving_bytes) == [16, 8, 4]


@pytest.mark.parametrize(
    "params, bits, expected",
    [
        pytest.param(10, 16, 24, id="16-bit"),  # 10 × 2 × 1.2
        pytest.param(10, 8, 12, id="8-bit"),  # 10 × 1 × 1.2
        pytest.param(10, 4, 6, id="4-bit"),  # 10 × 0.5 × 1.2
        pytest.param(10, 2, 3, id="2-bit"),  # 10 × 0.25 × 1.2
        pytest.param(965_200, 16, 2_316_480, id="16-bit-large"),  # 965,200 × 2.4
        pytest.param(965_200, 4, 579_120, id="4-bit-large"),  # 965,200 × 0.6
    ],
)
def test_serving_bytes(params, bits, expected):
    assert serving_bytes(params, bits) == expected
