"""The throughput model against 45 public measurements (tests/data/throughput_points.yaml): vLLM, SGLang
and NVIDIA NIM serving benchmarks and llama-bench runs, each with its URL and quoted figures.

Tolerance: a figure within 35 % of the measured one holds. The median absolute error over every figure the
model computes is 24.4 % (throughput and decode 18.8 %; time to the first token and prompt speed 71.2 %,
where the servers' own per-request time and queues, not modelled, dominate). A point beyond the tolerance
stays in the file, marked `miss` with its reason; one the model cannot compute says why (`not_computed`).
"""

import pytest

from tests.throughput_points import TOLERANCE, comparisons, median_error

RESULTS = comparisons()


def test_every_point_carries_its_source_and_workload():
    assert len(RESULTS) >= 20
    for result in RESULTS:
        point = result.point
        assert point["url"].startswith("https://") and point["quote"].strip() and point["workload"].strip(), point["id"]
        assert point["measured"] and all(value > 0 for value in point["measured"].values()), point["id"]


def test_at_least_twenty_points_are_computed_for_the_three_engines():
    computed = [result for result in RESULTS if result.modelled]
    assert len(computed) >= 20
    assert {result.point["engine"] for result in computed} == {"vllm", "llama.cpp"}
    assert {result.point["engine"] for result in RESULTS} == {"vllm", "sglang", "llama.cpp"}


@pytest.mark.parametrize("result", RESULTS, ids=[result.point["id"] for result in RESULTS])
def test_a_point_is_marked_a_miss_exactly_when_the_model_misses_it(result):
    point = result.point
    assert bool(result.modelled) == ("not_computed" not in point), point.get("not_computed")
    if result.modelled:
        beyond = {metric: f"{error:+.0%}" for metric, error in result.errors.items() if abs(error) > TOLERANCE}
        assert bool(beyond) == ("miss" in point), beyond


def test_the_median_error_is_the_one_the_readme_states():
    computed = [result for result in RESULTS if result.modelled]
    assert median_error(computed) == pytest.approx(0.244, abs=0.0005)
    assert median_error(computed, ("output_tokens_per_second", "tpot_ms", "decode_tokens_per_second")) == pytest.approx(0.188, abs=0.0005)
    assert median_error(computed, ("ttft_ms", "prefill_tokens_per_second")) == pytest.approx(0.712, abs=0.0005)
