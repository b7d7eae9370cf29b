"""`python -m generator size`: the sizing engine from the terminal."""

import json
import subprocess
import sys

import pytest

from generator.cli.main import main
from generator.site.figures import report_json
from generator.sizing.kv_cache import default_context
from generator.sizing.size_report import size_report
from tests.conftest import FIXTURE, ROOT

FIELDS = {
    "model", "params", "precision", "weights_bytes", "weights_by_component", "kv_bytes_per_token",
    "context", "batch", "kv_bytes", "serving_bytes", "fine_tuning_bytes", "smallest_setup",
    "decode_tokens_per_second",
}


def size_json(capsys, *args):
    assert main(["size", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def check_answer(report, model, gpus):
    assert FIELDS <= report.keys(), model.slug
    assert report["weights_bytes"] == sum(report["weights_by_component"].values())
    assert report["kv_bytes"] > 0 and report["context"] == default_context(model)
    setup = report["smallest_setup"]
    assert setup["memory_bytes"] * 0.9 >= report["weights_bytes"] + report["kv_bytes"]
    # no speed where the chosen GPU's bandwidth is not published (RTX 4000 Ada)
    bandwidth = next(g for g in gpus if g.slug == setup["gpu"]).bandwidth_bytes_per_second
    assert report["decode_tokens_per_second"] > 0 if bandwidth else report["decode_tokens_per_second"] is None


def test_answers_by_id_and_by_slug(fixture_catalog, capsys):
    for model in fixture_catalog.models:
        by_id = size_json(capsys, model.id, "--content", str(FIXTURE))
        assert by_id == size_json(capsys, model.slug, "--content", str(FIXTURE))
        check_answer(by_id, model, fixture_catalog.gpus)


def test_answers_for_every_shipped_model(catalog):
    # the `size` command's answer from one load of content/ (the command loads the whole catalog
    # for each model it answers, so going through it here would grow with the square of the catalog)
    for model in catalog.models:
        check_answer(json.loads(json.dumps(report_json(size_report(model, catalog.gpus, "native", None, 1)))), model, catalog.gpus)


def test_kimi_k3_at_four_bits(capsys, seed_content):
    report = size_json(capsys, "moonshotai/Kimi-K3", "--precision", "4", "--context", "32768", "--batch", "4",
                       "--content", str(seed_content))  # the seed page's price list: the sample stock's
    assert report["serving_bytes"] == round(2_779_931_837_184 * 0.5 * 1.2)  # the seed's 1,668 GB
    assert report["fine_tuning_bytes"] == {
        "qlora": round(2_779_931_837_184 * 0.7),
        "lora": round(2_779_931_837_184 * 2.4),
        "full": 2_779_931_837_184 * 16,
    }
    assert report["kv_bytes_per_token"] == 27_648
    assert report["kv_bytes"] == 4 * (27_648 * 32_768 + report["kv_state_bytes_per_sequence"])
    assert report["smallest_setup"] is None  # no market price in the seed's list
    assert report["in_stock_setup"] == {
        "gpu": "b300", "count": 8, "gpus_per_machine": 8, "machines": 1,
        "memory_bytes": 2_304_000_000_000, "price_per_hour": 36.8,
    }


@pytest.mark.parametrize("option", [["--context", "1024"], ["--batch", "16"], ["--precision", "16"]])
def test_more_context_batch_or_bits_never_need_less(capsys, option):
    base = size_json(capsys, "llama-3-1-70b-instruct", "--precision", "4", "--context", "512")
    bigger = size_json(capsys, "llama-3-1-70b-instruct", "--precision", "4", "--context", "512", *option)
    assert bigger["weights_bytes"] + bigger["kv_bytes"] > base["weights_bytes"] + base["kv_bytes"]


def test_readable_table_without_json(capsys, seed_content):
    assert main(["size", "kimi-k3", "--content", str(seed_content)]) == 0
    out = capsys.readouterr().out
    assert "Kimi-K3 (moonshotai/Kimi-K3): 2,779,931,837,184 parameters" in out
    assert "in stock                8 × B300 (one machine)" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["size", "no-such-model"], "size: no model 'no-such-model' in content"),
        (["size", "kimi-k3", "--batch", "0"], "argument --batch: must be an integer from 1 to 10^6 (got 0)"),
        (["size", "kimi-k3", "--batch", "1000001"], "argument --batch: must be an integer from 1 to 10^6 (got 1000001)"),
        (["size", "kimi-k3", "--context", "1" + "0" * 40], "argument --context: must be an integer from 1 to 10^9 (got '1000"),
        (["size", "kimi-k3", "--context", "12k"], "argument --context: must be an integer from 1 to 10^9 (got '12k')"),
        (["size", "kimi-k3", "--precision", "3"], "argument --precision: invalid choice: '3'"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(args, message):
    result = subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
