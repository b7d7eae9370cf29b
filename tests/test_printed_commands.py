"""Every command a model page prints runs as printed (issue "Commands that run as printed"): parsed from the
shipped site's pages in both languages, each serves one of the model's catalog checkpoints, of the
precision its plan is for, within its context window, with the model card's rope-scaling override
exactly when the context passes the length its config declares; the calculator's default question
stays within the window too. Every plan the calculator and `plan` can make (each model, engine and
precision) serves a checkpoint of the precision asked, or prints no command and says so.
"""

from __future__ import annotations

import html
import json
import re

import pytest
import yaml

from generator.catalog.loader import load_catalog
from generator.sizing.checkpoints import PRECISION_BITS
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.formats import FORMATS
from generator.sizing.planner import ENGINE_DOES_NOT_RUN, NO_CHECKPOINT, PlanRequest, plan
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
            assert repo in checkpoint_bits(model), where  # one of the model's checkpoints
            assert repo == model.id and "--quantization" not in flags, where  # the pages plan the published one
            context = int(flags["--max-model-len"] if program == "vllm serve" else flags["--context-length"])
            assert 0 < context and (window is None or context <= window), where
            tensor = flags["--tensor-parallel-size"] if program == "vllm serve" else flags["--tp"]
            assert int(tensor) >= 1, where
    assert all(count >= len(MODELS) // 2 for count in seen.values()), seen


def checkpoint_bits(model) -> dict[str, int]:
    """The model's catalog checkpoints (the published one first) and the fewest bits each stores a
    matrix in, read from the catalog's own words (its formats and schemes)."""
    arch = model.architecture
    published = min(FORMATS[key].bits for key in (arch.default_format, *arch.formats.values()))
    return {model.id: published, **{c.id: FORMATS[c.scheme].bits for c in model.checkpoints}}


def test_every_plan_serves_a_checkpoint_of_the_precision_asked_or_no_command():
    """Each model, engine and precision: the command serves a catalog checkpoint whose bits are the
    ones asked (16 for BF16), or vLLM's --quantization fp8 on the published 16-bit weights at 8 bits;
    without either, no command and the reason says there is no checkpoint."""
    gpu = next(g for g in CATALOG.gpus if g.slug == "b200")
    counted = {"checkpoint": 0, "on_the_fly": 0, "none": 0}
    for model in CATALOG.models:
        if model.architecture is None:
            continue
        bits_of = checkpoint_bits(model)
        for engine in SERVING_ENGINES:
            for precision in ("native", *PRECISION_BITS):
                result = plan(model, gpu, 8, PlanRequest(engine=engine, precision=precision, context=4096))
                where = f"{model.slug} {engine} {precision}"
                asked = bits_of[model.id] if precision == "native" else PRECISION_BITS[precision]
                if result.command is None and not SERVING_ENGINES[engine].runs(model):
                    assert result.reason == ENGINE_DOES_NOT_RUN and not result.starts, where
                    continue
                if result.command is None:
                    assert result.reason == NO_CHECKPOINT and not result.starts, where
                    assert all(bits != asked for repo, bits in bits_of.items()), where
                    counted["none"] += 1
                    continue
                program = "vllm serve" if engine == "vllm" else "python -m sglang.launch_server"
                [(found, flags)] = commands(result.command + "\n```")
                assert found == program, where
                repo = flags["model"] if engine == "vllm" else flags["--model-path"]
                assert repo in bits_of, where
                if "--quantization" in flags:  # on-the-fly FP8 of the published 16-bit weights
                    assert (engine, flags["--quantization"], asked, repo, bits_of[repo]) == ("vllm", "fp8", 8, model.id, 16), where
                    counted["on_the_fly"] += 1
                else:
                    assert min(bits_of[repo], 16) == asked, where
                    counted["checkpoint"] += 1
    assert min(counted.values()) > 20, counted


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


def test_the_rope_override_is_the_one_a_public_log_started_with():
    """A public vLLM log served Qwen3-30B-A3B at 131,072 tokens with YaRN (tests/data/engine_logs.yaml):
    the override our command carries has its factor, original length and type."""
    logs = yaml.safe_load((CONTENT.parent / "tests" / "data" / "engine_logs.yaml").read_text(encoding="utf-8"))
    row = next(r for r in logs if r["id"] == "qwen3-30b-a3b-yarn-131072-4x22gb-tp4-deploy-qwen")
    started = json.loads(re.search(r"--rope-scaling '([^']*)'", row["flags"]["other"]).group(1))
    gpu = next(g for g in CATALOG.gpus if g.slug == "b200")
    command = plan(MODELS["qwen3-30b-a3b"], gpu, 4, PlanRequest(context=131072)).command
    ours = json.loads(commands(command + "\n```")[0][1]["--hf-overrides"].strip("'"))["rope_parameters"]
    assert {key: ours[key] for key in started} == started == {
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}


# The length each model's config.json declares, where its card serves a longer window with YaRN
# (read in the catalog's notes, quoted from the cards and configs): past it, the engines refuse
# the context unless the command carries the card's rope scaling.
CONFIG_LENGTHS = {
    "qwen2-5-7b-instruct": 32768, "qwen2-5-14b-instruct": 32768, "qwen2-5-32b-instruct": 32768,
    "qwen2-5-72b-instruct": 32768, "qwen2-5-coder-1-5b-instruct": 32768, "qwen2-5-coder-7b-instruct": 32768,
    "qwen2-5-coder-14b-instruct": 32768, "qwen2-5-coder-32b-instruct": 32768, "qwen2-7b-instruct": 32768,
    "qwen3-4b": 40960, "qwen3-8b": 40960, "qwen3-14b": 40960, "qwen3-32b": 40960, "qwen3-30b-a3b": 40960,
    "qwen3-235b-a22b": 40960, "smollm3-3b": 65536,
}


@pytest.mark.parametrize("slug, length", CONFIG_LENGTHS.items())
def test_a_window_past_the_config_has_its_rope_scaling_or_is_planned_within_the_config(slug, length):
    model = MODELS[slug]
    if model.context_window > length:
        assert model.rope_scaling is not None and model.rope_scaling.native_context == length, slug
