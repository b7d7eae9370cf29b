"""Property tests of the text rule and the number bounds: random text (control, separator, bidi
and markup characters included) in every text field of a model, a GPU and site.yaml, and random
numbers in every numeric field. The loader refuses with clean problem lines or accepts, and every
accepted catalog renders every page's twin in both languages, with catalog markup escaped."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.catalog.loader import CatalogError, load_catalog
from generator.catalog.slugs import slugify
from generator.site.render import Renderer
from generator.site.view_models import build_pages
from tests.conftest import FIXTURE
from tests.test_properties import PROBLEM

MARKUP = "<img src=x onerror=alert(1)>"
HOSTILE = ["\n", "\r", "\x00", "\x7f", "\x85", "\x9b", "\u2028", "\u2029", "\u202e", "\u2066", "\u200f",
           "\t", MARKUP, "# ", "```", "](javascript:x)", "'", '"', "\\", "&amp;", "*_`|[", " ; https://x.example/'y"]
# Half hostile (any character, a hostile fragment inside), half printable text that should pass.
printable = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Cf", "Zl", "Zp")), min_size=1, max_size=24)
texts = st.one_of(
    st.builds(lambda head, hostile, tail: head + hostile + tail,
              st.text(max_size=12), st.sampled_from(HOSTILE), st.text(max_size=12)),
    st.builds(lambda head, markup: head + markup, printable, st.sampled_from(["", MARKUP, " *x* [y](z) | `w`"])),
)
numbers = st.one_of(st.integers(-10, 10**7), st.integers(), st.floats(), st.decimals(allow_nan=False).map(str),
                    st.integers(1, 64),
                    st.sampled_from([10**15, 10**15 + 1, 10**9, 10**7, 10**6, 10**4, 1, 0.0001, 0.00009, "1e5000"]))
dates = st.one_of(st.dates().map(str), st.text(max_size=12))

# Where each random value goes: (file, key path). The one model is Kimi-K3 (MLA, MoE, linear
# attention, vision, API prices: the most fields); the one GPU is the H100.
MODEL_TEXT = ["name", "precision.value", "license.value", "params.note", "params.source", "architecture.note",
              "architecture.source", "context_window.note"]
GPU_TEXT = ["name", "vendor", "memory_type.value", "interconnect.value", "price_per_gpu_hour.provider",
            "memory_gb.note", "memory_gb.source"]
SITE_TEXT = ["brand", "currency", "console_url", "base_url"]
ARCHITECTURE = {
    "": ["layers", "hidden_size", "vocab_size", "intermediate_size", "dense_layers", "norms_per_layer",
         "extra_layers"],
    "attention.": ["heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
                   "sliding_window", "sliding_window_layers", "indexer_heads", "indexer_head_dim"],
    "linear_attention.": ["layers", "key_heads", "value_heads", "key_head_dim", "value_head_dim", "conv_kernel"],
    "moe.": ["expert_intermediate_size", "shared_experts", "shared_expert_intermediate_size", "latent_size"],
    "vision.": ["layers", "hidden_size", "intermediate_size", "patch_size"],
}
MODEL_NUMBERS = [
    "params.value", "active_params.value", "experts.value", "experts_per_token.value", "context_window.value",
    "api_price.value.input", "api_price.value.cached_input", "api_price.value.output",
    *(f"architecture.{part}{key}" for part, keys in ARCHITECTURE.items() for key in keys),
]
GPU_NUMBERS = ["memory_gb.value", "bandwidth_gb_s.value", "price_per_gpu_hour.value"]


def _documents() -> dict[str, dict]:
    gpus = yaml.safe_load((FIXTURE / "gpus.yaml").read_text(encoding="utf-8"))
    return {
        "site": yaml.safe_load((FIXTURE / "site.yaml").read_text(encoding="utf-8")),
        "gpu": next(gpu for gpu in gpus["gpus"] if gpu["slug"] == "h100-sxm"),
        "model": yaml.safe_load((FIXTURE / "models" / "kimi-k3.yaml").read_text(encoding="utf-8")),
    }


def _put(document: dict, key_path: str, value: object) -> None:
    *parents, last = key_path.split(".")
    for key in parents:
        document = document.setdefault(key, {})
    document[last] = value


def _write(content: Path, documents: dict[str, dict]) -> None:
    if content.exists():
        shutil.rmtree(content)
    (content / "models").mkdir(parents=True)
    (content / "site.yaml").write_text(yaml.safe_dump(documents["site"]), encoding="utf-8")
    (content / "gpus.yaml").write_text(yaml.safe_dump({"gpus": [documents["gpu"]]}), encoding="utf-8")
    name = documents["model"]["name"]
    stem = (slugify(name) if isinstance(name, str) else "") or "model"
    (content / "models" / f"{stem}.yaml").write_text(yaml.safe_dump(documents["model"]), encoding="utf-8")


def _loads_or_refuses_and_renders(content: Path, documents: dict[str, dict]) -> None:
    _write(content, documents)
    try:
        catalog = load_catalog(content)
    except CatalogError as error:
        assert error.problems and all(PROBLEM.match(problem) for problem in error.problems), error.problems
        return
    pages = build_pages(catalog)
    for lang in catalog.site.languages:
        renderer = Renderer(catalog.site, lang)
        for page in pages:
            markdown = renderer.render(page, twin=True)
            assert "<img" not in markdown, page.path  # catalog markup lands escaped


# Few examples: each accepted one renders every page twice (about a second).
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SLOWER = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
edits = {
    "text": st.tuples(st.sampled_from(
        [("model", key) for key in MODEL_TEXT] + [("gpu", key) for key in GPU_TEXT] + [("site", key) for key in SITE_TEXT]
    ), texts),
    "number": st.tuples(st.sampled_from([("model", key) for key in MODEL_NUMBERS] + [("gpu", key) for key in GPU_NUMBERS]),
                        numbers),
    "date": st.tuples(st.sampled_from([("model", "release_date.value"), ("gpu", "price_per_gpu_hour.date"),
                                       ("site", "prices_date")]), dates),
}


@SLOW
@given(changes=st.lists(st.one_of(*edits.values()), min_size=1, max_size=2))
def test_random_text_numbers_and_dates_are_refused_cleanly_or_render(tmp_path, changes):
    documents = _documents()
    for (document, key_path), value in changes:
        _put(documents[document], key_path, value)
    _loads_or_refuses_and_renders(tmp_path / "content", documents)


@SLOWER
@given(changes=st.lists(st.tuples(st.sampled_from(
    [("model", key) for key in MODEL_TEXT] + [("gpu", key) for key in GPU_TEXT] + [("site", "brand")]),
    st.sampled_from([MARKUP, "a < b & c > d", "*bold* _x_ [link](https://x.example) `code` | cell"])),
    min_size=1, max_size=4))
def test_accepted_markup_in_text_is_escaped_on_every_page(tmp_path, changes):
    documents = _documents()
    for (document, key_path), value in changes:
        _put(documents[document], key_path, value)
    _loads_or_refuses_and_renders(tmp_path / "content", documents)


# Every bound of fields.py at once, at its extreme: what `check` accepts, the pages render.
EXTREMES = [
    {("model", "params.value"): 10**15, ("model", "active_params.value"): 10**15, ("gpu", "memory_gb.value"): 1,
     ("gpu", "bandwidth_gb_s.value"): 1, ("gpu", "price_per_gpu_hour.value"): 0.0001,
     ("model", "context_window.value"): 10**9},
    {("gpu", "memory_gb.value"): 10**4, ("gpu", "bandwidth_gb_s.value"): 10**6, ("gpu", "price_per_gpu_hour.value"): 10**6,
     ("model", "api_price.value.input"): 10**6, ("model", "api_price.value.output"): 0.0001},
    {("model", "architecture.hidden_size"): 10**7, ("model", "architecture.vocab_size"): 10**7,
     ("model", "architecture.moe.expert_intermediate_size"): 10**7, ("model", "architecture.layers"): 1000,
     ("model", "architecture.attention.kv_lora_rank"): 10**7, ("model", "experts.value"): 10**6},
    {("model", "architecture.extra_layers"): 1000, ("model", "architecture.moe.shared_experts"): 10**7,
     ("model", "architecture.vision.layers"): 1000, ("model", "architecture.vision.patch_size"): 10**7},
]


@pytest.mark.parametrize("extremes", EXTREMES)
def test_values_at_the_bounds_are_accepted_and_render(tmp_path, extremes):
    documents = _documents()
    for (document, key_path), value in extremes.items():
        _put(documents[document], key_path, value)
    _write(tmp_path / "content", documents)
    load_catalog(tmp_path / "content")  # accepted
    _loads_or_refuses_and_renders(tmp_path / "content", documents)
