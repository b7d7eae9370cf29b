"""The engine-true planner on hand-sized records: every expected figure worked out by hand.

Tiny base model (tests/formula_records.py): 2 layers, hidden 16, vocabulary 100 (padded to 128
rows by the engines), untied head, dense MLP 40, GQA 4 query heads × 6, 1 KV head × 6, BF16.
A test GPU of 10 GiB = 10,737,418,240 bytes (no reported total: the planner takes that figure).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from generator.sizing.formats import StoredFormats
from generator.sizing.loaded_weights import loaded_bytes_per_gpu, pipeline_layers
from generator.sizing.planner import (
    CONTEXT_DOES_NOT_FIT,
    MEMORY_IN_USE,
    WEIGHTS_DO_NOT_FIT,
    PlanRequest,
    plan,
    plan_that_starts,
)
from tests.formula_records import arch, gpu, linear, model, moe

GPU = gpu("test-10g", 10 * 2**30, price="2.00", bandwidth=10**12)


@pytest.mark.parametrize(
    "tensor, pipeline, expected",
    [
        # embeddings 128 × 16 × 2 = 4,096; q 16 × 24 × 2 layers × 2 B = 1,536; k, v 16 × 6 × 4 × 2 = 768;
        # o 1,536; MLP 16 × 40 × 6 × 2 = 7,680; norms 5 × 16 × 2 = 160; head 4,096
        (1, 1, 4_096 + 1_536 + 768 + 1_536 + 7_680 + 160 + 4_096),  # 19,872
        # halves, but the one KV head is copied on both GPUs and norms stay whole
        (2, 1, 2_048 + 768 + 768 + 768 + 3_840 + 160 + 2_048),  # 10,400
        # one layer per stage: half of 11,680 layer bytes + the embeddings (or the head)
        (1, 2, 5_840 + 4_096),
        # KV heads: 1 of 1 per GPU at any width; vocabulary 128 / 4 = 32 rows
        (4, 1, 1_024 + 384 + 768 + 384 + 1_920 + 160 + 1_024),
    ],
)
def test_weights_as_loaded_per_gpu(tensor, pipeline, expected):
    assert loaded_bytes_per_gpu(model(arch()), StoredFormats({}), tensor, pipeline) == expected


def test_odd_stages_round_up_and_mtp_layers_are_not_loaded():
    # 3 layers: layer bytes q 2,304 + k, v 1,152 + o 2,304 + MLP 11,520 + norms 7 × 16 × 2 = 224 = 17,504;
    # 2 stages of 2 and 1 layers: ceil(17,504 × 2 / 3) = 11,670 + 4,096 of embeddings on the first
    assert loaded_bytes_per_gpu(model(arch(layers=3)), StoredFormats({}), 1, 2) == 15_766
    # a multi-token-prediction layer is read only for speculative decoding: the engine leaves it out
    assert loaded_bytes_per_gpu(model(arch(extra_layers=1)), StoredFormats({}), 1) == 19_872


@pytest.mark.parametrize("layers, stages, expected", [(4, 2, [2, 2]), (5, 2, [3, 2]), (7, 4, [2, 2, 2, 1]), (61, 8, [7, 7, 8, 8, 8, 8, 8, 7])])
def test_pipeline_stages_take_the_remainder_before_the_last(layers, stages, expected):
    assert pipeline_layers(layers, stages) == expected


def test_mxfp4_experts_padded_as_the_engine_pads_them():
    tiny = model(arch(moe=moe(), dense_layers=0))
    plain = loaded_bytes_per_gpu(tiny, StoredFormats({"routed_experts": "mxfp4"}), 1)
    padded = loaded_bytes_per_gpu(tiny, StoredFormats({"routed_experts": "mxfp4"}), 1, mxfp4_padding=(64, 256))
    # 24 expert matrices (3 × 4 experts × 2 layers) of 16 × 8 at 4 bits plus one scale per 32:
    # 24 × 64 + 24 × 8 = 1,728 bytes; padded to 256 × 64: 24 × 8,192 + 8 × 64 × 24 = 208,896
    assert padded - plain == 208_896 - 1_728


def test_vllm_plan_by_hand():
    result = plan(model(arch()), GPU, 1, PlanRequest(context=1_000))
    # 10 GiB < 70 GiB: 2,048 batched tokens, 256 sequences. Activation peak: the sampler's
    # 39 × 256 × 100 = 998,400 beats the forward pass's 2,048 × 2 × (3 × 40 + 4 × 16) = 753,664.
    assert result.non_kv_bytes == {"activation_peak": 998_400, "cuda_graphs": 536_870_912, "non_torch": 139_586_437}
    # ceil(10,737,418,240 × 0.9) = 9,663,676,416, less 19,872 of weights and the three parts above
    assert result.available_kv_bytes == 8_986_200_795
    # a block: 16 tokens × 2 × 1 head × 6 × 2 B = 384 per layer, 768 for both layers;
    # 8,986,200,795 // 768 = 11,700,782 blocks; a sequence of 1,000 needs 63 of them
    assert result.kv_tokens == 185_726_698  # int(11,700,782 / 63 × 1,000)
    assert result.kv_bytes_per_token == 49  # ceil(63 × 768 / 1,000)
    assert (result.starts, result.max_users, result.max_context) == (True, 256, 32_768)


def test_vllm_windows_and_states_by_hand():
    windowed = plan(model(arch(attention=arch().attention.__class__(
        kind="gqa", heads=4, kv_heads=1, head_dim=6, sliding_window=100, sliding_window_layers=1))),
        GPU, 1, PlanRequest(context=1_000, max_num_batched_tokens=16))
    # one full and one window layer: two groups of one layer, 384 bytes a block; a request needs
    # 63 blocks for the full layer and cdiv(min(99 + 2 × 16, 1,000), 16) + 1 = 10 for the window
    assert windowed.kv_bytes_per_token == 29  # ceil(73 × 384 / 1,000)
    hybrid = plan(model(arch(linear_attention=linear(value_head_dim=40))), GPU, 1, PlanRequest(context=1_000))
    # state: 3 × 4 × 40 = 480 matrix + 3 × (2 × 8 + 120) = 408 conv values, 2 B: 1,776 bytes;
    # attention blocks grow to 16 × cdiv(1,776, 16 × 24) = 80 tokens, a page of 1,920 bytes;
    # a request: cdiv(1,000, 80) = 13 attention blocks + 1 state
    assert hybrid.kv_bytes_per_token == 27  # ceil(14 × 1,920 / 1,000)


def test_sglang_plan_by_hand():
    result = plan(model(arch()), GPU, 1, PlanRequest(engine="sglang", context=1_000))
    # 10,240 MiB: chunked prefill 2,048, 8 graphs; reserve 512 + 3,072 + 16 + 128 = 3,728 MiB;
    # fraction round(6,512 / 10,240, 3) = 0.636
    assert result.memory_fraction == Fraction(636, 1000)
    # free before weights: 10,737,418,240 - 343,597,384 (0.32 GiB) = 10,393,820,856;
    # floor(× 0.636) = 6,610,470,064, less 19,872 of weights
    assert result.available_kv_bytes == 6_610_450_192
    assert result.kv_bytes_per_token == 48  # 2 layers × 2 × 6 × 2 B, every token kept
    assert result.kv_tokens == 137_717_712  # 6,610,450,192 // 48


@pytest.mark.parametrize(
    "request_, reason",
    [
        (PlanRequest(memory_fraction=Fraction(1)), MEMORY_IN_USE),  # 10 GiB asked, 9.39 GiB free
        (PlanRequest(context=16 * 11_700_782), CONTEXT_DOES_NOT_FIT),  # needs every block; one is kept aside
    ],
)
def test_why_a_plan_does_not_start(request_, reason):
    result = plan(model(arch()), GPU, 1, request_)
    assert (result.starts, result.reason) == (False, reason)


def test_weights_larger_than_the_gpu():
    large = model(arch(hidden_size=16_384, intermediate_size=65_536, vocab_size=128))
    assert plan(large, GPU, 1).reason == WEIGHTS_DO_NOT_FIT


def test_flags_that_make_it_start_cheapest_first():
    tiny = model(arch())
    # 0.95 would ask for more than the 9.39 GiB free once CUDA is up: floor(93.9) hundredths;
    # ceil(10 GiB × 0.93) - 676,475,621 of the rest = 9,308,323,343 bytes: 12,120,212 blocks of 768
    higher = plan_that_starts(tiny, GPU, 1, PlanRequest(context=16 * 11_700_782))
    assert (higher.starts, higher.changes) == (True, (("--gpu-memory-utilization", "0.93"),))
    # 13,000,000 blocks of 768 fit at neither; with an FP8 cache a block is 384 bytes
    fp8 = plan_that_starts(tiny, GPU, 1, PlanRequest(context=16 * 13_000_000))
    assert (fp8.starts, fp8.changes) == (True, (("--kv-cache-dtype", "fp8"),))
    assert fp8.command.endswith("--max-model-len 208000000 \\\n  --kv-cache-dtype fp8")


def test_a_pipeline_stage_caches_only_its_own_layers():
    # 8 GPUs in two 4-GPU machines: tensor parallel 4 inside each, 2 pipeline stages of one layer;
    # a block of 16 tokens is then 384 bytes on a GPU, not 768.
    small_machines = gpu("test-4x", 10 * 2**30, shapes=(1, 2, 4))
    result = plan(model(arch()), small_machines, 8, PlanRequest(context=1_000))
    assert (result.split.tensor, result.split.pipeline) == (4, 2)
    assert result.kv_bytes_per_token == 25  # ceil(63 × 384 / 1,000)
    sglang = plan(model(arch()), small_machines, 8, PlanRequest(engine="sglang", context=1_000))
    assert sglang.kv_bytes_per_token == 24  # 1 layer × 2 × 6 × 2 B


def test_decode_bound_reads_the_weights_over_the_tensor_parallel_gpus():
    # bytes a token reads: attention 3,840 + MLP 7,680 + norms 160 + head 3,200 (not the embeddings)
    # + KV 48 × 1,000 = 62,880; one GPU at 10^12 B/s, then two splitting every layer
    one = plan(model(arch()), GPU, 1, PlanRequest(context=1_000))
    two = plan(model(arch()), GPU, 2, PlanRequest(context=1_000))
    assert one.decode_tokens_per_second == pytest.approx(10**12 / 62_880, rel=1e-12)
    assert two.decode_tokens_per_second == pytest.approx(2 * 10**12 / 62_880, rel=1e-12)


def test_sglang_keeps_linear_attention_states_for_512_requests():
    hybrid = plan(model(arch(linear_attention=linear())), GPU, 1, PlanRequest(engine="sglang", context=1_000))
    # a state: 3 × 4 × 5 = 60 + 3 × (2 × 8 + 15) = 93 values, 2 B: 306 bytes; 512 of them
    assert hybrid.non_kv_bytes["states"] == 156_672
    # (1 - 0.636) of the 10,393,820,856 bytes free before the weights stays outside the fraction
    assert hybrid.non_kv_bytes["outside_fraction"] == 3_783_350_792
    assert hybrid.available_kv_bytes == 6_610_470_064 - hybrid.weights_bytes - 156_672
    assert hybrid.kv_bytes_per_token == 24  # the one softmax-attention layer


@pytest.mark.parametrize(
    "context, starts, max_users, max_context",
    [
        (137_717_712, True, 1, 137_717_712),
        (137_717_713, False, 0, 137_717_712),
        (100_000_000, True, 1, 100_000_000),  # no longer than asked, or than the model's window
        (1_000, True, 137_717, 32_768),  # the window: no context_window in the record, 32,768
    ],
)
def test_sglang_starts_when_its_pool_holds_one_sequence(context, starts, max_users, max_context):
    # the pool holds 137,717,712 tokens (test_sglang_plan_by_hand)
    result = plan(model(arch()), GPU, 1, PlanRequest(engine="sglang", context=context))
    assert (result.starts, result.max_users, result.max_context) == (starts, max_users, max_context)
    assert result.reason == (None if starts else CONTEXT_DOES_NOT_FIT)


def test_sglang_flags_that_make_it_start():
    # 10^9 tokens fit with no flag: the longest context at 0.636 + 0.05 and an FP8 cache:
    # floor(10,393,820,856 × 0.686) - 19,872 = 7,130,141,235 bytes, 24 a token: 297,089,218 tokens
    result = plan_that_starts(model(arch()), GPU, 1, PlanRequest(engine="sglang", context=10**9))
    assert result.changes == (("--mem-fraction-static", "0.686"), ("--kv-cache-dtype", "fp8_e4m3"),
                              ("--context-length", "297089218"))
    assert result.refused == CONTEXT_DOES_NOT_FIT and result.starts


def test_moe_activation_peak_and_fp8_reads():
    # one sequence at a time: the sampler's 39 × 1 × 100 logits are small; the fused MoE of 2,048
    # tokens × 2 experts × (3 × 8 + 16) plus 4 × 16 hidden values, 2 B: 2,048 × 2 × 144 = 589,824
    moe_plan = plan(model(arch(moe=moe(), dense_layers=0)), GPU, 1, PlanRequest(context=1_000, max_num_seqs=1))
    assert moe_plan.non_kv_bytes["activation_peak"] == 589_824
    # an FP8 cache halves the KV a token reads: 14,880 of weights + 24 × 1,000
    fp8 = plan(model(arch()), GPU, 1, PlanRequest(context=1_000, kv_dtype="fp8"))
    assert fp8.decode_tokens_per_second == pytest.approx(10**12 / 38_880, rel=1e-12)


def test_weights_above_the_share_asked_for():
    # a millionth of 10 GiB is 10,738 bytes, less than the 19,872 of weights (which would load)
    result = plan(model(arch()), GPU, 1, PlanRequest(memory_fraction=Fraction(1, 10**6)))
    assert (result.starts, result.reason) == (False, WEIGHTS_DO_NOT_FIT)


def test_a_share_that_is_not_free_is_lowered_to_what_is():
    # two GPUs: CUDA and NCCL take 1.54 GiB (1,653,562,409 bytes) of each 10 GiB before vLLM
    # measures, so 0.9 is more than is free; 9,083,855,831 / 10,737,418,240 = 0.846: 0.84 starts
    result = plan_that_starts(model(arch()), GPU, 2, PlanRequest(context=1_000))
    assert (result.starts, result.refused, result.changes) == (True, MEMORY_IN_USE, (("--gpu-memory-utilization", "0.84"),))
