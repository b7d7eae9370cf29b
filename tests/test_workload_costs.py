"""What a page's workload costs (generator/sizing/workloads.py) and its chart (view_models.break_even_chart):
every expected value is worked out by hand beside it."""

from dataclasses import replace
from decimal import Decimal

import pytest

from generator.sizing.cheapest import Option, Question
from generator.sizing.planner import PlanRequest, plan
from generator.sizing.throughput import Throughput, Workload
from generator.sizing.workloads import WorkloadCost, api_per_million, question_for, PAGE_WORKLOADS
from generator.site.view_models import break_even_chart


@pytest.fixture(scope="module")
def kimi(catalog):
    return next(model for model in catalog.models if model.slug == "kimi-k3")


def cost_on_8_b300(catalog, kimi, output_tokens_per_second: float) -> WorkloadCost:
    """Kimi-K3's chat workload on 8 × B300 at $4.60 a GPU-hour ($36.80 an hour), at the speed given."""
    b300 = replace(next(g for g in catalog.gpus if g.slug == "b300"), price_per_gpu_hour=Decimal("4.60"))
    served = plan(kimi, b300, 8, PlanRequest(context=32_768, users=16))
    speed = Throughput(output_tokens_per_second=output_tokens_per_second, output_tokens_per_second_per_user=0,
                       ttft_seconds=0, tpot_seconds=0, prefill_seconds=0, batch=16)
    question = Question(32_768, Workload(16, 1024, 512))
    return WorkloadCost(PAGE_WORKLOADS[0], question, None, Option(served, speed), api_per_million(kimi, question.workload))


def test_the_api_price_of_a_million_output_tokens_carries_their_input(kimi):
    # Kimi-K3's API: $15 per million output tokens, $3 per million input; 1,024 in for 512 out: 15 + 2 × 3
    assert api_per_million(kimi, Workload(16, 1024, 512)) == Decimal("21.00")
    assert api_per_million(kimi, Workload(1, 100, 300)) == Decimal("16.00")  # 15 + 3 / 3


def test_renting_pays_above_the_break_even_the_setup_can_give(catalog, kimi):
    cost = cost_on_8_b300(catalog, kimi, 1000.0)
    # $36.80 an hour at 1,000 tokens/s: 36.80 × 10^6 / 3.6 × 10^6 = $10.222… a million
    assert cost.price_per_million == Decimal("10.22")
    assert cost.rent_per_month == Decimal("26864.00")  # 36.80 × 730 hours
    # 26,864 / $21 a million = 1,279,238,095.2… tokens, rounded up
    assert cost.break_even_per_month == 1_279_238_096
    assert cost.capacity_per_month == 2_628_000_000  # 1,000 × 3,600 × 730
    assert cost.renting_pays
    slow = cost_on_8_b300(catalog, kimi, 100.0)  # 262.8 million a month: under the break-even
    assert slow.capacity_per_month == 262_800_000 and not slow.renting_pays


def test_the_chart_draws_both_lines_and_their_crossing(catalog, kimi):
    chart = break_even_chart(cost_on_8_b300(catalog, kimi, 1000.0))
    # x to max(capacity 2,628 M, 2 × break-even 2,558.5 M) = 2,628 M; y to max($26,864, 21 × 2,628 = $55,188) × 1.1
    assert chart.tokens_max == 2_628_000_000 and chart.cost_max == Decimal("60707")
    # API: from (0, 200) to (480, 200 × (1 − 55,188 / 60,706.8)) = (480, 18.2)
    assert chart.api_points == "0.0,200.0 480.0,18.2"
    # rent: 200 × (1 − 26,864 / 60,706.8) = 111.5, flat to the capacity (the chart's end)
    assert chart.rent_points == "0.0,111.5 480.0,111.5"
    assert chart.break_even_x == 233.7  # 480 × 1,279.24 / 2,628
    slow = break_even_chart(cost_on_8_b300(catalog, kimi, 100.0))
    # renting never pays: x to 5/4 of the break-even, 1,599,047,620; the rent line stops at 262.8 M
    assert slow.tokens_max == 1_599_047_620 and slow.rent_points.split()[1].startswith("78.9,")
    assert slow.break_even_x == 384.0  # 480 × 4 / 5


def test_a_workload_fits_the_window_it_is_asked_at(kimi):
    chat, long_context, _ = (question_for(kimi, workload) for workload in PAGE_WORKLOADS)
    assert (chat.context, chat.workload.input_tokens, chat.workload.output_tokens) == (32_768, 1024, 512)
    # the whole window of 1,048,576 tokens, 1,024 of them the answer
    assert (long_context.context, long_context.workload.input_tokens, long_context.workload.output_tokens) == (
        1_048_576, 1_047_552, 1024)
