"""add-model refuses, with one line and exit code 2, a checkpoint folder it cannot make sense of.

Each case builds a folder from a real config (tests/hf_configs.py) with one hostile change and runs
the CLI's `main` in-process (as `python -m generator add-model` does); the FIFO cases run it in a
subprocess, whose timeout is a hang guard (a FIFO used to block forever).
"""

import contextlib
import io
import json
import os
import struct
import subprocess
import sys

import pytest

from generator.cli.main import main
from tests import hf_configs
from tests.conftest import ROOT
from tests.test_add_model import checkpoint_folder

LLAMA = hf_configs.LLAMA_3_1_8B
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{new}: &{new} [{', '.join([f'*{old}'] * 9)}]\n" for old, new in zip("abcdefghi", "bcdefghij")
)


def run_add_model(folder, content, *extra, in_process=True):
    args = ["add-model", str(folder), "--content", str(content), *extra]
    if not in_process:
        return subprocess.run([sys.executable, "-m", "generator", *args], capture_output=True, text=True, cwd=ROOT, timeout=60)
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        code = main(args)
    return subprocess.CompletedProcess(args, code, "", stderr.getvalue())


def assert_refused(result, expected):
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [f"add-model: {expected}"]


def header_file(path, header: bytes):
    path.write_bytes(struct.pack("<Q", len(header)) + header)


# (what the config changes, the problem after "<folder>/config.json: ")
CONFIG_CASES = [
    ({"num_attention_heads": 0}, "num_attention_heads: must be a positive integer (got 0)"),
    ({"num_hidden_layers": -32}, "num_hidden_layers: must be a positive integer (got -32)"),
    ({"hidden_size": "4096"}, 'hidden_size: must be a positive integer (got "4096")'),
    ({"vocab_size": 128256.5}, "vocab_size: must be a positive integer (got 128256.5)"),
    ({"intermediate_size": True}, "intermediate_size: must be a positive integer (got true)"),
    ({"num_hidden_layers": None}, "num_hidden_layers: missing (add-model needs it)"),
    ({"num_local_experts": -1}, "num_local_experts: must be an integer, 0 or more (got -1)"),
    ({"quantization_config": ["fp8"]}, 'quantization_config: must be a JSON object (got ["fp8"])'),
    ({"tie_word_embeddings": "false"}, 'tie_word_embeddings: must be true or false (got "false")'),
    ({"model_type": ["llama"]}, 'model_type: must be text (got ["llama"])'),
    ({"text_config": {"num_attention_heads": 0}}, "text_config.num_attention_heads: must be a positive integer (got 0)"),
    ({"model_type": "llama4", "moe_layers": "0,2"}, 'moe_layers: must be a JSON list (got "0,2")'),
    ({"model_type": "llama4", "interleave_moe_layer_step": 0}, "interleave_moe_layer_step: must be a positive integer (got 0)"),
    ({"model_type": "ernie4_5_moe", "moe_num_experts": "64"}, 'moe_num_experts: must be a positive integer (got "64")'),
    ({"model_type": "minimax_m2", "qk_norm_type": 1}, "qk_norm_type: must be text (got 1)"),
    ({"_name_or_path": "/home/someone/finetune"},
     "_name_or_path: must be a Hugging Face repo id like org/Name (got '/home/someone/finetune'); "
     "pass the model's repo id with --id org/Name"),
]


@pytest.mark.parametrize("change, problem", CONFIG_CASES, ids=[c[1].split(":")[0] for c in CONFIG_CASES])
def test_config_values_add_model_cannot_use_are_refused(tmp_path, content_copy, change, problem):
    folder = checkpoint_folder(tmp_path, {**LLAMA, **change})
    assert_refused(run_add_model(folder, content_copy), f"{folder}/config.json: {problem}")
    assert sorted(p.name for p in (content_copy / "models").iterdir()) == sorted(
        p.name for p in (ROOT / "tests" / "fixtures" / "catalog" / "models").iterdir())


# (file name, its bytes, the problem after "<folder>/<file>")
FILE_CASES = [
    ("config.json", b"[" * 100_000 + b"]" * 100_000, ": the file is nested more than 32 levels deep"),
    ("config.json", b"[1, 2]", ": the file must be a JSON object"),
    ("config.json", b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", ": the file is nested more than 32 levels deep"),
    ("config.json", b'{"a": ' + b"[" * 40 + b"]" * 40 + b"}", ": the file is nested more than 32 levels deep"),
    ("config.json", b'{"num_hidden_layers": ' + b"9" * 5_000 + b"}",
     ": the file holds a number too long to read (Exceeds the limit (4300 digits) for integer string conversion)"),
    ("config.json", b"{" + b" " * (4 * 2**20) + b"}", ": larger than 4 MiB, the most add-model reads from it"),
    ("config.json", b'{"a": 1', ":1: the file is not valid JSON (Expecting ',' delimiter)"),
    ("model.safetensors.index.json", b'{"weight_map": ' + b"[" * 5_000 + b"]" * 5_000 + b"}",
     ": the file is nested more than 32 levels deep"),
    ("README.md", ("---\n" + ALIAS_BOMB + "---\n").encode(),
     ":2: (yaml): anchors (&name) and aliases (*name) are not accepted: write the value out"),
    ("README.md", b"---\nlicense: " + b"[" * 100_000 + b"\n---\n", ":2: (yaml): nested more than 32 levels deep"),
    ("README.md", b"---\nlicense: [mit]\n---\n", ': license: must be text (got ["mit"])'),
    ("model.safetensors", b"", ": too short for a safetensors file"),
]


@pytest.mark.parametrize("name, content, problem", FILE_CASES, ids=[f"{c[0]}{c[2][:40]}" for c in FILE_CASES])
def test_hostile_files_are_refused(tmp_path, content_copy, name, content, problem):
    folder = checkpoint_folder(tmp_path, LLAMA)
    (folder / name).write_bytes(content)
    assert_refused(run_add_model(folder, content_copy, "--force"), f"{folder}/{name}{problem}")


def header(tensors: dict) -> bytes:
    return json.dumps({name: {"dtype": "BF16", "shape": shape, "data_offsets": [0, 0]} for name, shape in tensors.items()}).encode()


SHAPE_PROBLEM = "needs a dtype and a shape of at most 8 whole numbers (1e+15 values at most)"
HEADER_CASES = [
    (header({"w": [[4096, 4096]]}), f"tensor 'w' {SHAPE_PROBLEM}"),
    (b'{"w": {"dtype": "BF16", "shape": [1e999], "data_offsets": [0, 0]}}', f"tensor 'w' {SHAPE_PROBLEM}"),
    (header({"w": [-1, 8]}), f"tensor 'w' {SHAPE_PROBLEM}"),
    (header({"w": [10**9] * 3}), f"tensor 'w' {SHAPE_PROBLEM}"),
    (header({"w": [1] * 9}), f"tensor 'w' {SHAPE_PROBLEM}"),
    (b'{"w": {"dtype": 5, "shape": [1]}}', f"tensor 'w' {SHAPE_PROBLEM}"),
    (b'{"w": [1, 2]}', f"tensor 'w' {SHAPE_PROBLEM}"),
    (b'{"w": {"dtype": "BF16", "shape": [' + b"7" * 5_000 + b"]}}",
     "the header holds a number too long to read (Exceeds the limit (4300 digits) for integer string conversion)"),
    (b"[" * 100_000, "the header is nested more than 32 levels deep"),
    (b'"just a string"', "the header must be a JSON object"),
]


@pytest.mark.parametrize("raw, problem", HEADER_CASES, ids=[f"{i}-{c[1][:30]}" for i, c in enumerate(HEADER_CASES)])
def test_hostile_safetensors_headers_are_refused(tmp_path, content_copy, raw, problem):
    folder = checkpoint_folder(tmp_path, LLAMA)
    header_file(folder / "model.safetensors", raw)
    assert_refused(run_add_model(folder, content_copy, "--force"), f"{folder}/model.safetensors: {problem}")


def test_the_headers_together_have_a_budget(tmp_path, content_copy):
    folder = checkpoint_folder(tmp_path, LLAMA)
    padding = "x" * (40 * 2**20)  # a real 40 MiB header, then one that says 30 MiB: 70 MiB > 64 MiB
    header_file(folder / "model-00001.safetensors", json.dumps({"__metadata__": {"pad": padding}}).encode())
    (folder / "model-00002.safetensors").write_bytes(struct.pack("<Q", 30 * 2**20) + b"{}")
    assert_refused(run_add_model(folder, content_copy, "--force"),
                   f"{folder}/model-00002.safetensors: the .safetensors headers add up to more than 64 MiB, "
                   "the most add-model reads")


@pytest.mark.parametrize("name", ["config.json", "model.safetensors", "README.md", "model.safetensors.index.json"])
def test_a_fifo_in_the_folder_is_refused_without_blocking(tmp_path, content_copy, name):
    folder = checkpoint_folder(tmp_path, LLAMA)
    (folder / name).unlink(missing_ok=True)
    os.mkfifo(folder / name)
    assert_refused(run_add_model(folder, content_copy, "--force", in_process=False), f"{folder}/{name}: not a regular file")


@pytest.mark.parametrize(
    "repo_id, problem",
    [
        ("../etc", "--id: must be a Hugging Face repo id like org/Name (got '../etc')"),
        ("org/..", "--id: must be a Hugging Face repo id like org/Name (got 'org/..')"),
        ("org/Name\nx: 1", "--id: must be a single line of text without control, format, separator or bidi characters "
                            "(found U+000A)"),
        ("", "--id: must be non-empty text"),
    ],
)
def test_an_id_that_is_not_org_name_is_refused(tmp_path, content_copy, repo_id, problem):
    folder = checkpoint_folder(tmp_path, LLAMA)
    assert_refused(run_add_model(folder, content_copy, "--id", repo_id), problem)


def test_a_control_character_in_the_folder_name_is_refused(tmp_path, content_copy):
    folder = checkpoint_folder(tmp_path, {key: value for key, value in LLAMA.items() if key != "_name_or_path"},
                               name="evil\nid: injected")
    shown = f"{tmp_path}/evil\\nid: injected"
    assert_refused(run_add_model(folder, content_copy),
                   f"{shown}: the folder name must be a single line of text (it goes into the file)")


@pytest.mark.parametrize("character", ["\n", "\x00", "\u2028", "\u2029", "\x85", "\u202e", "\u2066"])
def test_control_characters_are_not_written(tmp_path, content_copy, character):
    readme = f"---\nlicense: {json.dumps('apache' + character + '2.0')}\n---\n"
    folder = checkpoint_folder(tmp_path, LLAMA, readme=readme)
    assert_refused(run_add_model(folder, content_copy, "--force"),
                   f"{folder}: license.value: must be a single line of text without control, format, separator or bidi "
                   f"characters (found U+{ord(character):04X})")


FLASH = hf_configs.PUBLISHED["deepseek-v4-flash"]
# DeepSeek-V4's own keys: (what the config changes, the problem after "<folder>/config.json: ")
COMPRESSED_CASES = [
    ({"compress_ratios": [3] * 44}, "compress_ratios: must give one of 0, 4, 128 for each of the 43 layers (got [3, 3, 3, 3, 3, "
                                    "3, 3, 3, 3, 3, 3, 3, 3, ...)"),
    ({"compress_ratios": [0, 4]}, "compress_ratios: must give one of 0, 4, 128 for each of the 43 layers (got [0, 4])"),
    ({"compress_ratios": [True] * 44}, "compress_ratios: must give one of 0, 4, 128 for each of the 43 layers (got [true, true, "
                                       "true, true, true, true, tru...)"),
    ({"index_topk": 0}, "index_topk: must be a positive integer (got 0)"),
    ({"hc_mult": None}, "hc_mult: missing (add-model needs it)"),
    ({"o_groups": "8"}, 'o_groups: must be a positive integer (got "8")'),
]


@pytest.mark.parametrize("change, problem", COMPRESSED_CASES, ids=[c[1][:40] for c in COMPRESSED_CASES])
def test_deepseek_v4_config_values_add_model_cannot_use_are_refused(tmp_path, content_copy, change, problem):
    config = {key: value for key, value in {**FLASH, **change}.items() if value is not None}
    folder = checkpoint_folder(tmp_path, config)
    assert_refused(run_add_model(folder, content_copy, "--id", "deepseek-ai/DeepSeek-V4-Flash"),
                   f"{folder}/config.json: {problem}")
