"""The checkpoints a plan serves (checkpoints.py) and the bytes of their schemes: hand-computed tables.

The schemes' bytes are worked out on one tensor of 256 rows × 64 columns, twice (32,768 values):
8 bits are 32,768 bytes and 4 bits 16,384, plus the scales of each scheme's groups.
"""

from dataclasses import replace

import pytest

from generator.catalog.records import Checkpoint, Source
from generator.sizing.checkpoints import CHECKPOINT, ON_THE_FLY, PUBLISHED, served_precisions, served_weights
from generator.sizing.engine_sglang import SGLANG
from generator.sizing.engine_vllm import VLLM
from generator.sizing.formats import StoredFormats, bytes_by_component, tensor_bytes
from generator.sizing.planner import NO_CHECKPOINT, PlanRequest, plan
from generator.sizing.weights import Tensors
from tests.formula_records import arch, by_component, gpu, model

TENSOR = Tensors("dense_mlp", 256, 64, 2)
GPU = gpu("big", 10**12)


@pytest.mark.parametrize("scheme, expected", [
    pytest.param("fp8_channel", 33_280, id="fp8-channel"),  # + 64 columns × 2 tensors × 4-byte scale = 512
    pytest.param("fp8_tensor", 32_776, id="fp8-tensor"),  # + 2 tensors × 4 bytes
    pytest.param("int8_channel", 33_024, id="int8-channel"),  # + 128 scales × 2 bytes
    pytest.param("int8_g128_zp", 33_536, id="int8-gptq"),  # + 2 × 64 × 2 = 256 groups × (2 + 1) bytes
    pytest.param("int4_g128", 16_896, id="int4-w4a16"),  # + 256 groups × 2 bytes
    pytest.param("int4_g128_zp", 17_024, id="int4-awq"),  # + 256 groups × 2.5 bytes (scale and 4-bit zero)
    pytest.param("nvfp4", 18_432, id="nvfp4"),  # + 16 × 64 × 2 = 2,048 groups × 1 byte
    pytest.param("mxfp4", 17_408, id="mxfp4"),  # + 8 × 64 × 2 = 1,024 groups × 1 byte
])
def test_scheme_bytes(scheme, expected):
    assert tensor_bytes(TENSOR, scheme) == expected


def test_kept_layers_stay_at_16_bits():
    # the base model's MLP: 16 × 40, 3 tensors in each of 2 layers. Layer 1 kept: 3 tensors at FP8
    # (1,920 values + 40 columns × 3 × 4-byte scales = 2,400) and 3 at BF16 (3,840)
    stored = StoredFormats({"dense_mlp": "fp8_channel"}, layers_kept=(1,))
    assert bytes_by_component(model(arch()), stored) == by_component(
        embeddings=3_200, attention=3_840, dense_mlp=6_240, router_and_norms=160, output_head=3_200)


def checkpoint(repo, scheme, parts=("attention", "dense_mlp")):
    return Checkpoint(repo, scheme, parts, Source("https://example.org/" + repo))


BF16 = model(arch(), id="org/dense")
WITH_CHECKPOINTS = replace(BF16, checkpoints=(
    checkpoint("org/dense-FP8", "fp8_channel"), checkpoint("other/dense-FP8", "fp8_tensor"),
    checkpoint("org/dense-AWQ", "int4_g128_zp")))
FP8_NATIVE = model(arch(formats={"attention": "fp8_block128", "dense_mlp": "fp8_block128"}), id="org/fp8")


@pytest.mark.parametrize("subject, precision, engine, expected", [
    pytest.param(BF16, "native", VLLM, ("org/dense", PUBLISHED, ()), id="native-is-published"),
    pytest.param(BF16, "bf16", SGLANG, ("org/dense", PUBLISHED, ()), id="16-bit-published"),
    pytest.param(BF16, "fp8", VLLM, ("org/dense", ON_THE_FLY, (("--quantization", "fp8"),)), id="vllm-fp8-on-the-fly"),
    pytest.param(BF16, "fp8", SGLANG, None, id="sglang-no-fp8-without-checkpoint"),
    pytest.param(BF16, "4bit", VLLM, None, id="no-4-bit"),
    pytest.param(WITH_CHECKPOINTS, "fp8", VLLM, ("org/dense-FP8", CHECKPOINT, ()), id="first-fp8-checkpoint"),
    pytest.param(WITH_CHECKPOINTS, "fp8", SGLANG, ("org/dense-FP8", CHECKPOINT, ()), id="sglang-serves-it-too"),
    pytest.param(WITH_CHECKPOINTS, "4bit", SGLANG, ("org/dense-AWQ", CHECKPOINT, ()), id="4-bit-checkpoint"),
    pytest.param(FP8_NATIVE, "fp8", VLLM, ("org/fp8", PUBLISHED, ()), id="published-fp8"),
    pytest.param(FP8_NATIVE, "bf16", VLLM, None, id="no-16-bit-of-an-fp8-model"),
])
def test_the_weights_each_precision_serves(subject, precision, engine, expected):
    weights = served_weights(subject, precision, engine)
    assert (weights and (weights.repo, weights.origin, weights.flags)) == expected


def test_a_named_checkpoint_is_served_whatever_the_precision():
    assert served_weights(WITH_CHECKPOINTS, "native", VLLM, "other/dense-FP8").repo == "other/dense-FP8"
    assert served_weights(WITH_CHECKPOINTS, "native", VLLM, "nobody/else") is None


def test_precisions_served_per_engine():
    assert served_precisions(BF16, VLLM) == ("bf16", "fp8")
    assert served_precisions(BF16, SGLANG) == ("bf16",)
    assert served_precisions(WITH_CHECKPOINTS, SGLANG) == ("bf16", "fp8", "4bit")


def test_a_plan_without_a_checkpoint_does_not_start_and_prints_no_command():
    result = plan(BF16, GPU, 1, PlanRequest(precision="4bit", context=100))
    assert (result.starts, result.reason, result.command, result.max_context, result.max_users) == (
        False, NO_CHECKPOINT, None, 0, 0)


def test_the_command_serves_the_checkpoint_and_its_flags():
    quantized = plan(WITH_CHECKPOINTS, GPU, 1, PlanRequest(precision="4bit", context=100))
    assert quantized.command.startswith("vllm serve org/dense-AWQ \\\n")
    on_the_fly = plan(BF16, GPU, 1, PlanRequest(precision="fp8", context=100))
    assert on_the_fly.command.startswith("vllm serve org/dense \\\n") and on_the_fly.command.endswith("--quantization fp8")
    # on the fly, the attention and MLP matrices at FP8 with one 4-byte scale per tensor:
    # attention 1,920 + 8 tensors × 4 = 1,952 and MLP 3,840 + 6 × 4 = 3,864; at BF16 the norms (160)
    # and the embeddings and head as loaded, their 100 rows padded to 128: 2 × 128 × 16 × 2 = 8,192
    assert on_the_fly.weights_bytes == 1_952 + 3_864 + 160 + 8_192


def test_a_modelopt_fp8_checkpoint_keeps_an_fp8_kv_cache_in_vllm_only(catalog):
    """nvidia/Llama-3.1-70B-Instruct-FP8's hf_quant_config.json gives kv_cache_quant_algo FP8: vLLM
    resolves --kv-cache-dtype auto to fp8 (utils/torch_utils.py resolve_kv_cache_dtype_string), one byte a
    value: at TP 2, 80 layers × 2 × 4 KV heads × 128 = 81,920 bytes a token. SGLang 0.5.3rc2 keeps its
    16-bit cache for a modelopt FP8 checkpoint (ModelOptFp8Config keeps the algorithm apart): 163,840."""
    llama = next(m for m in catalog.models if m.slug == "llama-3-1-70b-instruct")
    h100 = next(g for g in catalog.gpus if g.slug == "h100-sxm")
    vllm = plan(llama, h100, 2, PlanRequest(engine="vllm", precision="fp8", context=32768))
    sglang = plan(llama, h100, 2, PlanRequest(engine="sglang", precision="fp8", context=32768))
    assert vllm.weights.repo == sglang.weights.repo == "nvidia/Llama-3.1-70B-Instruct-FP8"
    assert (vllm.cache_dtype, sglang.cache_dtype) == ("fp8", "auto")
    assert (vllm.kv_bytes_per_token, sglang.kv_bytes_per_token) == (80 * 2 * 4 * 128, 80 * 2 * 4 * 128 * 2)
