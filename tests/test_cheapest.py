"""`cheapest`: the cheapest GPUs, engine and checkpoint that serve a workload (generator/sizing/cheapest.py),
first in the operator's stock, then on the market."""

import json
from dataclasses import replace
from decimal import Decimal

import pytest

from generator.cli.main import main
from generator.sizing.cheapest import OPTIONS_SHOWN, Question, cheapest_options, market_gpus
from generator.sizing.llama_cpp import LlamaCppPlan, every_layer
from generator.sizing.throughput import Workload


@pytest.fixture(scope="module")
def two_gpus(catalog):
    """An H100 at $2.00 and an A40 at $0.40 a GPU-hour, in machines of 1, 2, 4 and 8 (catalog cards,
    prices fixed here so that the answer does not move with the market's)."""
    gpus = {gpu.slug: gpu for gpu in catalog.gpus}
    return market_gpus((replace(gpus["h100-sxm"], price_per_gpu_hour=Decimal("2.00")),
                        replace(gpus["a40"], price_per_gpu_hour=Decimal("0.40"))))


def gpt_oss_120b(catalog):
    return next(model for model in catalog.models if model.slug == "gpt-oss-120b")


def test_gpt_oss_120b_for_8_users_at_its_full_context_is_4_a40s(catalog, two_gpus):
    # the question of the issue: one H100 does not hold 8 users of 131,072 tokens, 2 H100s cost $4.00;
    # 4 A40s ($1.60) hold 17 of them
    options = cheapest_options(gpt_oss_120b(catalog), two_gpus, Question(131_072, Workload(8, 1024, 1024)))
    first = options[0]
    assert (first.plan.gpu.slug, first.gpus, first.engine, first.price_per_hour) == ("a40", 4, "vllm", Decimal("1.60"))
    assert first.plan.max_users == 17 and first.speed.batch == 8
    assert [(o.plan.gpu.slug, o.gpus) for o in options] == [("a40", 4), ("h100-sxm", 2)]  # a GPU type once
    assert [o.price_per_hour for o in options] == sorted(o.price_per_hour for o in options)


def test_a_setup_whose_speed_is_not_known_answers_only_without_a_floor(catalog, two_gpus):
    untimed = market_gpus(tuple(replace(gpu, tensor_flops={}) for gpu, _ in two_gpus))
    model = gpt_oss_120b(catalog)
    found = cheapest_options(model, untimed, Question(131_072, Workload(8, 1024, 1024)))
    assert found and all(option.speed is None for option in found)
    assert cheapest_options(model, untimed, Question(131_072, Workload(8, 1024, 1024), min_tokens_per_second=1)) == []


def test_a_speed_floor_moves_the_answer_to_more_gpus(catalog, two_gpus):
    question = Question(131_072, Workload(8, 1024, 1024), min_tokens_per_second=100)
    options = cheapest_options(gpt_oss_120b(catalog), two_gpus, question)
    assert (options[0].plan.gpu.slug, options[0].gpus, options[0].price_per_hour) == ("a40", 8, Decimal("3.20"))
    assert all(o.speed.output_tokens_per_second_per_user >= 100 for o in options)


def test_llama_cpp_answers_only_with_every_layer_on_the_gpus(catalog, two_gpus):
    llama = cheapest_options(gpt_oss_120b(catalog), two_gpus, Question(8192, Workload(1, 1024, 1024)),
                             engines=("llama.cpp",))
    assert all(isinstance(o.plan, LlamaCppPlan) for o in llama)
    assert llama and all(o.plan.n_cpu_moe == 0 and o.plan.n_gpu_layers == every_layer(o.plan.model) for o in llama)
    # one A40 holds the file only with layers in RAM (llama.cpp starts there): not an answer
    assert ("a40", 1) not in [(o.plan.gpu.slug, o.gpus) for o in llama]


def test_nothing_answers_a_workload_no_setup_holds(catalog, two_gpus):
    question = Question(131_072, Workload(100_000, 1024, 1024))
    assert cheapest_options(gpt_oss_120b(catalog), two_gpus, question) == []


def test_the_command_lists_the_stock_first_then_the_market(capsys, catalog):
    # GPUs the throughput model cannot time: no tensor FLOPS or no bandwidth in gpus.yaml
    untimed = {gpu.slug for gpu in catalog.gpus if not gpu.tensor_flops.get("bf16") or not gpu.bandwidth_bytes_per_second}
    assert main(["cheapest", "gpt-oss-120b", "--users", "8", "--context", "32768", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["users"], answer["context"], answer["input_tokens"], answer["output_tokens"]) == (8, 32768, 1024, 1024)
    stock, market = answer["in_stock"], answer["market"]
    assert stock and stock[0]["gpu"] == "b300"  # the sample stock: 8 × B300 machines
    assert 1 <= len(market) <= 5
    prices = [option["price_per_hour"] for option in market]
    assert prices == sorted(prices)
    for option in stock + market:
        assert option["max_users"] >= 8
        if option["output_tokens_per_second"] is None:  # a GPU whose tensor FLOPS the catalog lacks
            assert option["users_decoding_at_once"] is None and option["gpu"] in untimed
            continue
        assert option["users_decoding_at_once"] == 8
        assert option["output_tokens_per_second"] == pytest.approx(8 * option["output_tokens_per_second_per_user"], rel=1e-3)
        assert option["command"].startswith(("vllm serve", "python -m sglang", "llama-server"))
    assert main(["cheapest", "gpt-oss-120b", "--users", "8", "--context", "32768"]) == 0
    text = capsys.readouterr().out
    assert text.index("In stock on Arrakis:") < text.index("On the market:")
    assert "the cheapest, as a command:" in text


@pytest.mark.parametrize("args, message", [
    (["--min-tokens-per-second", "0"], "argument --min-tokens-per-second: must be a number above 0 and at most 10^6 (got '0')"),
    (["--context", "200000"], "cheapest: --context: gpt-oss-120b's context window is 131,072 tokens (got 200,000)"),
    (["--context", "1000", "--input-tokens", "900", "--output-tokens", "200"],
     "cheapest: --input-tokens 900 and --output-tokens 200 are 1,100 tokens, more than the context of 1,000 (--context)"),
])
def test_bad_arguments_give_one_line_and_exit_2(capsys, args, message):
    try:
        code = main(["cheapest", "gpt-oss-120b", *args])
    except SystemExit as exit_:
        code = exit_.code
    assert code == 2
    assert message in capsys.readouterr().err


def test_machines_are_joined_only_where_no_single_machine_holds_the_model(catalog, two_gpus):
    kimi = next(model for model in catalog.models if model.slug == "kimi-k3")
    h100 = two_gpus[:1]
    # Kimi-K3's 1,561 GB do not fit in one machine of 8 × 80 GB: three machines, as on its page
    first = cheapest_options(kimi, h100, Question(32_768, Workload(1, 1024, 1024)))[0]
    assert (first.gpus, first.machines, first.engine, first.price_per_hour) == (24, 3, "vllm", Decimal("48.00"))
    # a model one machine holds never gets joined machines
    assert all(o.machines == 1 for o in cheapest_options(gpt_oss_120b(catalog), two_gpus, Question(8192, Workload(1, 1024, 1024))))


@pytest.mark.parametrize("command, said", [
    ("cheapest", ("--min-tokens-per-second", f"up to {OPTIONS_SHOWN} GPU types", "joined")),
    ("plan", ("--input-tokens", "--output-tokens", "time to the first token")),
])
def test_help_says_what_the_workload_options_do(capsys, command, said):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert exit_.value.code == 0 and all(words in out for words in said), out
