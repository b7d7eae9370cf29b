"""Parameters by component and tensor shapes for every architecture feature: hand-computed tables."""

from collections import Counter

import pytest

from generator.sizing.weights import params_by_component, tensors
from tests.formula_records import arch, by_component, gqa, linear, mla, model, moe, vision


def attention_params(architecture):
    return params_by_component(model(architecture))["attention"]


# Base: 2 layers, hidden 16, 4 query heads and 1 KV head of 6 → q 16 × 24, k and v 16 × 6, o 24 × 16.
# q 768 + k/v 384 + o 768 = 1,920.
@pytest.mark.parametrize(
    "attention, expected",
    [
        pytest.param(gqa(), 1_920, id="plain"),
        pytest.param(gqa(kv_heads=2), 2_304, id="two-kv-heads"),  # k/v 16 × 12 × 4 = 768
        pytest.param(gqa(qkv_bias=True), 1_992, id="qkv-bias"),  # + (24 + 2 × 6) × 2 layers = 72
        pytest.param(gqa(kv_heads=2, qkv_bias=True), 2_400, id="qkv-bias-two-kv-heads"),  # 2,304 + (24 + 24) × 2
        pytest.param(gqa(output_bias=True), 1_952, id="output-bias"),  # + 16 × 2 layers
        pytest.param(gqa(qk_norm="head"), 1_944, id="qk-norm-per-head"),  # + 6 × (q and k) × 2 layers = 24
        pytest.param(gqa(qk_norm="layer"), 1_980, id="qk-norm-per-layer"),  # + (24 + 6) × 2 layers = 60
        pytest.param(gqa(output_gate=True), 2_688, id="output-gate"),  # q doubles: + 16 × 24 × 2 = 768
        pytest.param(gqa(sinks=True), 1_928, id="sinks"),  # + 4 heads × 2 layers
        pytest.param(
            gqa(qkv_bias=True, output_bias=True, qk_norm="head", output_gate=True, sinks=True),
            2_824,  # 1,920 + 72 + 32 + 24 + 768 + 8
            id="everything",
        ),
        # MLA, heads 4, q rank 14, kv rank 10, nope 6 + rope 2 = 8 per q/k head, v 5:
        # q_a 16 × 14 × 2 = 448, q_a norm 14 × 2 = 28, q_b 14 × 32 × 2 = 896,
        # kv_a 16 × (10 + 2) × 2 = 384, kv_a norm 10 × 2 = 20, kv_b 10 × 4 × (6 + 5) × 2 = 880,
        # o 20 × 16 × 2 = 640
        pytest.param(mla(), 3_296, id="mla-q-lora"),
        # q 16 × 32 × 2 = 1,024 instead of 448 + 28 + 896
        pytest.param(mla(q_lora_rank=None), 2_948, id="mla-no-q-lora"),
        pytest.param(mla(output_gate=True), 3_936, id="mla-output-gate"),  # + 16 × 20 × 2 = 640
        # indexer, 3 heads of 4: q 14 × 12 × 2 = 336, k 16 × 4 × 2 = 128, k norm 4 × 2 × 2 = 16,
        # head weights 16 × 3 × 2 = 96 → + 576
        pytest.param(mla(indexer_heads=3, indexer_head_dim=4), 3_872, id="mla-indexer"),
    ],
)
def test_attention_params(attention, expected):
    assert attention_params(arch(attention=attention)) == expected


# The same with 3 layers, where "2 × layers" and "2 + layers" differ: per layer q 384 + k/v 192
# + o 384 = 960; MLA 1,648; its indexer 288.
@pytest.mark.parametrize(
    "attention, expected",
    [
        pytest.param(gqa(), 2_880, id="plain"),  # 960 × 3
        pytest.param(gqa(qk_norm="head"), 2_916, id="qk-norm-per-head"),  # + 6 × 2 × 3 = 36
        pytest.param(
            gqa(qkv_bias=True, output_bias=True, qk_norm="head", output_gate=True, sinks=True),
            4_236,  # 2,880 + 36 × 3 + 16 × 3 + 36 + 384 × 3 + 4 × 3
            id="everything",
        ),
        pytest.param(mla(), 4_944, id="mla-q-lora"),  # 1,648 × 3
        pytest.param(mla(output_gate=True), 5_904, id="mla-output-gate"),  # + 16 × 20 × 3 = 960
        # indexer per layer: q 14 × 12 = 168, k 16 × 4 = 64, k norm 4 × 2 = 8, weights 16 × 3 = 48
        pytest.param(mla(indexer_heads=3, indexer_head_dim=4), 5_808, id="mla-indexer"),  # 4,944 + 288 × 3
        # IndexShare (GLM-5.2): layers 1 and 2 share layer 0's indexer, so one indexer: 4,944 + 288
        pytest.param(mla(indexer_heads=3, indexer_head_dim=4, shared_indexer_layers=(1, 2)), 5_232,
                     id="mla-shared-indexer"),
    ],
)
def test_attention_params_three_layers(attention, expected):
    assert attention_params(arch(layers=3, attention=attention)) == expected


# 4 layers, 3 of them linear: softmax attention keeps 1 layer (q 384 + k/v 192 + o 384 = 960).
# Linear: 2 key heads of 4 (key width 8), 3 value heads of 5 (value width 15), kernel 4.
@pytest.mark.parametrize(
    "kind, expected",
    [
        # per layer: qkvz 16 × (16 + 30) = 736, b/a 16 × 6 = 96, conv (16 + 15) × 4 = 124,
        # dt_bias and A_log 3 × 2 = 6, norm 5, o 15 × 16 = 240 → 1,207; × 3 layers + 960
        pytest.param("gated_deltanet", 4_581, id="gated-deltanet"),
        # per layer: q, k 16 × 8 × 2 = 256, v and gate 16 × 15 × 2 = 480, conv 124,
        # forget gate 16 × 4 = 64 and 4 × 8 = 32, beta 16 × 3 = 48, A_log 2, dt_bias 8, norm 5,
        # o 240 → 1,259; × 3 layers + 960
        pytest.param("kimi_delta", 4_737, id="kimi-delta"),
        # Mamba2, read as 2 groups of d_state 4 and 3 heads of 5 (d_inner 15): in_proj 16 × (2 × 15
        # + 2 × 8 + 3) = 784, conv (15 + 16) × 4 = 124 and its bias 31, dt_bias, A_log and D 3 × 3 = 9,
        # norm 15, out 15 × 16 = 240 → 1,203; × 3 layers + 960
        pytest.param("mamba2", 4_569, id="mamba2"),
    ],
)
def test_linear_attention_params(kind, expected):
    assert attention_params(arch(layers=4, linear_attention=linear(kind, layers=3))) == expected


# A 3-layer model, 1 dense layer (MLP 16 × 40 × 3 = 1,920), 2 MoE layers of 4 experts of 8:
# router 16 × 4 × 2 = 128, routed 16 × 8 × 3 × 4 × 2 = 3,072. Embeddings 1,600, attention
# 3 × 960 = 2,880, norms 16 × 7 = 112, head 1,600.
def moe_model(**changes):
    return model(arch(layers=3, dense_layers=1, moe=moe(**changes)))


COMMON_MOE = dict(embeddings=1_600, attention=2_880, output_head=1_600)


@pytest.mark.parametrize(
    "subject, expected",
    [
        pytest.param(
            moe_model(),
            by_component(**COMMON_MOE, dense_mlp=1_920, routed_experts=3_072, router_and_norms=240),
            id="routed-only",
        ),
        pytest.param(
            model(arch(layers=3, moe=moe())),  # dense_layers unset: every layer is MoE
            # routed 16 × 8 × 3 × 4 × 3 = 4,608; router 16 × 4 × 3 = 192 + 112
            by_component(**COMMON_MOE, routed_experts=4_608, router_and_norms=304),
            id="no-dense-layers",
        ),
        pytest.param(
            moe_model(shared_experts=1),  # 16 × 8 × 3 × 2 layers
            by_component(**COMMON_MOE, dense_mlp=1_920, routed_experts=3_072, shared_experts=768, router_and_norms=240),
            id="one-shared-expert",
        ),
        pytest.param(
            moe_model(shared_experts=2, shared_expert_intermediate_size=12),  # 16 × 12 × 3 × 2 × 2
            by_component(**COMMON_MOE, dense_mlp=1_920, routed_experts=3_072, shared_experts=2_304, router_and_norms=240),
            id="two-wider-shared-experts",
        ),
        pytest.param(
            moe_model(shared_experts=1, shared_expert_gate=True),  # + 16 × 2 layers
            by_component(**COMMON_MOE, dense_mlp=1_920, routed_experts=3_072, shared_experts=800, router_and_norms=240),
            id="shared-expert-gate",
        ),
        pytest.param(
            moe_model(router_bias=True),  # + 4 × 2 layers
            by_component(**COMMON_MOE, dense_mlp=1_920, routed_experts=3_072, router_and_norms=248),
            id="router-bias",
        ),
        pytest.param(
            moe_model(expert_bias=True),  # + (8 + 8 + 16) × 4 experts × 2 layers = 256
            by_component(**COMMON_MOE, dense_mlp=1_920, routed_experts=3_328, router_and_norms=240),
            id="expert-bias",
        ),
        pytest.param(
            # experts work at width 10: routed 10 × 8 × 3 × 4 × 2 = 1,920;
            # down and up 16 × 10 × 2 × 2 = 640, latent norm 10 × 2 = 20 → 240 + 660
            moe_model(latent_size=10, latent_norm=True),
            by_component(**COMMON_MOE, dense_mlp=1_920, routed_experts=1_920, router_and_norms=900),
            id="latent",
        ),
        pytest.param(
            # Nemotron-H's latent MoE: the two projections, no norm on the latent → 240 + 640
            moe_model(latent_size=10),
            by_component(**COMMON_MOE, dense_mlp=1_920, routed_experts=1_920, router_and_norms=880),
            id="latent-without-norm",
        ),
        pytest.param(
            moe_model(latent_size=10, latent_norm=True, expert_bias=True),  # + (8 + 8 + 10) × 4 × 2 = 208
            by_component(**COMMON_MOE, dense_mlp=1_920, routed_experts=2_128, router_and_norms=900),
            id="latent-expert-bias",
        ),
        pytest.param(
            # 3 MoE layers: routed 10 × 8 × 3 × 4 × 3 = 2,880; router 16 × 4 × 3 = 192,
            # down and up 16 × 10 × 2 × 3 = 960, latent norm 10 × 3 = 30, norms 16 × 9 = 144
            model(arch(layers=4, dense_layers=1, moe=moe(latent_size=10, latent_norm=True))),
            by_component(
                embeddings=1_600,
                attention=3_840,
                dense_mlp=1_920,
                routed_experts=2_880,
                router_and_norms=1_326,
                output_head=1_600,
            ),
            id="latent-three-moe-layers",
        ),
    ],
)
def test_moe_params_by_component(subject, expected):
    assert params_by_component(subject) == expected


# Base dense: embeddings 1,600, attention 1,920, MLP 3,840, norms 16 × 5 = 80, head 1,600.
# One extra (MTP) layer: attention 960, projection 32 × 16 = 512, (3 + 2) norms × 16 = 80,
# MLP 16 × 40 × 3 = 1,920 → 3,472.
@pytest.mark.parametrize(
    "architecture, expected",
    [
        pytest.param(
            arch(),
            by_component(embeddings=1_600, attention=1_920, dense_mlp=3_840, router_and_norms=80, output_head=1_600),
            id="untied",
        ),
        pytest.param(
            arch(tied_embeddings=True),
            by_component(embeddings=1_600, attention=1_920, dense_mlp=3_840, router_and_norms=80),
            id="tied",
        ),
        pytest.param(
            arch(norms_per_layer=3),  # 16 × (3 × 2 + 1)
            by_component(embeddings=1_600, attention=1_920, dense_mlp=3_840, router_and_norms=112, output_head=1_600),
            id="three-norms-per-layer",
        ),
        pytest.param(
            arch(extra_layers=1),
            by_component(
                embeddings=1_600,
                attention=1_920,
                dense_mlp=3_840,
                router_and_norms=80,
                output_head=1_600,
                extra_layers=3_472,
            ),
            id="one-extra-layer",
        ),
        pytest.param(
            arch(extra_layers=1, norms_per_layer=3),  # extra norms (3 + 3) × 16 = 96
            by_component(
                embeddings=1_600,
                attention=1_920,
                dense_mlp=3_840,
                router_and_norms=112,
                output_head=1_600,
                extra_layers=3_488,
            ),
            id="extra-layer-three-norms",
        ),
        pytest.param(
            # two extra layers, each with its own embeddings (+1,600) and head (+1,600)
            arch(extra_layers=2, extra_layers_embeddings=True),
            by_component(
                embeddings=4_800,
                attention=1_920,
                dense_mlp=3_840,
                router_and_norms=80,
                output_head=4_800,
                extra_layers=6_944,
            ),
            id="two-extra-layers-own-embeddings",
        ),
        pytest.param(
            # MoE extra layer: attention 960 + projection 512 + norms 80 + router 64
            # + routed 16 × 8 × 3 × 4 = 1,536 + shared 16 × 8 × 3 = 384 → 3,536
            arch(layers=3, dense_layers=1, moe=moe(shared_experts=1), extra_layers=1),
            by_component(
                embeddings=1_600,
                attention=2_880,
                dense_mlp=1_920,
                routed_experts=3_072,
                shared_experts=768,
                router_and_norms=240,
                output_head=1_600,
                extra_layers=3_536,
            ),
            id="moe-extra-layer",
        ),
        pytest.param(
            # every MoE extra lands in the extra layer, not in the trunk's components:
            # trunk (2 MoE layers): routed 1,920 + expert biases 26 × 4 × 2 = 208;
            # shared 768 + gate 32; router 128 + bias 8 + latent 640 + 20 + norms 112 = 908.
            # extra layer: attention 960 + projection 512 + norms 80 + router 64 + bias 4
            # + routed 10 × 8 × 12 = 960 + biases 26 × 4 = 104 + shared 384 + gate 16
            # + latent 16 × 10 × 2 = 320 + latent norm 10 → 3,414
            arch(
                layers=3,
                dense_layers=1,
                moe=moe(
                    shared_experts=1, router_bias=True, expert_bias=True, shared_expert_gate=True, latent_size=10, latent_norm=True
                ),
                extra_layers=1,
            ),
            by_component(
                embeddings=1_600,
                attention=2_880,
                dense_mlp=1_920,
                routed_experts=2_128,
                shared_experts=800,
                router_and_norms=908,
                output_head=1_600,
                extra_layers=3_414,
            ),
            id="moe-extra-layer-with-every-extra",
        ),
        pytest.param(
            # 2 layers of width 8, MLP 12, patch 2: q/k/v/o 8 × 8 × 4 × 2 = 512,
            # MLP 8 × 12 × 2 × 2 = 384, biases and norms (32 + 12 + 8 + 32) × 2 = 168,
            # patch embedding 3 × 2 × 2 × 8 = 96, projector 8 × 16 = 128 → 1,288
            arch(vision=vision()),
            by_component(
                embeddings=1_600,
                attention=1_920,
                dense_mlp=3_840,
                router_and_norms=80,
                output_head=1_600,
                vision=1_288,
            ),
            id="vision-tower",
        ),
        pytest.param(
            # 3 layers, patch 3: 8 × 8 × 4 × 3 = 768, 8 × 12 × 2 × 3 = 576, 84 × 3 = 252,
            # patch embedding 3 × 3 × 3 × 8 = 216, projector 128 → 1,940
            arch(vision=vision(layers=3, patch_size=3)),
            by_component(
                embeddings=1_600,
                attention=1_920,
                dense_mlp=3_840,
                router_and_norms=80,
                output_head=1_600,
                vision=1_940,
            ),
            id="vision-three-layers-patch-3",
        ),
        pytest.param(
            # Qwen3-VL's tower, width 8, MLP 12, 2 layers: qkv 8 × 24 + projection 8 × 8 + MLP 8 × 12 × 2
            # = 448, biases and norms 9 × 8 + 12 = 84, so 532 × 2 = 1,064; Conv3d patches 3 × 2 frames
            # × 2 × 2 × 8 = 192; 3 position embeddings × 8 + the patch bias 8 + the merger's norm 16 = 48;
            # merged width 8 × 2² = 32: two mergers (one deepstack) of 32 × 32 + 32 × 16 = 3,072, their
            # biases (32 + 16) × 2 = 96, the deepstack merger's norm 2 × 32 = 64 → 4,536
            arch(vision=vision(merge_size=2, temporal_patch_size=2, output_size=16, position_embeddings=3,
                               deepstack_mergers=1)),
            by_component(
                embeddings=1_600,
                attention=1_920,
                dense_mlp=3_840,
                router_and_norms=80,
                output_head=1_600,
                vision=4_536,
            ),
            id="vision-tower-with-patch-mergers",
        ),
        pytest.param(
            # Gemma 4's tower: the first case's 1,288, a gate projection more per layer 8 × 12 × 2 = 192
            # and a position table of 5 vectors of 8 = 40 → 1,520
            arch(vision=vision(gated_mlp=True, position_embeddings=5)),
            by_component(
                embeddings=1_600,
                attention=1_920,
                dense_mlp=3_840,
                router_and_norms=80,
                output_head=1_600,
                vision=1_520,
            ),
            id="vision-tower-gated-with-positions",
        ),
        pytest.param(
            # Mistral 3's Pixtral tower, width 8, MLP 12, 2 layers, text width 16: q, k, v, o 4 × 8 × 8 × 2
            # = 512, gated MLP 3 × 8 × 12 × 2 = 576, two RMSNorms 2 × 8 × 2 = 32, no biases; patches
            # 3 × 2 × 2 × 8 = 96; ln_pre and the projector's norm 16; the patch merger 8 × 2² × 8 = 256,
            # then 8 × 16 = 128 and 16 × 16 = 256 to the text width → 1,872
            arch(vision=vision(layout="pixtral", gated_mlp=True, merge_size=2)),
            by_component(
                embeddings=1_600,
                attention=1_920,
                dense_mlp=3_840,
                router_and_norms=80,
                output_head=1_600,
                vision=1_872,
            ),
            id="vision-tower-pixtral",
        ),
    ],
)
def test_params_by_component(architecture, expected):
    assert params_by_component(model(architecture)) == expected


def shapes(architecture, component):
    """{(rows, cols): tensor count} of one component (tensors of the same shape add up)."""
    counts = Counter()
    for tensor in tensors(model(architecture)):
        if tensor.component == component:
            counts[tensor.rows, tensor.cols] += tensor.count
    return dict(counts)


# Shapes decide the scales of block formats, so rows and columns must be the right way round.
@pytest.mark.parametrize(
    "architecture, component, expected",
    [
        pytest.param(
            arch(attention=gqa(qkv_bias=True, output_bias=True, qk_norm="head", output_gate=True, sinks=True)),
            "attention",
            {
                (16, 48): 2,  # q and gate
                (16, 6): 4,  # k and v
                (24, 16): 2,  # o
                (36, 1): 2,  # q, k, v biases
                (16, 1): 2,  # o bias
                (6, 1): 4,  # q and k norms
                (4, 1): 2,  # sinks
            },
            id="gqa",
        ),
        pytest.param(
            arch(attention=gqa(qk_norm="layer")),
            "attention",
            {(16, 24): 2, (16, 6): 4, (24, 16): 2, (30, 1): 2},
            id="gqa-layer-norm",
        ),
        pytest.param(
            arch(attention=mla(indexer_heads=3, indexer_head_dim=4)),
            "attention",
            {
                (16, 14): 2,  # q_a
                (14, 1): 2,  # q_a norm
                (14, 32): 2,  # q_b
                (16, 12): 2,  # kv_a
                (10, 1): 2,  # kv_a norm
                (10, 44): 2,  # kv_b
                (20, 16): 2,  # o
                (14, 12): 2,  # indexer q
                (16, 4): 2,  # indexer k
                (4, 1): 4,  # indexer k norm weight and bias
                (16, 3): 2,  # indexer head weights
            },
            id="mla-indexer",
        ),
        pytest.param(
            arch(layers=4, linear_attention=linear("gated_deltanet", layers=3)),
            "attention",
            {
                (16, 24): 1,  # softmax q
                (16, 6): 5,  # softmax k and v (2) + b/a gates of the 3 linear layers (3)
                (24, 16): 1,  # softmax o
                (16, 46): 3,  # qkvz
                (31, 4): 3,  # conv
                (3, 1): 6,  # dt_bias, A_log
                (5, 1): 3,  # gated norm
                (15, 16): 3,  # o
            },
            id="gated-deltanet",
        ),
        pytest.param(
            arch(attention=mla(), layers=4, linear_attention=linear("kimi_delta", layers=3)),
            "attention",
            {
                # the 1 MLA layer
                (16, 14): 1,
                (14, 1): 1,
                (14, 32): 1,
                (16, 12): 1,
                (10, 1): 1,
                (10, 44): 1,
                (20, 16): 1,
                # the 3 linear layers
                (16, 8): 6,  # q, k
                (16, 15): 6,  # v, output gate
                (31, 4): 3,  # conv
                (16, 4): 3,  # forget gate down
                (4, 8): 3,  # forget gate up
                (16, 3): 3,  # beta
                (2, 1): 3,  # A_log
                (8, 1): 3,  # dt_bias
                (5, 1): 3,  # norm
                (15, 16): 3,  # o
            },
            id="kimi-delta",
        ),
        pytest.param(
            arch(layers=3, dense_layers=1, moe=moe(latent_size=10, latent_norm=True, router_bias=True)),
            "router_and_norms",
            {(16, 4): 2, (4, 1): 2, (16, 10): 4, (10, 1): 2, (16, 1): 7},
            id="moe-router-latent",
        ),
        pytest.param(
            arch(layers=3, dense_layers=1, moe=moe(latent_size=10, latent_norm=True, expert_bias=True)),
            "routed_experts",
            {(10, 8): 24, (26, 1): 8},
            id="moe-routed-latent",
        ),
        pytest.param(
            arch(vision=vision()),
            "vision",
            {(8, 8): 8, (8, 12): 4, (84, 1): 2, (12, 8): 1, (8, 16): 1},
            id="vision",
        ),
        pytest.param(
            arch(extra_layers=1),
            "extra_layers",
            {(16, 24): 1, (16, 6): 2, (24, 16): 1, (32, 16): 1, (16, 1): 5, (16, 40): 3},
            id="extra-layer",
        ),
    ],
)
def test_tensor_shapes(architecture, component, expected):
    assert shapes(architecture, component) == expected


def test_embeddings_and_head_shapes():
    assert shapes(arch(), "embeddings") == {(100, 16): 1}
    assert shapes(arch(), "output_head") == {(16, 100): 1}
    assert shapes(arch(), "dense_mlp") == {(16, 40): 6}


def test_the_prediction_layers_own_embeddings_and_head_are_neither_loaded_nor_read(catalog):
    """DeepSeek-V3's MTP layer stores its own copy of the embeddings and the head (129,280 × 7,168
    BF16 each, 1,853,358,080 bytes): the checkpoint counts them, an engine that does not draft tokens
    skips the whole layer (vLLM loads no layer past num_hidden_layers), and a token reads one head."""
    from generator.sizing.formats import bytes_by_component, published_formats
    from generator.sizing.loaded_weights import tensor_shares
    deepseek = next(m for m in catalog.models if m.slug == "deepseek-v3")
    stored = published_formats(deepseek)
    copy = 129_280 * 7_168 * 2
    assert copy == 1_853_358_080
    every = bytes_by_component(deepseek, stored)
    read = bytes_by_component(deepseek, stored, prediction=False)
    assert every["embeddings"] - read["embeddings"] == copy and every["output_head"] - read["output_head"] == copy
    assert read["extra_layers"] == 0
    shares = tensor_shares(deepseek, stored, 1)
    assert (shares.embeddings, shares.output_head) == (copy, copy)  # the target's own, once
