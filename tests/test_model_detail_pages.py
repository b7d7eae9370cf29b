"""The detailed sections (issue: sizing that knows the architecture) on the pages, in both languages.

Pages of the fixture catalog (tests/fixtures/catalog/), one model per architecture feature.
"""

import re
from dataclasses import replace

import pytest

from generator.site.view_models import build_pages
from generator.site.render import Renderer

MODELS = ["kimi-k3", "deepseek-v3", "deepseek-v2", "llama-3-1-8b-instruct", "mistral-7b-v0-1", "qwen3-next-80b-a3b-instruct"]
HEADINGS = {
    "en": ["## Weights by component", "## Weights in each format", "## KV cache", "## A setup to serve it",
           "## GPUs per type", "## Speed and cost", "## Launch commands", "## How these numbers are computed"],
    "pt": ["## Pesos por componente", "## Pesos em cada formato", "## Cache KV", "## Uma configuração para servi-lo",
           "## GPUs por tipo", "## Velocidade e custo", "## Comandos para iniciar", "## Como estes números são calculados"],
}


@pytest.fixture(scope="module")
def pages(fixture_catalog):
    return {p.path: p for p in build_pages(fixture_catalog)}


def twin(fixture_catalog, pages, lang, slug):
    return Renderer(fixture_catalog.site, lang).render(pages[f"models/{slug}"], twin=True)


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("slug", MODELS)
def test_every_detailed_section_is_on_the_page(fixture_catalog, pages, lang, slug):
    text = twin(fixture_catalog, pages, lang, slug)
    positions = [text.index(heading + "\n") for heading in HEADINGS[lang]]
    assert positions == sorted(positions)
    # SGLang 0.5.3rc2 has no Kimi Delta Attention (no kimi_linear.py in its wheel): no command, and the page says so
    sglang = slug != "kimi-k3"
    assert "vllm serve" in text and ("sglang.launch_server" in text) == sglang
    assert ("SGLang 0.5.3rc2 does not run this model" in text or "O SGLang 0.5.3rc2 não roda este modelo" in text) != sglang
    # llama.cpp's GGUF layout is sized for every model here but Kimi-K3 (latent MoE, Kimi delta attention)
    gguf = slug != "kimi-k3"
    assert ("llama-server" in text) == gguf and ("## Run it on your own GPU" in text or "## Rode na sua própria GPU" in text) == gguf


def test_figures_follow_from_the_architecture(fixture_catalog, pages):
    kimi = twin(fixture_catalog, pages, "en", "kimi-k3")
    assert "| Per token, layers that see the whole context | 27,648 B | 13,824 B |" in kimi
    assert "| Routed experts | 2,722,740,830,208 | 1,446 GB |" in kimi
    assert "| Users at the full context (1,048,576 tokens) | 1 |" in kimi
    assert "The official API: $3.00 per million input tokens, $15.00 per million output tokens." in kimi
    deepseek = twin(fixture_catalog, pages, "en", "deepseek-v3")
    # on the smallest card: every layer on the GPU (61 blocks and the output), most layers' experts in RAM
    assert "--n-gpu-layers 62" in deepseek and 3 < int(re.search(r"--n-cpu-moe (\d+)", deepseek).group(1)) <= 61
    llama = twin(fixture_catalog, pages, "pt", "llama-3-1-8b-instruct")
    assert "| Por token, camadas que veem todo o contexto | 131.072 B | 65.536 B |" in llama  # 32 × 2 × 8 × 128 × 2
    assert "Offload" not in llama  # a dense model has no experts to offload
    assert "O que os 20% do topo da página cobrem em 4 bits: nada." in llama
    mistral = twin(fixture_catalog, pages, "en", "mistral-7b-v0-1")
    assert "| Per token, window layers (up to 4,096 tokens) | 131,072 B | 65,536 B |" in mistral
    qwen = twin(fixture_catalog, pages, "en", "qwen3-next-80b-a3b-instruct")
    assert "36 linear-attention layers keep a fixed state per sequence" in qwen


def test_commands_use_the_setups_parallelism(fixture_catalog, pages):
    kimi = twin(fixture_catalog, pages, "en", "kimi-k3")
    assert "vllm serve moonshotai/Kimi-K3 \\\n  --tensor-parallel-size 8 \\\n  --max-model-len 1048576" in kimi
    deepseek = twin(fixture_catalog, pages, "en", "deepseek-v3")  # SGLang runs it: the same split as vLLM
    assert "--tensor-parallel-size 4 \\\n" in deepseek and "--tp 4 \\\n" in deepseek


@pytest.mark.parametrize(
    "lang, sentence",
    [
        ("en", "With the engine's default flags it would not start ({reason}); the commands below add {flags}."),
        ("pt", "Com as flags padrão do motor ele não iniciaria ({reason}); os comandos abaixo acrescentam {flags}."),
    ],
)
def test_the_page_says_which_flags_make_the_engine_start_and_why(catalog, lang, sentence):
    # every shipped model whose chosen setup needs flags beyond vLLM's defaults says which and why
    reasons = {
        "en": {"context_does_not_fit": "the KV cache cannot hold one sequence at the full context",
               "no_kv_memory": "the weights and the runtime leave nothing for the KV cache",
               "memory_in_use": "the share of memory it asks for is more than is free once CUDA is up"},
        "pt": {"memory_in_use": "a parcela de memória pedida é maior que a livre depois que o CUDA sobe",
               "context_does_not_fit": "o cache KV não comporta uma sequência no contexto completo",
               "no_kv_memory": "os pesos e o runtime não deixam nada para o cache KV"},
    }
    market = replace(catalog, inventory=None)  # the market's setups: the sample stock's start without flags
    pages = [p for p in build_pages(market) if getattr(p, "detail", None) and p.detail.serving.plan.changes]
    assert len(pages) >= 3
    renderer = Renderer(catalog.site, lang)
    for page in pages:
        plan = page.detail.serving.plan
        flags = ", ".join(f"`{name} {value}`" for name, value in plan.changes)
        text = renderer.render(page, twin=True)
        assert sentence.format(reason=reasons[lang][plan.refused], flags=flags) in text, page.path
        assert plan.command in text, page.path


@pytest.mark.parametrize("lang, sentences", [
    ("en", ["31 layers have no attention and cache nothing: vLLM and llama.cpp keep a cache for the other 49. SGLang "
            "0.5.3rc2 keeps a slot in its token pool for each of the 80 layers, attention or not, so its cache per token "
            "is larger.\n\n| |", "each has an MLP of its own width, from 2,816 to 28,672"]),
    ("pt", ["31 camadas não têm atenção e não guardam cache: o vLLM e o llama.cpp mantêm cache para as outras 49. O "
            "SGLang 0.5.3rc2 reserva um lugar no seu pool de tokens para cada uma das 80 camadas, com atenção ou não, e "
            "por isso seu cache por token é maior.\n\n| |", "cada uma tem um MLP de largura própria, de 2.816 a 28.672"]),
])
def test_a_page_of_layers_that_differ_says_what_each_engine_caches(catalog, lang, sentences):
    """Llama-3.3-Nemotron-Super-49B-v1: 31 of 80 layers without attention, MLPs of 2,816 to 28,672
    channels; the sentence is its own paragraph, so the table after it stays a table."""
    from dataclasses import replace
    nas = next(m for m in catalog.models if m.slug == "llama-3-3-nemotron-super-49b-v1")
    alone = replace(catalog, models=(nas,))
    page = next(p for p in build_pages(alone) if p.path == "models/llama-3-3-nemotron-super-49b-v1")
    text = Renderer(alone.site, lang).render(page, twin=True)
    for sentence in sentences:
        assert sentence in text
