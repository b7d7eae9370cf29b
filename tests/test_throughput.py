"""The throughput model's arithmetic (generator/sizing/throughput.py, plan_speed.py): every expected
value is worked out by hand in the comment beside it."""

from fractions import Fraction

import pytest

from generator.sizing.kv_cache import KvCache
from generator.sizing.plan_speed import attention_flops_per_token, flops_per_token
from generator.sizing.throughput import (
    Hardware, ModelWork, Workload, decode_step_seconds, experts_touched, prefill_seconds, throughput,
)

# A toy model and GPU whose figures divide evenly: 1 GB read per step, 1 MB of cache per token, 2 GFLOPs
# per token; a GPU of 1 TB/s at a share of 1/2 (500 GB/s) and 1 PFLOP/s.
CACHE = KvCache(bytes_per_token=10**6, window_bytes_per_token=0, window_tokens=0, state_bytes=0)
WORK = ModelWork(resident_bytes=10**9, expert_bytes=0, expert_share=Fraction(0), cache=CACHE, flops_per_token=2 * 10**9,
                 attention_flops_per_token=0, all_reduces_per_step=64, hidden_size=4096)
GPU = Hardware(bandwidth=10**12, flops=10**15, tensor=1, bandwidth_share=Fraction(1, 2))


@pytest.mark.parametrize("share, tokens, touched", [
    (Fraction(8, 128), 1, 0.0625),  # one token: its own k of E
    (Fraction(1, 2), 2, 0.75),  # 1 − (1/2)²
    (Fraction(1, 4), 3, 0.578125),  # 1 − (3/4)³ = 1 − 27/64
    (Fraction(0), 1000, 0.0),  # no experts
])
def test_experts_a_batch_touches(share, tokens, touched):
    assert experts_touched(share, tokens) == pytest.approx(touched)


@pytest.mark.parametrize("batch, tokens, seconds", [
    # (1e9 + 1 × 1,000 × 1e6) / 5e11 = 4 ms; compute 2e9 / (1e15 × 0.671) = 3 µs
    (1, 1000, 0.004),
    # (1e9 + 8 × 1,000 × 1e6) / 5e11 = 18 ms
    (8, 1000, 0.018),
    # memory (1e9 + 500 × 10 × 1e6) / 5e11 = 12 ms; compute 500 × 2e9 / (1e15 × 0.671) = 1.4903 ms
    (500, 10, 0.012),
    # memory (1e9 + 5,000 × 1 × 1e6) / 5e11 = 12 ms; compute 2e5 × 2e9 / 6.71e14 = 596.13 ms: compute-bound
    (200_000, 1, 4e14 / 6.71e14),
])
def test_a_decode_step_takes_the_longer_of_its_read_and_its_compute(batch, tokens, seconds):
    assert decode_step_seconds(WORK, GPU, batch, tokens) == pytest.approx(seconds)


def test_experts_read_in_a_step_grow_with_the_batch():
    # 8 GB of experts, k/E = 1/8: one token reads 1 GB of them, two 1 − (7/8)² = 15/64 of 8 GB = 1.875 GB
    moe = ModelWork(resident_bytes=10**9, expert_bytes=8 * 10**9, expert_share=Fraction(1, 8), cache=CACHE,
                    flops_per_token=0, attention_flops_per_token=0, all_reduces_per_step=0, hidden_size=1)
    assert decode_step_seconds(moe, GPU, 1, 0) == pytest.approx(2e9 / 5e11)
    assert decode_step_seconds(moe, GPU, 2, 0) == pytest.approx(2.875e9 / 5e11)


def test_tensor_parallel_gpus_read_side_by_side_and_pay_their_all_reduces():
    two = Hardware(bandwidth=10**12, flops=10**15, tensor=2, bandwidth_share=Fraction(1, 2), peer_link="nvlink",
                   peer_bandwidth=450 * 10**9)
    # read (1e9 + 1e9) / (2 × 5e11) = 2 ms; 64 all-reduces of 8.7 µs + 2 × 1/2 × 4,096 × 2 B / 450 GB/s
    per_call = 8.7e-6 + 8192 / 450e9
    assert decode_step_seconds(WORK, two, 1, 1000) == pytest.approx(0.002 + 64 * per_call)
    pcie = Hardware(bandwidth=10**12, flops=10**15, tensor=2, bandwidth_share=Fraction(1, 2), peer_link="pcie",
                    peer_bandwidth=315 * 10**8)
    assert decode_step_seconds(WORK, pcie, 1, 1000) == pytest.approx(0.002 + 64 * (42.14e-6 + 8192 / 31.5e9))


def test_a_prompt_is_computed_at_once():
    # 1,000 tokens: compute 1,000 × 2e9 / 6.71e14 = 2.98 ms, longer than the read of 1e9 / 5e11 = 2 ms
    assert prefill_seconds(WORK, GPU, 1000) == pytest.approx(2e12 / 6.71e14)
    # causal attention: 1e6 FLOPs per token pair, 1,000² / 2 pairs = 5e11 more FLOPs
    attending = ModelWork(**{**WORK.__dict__, "attention_flops_per_token": 10**6})
    assert prefill_seconds(attending, GPU, 1000) == pytest.approx(2.5e12 / 6.71e14)


def test_users_share_the_steps_and_stall_on_each_others_prompts():
    workload = Workload(users=4, input_tokens=1000, output_tokens=100)
    speed = throughput(WORK, GPU, workload, batch=4)
    # step at 1,050 tokens: (1e9 + 4 × 1,050 × 1e6) / 5e11 = 10.4 ms; prefill 2e12 / 6.71e14 = 2.9806 ms
    step, prefill = 5.2e9 / 5e11, 2e12 / 6.71e14
    cycle = 100 * step + 4 * prefill
    assert speed.output_tokens_per_second == pytest.approx(400 / cycle)
    assert speed.output_tokens_per_second_per_user == pytest.approx(100 / cycle)
    assert speed.ttft_seconds == pytest.approx(prefill + step)
    assert speed.tpot_seconds == pytest.approx(step + 3 * prefill / 100)
    # 2 of the 4 in the cache at once: the batch's speed, shared by all 4 users
    half = throughput(WORK, GPU, workload, batch=2)
    step2 = 3.1e9 / 5e11
    assert half.batch == 2
    assert half.output_tokens_per_second == pytest.approx(200 / (100 * step2 + 2 * prefill))
    assert half.output_tokens_per_second_per_user == pytest.approx(half.output_tokens_per_second / 4)


def test_flops_per_token_count_every_matrix_a_token_passes(catalog):
    models = {model.slug: model for model in catalog.models}
    # Llama-3.1-8B (config.json): 32 layers of attention 2 × 4096² + 2 × 4096 × 1024 = 41,943,040 and MLP
    # 3 × 4096 × 14336 = 176,160,768, norms 2 × 4096 = 8,192; the final norm 4,096; the head 128,256 × 4096 =
    # 525,336,576: 7,504,924,672 parameters, 2 FLOPs each
    assert flops_per_token(models["llama-3-1-8b-instruct"]) == 15_009_849_344
    # QKᵀ and PV: 2 × (2 × 32 heads × 128) FLOPs per earlier token, 32 layers
    assert attention_flops_per_token(models["llama-3-1-8b-instruct"].architecture) == 524_288
    # gpt-oss-120b: 4 of its 128 experts' 114,701,598,720 = 3,584,424,960; attention 955,805,184, router and
    # norms 13,485,888, head 579,133,440: 5,132,849,472 × 2
    assert flops_per_token(models["gpt-oss-120b"]) == 10_265_698_944
