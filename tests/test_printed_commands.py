"""Every command a model page prints runs as printed (issue "Commands that run as printed"): parsed from the
shipped site's pages in both languages, each serves the model's own repository, within its context
window, with the model card's rope-scaling override exactly when the context passes the length its
config declares; the calculator's default question stays within the window too.

What is not checked yet, and why: the repository is the published one for every format (the
catalog lists no quantized checkpoints yet).
"""

from __future__ import annotations

import html
import re

import pytest

from generator.catalog.loader import load_catalog
from tests.conftest import CONTENT, twin

CATALOG = load_catalog(CONTENT)
MODELS = {model.slug: model for model in CATALOG.models}
COMMAND = re.compile(r"^(vllm serve|python -m sglang\.launch_server|llama-server)\b(.*?)(?=\n```)", re.M | re.S)
FLAG = re.compile(r"(--[a-z0-9-]+|-m)(?: ('[^']*'|[^\s\\]+))?")
# the flag that carries the rope scaling, per program
ROPE_FLAG = {"vllm serve": "--hf-overrides", "python -m sglang.launch_server": "--json-model-override-args",
             "llama-server": "--rope-scaling"}


def commands(text: str) -> list[tuple[str, dict[str, str]]]:
    """(program, {flag: value}) of every command in a page's code blocks."""
    found = []
    for program, rest in COMMAND.findall(text):
        flags = dict(FLAG.findall(rest.replace("\\\n", " ")))
        if program == "vllm serve":
            flags["model"] = rest.split()[0]
        found.append((program, flags))
    return found


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_every_command_on_every_model_page_serves_the_model_within_its_window(shipped_site, lang):
    seen = {"vllm serve": 0, "python -m sglang.launch_server": 0, "llama-server": 0}
    for page in sorted((shipped_site / lang / "models").glob("*.html.md")):
        model = MODELS[page.name.removesuffix(".html.md")]
        window = model.context_window
        rope = model.rope_scaling
        for program, flags in commands(page.read_text(encoding="utf-8")):
            seen[program] += 1
            where = f"{page.name}: {program}"
            length = int(flags.get("--max-model-len") or flags.get("--context-length") or flags["--ctx-size"])
            needed = rope is not None and length > rope.native_context
            assert (ROPE_FLAG[program] in flags) == needed, where
            if program == "llama-server":
                assert flags["-m"] == f"{model.slug}-{flags['-m'].split('-')[-1]}", where  # the model's own GGUF file
                per_user = int(flags["--ctx-size"]) // int(flags.get("--parallel", "1"))
                assert window is None or per_user <= window, where
                continue
            repo = flags["model"] if program == "vllm serve" else flags["--model-path"]
            assert repo == model.id, where
            context = int(flags["--max-model-len"] if program == "vllm serve" else flags["--context-length"])
            assert 0 < context and (window is None or context <= window), where
            tensor = flags["--tensor-parallel-size"] if program == "vllm serve" else flags["--tp"]
            assert int(tensor) >= 1, where
    assert all(count >= len(MODELS) // 2 for count in seen.values()), seen


def test_the_calculators_default_question_stays_within_the_window(shipped_site):
    for page in sorted((shipped_site / "en" / "models").glob("*.html")):
        model = MODELS[page.stem]
        text = page.read_text(encoding="utf-8")
        match = re.search(r'<input type="number" name="context"[^>]*value="(\d+)"', text)
        if match is None:  # a model without an architecture has no calculator
            assert model.architecture is None, page.name
            continue
        assert model.context_window is None or int(match.group(1)) <= model.context_window, page.name
        assert html.unescape(model.id) in text



@pytest.mark.parametrize("lang, label", [("en", "Rope scaling past the config's length"),
                                         ("pt", "Rope scaling além do comprimento do config")])
def test_the_rope_scaling_a_command_carries_is_cited_on_the_page(lang, label):
    scaled = [model for model in CATALOG.models if model.rope_scaling is not None]
    assert len(scaled) >= 9
    for model in scaled:
        lines = twin(CATALOG, lang, f"models/{model.slug}").splitlines()
        cited = [line for line in lines if line.startswith(f"- {label}: ")]
        assert len(cited) == 1 and model.sources["rope_scaling"].parts[0][0].replace("_", "\\_") in cited[0], model.slug
