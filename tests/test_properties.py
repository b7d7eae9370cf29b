"""Property-based tests: any catalog loads or fails with clean lines; sizing numbers behave."""

import math
import re
import shutil
from dataclasses import replace

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.catalog.loader import CatalogError, load_catalog
from generator.sizing.detailed import detailed_sizing
from generator.sizing.formats import format_table
from generator.sizing.kv_cache import kv_cache
from generator.sizing.plan_data import largest_machine, model_tables
from generator.site.view_models import build_pages
from generator.catalog.records import Architecture, Attention, LinearAttention, MixtureOfExperts, Model
from generator.site.render import Renderer
from generator.sizing.weights import params_by_component
from tests.conftest import FIXTURE

PROBLEM = re.compile(r"^[^:\n]+:\d+: [^:\n]+: .+$")
KEYS = ["id", "name", "weights", "params", "active_params", "experts", "experts_per_token", "context_window",
        "precision", "license", "release_date", "architecture", "parms", "value", "source"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**13), st.floats(allow_nan=True),
                    st.text(max_size=20), st.sampled_from(["TODO", "org/Name", "https://example.org/x", "2025-01-01"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(KEYS + ["kind", "heads", "layers"]), inner, max_size=4)),
    max_leaves=12)
documents = st.one_of(values, st.dictionaries(st.sampled_from(KEYS), values, max_size=10))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=documents, raw=st.binary(max_size=40))
def test_any_model_file_loads_or_fails_with_one_line_per_problem(tmp_path_factory, document, raw):
    content = tmp_path_factory.mktemp("content")
    shutil.copy(FIXTURE / "site.yaml", content)
    shutil.copy(FIXTURE / "gpus.yaml", content)
    (content / "models").mkdir()
    (content / "models" / "generated.yaml").write_text(yaml.safe_dump(document))
    (content / "models" / "raw.yaml").write_bytes(raw)
    try:
        catalog = load_catalog(content)
    except CatalogError as error:
        assert error.problems
        for problem in error.problems:
            assert PROBLEM.match(problem), problem
        return
    for model in catalog.models:  # whatever loads, renders
        assert model.params > 0


# Real widths are multiples of 32 (GPU tiles, and the block size of every quantized format).
dims = st.integers(1, 8).map(lambda n: 32 * n)


@st.composite
def models(draw):
    heads = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))
    mla = draw(st.booleans())
    if mla:
        attention = Attention("mla", heads, q_lora_rank=draw(st.one_of(st.none(), dims)), kv_lora_rank=draw(dims),
                              qk_nope_head_dim=draw(dims), qk_rope_head_dim=draw(dims), v_head_dim=draw(dims))
    else:
        kv = draw(st.sampled_from([k for k in (1, 2, 4, 8, 16, 32) if heads % k == 0]))
        attention = Attention("gqa", heads, kv_heads=kv, head_dim=draw(dims))
    layers = draw(st.integers(2, 12))
    linear = None
    if draw(st.booleans()):
        linear = LinearAttention("gated_deltanet", draw(st.integers(1, layers - 1)), 2, 4, 32, 64, 4)
    windowed = draw(st.integers(0, layers - (linear.layers if linear else 0)))
    if windowed and not mla:
        attention = Attention(**{**attention.__dict__, "sliding_window": draw(st.integers(1, 4096)), "sliding_window_layers": windowed})
    experts = draw(st.one_of(st.none(), st.integers(2, 64)))
    moe = experts_per_token = None
    if experts:
        experts_per_token = draw(st.integers(1, experts))
        moe = MixtureOfExperts(draw(dims), shared_experts=draw(st.integers(0, 2)))
    arch = Architecture(layers=layers, hidden_size=draw(dims), vocab_size=draw(st.integers(1, 5000)),
                        tied_embeddings=draw(st.booleans()), attention=attention, intermediate_size=draw(dims),
                        dense_layers=draw(st.integers(0, 1)) if moe else None, linear_attention=linear, moe=moe)
    model = Model(id="org/Generated", name="Generated", slug="generated", weights_url="https://example.org",
                  params=1, experts=experts, experts_per_token=experts_per_token,
                  context_window=draw(st.integers(1, 2**20)), architecture=arch)
    params = sum(params_by_component(model).values())
    return Model(**{**model.__dict__, "params": params})


@settings(max_examples=150, deadline=None)
@given(model=models(), tokens=st.integers(0, 2**20), extra=st.integers(1, 2**16))
def test_sizing_numbers_are_finite_non_negative_and_monotonic(fixture_catalog, model, tokens, extra):
    sizes = {row.key: row.bytes for row in format_table(model)}
    assert all(value > 0 for value in sizes.values())
    # uniform formats: more bits never less memory; the mixed ~2-bit plan keeps attention at 8
    # bits, so it is never above FP8 (but may be above uniform 4-bit for attention-heavy models)
    assert sizes["bf16"] >= sizes["fp8"] >= sizes["4bit"]
    assert sizes["fp8"] >= sizes["2bit"]
    for bits in (8, 16):
        cache = kv_cache(model.architecture, bits)
        assert 0 <= cache.sequence_bytes(tokens) <= cache.sequence_bytes(tokens + extra)
    assert kv_cache(model.architecture, 8).sequence_bytes(tokens) <= kv_cache(model.architecture, 16).sequence_bytes(tokens)
    detail = detailed_sizing(model, fixture_catalog.gpus)
    plan = detail.serving.plan
    assert plan.starts and plan.available_kv_bytes > 0 and plan.max_users >= 1 and plan.kv_tokens >= plan.context
    speed = detail.speed
    assert math.isfinite(speed.tokens_per_second) and speed.tokens_per_second > 0
    assert all(math.isfinite(x) and x > 0 for pair in speed.offload.values() for x in pair)


@settings(max_examples=25, deadline=None)
@given(model=models(), without_architecture=st.booleans(), without_bandwidth=st.booleans())
def test_any_sized_model_renders_in_both_languages(fixture_catalog, model, without_architecture, without_bandwidth):
    """What `check` accepts builds: any model (with or without the optional architecture) on GPUs
    with or without the optional bandwidth renders in both languages, and its plan tables compute."""
    if without_architecture:
        model = replace(model, architecture=None)
    gpus = tuple(replace(gpu, bandwidth_bytes_per_second=None) for gpu in fixture_catalog.gpus) if without_bandwidth \
        else fixture_catalog.gpus
    generated = fixture_catalog.__class__(site=fixture_catalog.site, gpus=gpus, models=(model,))
    pages = build_pages(generated)
    for lang in ("pt", "en"):
        renderer = Renderer(fixture_catalog.site, lang)
        for page in pages:
            assert renderer.render(page, twin=True).startswith("# ")
    if model.architecture is not None:
        assert model_tables(model, largest_machine(gpus))["slug"] == model.slug
