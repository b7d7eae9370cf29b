"""Sizing from the architecture: parameters, checkpoint bytes, KV cache, setups, speed."""

from dataclasses import replace
from decimal import Decimal

import pytest

from generator.sizing.detailed import detailed_sizing
from generator.sizing.formats import format_table, native_bytes
from generator.sizing.kv_cache import default_context, kv_cache, tokens_that_fit
from generator.sizing.setups import parallel_sizes, tensor_parallel_fits
from generator.sizing.stock import stock_gpus
from generator.catalog.records import Architecture, Attention
from generator.sizing.speed import decode_tokens_per_second, offloaded_tokens_per_second, token_read
from generator.sizing.weights import params_by_component, published_scope_params


def by_slug(catalog, slug):
    return next(m for m in catalog.models if m.slug == slug)


def test_every_model_has_an_architecture(catalog):
    assert [m.slug for m in catalog.models if m.architecture is None] == []


def test_computed_parameters_are_within_half_a_percent_of_the_published_count(catalog):
    """Within 0.5 % of an exact count; within 1 % of a card's rounded one (a count that ends in six
    zeros: "32.5B", which for QwQ-32B is 0.8 % below its exact total). A count of the language model
    alone (Gemma 4: params_without_vision) is compared without the vision tower."""
    for model in catalog.models:
        params = params_by_component(model)
        computed = published_scope_params(model, params)
        tolerance = 0.01 if model.params % 10**6 == 0 else 0.005
        assert abs(computed - model.params) <= model.params * tolerance, (model.slug, computed, model.params)


@pytest.mark.parametrize(
    "slug, expected",
    [
        # hand-computed: layers × 2 × kv_heads × head_dim × 2 bytes
        ("llama-3-1-70b-instruct", 80 * 2 * 8 * 128 * 2),  # 327,680
        ("qwen3-235b-a22b", 94 * 2 * 4 * 128 * 2),  # 192,512
        ("llama-3-1-405b", 126 * 2 * 8 * 128 * 2),  # 516,096
        ("glm-4-6", 92 * 2 * 8 * 128 * 2),  # 376,832
        ("minimax-m2", 62 * 2 * 8 * 128 * 2),  # 253,952
        # MLA: layers × (kv_lora_rank + qk_rope_head_dim) × 2 bytes, no factor 2
        ("deepseek-v3", 61 * (512 + 64) * 2),  # 70,272
        ("kimi-k2-instruct", 61 * (512 + 64) * 2),
        # GLM-5 also caches one 128-value indexer key per token and layer
        ("glm-5", 78 * (512 + 64 + 128) * 2),
        # gpt-oss-120b: only the 18 full-attention layers grow past the 128-token window
        ("gpt-oss-120b", 18 * 2 * 8 * 64 * 2),  # 36,864
        # Qwen3-Next: 12 full-attention layers out of 48
        ("qwen3-next-80b-a3b-instruct", 12 * 2 * 2 * 256 * 2),
        # Kimi-K3: 24 MLA layers out of 93
        ("kimi-k3", 24 * (512 + 64) * 2),  # 27,648
    ],
)
def test_kv_bytes_per_token_at_16_bits(catalog, slug, expected):
    assert kv_cache(by_slug(catalog, slug).architecture, 16).bytes_per_token == expected


def test_window_and_state_are_per_sequence(catalog):
    gpt = kv_cache(by_slug(catalog, "gpt-oss-120b").architecture)
    assert (gpt.window_bytes_per_token, gpt.window_tokens) == (18 * 2 * 8 * 64 * 2, 128)
    assert gpt.sequence_bytes(1_000) - gpt.sequence_bytes(500) == 500 * gpt.bytes_per_token
    gemma = kv_cache(by_slug(catalog, "gemma-3-27b").architecture)
    assert (gemma.bytes_per_token, gemma.window_tokens) == (10 * 2 * 16 * 128 * 2, 1024)
    kimi = kv_cache(by_slug(catalog, "kimi-k3").architecture)
    # 69 KDA layers × (96 heads × 128 × 128 state + 3 × (3 × 12,288) conv values) × 2 bytes
    assert kimi.state_bytes == 69 * (96 * 128 * 128 + 3 * 3 * 12_288) * 2
    assert kimi.sequence_bytes(0) == kimi.state_bytes


def test_minimax_m2_kv_cache_matches_its_makers_figure(catalog):
    # "240 GB per 1M context tokens" (github.com/MiniMax-AI/MiniMax-M2 @581a755,
    # docs/sglang_deploy_guide.md); ours is 253.95 GB = 236.5 GiB, their figure rounds.
    cache = kv_cache(by_slug(catalog, "minimax-m2").architecture)
    assert cache.bytes(1_000_000, 1) == pytest.approx(240e9, rel=0.06)


@pytest.mark.parametrize(
    "slug, published_bytes, tolerance",
    [
        # sum of the index: moonshotai/Kimi-K3 @f831ab6 (github.com/FerrumVir/arc-chain
        # @6810535 docs/protocol/integer-profile-mla-moe-dyadic-v1.md, section 11.2)
        ("kimi-k3", 1_560_860_324_864, 0.001),
        # sum of safetensors files (github.com/haobbc/local-open-models @c6ee724 models/gpt-oss-*.md)
        ("gpt-oss-120b", 65_248_893_184, 0.001),
        ("gpt-oss-20b", 13_761_316_904, 0.001),
        # HF API dtype census of deepseek-ai/DeepSeek-V3: 680,571,043,840 F8 + 3,918,786,560 BF16
        # + 41,555,600 F32 parameters (huggingface.co/api/models/deepseek-ai/DeepSeek-V3)
        ("deepseek-v3", 680_571_043_840 + 2 * 3_918_786_560 + 4 * 41_555_600, 0.001),
        # model.safetensors.index.json total_size of meta-llama/Llama-3.1-8B-Instruct
        ("llama-3-1-8b-instruct", 16_060_522_496, 0),
    ],
)
def test_native_checkpoint_bytes_match_published_sizes(catalog, slug, published_bytes, tolerance):
    computed = sum(native_bytes(by_slug(catalog, slug)).values())
    assert abs(computed - published_bytes) <= published_bytes * tolerance, computed


def test_more_bits_never_give_less_memory(catalog):
    for model in catalog.models:
        sizes = {row.key: row.bytes for row in format_table(model)}
        # (the ~2-bit mix keeps attention at 8 bits: with full multi-head attention, OLMo-2-13B, it
        # can weigh more than every weight at 4 bits)
        assert sizes["bf16"] >= sizes["fp8"] >= sizes["4bit"] > 0 and sizes["fp8"] >= sizes["2bit"] > 0, model.slug
        assert sizes["bf16"] >= sizes["native"] >= sizes["2bit"], model.slug
        arch = model.architecture
        assert kv_cache(arch, 16).sequence_bytes(4096) >= kv_cache(arch, 8).sequence_bytes(4096)


@pytest.mark.parametrize("tokens", [0, 1, 127, 128, 129, 4096, 131_072])
def test_more_context_never_gives_less_kv_cache(catalog, tokens):
    for model in catalog.models:
        cache = kv_cache(model.architecture)
        assert cache.sequence_bytes(tokens + 1) >= cache.sequence_bytes(tokens) >= 0


def gqa(heads, kv_heads):
    attention = Attention(kind="gqa", heads=heads, kv_heads=kv_heads, head_dim=128)
    return Architecture(layers=1, hidden_size=128, vocab_size=1, tied_embeddings=True, attention=attention, intermediate_size=1)


@pytest.mark.parametrize(
    "heads, kv_heads, size, fits",
    [
        (64, 8, 8, True),
        (40, 8, 8, True),  # Llama-4-Scout
        (40, 8, 16, False),  # 40 query heads do not split over 16
        (64, 4, 8, True),  # fewer KV heads than GPUs: each GPU keeps a copy
        (48, 12, 8, False),  # 12 KV heads neither divide nor are divided by 8
        (16, 2, 8, True),  # Qwen3-Next's full-attention layers
    ],
)
def test_tensor_parallel_check(heads, kv_heads, size, fits):
    assert tensor_parallel_fits(gqa(heads, kv_heads), size) is fits


def test_parallel_sizes_fall_back_to_pipeline_stages(catalog):
    from generator.sizing.setups import Setup

    b300 = next(g for g in catalog.gpus if g.slug == "b300")
    assert parallel_sizes(gqa(48, 12), Setup(b300, 8)) == (4, 2)
    assert parallel_sizes(gqa(64, 8), Setup(b300, 8, machines=2)) == (8, 2)


def test_kimi_k3_serving_setup_is_the_seed_pages_machine(seed_catalog):
    """The setup to serve it is the sample stock's one machine (the seed page's 8 × B300)."""
    detail = detailed_sizing(by_slug(seed_catalog, "kimi-k3"), seed_catalog.gpus,
                             stock_gpus(seed_catalog.gpus, seed_catalog.inventory))
    assert detail.in_stock
    serving = detail.serving
    assert (serving.setup.gpu.slug, serving.setup.gpus_per_machine, serving.setup.machines) == ("b300", 8, 1)
    assert serving.setup.price_per_hour == Decimal("36.80")  # the seed page's 8 × B300
    plan = serving.plan
    # vLLM starts with its default flags: one sequence of 1,048,576 tokens, not two
    assert (plan.starts, plan.context, plan.changes, plan.max_users) == (True, 1_048_576, (), 1)
    assert 1_048_576 <= plan.kv_tokens < 2 * 1_048_576
    assert serving.tensor_parallel_ok


def test_a_model_that_no_machine_holds_gets_a_multi_node_plan(catalog):
    kimi = by_slug(catalog, "kimi-k3")
    small_gpus = tuple(g for g in catalog.gpus if g.slug in ("h100-sxm", "h200"))
    serving = detailed_sizing(kimi, small_gpus).serving
    # 1,561 GB of weights: 8 × 139.8 GiB does not start it; two H200 machines (pipeline 2) do
    assert (serving.setup.gpu.slug, serving.setup.gpus_per_machine, serving.setup.machines) == ("h200", 8, 2)
    assert (serving.plan.split.tensor, serving.plan.split.pipeline) == (8, 2)
    h200 = next(g for g in small_gpus if g.slug == "h200")
    assert serving.setup.price_per_hour == h200.price_per_gpu_hour * 16  # the daily feed moves the price


def test_speed_bounds(catalog):
    model = by_slug(catalog, "kimi-k3")
    weights = native_bytes(model)
    cache = kv_cache(model.architecture)
    read = token_read(model, weights, cache, 32_768)
    # 16 of 896 routed experts, everything else but embeddings, vision and MTP layers
    assert read.expert_bytes == round(weights["routed_experts"] * 16 / 896)
    assert read.kv_bytes == cache.sequence_bytes(32_768)
    fast = decode_tokens_per_second(read.total, 64_000 * 10**9)
    assert fast == pytest.approx(64_000e9 / read.total)
    assert decode_tokens_per_second(read.total, 32_000 * 10**9) < fast
    ram_slow, ram_fast = (offloaded_tokens_per_second(read, 64_000 * 10**9, bw * 10**9) for bw in (30, 60))
    nvme_fast = offloaded_tokens_per_second(read, 64_000 * 10**9, 14 * 10**9)
    assert nvme_fast < ram_slow < ram_fast < fast


@pytest.mark.parametrize(
    "room, expected",
    [
        (999, 0),  # not even the state
        (1_000 + 150 * 7, 7),  # inside the window, every layer grows
        (1_000 + 150 * 10 + 100 * 5, 15),  # past the window, only the full layers grow
    ],
)
def test_tokens_of_one_sequence_count_state_and_windows_once(room, expected):
    from generator.sizing.kv_cache import KvCache

    cache = KvCache(bytes_per_token=100, window_bytes_per_token=50, window_tokens=10, state_bytes=1_000)
    assert tokens_that_fit(cache, room) == expected
    assert expected == 0 or cache.sequence_bytes(expected) <= room


def test_only_windows_means_any_length():
    from generator.sizing.kv_cache import KvCache

    cache = KvCache(bytes_per_token=0, window_bytes_per_token=50, window_tokens=10, state_bytes=0)
    assert tokens_that_fit(cache, 499) == 9
    assert tokens_that_fit(cache, 500) is None


def test_every_serving_setup_holds_one_sequence_at_the_full_context(catalog):
    for model in catalog.models:
        plan = detailed_sizing(model, catalog.gpus).serving.plan
        assert plan.starts and plan.context == default_context(model), model.slug
        assert plan.kv_tokens >= plan.context and plan.max_users >= 1, model.slug


def test_a_dense_model_has_no_offload_figures(catalog):
    detail = detailed_sizing(by_slug(catalog, "llama-3-1-70b-instruct"), catalog.gpus)
    assert detail.speed.offload == {}
    assert detailed_sizing(by_slug(catalog, "gpt-oss-120b"), catalog.gpus).speed.offload.keys() == {"ram", "nvme"}


def test_headline_room_can_be_negative(catalog):
    gemma = by_slug(catalog, "gemma-3-27b")
    four_bit = detailed_sizing(gemma, catalog.gpus).headline_rooms[1]
    assert four_bit.bits == 4 and four_bit.room.bytes < 0 and four_bit.room.tokens == 0


def test_tied_embeddings_have_no_output_head(catalog):
    gemma = by_slug(catalog, "gemma-3-27b")
    assert params_by_component(gemma)["output_head"] == 0
    untied = replace(gemma, architecture=replace(gemma.architecture, tied_embeddings=False))
    assert params_by_component(untied)["output_head"] == 262_208 * 5_376
