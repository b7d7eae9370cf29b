"""Checkpoint bytes by format, scales included, and the formats table: hand-computed tables."""

import pytest

from generator.sizing.formats import FORMATS, StoredFormats, bytes_by_component, format_table, native_bytes, tensor_bytes
from generator.sizing.weights import Tensors
from tests.formula_records import arch, by_component, model, moe, vision


def t(rows, cols, count=1, component="attention"):
    return Tensors(component, rows, cols, count)


@pytest.mark.parametrize(
    "tensor, format_key, expected",
    [
        # --- unquantized: bytes per value only
        pytest.param(t(3, 5, 2), "bf16", 60, id="bf16-3x5x2"),  # 30 values × 2 bytes
        pytest.param(t(3, 5, 2), "f32", 120, id="f32-3x5x2"),  # 30 values × 4 bytes
        pytest.param(t(64, 1), "bf16", 128, id="bf16-vector"),  # 64 × 2
        pytest.param(t(64, 1), "f32", 256, id="f32-vector-stays-f32"),  # 64 × 4: only lower formats fall back
        # --- FP8 with one float32 (4-byte) scale per 128 × 128 block
        pytest.param(t(128, 128), "fp8_block128", 16_388, id="fp8-one-full-block"),  # 16,384 + 1 × 4
        pytest.param(t(3, 2), "fp8_block128", 10, id="fp8-tiny-matrix-one-block"),  # 6 + 1 × 4
        # 129 rows → 2 row blocks, 256 cols → 2 col blocks, × 2 tensors = 8 blocks
        pytest.param(t(129, 256, 2), "fp8_block128", 66_080, id="fp8-partial-row-block"),  # 66,048 + 8 × 4
        # 130 rows → 2, 300 cols → 3: 6 blocks × 2 tensors = 12
        pytest.param(t(130, 300, 2), "fp8_block128", 78_048, id="fp8-partial-both-edges"),  # 78,000 + 12 × 4
        pytest.param(t(1, 64), "fp8_block128", 68, id="fp8-row-vector-is-a-matrix"),  # 64 + 1 × 4
        pytest.param(t(300, 1, 3), "fp8_block128", 1_800, id="fp8-vector-stays-bf16"),  # 900 × 2, no scale
        # --- MXFP4: half a byte per value, one 1-byte scale per 32 values down a column
        pytest.param(t(64, 10), "mxfp4", 340, id="mxfp4-64x10"),  # 640 / 2 = 320 + (2 × 10 blocks) × 1
        # 33 rows → 2 blocks per column, × 2 cols × 3 tensors = 12 blocks
        pytest.param(t(33, 2, 3), "mxfp4", 111, id="mxfp4-partial-block"),  # 198 / 2 = 99 + 12
        pytest.param(t(3, 3), "mxfp4", 7, id="mxfp4-odd-values-round-down"),  # 9 / 2 = 4 (floor) + 3 blocks
        pytest.param(t(64, 1, 2), "mxfp4", 256, id="mxfp4-vector-stays-bf16"),  # 128 × 2
        # --- q2: a quarter byte per value, one 2-byte scale per 32 values
        pytest.param(t(64, 4), "q2", 80, id="q2-64x4"),  # 256 / 4 = 64 + (2 × 4 blocks) × 2
        # 33 rows → 2 blocks per column × 2 cols = 4 blocks
        pytest.param(t(33, 2), "q2", 24, id="q2-partial-block"),  # 66 / 4 = 16 (floor) + 4 × 2
        pytest.param(t(64, 1), "q2", 128, id="q2-vector-stays-bf16"),  # 64 × 2
    ],
)
def test_tensor_bytes(tensor, format_key, expected):
    assert tensor_bytes(tensor, format_key) == expected


# The base dense model, tensor by tensor (parameters):
#   embeddings 100 × 16 = 1,600; attention q 16 × 24 × 2 layers = 768, k and v 16 × 6 × 4 = 384,
#   o 24 × 16 × 2 = 768 (1,920 in all); MLP 16 × 40 × 3 × 2 layers = 3,840; norms 16 × 1 × 5 = 80;
#   output head 16 × 100 = 1,600.
# Its attention in FP8: q 768 + 2 blocks × 4 = 776, k/v 384 + 4 × 4 = 400, o 768 + 2 × 4 = 776,
# 1,952 in all. What no plan quantizes, in BF16: embeddings 3,200 + norms 160 + head 3,200 = 6,560.
DENSE = model(arch(formats={"attention": "fp8_block128"}))


@pytest.mark.parametrize(
    "formats, default, expected",
    [
        pytest.param(
            {},
            "bf16",
            by_component(embeddings=3_200, attention=3_840, dense_mlp=7_680, router_and_norms=160, output_head=3_200),
            id="all-bf16",
        ),
        pytest.param(
            {},
            "f32",
            by_component(embeddings=6_400, attention=7_680, dense_mlp=15_360, router_and_norms=320, output_head=6_400),
            id="all-f32-norms-too",
        ),
        pytest.param(
            {"dense_mlp": "mxfp4"},
            "bf16",
            # MLP: 3,840 / 2 = 1,920 + (1 row block × 40 cols × 6 tensors) = 2,160
            by_component(embeddings=3_200, attention=3_840, dense_mlp=2_160, router_and_norms=160, output_head=3_200),
            id="one-component-overridden",
        ),
        pytest.param(
            {"embeddings": "bf16"},
            "fp8_block128",
            # attention 1,952; MLP 3,840 + 6 × 4 = 3,864; norms stay BF16 (160);
            # head 1,600 + 1 block × 4 = 1,604
            by_component(
                embeddings=3_200, attention=1_952, dense_mlp=3_864, router_and_norms=160, output_head=1_604
            ),
            id="fp8-default-keeps-vectors-bf16",
        ),
    ],
)
def test_bytes_by_component(formats, default, expected):
    assert bytes_by_component(DENSE, StoredFormats(formats, default)) == expected


def test_native_bytes_use_the_architecture_formats():
    assert native_bytes(DENSE) == by_component(
        embeddings=3_200, attention=1_952, dense_mlp=7_680, router_and_norms=160, output_head=3_200
    )


# A mixture of experts: 1 dense layer then 1 MoE layer of 4 experts of 8 (one shared), a router
# bias, tied embeddings. Parameters: embeddings 1,600; attention 1,920; MLP 16 × 40 × 3 = 1,920;
# router 16 × 4 = 64 (matrix) + 4 (bias vector) + norms 80; routed 16 × 8 × 3 × 4 = 1,536;
# shared 16 × 8 × 3 = 384.
MOE = model(
    arch(
        tied_embeddings=True,
        dense_layers=1,
        moe=moe(shared_experts=1, router_bias=True),
        formats={"routed_experts": "mxfp4"},
        default_format="fp8_block128",
    )
)


@pytest.mark.parametrize(
    "subject, expected",
    [
        pytest.param(
            DENSE,
            [
                ("bf16", 18_080),  # 9,040 parameters × 2
                ("native", 16_192),  # 1,952 FP8 attention + 7,680 MLP + 6,560
                ("fp8", 12_376),  # 1,952 + MLP 3,840 + 6 blocks × 4 = 3,864 + 6,560
                ("2bit", 9_952),  # 1,952 + MLP q2 3,840 / 4 = 960 + 240 blocks × 2 = 1,440 + 6,560
                # attention q 384 + 48, k/v 192 + 24, o 384 + 32 = 1,064; MLP 1,920 + 240 = 2,160;
                # + 6,560
                ("4bit", 9_784),
            ],
            id="dense",
        ),
        pytest.param(
            MOE,
            [
                ("bf16", 15_016),  # 7,508 parameters × 2
                # attention 1,952; MLP 1,920 + 3 × 4 = 1,932; routed 1,536 + 12 × 4 = 1,584;
                # shared 384 + 3 × 4 = 396; embeddings 3,200; router 128 + bias 8 + norms 160 = 296
                ("fp8", 9_360),
                # the routed experts go to q2 (1,536 / 4 = 384 + 96 blocks × 2 = 576), not the MLP
                ("2bit", 8_352),  # 1,952 + 1,932 + 576 + 396 + 3,200 + 296
                # default FP8 reaches embeddings (1,600 + 4) and the router (64 + 4), not vectors;
                # routed MXFP4 1,536 / 2 = 768 + 96 blocks = 864
                ("native", 6_984),  # 1,604 + 1,952 + 1,932 + 864 + 396 + (68 + 8 + 160)
                # attention 1,064; MLP 960 + 120 = 1,080; routed 864; shared 192 + 24 = 216; 3,200; 296
                ("4bit", 6_720),
            ],
            id="moe",
        ),
    ],
)
def test_format_table_rows_largest_first(subject, expected):
    assert [(row.key, row.bytes) for row in format_table(subject)] == expected


def test_format_table_ties_go_by_key():
    # a checkpoint stored exactly as the 2-bit plan: both rows 9,952 bytes, "2bit" sorts first
    same_as_2bit = model(arch(formats={"attention": "fp8_block128", "dense_mlp": "q2"}))
    assert [(row.key, row.bytes) for row in format_table(same_as_2bit)] == [
        ("bf16", 18_080),
        ("fp8", 12_376),
        ("2bit", 9_952),
        ("native", 9_952),
        ("4bit", 9_784),
    ]


def test_format_table_row_components_add_up_to_its_bytes():
    for row in format_table(MOE):
        assert sum(row.by_component.values()) == row.bytes, row.key


@pytest.mark.parametrize(
    "row_key, expected",
    [
        pytest.param(
            "2bit",
            by_component(
                embeddings=3_200,
                attention=1_952,
                dense_mlp=1_932,
                routed_experts=576,
                shared_experts=396,
                router_and_norms=296,
            ),
            id="2bit",
        ),
        pytest.param(
            "native",
            by_component(
                embeddings=1_604,
                attention=1_952,
                dense_mlp=1_932,
                routed_experts=864,
                shared_experts=396,
                router_and_norms=236,
            ),
            id="native",
        ),
    ],
)
def test_moe_format_table_by_component(row_key, expected):
    row = next(r for r in format_table(MOE) if r.key == row_key)
    assert row.by_component == expected


# One multi-token-prediction layer and a vision tower (2 layers of width 8, MLP 12, patch 2).
WITH_EXTRAS = model(arch(extra_layers=1, vision=vision()))


@pytest.mark.parametrize(
    "row_key, extra_layers, vision_bytes",
    [
        # extra layer: 3,472 parameters; vision: 1,288 parameters; × 2
        pytest.param("bf16", 6_944, 2_576, id="bf16"),
        # extra: attention q 384 + 4, k/v 192 + 8, o 384 + 4 = 976; 2H → H projection 512 + 4;
        # 5 norms 80 × 2 = 160 BF16; MLP 1,920 + 3 × 4 = 1,932 → 3,584.
        # vision: 512 + 8 × 4, 384 + 4 × 4, vectors 168 × 2, patch 96 + 4, projector 128 + 4 → 1,512
        pytest.param("fp8", 3_584, 1_512, id="fp8"),
        # extra: q 192 + 24, k/v 96 + 12, o 192 + 16 = 532; projection 256 + 16; norms 160;
        # MLP 960 + 120 → 2,044.
        # vision: 256 + 64, 192 + 48, vectors 336, patch 48 + 8, projector 64 + 16 → 1,032
        pytest.param("4bit", 2_044, 1_032, id="4bit"),
        # 2-bit keeps them at FP8
        pytest.param("2bit", 3_584, 1_512, id="2bit"),
    ],
)
def test_extra_layers_and_vision_follow_the_matrix_formats(row_key, extra_layers, vision_bytes):
    row = next(r for r in format_table(WITH_EXTRAS) if r.key == row_key)
    assert (row.by_component["extra_layers"], row.by_component["vision"]) == (extra_layers, vision_bytes)


@pytest.mark.parametrize(
    "key, bits, group_values, scale_bits",
    [
        ("f32", 32, None, 0),
        ("bf16", 16, None, 0),
        ("fp8_block128", 8, 16_384, 32),  # 128 × 128 values share a float32 scale
        ("mxfp4", 4, 32, 8),  # 32 values share an E8M0 scale
        ("q2", 2, 32, 16),  # 32 values share a 16-bit scale
    ],
)
def test_formats_as_the_pages_explain_them(key, bits, group_values, scale_bits):
    spec = FORMATS[key]
    assert (spec.key, spec.bits, spec.group_values, spec.scale_bits) == (key, bits, group_values, scale_bits)
