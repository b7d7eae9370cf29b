"""The engines' own rules (generator/sizing/engine_vllm.py, engine_sglang.py, engine.py), with values worked out from their code."""

from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from generator.catalog.loader import load_catalog
from generator.sizing.engine import engine_memory_bytes, kv_dtype_bytes, per_tensor_parallel
from generator.sizing.engine_sglang import sglang_mem_fraction_static
from generator.sizing.engine_vllm import BatchDefaults, block_layout, vllm_batch_defaults, vllm_mxfp4_padding
from generator.sizing.layer_kinds import KindBytes, kind_bytes
from generator.sizing.loaded_weights import TensorShares, fullest_stage_bytes
from tests.formula_records import gpu

GIB, MIB = 2**30, 2**20


@pytest.mark.parametrize(
    "name, memory, expected",
    [
        ("B200", 178 * GIB, BatchDefaults(16384, 1024)),  # 160 GiB or more
        ("X", 160 * GIB, BatchDefaults(16384, 1024)),
        ("H200", 139 * GIB, BatchDefaults(8192, 1024)),  # 70 GiB or more, not an A100
        ("H100", 70 * GIB, BatchDefaults(8192, 1024)),
        ("A100 80GB", 79 * GIB, BatchDefaults(2048, 256)),  # A100s get the small defaults
        ("L40S", 70 * GIB - 1, BatchDefaults(2048, 256)),
    ],
)
def test_vllm_serve_batch_defaults(name, memory, expected):
    assert vllm_batch_defaults(replace(gpu("g", memory), name=name), memory) == expected


@pytest.mark.parametrize(
    "vendor, capability, expected",
    [
        ("NVIDIA", Decimal("9.0"), (64, 256)),  # Hopper: Triton kernels
        ("NVIDIA", Decimal("10.0"), (128, 256)),  # Blackwell: FlashInfer TRT-LLM
        ("NVIDIA", Decimal("8.0"), (128, 256)),  # Ampere: Marlin
        ("NVIDIA", Decimal("12.0"), (128, 256)),  # RTX Blackwell: Marlin
        ("NVIDIA", None, (128, 256)),
        ("AMD", None, (256, 256)),  # ROCm
    ],
)
def test_vllm_mxfp4_padding_by_backend(vendor, capability, expected):
    assert vllm_mxfp4_padding(replace(gpu("g", GIB), vendor=vendor, compute_capability=capability)) == expected


@pytest.mark.parametrize(
    "memory_mib, tensor, expected",
    [
        # H100 as nvidia-smi counts it: 512 + 1.5 × 8,192 + 2 × 256 + 1/8 × 1,024 = 13,440 MiB
        # (above the 10,240 floor); (81,559 - 13,440) / 81,559 = 0.8352
        (81_559, 1, Fraction(835, 1000)),
        # H200: max(512 + 12,288 + 512 + 128, 10,240) = 13,440; (143,771 - 13,440) / 143,771 = 0.9065
        (143_771, 1, Fraction(907, 1000)),
        # a 24 GB card: 512 + 3,072 + 32 + 128 = 3,744 (no floor under 60 GiB); 20,820 / 24,564 = 0.8476
        (24_564, 1, Fraction(848, 1000)),
        # the same at TP 4: 80 graphs, 4/8 × 1,024: 512 + 3,072 + 160 + 512 = 4,256; 20,308 / 24,564 = 0.8267
        (24_564, 4, Fraction(827, 1000)),
        # 40-60 GiB (L40S): 4,096-token chunks, 32 graphs: 512 + 6,144 + 64 + 128 = 6,848; 0.8514
        (46_068, 1, Fraction(851, 1000)),
        # the same at TP 4: 160 graphs, 4/8 × 1,024: 512 + 6,144 + 320 + 512 = 7,488; 0.8375
        (46_068, 4, Fraction(837, 1000)),
        # H100 at TP 4: 512 graphs: 512 + 12,288 + 1,024 + 512 = 14,336; (81,559 - 14,336) / 81,559 = 0.8242
        (81_559, 4, Fraction(824, 1000)),
        # B200: 16,384-token chunks, 512 graphs: 512 + 24,576 + 1,024 + 128 = 26,240; 0.8569
        (183_359, 1, Fraction(857, 1000)),
        # under 20 GiB: 2,048-token chunks, 8 graphs: 512 + 3,072 + 16 + 128 = 3,728; 12,656 / 16,384 = 0.7725
        (16_384, 1, Fraction(772, 1000)),
    ],
)
def test_sglang_default_mem_fraction_static(memory_mib, tensor, expected):
    assert sglang_mem_fraction_static(memory_mib * MIB, tensor, 1) == expected


def test_small_rules():
    assert (kv_dtype_bytes("auto"), kv_dtype_bytes("fp8")) == (2, 1)
    assert (per_tensor_parallel({1: 10, 2: 20}, 1), per_tensor_parallel({1: 10, 2: 20}, 8)) == (10, 20)
    reported = replace(gpu("g", 80 * 10**9), reported_memory_bytes=85_045_477_376)
    assert (engine_memory_bytes(reported), engine_memory_bytes(gpu("g", 80 * 10**9))) == (85_045_477_376, 80 * 10**9)


def logged_kinds(row_id: str, slug: str, tensor: int):
    """A row of tests/data/engine_logs.yaml, and the shipped model's layer kinds on one of `tensor` GPUs."""
    root = Path(__file__).resolve().parent.parent
    row = next(r for r in yaml.safe_load((root / "tests" / "data" / "engine_logs.yaml").read_text()) if r["id"] == row_id)
    model = next(m for m in load_catalog(root / "content").models if m.slug == slug)
    return row, kind_bytes(model.architecture, tensor, 2)


def test_vllm_sizes_a_hybrid_block_to_hold_one_mamba_state_as_its_log_says():
    """Granite-4.0-H-Small at TP 1 (tests/data/engine_logs.yaml, ROCm issue 5590): one sequence's
    Mamba2 state is (128 heads × 64 × 128 + 3 × (8,192 + 2 × 128)) × 2 bytes = 2,147,840 bytes; an
    attention token of one layer 2 × 8 × 128 × 2 = 4,096 bytes, so blocks of 16 × ceil(2,147,840 /
    65,536) = 528 tokens, and the state is padded to 528 × 4,096 = 2,162,688 bytes, 0.69 % more."""
    row, kinds = logged_kinds("granite-4.0-h-small-strix-halo-tp1-rocm-issue5590", "granite-4-0-h-small", 1)
    state = next(kind.bytes for kind in kinds if kind.per_sequence)
    layout = block_layout(kinds, 1, 2048)
    assert (state, layout.block_size) == (2_147_840, 528) == (2_147_840, row["log"]["attention_block_size"])
    padding = layout.block_size * 4_096 / state - 1
    assert round(padding * 100, 2) == row["log"]["mamba_page_padding_percent"]


def test_vllm_keeps_full_attention_layers_of_two_page_sizes_in_one_group():
    """GLM-5.2's IndexShare: 21 layers cache the MLA latent (512 + 64) and the indexer's key of 128,
    57 the latent alone; at 2 bytes a value, 1,408 and 1,152 bytes a token. Every layer is full
    attention, so vLLM keeps them in one group whose page is the sum (UniformTypeKVCacheSpecs):
    21 × 1,408 + 57 × 1,152 = 95,232 bytes a token, not the 4 groups of 21 layers at the widest page
    (118,272) that layers of other types would take."""
    kinds = [KindBytes(21, 1_408, None, False), KindBytes(57, 1_152, None, False)]
    layout = block_layout(kinds, 1, 2048)
    assert layout.bytes_per_block == 95_232 * layout.block_size
    assert layout.blocks(1_000) == -(-1_000 // layout.block_size)


def test_sglang_keeps_2_gib_more_out_of_its_pool_for_a_draft():
    # server_args.py: "reserved_mem += 2 * 1024" for an EAGLE draft, after the 10 GiB floor: on an
    # H100 (81,559 MiB) at TP 1, (81,559 - 13,440 - 2,048) / 81,559 = 0.8101
    assert sglang_mem_fraction_static(81_559 * MIB, 1, 1, drafting=True) == Fraction(810, 1000)


def test_the_vision_tower_sits_on_the_first_pipeline_stage_and_the_mtp_draft_on_the_last():
    shares = TensorShares(layers=100, embeddings=10, output_head=20, vision=50, draft=45)
    # 4 layers over 2 stages, 50 each: the first holds the embeddings and the tower, the last the head
    assert fullest_stage_bytes(shares, 4, 2) == 50 + 10 + 50
    assert fullest_stage_bytes(shares, 4, 2, vision=False) == 50 + 20
    assert fullest_stage_bytes(shares, 4, 1) == 180 and fullest_stage_bytes(shares, 4, 1, vision=False) == 130
    # drafting, the last stage also holds the MTP layers: 50 + 20 + 45 = 115 beats the first's 110
    assert fullest_stage_bytes(shares, 4, 2, draft=True) == 115
    assert fullest_stage_bytes(shares, 4, 1, draft=True) == 225


def test_nemotron_3_nano_mamba_page_at_tp4_is_the_published_one():
    """Nemotron 3 Nano 30B-A3B at TP 4 (vLLM PR 37467: "page_size_bytes=540672" for the Mamba spec,
    "page_size_bytes=8192" for 16 attention tokens). One sequence's state on one GPU: the SSM matrix
    64 / 4 heads × 64 × 128 in FP32 (mamba_ssm_cache_dtype float32) = 524,288 bytes, the convolution
    (4,096 + 2 × 8 × 128) / 4 × 3 in 16 bits = 9,216 bytes: 533,504; an attention token of one layer
    1 × 128 × 2 × 2 = 512 bytes, so blocks of 16 × ceil(533,504 / 8,192) = 1,056 tokens, and the
    state padded to 1,056 × 512 = 540,672 bytes."""
    row, kinds = logged_kinds("nemotron-3-nano-30b-a3b-tp4-pr37467", "nemotron-3-nano-30b-a3b", 4)
    state = next(kind.bytes for kind in kinds if kind.per_sequence)
    attention = next(kind.bytes for kind in kinds if not kind.per_sequence)
    assert (state, attention * 16) == (533_504, 8_192) == (533_504, row["log"]["attention_page_size_bytes_per_16_tokens"])
    layout = block_layout(kinds, 1, 2048)
    assert layout.block_size * attention == 540_672 == row["log"]["mamba_page_size_bytes"]


def test_sglang_draft_copies_its_own_embedding_and_head_until_it_shares_the_targets(catalog):
    """0.5.3rc2's EAGLEWorker loads the draft (its pool too) before set_embed_and_head frees the
    draft's own embedding and head: on 4 GPUs, GLM-4.5-Air's 151,552 × 4,096 vocabulary (a multiple
    of 64) in 16 bits, twice: 2 × 37,888 × 4,096 × 2 = 620,756,992 bytes at the peak. At a static
    share of 0.975 on 4 × H100, less than that is left outside it once the draft settles: without the
    copies it would fit; with them it does not start. At 0.97 more than that is left, and it starts."""
    from generator.sizing.engine_sglang import draft_copy_bytes
    from generator.sizing.planner import PlanRequest, plan
    air = next(m for m in catalog.models if m.slug == "glm-4-5-air")
    h100 = next(g for g in catalog.gpus if g.slug == "h100-sxm")
    assert draft_copy_bytes(air, 4) == 2 * 37_888 * 4_096 * 2 == 620_756_992
    tight = plan(air, h100, 4, PlanRequest(engine="sglang", context=32768, speculative="mtp", memory_fraction=Fraction(975, 1000)))
    assert 0 < tight.non_kv_bytes["outside_fraction"] < 620_756_992
    assert (tight.starts, tight.reason) == (False, "weights_do_not_fit")
    roomy = plan(air, h100, 4, PlanRequest(engine="sglang", context=32768, speculative="mtp", memory_fraction=Fraction(97, 100)))
    assert roomy.starts and roomy.non_kv_bytes["outside_fraction"] > 620_756_992


def test_nemotron_nas_layers_without_attention_cache_nothing_in_vllm_but_hold_a_slot_in_sglang(catalog):
    """Llama-3.3-Nemotron-Super-49B: 49 of 80 layers have attention (8 KV heads of 128). vLLM caches
    those alone (config/model.py get_num_layers_by_block_type counts `not attention.no_op`): at TP 2,
    49 × 2 × 4 × 128 × 2 = 100,352 bytes a token on a GPU. SGLang 0.5.3rc2 sizes its pool over
    num_hidden_layers: 80 × 2 × 4 × 128 × 2 = 163,840."""
    from generator.sizing.planner import PlanRequest, plan
    nas = next(m for m in catalog.models if m.slug == "llama-3-3-nemotron-super-49b-v1")
    h100 = next(g for g in catalog.gpus if g.slug == "h100-sxm")
    vllm = plan(nas, h100, 2, PlanRequest(engine="vllm", context=32768))
    sglang = plan(nas, h100, 2, PlanRequest(engine="sglang", context=32768))
    assert (vllm.kv_bytes_per_token, sglang.kv_bytes_per_token) == (100_352, 163_840)
    assert vllm.starts and sglang.starts
    # what the page's KV section says: a slot in SGLang's pool for each of the 80 layers
    from generator.sizing.detailed import detailed_sizing
    assert detailed_sizing(nas, catalog.gpus).sglang_pool_layers == 80


def test_pipeline_stages_of_nemotron_nas_hold_their_own_layers(catalog):
    """vLLM splits the 80 layers 27/27/26 over 3 stages (get_pp_indices). Stage 0 (layers 0-26) holds
    24 attention layers (6, 7 and 11 have none) of 8192² × 2 + 8192 × 1024 × 2 = 150,994,944
    parameters, MLPs of 3 × 14,336 + 23 × 28,672 + 17,920 = 720,384 channels (× 3 × 8192), and the
    embeddings of 128,256 × 8192: 22,378,708,992 parameters, 44,757,417,984 bytes in BF16 (the layer
    norms add about a megabyte), not the 34.3 GB of an even split, more than an A100-40GB holds. Its
    cache: 24 layers × 2 × 8 × 128 × 2 = 98,304 bytes a token."""
    from generator.sizing.loaded_weights import fullest_stage_attention_layers
    from generator.sizing.planner import PlanRequest, plan
    nas = next(m for m in catalog.models if m.slug == "llama-3-3-nemotron-super-49b-v1")
    assert (fullest_stage_attention_layers(nas.architecture, 2), fullest_stage_attention_layers(nas.architecture, 3)) == (37, 24)
    a100 = next(g for g in catalog.gpus if g.slug == "a100-40gb")
    three = plan(nas, a100, 3, PlanRequest(engine="vllm", context=8192))
    assert (three.split.tensor, three.split.pipeline) == (1, 3)
    assert abs(three.weights_bytes - 44_757_417_984) < 2_000_000
    assert (three.starts, three.reason, three.kv_bytes_per_token) == (False, "weights_do_not_fit", 98_304)
