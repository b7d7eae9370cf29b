"""The detailed sections (issue: sizing that knows the architecture) on the pages, in both languages."""

import pytest

from generator.site.view_models import build_pages
from generator.site.render import Renderer

MODELS = ["kimi-k3", "deepseek-r1", "llama-3-1-70b-instruct", "gpt-oss-120b", "gemma-3-27b", "qwen3-next-80b-a3b-instruct"]
HEADINGS = {
    "en": ["## Weights by component", "## Weights in each format", "## KV cache", "## A setup to serve it",
           "## GPUs per type", "## Speed and cost", "## Launch commands", "## How these numbers are computed"],
    "pt": ["## Pesos por componente", "## Pesos em cada formato", "## Cache KV", "## Uma configuração para servi-lo",
           "## GPUs por tipo", "## Velocidade e custo", "## Comandos para iniciar", "## Como estes números são calculados"],
}


@pytest.fixture(scope="module")
def pages(catalog):
    return {p.path: p for p in build_pages(catalog)}


def twin(catalog, pages, lang, slug):
    return Renderer(catalog.site, lang).render(pages[f"models/{slug}"], twin=True)


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("slug", MODELS)
def test_every_detailed_section_is_on_the_page(catalog, pages, lang, slug):
    text = twin(catalog, pages, lang, slug)
    positions = [text.index(heading + "\n") for heading in HEADINGS[lang]]
    assert positions == sorted(positions)
    assert "vllm serve" in text and "sglang.launch_server" in text and "llama-server" in text


def test_figures_follow_from_the_architecture(catalog, pages):
    kimi = twin(catalog, pages, "en", "kimi-k3")
    assert "| Per token, layers that see the whole context | 27,648 B | 13,824 B |" in kimi
    assert "| Routed experts | 2,722,740,830,208 | 1,446 GB |" in kimi
    assert "| Users at the full context (1,048,576 tokens) | 17 |" in kimi
    assert "The official API: $3.00 per million input tokens, $15.00 per million output tokens." in kimi
    assert '--override-tensor "\\.ffn_.*_exps\\.=CPU"' in kimi
    llama = twin(catalog, pages, "pt", "llama-3-1-70b-instruct")
    assert "| Por token, camadas que veem todo o contexto | 327.680 B | 163.840 B |" in llama
    assert "Offload" not in llama  # a dense model has no experts to offload
    gpt = twin(catalog, pages, "en", "gpt-oss-120b")
    assert "| Per token, window layers (up to 128 tokens) | 36,864 B | 18,432 B |" in gpt
    qwen = twin(catalog, pages, "en", "qwen3-next-80b-a3b-instruct")
    assert "36 linear-attention layers keep a fixed state per sequence" in qwen
    gemma = twin(catalog, pages, "pt", "gemma-3-27b")
    assert "O que os 20% do topo da página cobrem em 4 bits: nada." in gemma


def test_commands_use_the_setups_parallelism(catalog, pages):
    kimi = twin(catalog, pages, "en", "kimi-k3")
    assert "vllm serve moonshotai/Kimi-K3 \\\n  --tensor-parallel-size 8 \\\n  --max-model-len 1048576" in kimi
    assert "--tp 8" in kimi
