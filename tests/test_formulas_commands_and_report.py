"""Launch commands follow the page's split, and the `size` report's numbers, worked out by hand."""

from decimal import Decimal

import pytest

from generator.catalog.records import RopeScaling
from generator.sizing.engine import PlanRequest
from generator.sizing.headline import FULL_FINE_TUNING, LORA, QLORA, RULE, fine_tuning_bytes
from generator.sizing.kv_cache import default_context, kv_cache, kv_room
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.llama_cpp import LLAMA_CPP, LlamaCppRequest, llama_cpp_plan
from generator.sizing.planner import plan
from generator.sizing.setups import RUNTIME_OVERHEAD, ParallelSplit, Setup, machine_shapes
from generator.sizing.size_report import size_report
from generator.site.render import Renderer
from tests.formula_records import arch, gpu, model

G = gpu("g", 1_000_000, price="1.00", bandwidth=1_000_000)


@pytest.mark.parametrize(
    "setup, split, context, vllm_lines, sglang_lines",
    [
        pytest.param(
            Setup(G, 8), ParallelSplit(8, 1), 40_000,
            ["--tensor-parallel-size 8"],
            ["--tp 8"],
            id="one-machine",
        ),
        pytest.param(
            Setup(G, 8), ParallelSplit(4, 2), 40_000,
            ["--tensor-parallel-size 4", "--pipeline-parallel-size 2"],
            ["--tp 4", "--pp-size 2"],
            id="heads-do-not-split",
        ),
        pytest.param(
            Setup(G, 8, machines=3), ParallelSplit(8, 3), 40_000,
            ["--tensor-parallel-size 8", "--pipeline-parallel-size 3"],
            ["--tp 8", "--pp-size 3", "--nnodes 3 --node-rank 0 --dist-init-addr HEAD_NODE_IP:5000"],
            id="three-machines",
        ),
    ],
)
def test_vllm_and_sglang_get_the_same_split(setup, split, context, vllm_lines, sglang_lines):
    commands = [SERVING_ENGINES[engine].command.command("test/tiny", split.tensor, split.pipeline, setup.machines, context)
                for engine in ("vllm", "sglang")]
    vllm, sglang = ([line.strip(" \\") for line in command.splitlines()] for command in commands)
    assert vllm[0] == "vllm serve test/tiny" and sglang[:2] == ["python -m sglang.launch_server", "--model-path test/tiny"]
    assert vllm[1:] == [*vllm_lines, f"--max-model-len {context}"]
    assert sglang[2:] == [*sglang_lines, f"--context-length {context}"]


# The base dense model of formula_records: embeddings 1,600, attention 2 × (16 × 24 + 2 × 16 × 6 + 24 × 16) = 1,920, MLP 2 × 3 × 16 × 40
# = 3,840, norms 16 × 5 = 80, head 1,600: 9,040 parameters, 18,080 bytes in BF16.
# KV: 48 bytes per token at 16 bits.
TINY = model(arch(), params=9_040, context_window=1_000)
REPORT_GPU = gpu("r", 100_000, price="2.00", shapes=(1, 2), bandwidth=1_000_000_000)


def test_size_report_at_16_bits_with_a_batch():
    report = size_report(TINY, (REPORT_GPU,), "16", context=500, batch=3)
    assert report.weights.bytes == 18_080
    assert report.kv_bytes_per_token == 48
    assert report.kv_bytes == 72_000  # 48 × 500 × 3
    assert report.required_bytes == 90_080  # 18,080 + 72,000
    assert report.serving_bytes == 21_696  # 9,040 × 2 × 1.2
    assert (report.qlora_bytes, report.lora_bytes, report.full_fine_tuning_bytes) == (6_328, 21_696, 144_640)
    # 90 % of 100,000 = 90,000 < 90,080: two GPUs (180,000 usable), $4.00 an hour
    assert (report.smallest_setup.gpus_per_machine, report.smallest_setup.machines) == (2, 1)
    # a step reads the weights once (resident 1,920 × 2 + 3,840 × 2 + 80 × 2 + 1,600 × 2 = 14,880)
    # and each sequence's KV (24,000): 14,880 + 3 × 24,000 = 86,880 bytes at 2 × 10^9 B/s
    assert report.decode_tokens_per_second == pytest.approx(2_000_000_000 / 86_880)
    assert report.decode_tokens_per_second_total == pytest.approx(3 * 2_000_000_000 / 86_880)


def test_size_report_native_serving_is_the_published_weights_plus_a_fifth():
    report = size_report(TINY, (REPORT_GPU,), "native", context=None, batch=1)
    assert report.context == 1_000  # the context window
    assert report.serving_bytes == 21_696  # 18,080 × 1.2


def test_default_context_is_the_window_else_32768():
    assert default_context(model(arch(), context_window=1_000)) == 1_000
    assert default_context(model(arch())) == 32_768


def test_kv_room_counts_tokens_and_users():
    cache = kv_cache(arch())  # 48 bytes a token
    room = kv_room(cache, 100_000, 40_000)
    # 100,000 // 48 = 2,083 tokens; users at 40,000 tokens (1,920,000 B): 0; at 32,768 (1,572,864 B): 0
    assert (room.bytes, room.tokens, room.users_full_context, room.users_short_context) == (100_000, 2_083, 0, 0)
    room = kv_room(cache, 4_000_000, 40_000)
    assert (room.tokens, room.users_full_context, room.users_short_context) == (83_333, 2, 2)


def test_the_headline_rule_as_pages_explain_it():
    assert [(bits, float(per_param)) for bits, per_param in RULE.serving_bytes_per_param] == [(16, 2.0), (8, 1.0), (4, 0.5)]
    assert float(RULE.serving_overhead) == 0.2
    assert [(float(r.bytes_per_param), float(r.factor)) for r in (RULE.qlora, RULE.lora, RULE.full_fine_tuning)] == [
        (0.5, 1.4), (2.0, 1.2), (16.0, 1.0)
    ]
    assert [fine_tuning_bytes(1_000, r) for r in (QLORA, LORA, FULL_FINE_TUNING)] == [700, 2_400, 16_000]


def test_machine_shapes_are_those_of_priced_gpus():
    gpus = (gpu("a", 1, price="1", shapes=(1, 2)), gpu("b", 1, price="1", shapes=(4, 8)), gpu("c", 1, shapes=(3,)))
    assert machine_shapes(gpus) == (1, 2, 4, 8)


def test_the_size_commands_runtime_overhead():
    assert float(RUNTIME_OVERHEAD) == 0.1


# TINY's matrices: q 16 × 24 and o 24 × 16 (2 each), k and v 16 × 6 (4), MLP 16 × 40 (6); at 16 bits
# embeddings 3,200, norms 160 and head 3,200 = 6,560 bytes in every row.
#   8 bits: attention 1,920 + 8 blocks × 4 = 1,952; MLP 3,840 + 6 × 4 = 3,864   -> 12,376
#   4 bits: attention 384 + 48 + 192 + 24 + 384 + 32 = 1,064 (a scale per 32 rows of a column);
#           MLP 1,920 + 1 × 40 × 6 = 2,160                                          ->  9,784
@pytest.mark.parametrize("precision, weights_bytes", [("16", 18_080), ("8", 12_376), ("4", 9_784), ("native", 18_080)])
def test_size_report_reads_the_row_of_its_precision(precision, weights_bytes):
    assert size_report(TINY, (REPORT_GPU,), precision, context=None, batch=1).weights.bytes == weights_bytes


@pytest.mark.parametrize("first, second, lang, expected", [
    (20_000_000_000, 13_000_000_000, "en", ("20", "13")),  # whole GB already differ
    (13_400_000_000, 13_200_000_000, "en", ("13.4", "13.2")),  # "13 GB, more than its 13 GB" no more
    (145_340_000_000, 145_330_000_000, "pt", ("145,34", "145,33")),
    (1_668_000_000_000, 1_668_000_000_000, "en", ("1,668", "1,668")),  # equal sizes stay whole
])
def test_two_sizes_are_written_with_the_decimals_that_tell_them_apart(fixture_catalog, first, second, lang, expected):
    assert Renderer(fixture_catalog.site, lang).gigabytes_apart(first, second) == expected


@pytest.mark.parametrize("params, lang, shown", [
    (2_779_940_000_000, "en", "2.8T"), (70_553_706_496, "en", "70.6B"), (405_000_000_000, "pt", "405B"),
    (999_885_952, "en", "1B"),  # Gemma-3-1B: not "1,000M"
    (999_885_952, "pt", "1B"), (949_000_000, "en", "949M"), (999_400_000, "en", "999M"),  # 999.4 M still reads 999M
    (999_500_000, "en", "1B"), (1_500_000, "pt", "1,5M"),
])
def test_parameter_counts_read_in_the_unit_that_reads_naturally(fixture_catalog, params, lang, shown):
    assert Renderer(fixture_catalog.site, lang).params_short(params) == shown


# ---- the model card's rope scaling past the config's length ------------------------------------
# Qwen3's recipe: the config declares 40,960 positions; YaRN × 4 over 32,768 serves 131,072.
QWEN3_YARN = RopeScaling(native_context=40_960, rope_type="yarn", factor=Decimal("4.0"),
                         original_max_position_embeddings=32_768, rope_theta=Decimal("1000000"))


def test_each_engine_takes_the_rope_scaling_in_its_own_flags():
    assert SERVING_ENGINES["vllm"].rope_override(QWEN3_YARN) == (("--hf-overrides", """'{"rope_parameters": {"factor": 4.0, """
                                                                  """"original_max_position_embeddings": 32768, "rope_theta": 1000000, "rope_type": "yarn"}}'"""),)
    assert SERVING_ENGINES["sglang"].rope_override(QWEN3_YARN) == (("--json-model-override-args", """'{"rope_scaling":{"rope_type":"yarn","""
                                                                    """"factor":4.0,"original_max_position_embeddings":32768}}'"""),)
    assert LLAMA_CPP.rope_override(QWEN3_YARN) == (("--rope-scaling", "yarn"), ("--rope-scale", "4"), ("--yarn-orig-ctx", "32768"))


@pytest.mark.parametrize("context, overridden", [(40_960, False), (40_961, True), (131_072, True)])
def test_the_override_is_in_the_command_only_past_the_configs_length(context, overridden):
    tiny = model(arch(), params=9_040, context_window=131_072, rope_scaling=QWEN3_YARN)
    big = gpu("big", 10**12, shapes=(1,))
    for engine, flag in (("vllm", "--hf-overrides"), ("sglang", "--json-model-override-args")):
        command = plan(tiny, big, 1, PlanRequest(engine=engine, context=context)).command
        assert (flag in command) == overridden, (engine, context)
    # SGLang derives its longest context from the config alone: past it, it must be allowed to go on
    sglang = plan(tiny, big, 1, PlanRequest(engine="sglang", context=context)).command
    assert sglang.startswith("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang.launch_server \\") == overridden
    assert sglang.splitlines()[1] == "  --model-path test/tiny \\"
    cells = llama_cpp_plan(tiny, big, 1, LlamaCppRequest(quant="Q8_0", context=context)).command
    # llama.cpp: each user's context against the config's length (--parallel gives each its share)
    assert ("--rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768" in cells) == overridden, context
    two = llama_cpp_plan(tiny, big, 1, LlamaCppRequest(quant="Q8_0", context=32_768, users=2)).command
    assert "--ctx-size 65536" in two and "--rope-scaling" not in two  # 2 × 32,768: each under 40,960
