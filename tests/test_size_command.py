"""`python -m generator size`: the sizing engine from the terminal."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
FIELDS = {
    "model", "params", "precision", "weights_bytes", "weights_by_component", "kv_bytes_per_token",
    "context", "batch", "kv_bytes", "serving_bytes", "fine_tuning_bytes", "smallest_setup",
    "decode_tokens_per_second",
}


def size_json(capsys, *args):
    assert main(["size", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_answers_for_every_catalog_model_by_id_and_by_slug(catalog, capsys):
    for model in catalog.models:
        by_id = size_json(capsys, model.id)
        assert FIELDS <= by_id.keys(), model.slug
        assert by_id == size_json(capsys, model.slug)
        assert by_id["weights_bytes"] == sum(by_id["weights_by_component"].values())
        assert by_id["kv_bytes"] > 0 and by_id["context"] == model.context_window
        setup = by_id["smallest_setup"]
        assert setup["memory_bytes"] * 0.9 >= by_id["weights_bytes"] + by_id["kv_bytes"]
        assert by_id["decode_tokens_per_second"] > 0


def test_kimi_k3_at_four_bits(capsys):
    report = size_json(capsys, "moonshotai/Kimi-K3", "--precision", "4", "--context", "32768", "--batch", "4")
    assert report["serving_bytes"] == round(2_779_931_837_184 * 0.5 * 1.2)  # the seed's 1,668 GB
    assert report["fine_tuning_bytes"] == {
        "qlora": round(2_779_931_837_184 * 0.7),
        "lora": round(2_779_931_837_184 * 2.4),
        "full": 2_779_931_837_184 * 16,
    }
    assert report["kv_bytes_per_token"] == 27_648
    assert report["kv_bytes"] == 4 * (27_648 * 32_768 + report["kv_state_bytes_per_sequence"])
    assert report["smallest_setup"] == {
        "gpu": "b300", "count": 8, "gpus_per_machine": 8, "machines": 1,
        "memory_bytes": 2_304_000_000_000, "price_per_hour": 36.8,
    }


@pytest.mark.parametrize("option", [["--context", "1024"], ["--batch", "16"], ["--precision", "16"]])
def test_more_context_batch_or_bits_never_need_less(capsys, option):
    base = size_json(capsys, "llama-3-1-70b-instruct", "--precision", "4", "--context", "512")
    bigger = size_json(capsys, "llama-3-1-70b-instruct", "--precision", "4", "--context", "512", *option)
    assert bigger["weights_bytes"] + bigger["kv_bytes"] > base["weights_bytes"] + base["kv_bytes"]


def test_readable_table_without_json(capsys):
    assert main(["size", "kimi-k3"]) == 0
    out = capsys.readouterr().out
    assert "Kimi-K3 (moonshotai/Kimi-K3): 2,779,931,837,184 parameters" in out
    assert "smallest setup          8 × B300 (one machine)" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["size", "no-such-model"], "size: no model 'no-such-model' in content"),
        (["size", "kimi-k3", "--batch", "0"], "argument --batch: must be a positive integer (got '0')"),
        (["size", "kimi-k3", "--precision", "3"], "argument --precision: invalid choice: '3'"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(args, message):
    result = subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
