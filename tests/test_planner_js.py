"""planner.js gives the figures of `python -m generator plan --json` from the plan tables the build exports.

Python is the source of truth: every expected figure is planner.py's (or llama_cpp.py's), computed here
in-process with the function the command prints. The JavaScript runs under Node (the same file the
pages load, with the same tables as assets/plan/*.json), or in Chromium where Node is missing; the
calculator's page tests (test_calculator.py) open it in a real browser.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from fractions import Fraction

import pytest

from generator.catalog.records import Gpu
from generator.site.figures import answer_json, llama_cpp_json, plan_json
from generator.sizing.checkpoints import served_weights
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.fit import FIT_QUANTS, fit_row, llama_cpp_fit_row
from generator.sizing.gguf import gguf_sizable, page_quants
from generator.sizing.llama_cpp import LlamaCppRequest, llama_cpp_plan
from generator.sizing.plan_data import CUSTOM_SHAPES, largest_machine, model_tables, quant_tables, shared_tables
from generator.sizing.planner import PlanRequest, answer, memory_at, plan, plan_that_starts
from tests.conftest import ROOT

PLANNER_JS = ROOT / "site_templates" / "overrides" / "assets" / "javascripts" / "planner.js"
# Figures that are presentation, not computation: the command's English reason (pages translate it).
NOT_COMPARED = {"reason_text"}
# GPU counts a reader may type: up to the largest machine, then whole machines (pipeline stages).
COUNTS = (1, 2, 3, 4, 5, 6, 8, 16, 24, 32, 64, 512)
NODE_SCRIPT = """
const P = require(process.argv[1]);
const data = JSON.parse(require("fs").readFileSync(0, "utf8"));
const ask = new Function("P", "data", "q", data.body);
process.stdout.write(JSON.stringify(data.questions.map(q => ask(P, data, q))));
"""
# The GPU of a question: a catalog one, or one typed in (memory, bandwidth).
GPU_OF = """const gpu = q.custom ? P.customGpu(data.shared, q.custom[0], q.custom[1])
    : data.shared.gpus.find(g => g.slug === q.gpu);
const r = Object.assign({}, q.request, {memoryFraction: q.request.fraction ? P.parseFraction(q.request.fraction) : null});
"""


@pytest.fixture(scope="module")
def run_js(request):
    """run_js(body, data): the function body `body` (given P, data and q) on every data["questions"]."""
    node = shutil.which("node")
    if node:
        def run(body: str, data: dict) -> list:
            # with its keys sorted, as the site writes the tables (structured_data.inert_json)
            done = subprocess.run([node, "-e", NODE_SCRIPT, str(PLANNER_JS)], input=json.dumps(dict(data, body=body), sort_keys=True),
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr
            return json.loads(done.stdout)
        return run
    page = request.getfixturevalue("browser").new_page()
    page.set_content("<!doctype html><title>planner</title>")
    page.add_script_tag(content=PLANNER_JS.read_text(encoding="utf-8"))
    return lambda body, data: page.evaluate(
        "([data, body]) => { const ask = new Function('P', 'data', 'q', body); "
        "return data.questions.map(q => ask(window.VramPlanner, data, q)); }", [data, body])


def tables(catalog, models) -> dict:
    machine = largest_machine(catalog.gpus)
    return {"shared": shared_tables(catalog.gpus), "models": {m.slug: model_tables(m, machine) for m in models}}


def custom_gpu(memory: int, bandwidth: int | None) -> Gpu:
    """A typed-in GPU as a catalog record: no name, price or CUDA-reported total, NVIDIA's usual padding."""
    return Gpu(slug="custom", name="", vendor="NVIDIA", memory_bytes=memory, machine_shapes=CUSTOM_SHAPES,
               bandwidth_bytes_per_second=bandwidth)


def questions(catalog, number: int, seed: int = 7) -> list[dict]:
    """`number` questions: every model and every GPU at least once, then random ones; one in eight on
    a typed-in GPU whose memory crosses every engine's tier."""
    rng = random.Random(seed)
    models, gpus = list(catalog.models), list(catalog.gpus)
    asked = []
    for index in range(number):
        model = models[index % len(models)] if index < len(models) else rng.choice(models)
        gpu = gpus[index % len(gpus)] if index < len(gpus) else rng.choice(gpus)
        custom = None
        if index >= len(gpus) and rng.random() < 1 / 8:
            custom = [rng.choice([8, 16, 24, 48, 69, 75, 80, 141, 180, 288]) * 10**9 + rng.randint(0, 10**9),
                      rng.choice([None, 936 * 10**9, 8 * 10**12])]
            gpu = custom_gpu(*custom)
        largest = gpu.machine_shapes[-1]
        counts = [n for n in COUNTS if n <= largest or n % largest == 0]
        asked.append({
            "model": model, "gpu": gpu, "custom": custom, "count": rng.choice(counts),
            "engine": rng.choice(["vllm", "sglang"]),
            "context": rng.choice([None, 1024, 8192, 32768, 131072, rng.randint(100, 1_000_000)]),
            "users": rng.choice([1, 2, 8, 64]), "kv_dtype": rng.choice(["auto", "fp8"]),
            "precision": rng.choice(["native", "bf16", "fp8", "4bit"]),
            "fraction": rng.choice([None, None, "0.8", "0.92", "0.95"]),
            # half the questions on a model with MTP layers draft tokens with them
            "speculative": rng.choice([None, "mtp"]) if model.architecture.extra_layers else None,
        })
    return asked


def request_of(question: dict) -> PlanRequest:
    fraction = question["fraction"]
    return PlanRequest(engine=question["engine"], context=question["context"], users=question["users"],
                       kv_dtype=question["kv_dtype"], precision=question["precision"],
                       memory_fraction=Fraction(fraction) if fraction else None, speculative=question.get("speculative"))


def js_question(question: dict) -> dict:
    return {"model": question["model"].slug, "gpu": question["gpu"].slug, "custom": question["custom"],
            "count": question["count"], "request": {
                "engine": question["engine"], "context": question["context"], "users": question["users"],
                "kvDtype": question["kv_dtype"], "precision": question["precision"], "fraction": question["fraction"],
                "speculative": question.get("speculative")}}


def ask(run_js, catalog, asked: list[dict], body: str) -> list:
    data = tables(catalog, {q["model"].slug: q["model"] for q in asked}.values())
    return run_js(GPU_OF + body, dict(data, questions=[js_question(q) for q in asked]))


def differences(expected: dict, got: dict) -> list[str]:
    """Fields that differ: integers, text and flags exactly; non-integer numbers within 0.1 %."""
    found = []
    for key, value in expected.items():
        if key in NOT_COMPARED:
            continue
        other = got.get(key)
        if isinstance(value, float) and not value.is_integer() and isinstance(other, (int, float)):
            if abs(value - other) > abs(value) * 1e-3:
                found.append(f"{key}: {value} != {other}")
        elif value != other:
            found.append(f"{key}: {value!r} != {other!r}")
    return found


def answer_differences(expected: dict, got: dict) -> list[str]:
    """differences() of `plan --json`'s answer: the plan for the flags asked, then its remedy."""
    problems = differences({key: value for key, value in expected.items() if key != "remedy"}, got)
    if (expected["remedy"] is None) != (got["remedy"] is None):
        problems.append(f"remedy: {expected['remedy']!r} != {got['remedy']!r}")
    elif expected["remedy"] is not None:
        problems += [f"remedy {problem}" for problem in differences(expected["remedy"], got["remedy"])]
    return problems


def mismatches(asked: list[dict], got: list, expected_of, compare) -> list[str]:
    """Each question whose JavaScript reply differs from what Python gives (`compare`'s first three)."""
    wrong = []
    for question, reply in zip(asked, got):
        problems = compare(expected_of(question), reply)
        if problems:
            wrong.append(f"{js_question(question)}: {problems[:3]}")
    return wrong


def test_the_javascript_planner_gives_the_figures_of_plan_on_1000_questions(catalog, run_js):
    asked = questions(catalog, 1000)
    assert {q["model"].slug for q in asked} == {m.slug for m in catalog.models}
    assert {q["gpu"].slug for q in asked} >= {g.slug for g in catalog.gpus} | {"custom"}
    got = ask(run_js, catalog, asked, "return P.answerJson(P.answer(data.models[q.model], data.shared, gpu, q.count, r));")
    wrong = mismatches(asked, got, lambda q: answer_json(answer(q["model"], q["gpu"], q["count"], request_of(q))),
                       answer_differences)
    assert wrong == [], f"{len(wrong)} of {len(asked)} differ:\n" + "\n".join(wrong[:10])
    # the questions reach every branch: plans that start as asked, that start with a remedy (flags,
    # a shorter context), that do not start at all; pipeline stages, several machines
    assert {a["starts"] for a in got} == {True, False} and {a["engine"] for a in got} == {"vllm", "sglang"}
    remedies = [a["remedy"] for a in got if a["remedy"]]
    assert remedies and all(r["starts"] and r["changes"] for r in remedies)
    assert any(not a["starts"] and a["remedy"] is None for a in got)
    assert any(r["context"] < a["context"] for a, r in ((a, a["remedy"]) for a in got if a["remedy"]))
    assert {a["reason"] for a in got if not a["starts"]} >= {"memory_in_use", "weights_do_not_fit", "context_does_not_fit",
                                                             "context_beyond_window"}
    assert any(a["pp"] > 1 for a in got) and any(a["machines"] > 1 for a in got)
    # the throughput at the default workload is compared too: timed plans, and plans that cannot be
    timed = [a for a in got if a["output_tokens_per_second"] is not None]
    assert len(timed) > 100 and any(a["starts"] and a["output_tokens_per_second"] is None for a in got)
    assert any(a["users_decoding_at_once"] < a["users"] for a in timed) and any(a["tp"] > 1 for a in timed)


def test_a_few_questions_match_the_plan_command_itself(catalog, run_js):
    model = next(m for m in catalog.models if m.slug == "gpt-oss-120b")
    gpu = next(g for g in catalog.gpus if g.slug == "h100-sxm")
    # gpt-oss-120b on one H100 at its full context: it needs flags to start (a remedy)
    needs_flags = {"model": model, "gpu": gpu, "custom": None, "count": 1, "engine": "vllm", "context": None, "users": 1,
                   "kv_dtype": "auto", "precision": "native", "fraction": "0.9"}
    # the command refuses a context past the window, and a precision without a checkpoint
    within = [q for q in questions(catalog, 40, seed=11)
              if not q["custom"] and (q["context"] or 0) <= (q["model"].context_window or 10**9)
              and served_weights(q["model"], q["precision"], SERVING_ENGINES[q["engine"]]) is not None]
    asked = [needs_flags, *within[:3]]
    got = ask(run_js, catalog, asked, "return P.answerJson(P.answer(data.models[q.model], data.shared, gpu, q.count, r));")
    for question, reply in zip(asked, got):
        command = [sys.executable, "-m", "generator", "plan", question["model"].slug, "--gpu", question["gpu"].slug,
                   "--count", str(question["count"]), "--engine", question["engine"], "--users", str(question["users"]),
                   "--kv-dtype", question["kv_dtype"], "--json",
                   "--precision", {"bf16": "16", "fp8": "8", "4bit": "4", "native": "native"}[question["precision"]]]
        if question["context"]:
            command += ["--context", str(question["context"])]
        if question["fraction"]:
            flag = "--gpu-memory-utilization" if question["engine"] == "vllm" else "--mem-fraction-static"
            command += [flag, question["fraction"]]
        if question.get("speculative"):
            command += ["--speculative", question["speculative"]]
        printed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert printed.returncode == 0, printed.stderr
        assert answer_differences(json.loads(printed.stdout), reply) == []
    assert got[0]["starts"] is False and got[0]["memory_fraction"] == 0.9 and got[0]["remedy"]["starts"]


def test_the_fit_rows_of_the_javascript_are_the_python_ones(catalog, run_js):
    asked = [dict(q, precision="native", fraction=None) for q in questions(catalog, 200, seed=3)]
    got = ask(run_js, catalog, asked, """const row = P.fitRow(data.models[q.model], data.shared, gpu, q.count, r);
        return {fits: row.fits, plan: P.planJson(row.plan), changes: row.plan.changes.map(f => f.join(" "))};""")
    for question, reply in zip(asked, got):
        row = fit_row(question["model"], question["gpu"], question["count"], request_of(question))
        assert reply["fits"] == row.fits, js_question(question)
        assert differences(plan_json(row.plan), reply["plan"]) == [], js_question(question)
        assert reply["changes"] == [" ".join(flag) for flag in row.plan.changes], js_question(question)
    assert {a["fits"] for a in got} == {True, False}


def test_the_charts_curve_is_memory_at_of_the_python_plan(catalog, run_js):
    """The chart's stacked memory (weights, the engine's own, the KV cache) at 8 contexts of each plan."""
    asked = questions(catalog, 150, seed=19)
    points = [1, 1000, 4096, 30_001, 131_072, 500_000]
    got = ask(run_js, catalog, asked, f"""const p = P.planThatStarts(data.models[q.model], data.shared, gpu, q.count, r);
        return {json.dumps(points)}.map(t => P.memoryAt(p, data.shared, t, q.request.users));""")
    for question, curve in zip(asked, got):
        plan = plan_that_starts(question["model"], question["gpu"], question["count"], request_of(question))
        expected = [memory_at(plan, tokens, question["users"]) for tokens in points]
        # the chart draws numbers: exact up to 2^53 bytes
        assert curve == [{k: float(v) for k, v in e.items()} for e in expected], js_question(question)
    assert {c[-1]["kv"] > c[0]["kv"] for c in got} == {True}  # every curve's KV cache grows with the context


def test_the_typed_in_gpu_takes_every_engine_tier(catalog, run_js):
    """vLLM's batch defaults and SGLang's default share by the memory typed in, with no name (not an A100)."""
    model = next(m for m in catalog.models if m.slug == "llama-3-1-8b-instruct")
    asked = [{"model": model, "gpu": custom_gpu(gb * 10**9, None), "custom": [gb * 10**9, None], "count": count,
              "engine": engine, "context": 4096, "users": 1, "kv_dtype": "auto", "precision": "native", "fraction": None}
             for gb in (12, 24, 40, 64, 75, 100, 171, 200) for engine in ("vllm", "sglang") for count in (1, 4)]
    # SGLang's default share at an exact tie of three decimals (0.8125 of 75.16192768 GB): to the even thousandth
    tie = 75_161_927_680
    asked += [{"model": model, "gpu": custom_gpu(tie, None), "custom": [tie, None], "count": 1, "engine": "sglang",
               "context": 8192, "users": 1, "kv_dtype": "auto", "precision": "native", "fraction": None}]
    got = ask(run_js, catalog, asked, "return P.planJson(P.plan(data.models[q.model], data.shared, gpu, q.count, r));")
    for question, reply in zip(asked, got):
        assert differences(plan_json(plan(model, question["gpu"], question["count"], request_of(question))), reply) == []
    assert len({a["memory_fraction"] for a in got if a["engine"] == "sglang"}) >= 6
    assert got[-1]["memory_fraction"] == 0.812
    # vLLM's three batch tiers: 2,048 / 8,192 / 16,384 tokens (below 70 GiB, from 70 GiB, from 160 GiB)
    tiers = run_js("return P.customGpu(data.shared, q, null).vllm_batch_tier;",
                   {"shared": shared_tables(catalog.gpus), "questions": [70 * 2**30 - 1, 70 * 2**30, 160 * 2**30 - 1, 160 * 2**30]})
    assert [shared_tables(()).get("vllm")["batch_tiers"][tier][1] for tier in tiers] == [2048, 8192, 8192, 16384]


# ---- llama.cpp: llamaCppPlan against `plan --engine llama.cpp` ----------------------------------

def llama_questions(catalog, number: int, seed: int = 5) -> list[dict]:
    rng = random.Random(seed)
    models = [m for m in catalog.models if gguf_sizable(m)]
    asked = []
    for index in range(number):
        model = models[index % len(models)] if index < len(models) else rng.choice(models)
        asked.append({
            "model": model, "gpu": rng.choice(catalog.gpus), "count": rng.choice([1, 1, 2, 3, 4]),
            "request": LlamaCppRequest(
                quant=rng.choice(page_quants(model)), context=rng.choice([None, 4096, 32768, 100_000]),
                users=rng.choice([1, 1, 3]), n_gpu_layers=rng.choice([None, None, 0, 1, 10, 999]),
                n_cpu_moe=rng.choice([None, None, 0, 5]), cache_type=rng.choice(["f16", "q8_0", "q4_0"])),
        })
    return asked


def test_the_javascript_llama_cpp_plan_gives_the_figures_of_plan(catalog, run_js):
    asked = llama_questions(catalog, 400)
    data = tables(catalog, {q["model"].slug: q["model"] for q in asked}.values())
    data["questions"] = [{"model": q["model"].slug, "gpu": q["gpu"].slug, "count": q["count"], "request": {
        "quant": q["request"].quant, "context": q["request"].context, "users": q["request"].users,
        "nGpuLayers": q["request"].n_gpu_layers, "nCpuMoe": q["request"].n_cpu_moe,
        "cacheType": q["request"].cache_type}} for q in asked]
    got = run_js("""return P.llamaCppPlan(data.models[q.model], data.shared,
        data.shared.gpus.find(g => g.slug === q.gpu), q.count, q.request);""", data)
    wrong = []
    for question, reply in zip(asked, got):
        expected = llama_cpp_json(llama_cpp_plan(question["model"], question["gpu"], question["count"], question["request"]))
        problems = differences(expected, reply)
        if problems:
            wrong.append(f"{question['model'].slug} {question['request']}: {problems[:3]}")
    assert wrong == [], f"{len(wrong)} of {len(asked)} differ:\n" + "\n".join(wrong[:10])
    assert {a["starts"] for a in got} == {True, False} and any(a["n_cpu_moe"] for a in got)
    assert any(a["kv_bytes_in_ram"] for a in got) and any(a["count"] > 1 and a["starts"] for a in got)
    # timed, with experts and layers in RAM too
    assert any(a["output_tokens_per_second"] and a["n_cpu_moe"] for a in got)
    assert any(a["output_tokens_per_second"] and a["n_gpu_layers"] < 10 for a in got)


def test_the_fit_page_s_llama_cpp_verdicts_are_the_python_ones(catalog, run_js):
    """Every model of the catalog (those without a GGUF layout too) on random GPUs, quants, cache types,
    contexts (some past the window) and users, with the tables of one quant as the fit page loads them."""
    rng = random.Random(11)
    machine = largest_machine(catalog.gpus)
    every = [model_tables(m, machine) for m in catalog.models if m.architecture]
    by_quant = {quant: quant_tables(every, quant) for quant in FIT_QUANTS}
    asked = []
    for index, model in enumerate(m for m in catalog.models if m.architecture):
        for _ in range(3):
            gpu = rng.choice(catalog.gpus)
            asked.append({"model": model, "gpu": gpu, "count": rng.choice([n for n in (1, 2, 4, 8) if n <= gpu.machine_shapes[-1]]),
                          "request": LlamaCppRequest(quant=rng.choice(FIT_QUANTS), context=rng.choice([4096, 32768, 200_000]),
                                                     users=rng.choice([1, 1, 4]), cache_type=rng.choice(["f16", "q8_0", "q4_0"]))})
    data = {"shared": shared_tables(catalog.gpus), "models": {d["slug"]: dict(d, llama_cpp=None) for d in every},
            "gguf": by_quant}
    data["questions"] = [{"model": q["model"].slug, "gpu": q["gpu"].slug, "count": q["count"], "request": {
        "quant": q["request"].quant, "context": q["request"].context, "users": q["request"].users,
        "cacheType": q["request"].cache_type}} for q in asked]
    got = run_js("""const model = Object.assign({}, data.models[q.model], {llama_cpp: data.gguf[q.request.quant][q.model] || null});
        const row = P.llamaCppFitRow(model, data.shared, data.shared.gpus.find(g => g.slug === q.gpu), q.count, q.request);
        return {verdict: row.verdict, reason: row.reason, ram: row.plan && row.plan.weights_bytes_in_ram + row.plan.kv_bytes_in_ram,
                decode: row.plan && row.plan.decode_tokens_per_second};""", data)
    wrong = []
    for question, reply in zip(asked, got):
        row = llama_cpp_fit_row(question["model"], question["gpu"], question["count"], question["request"])
        expected = {"verdict": row.verdict, "reason": row.reason, "ram": row.ram_bytes if row.plan else None,
                    "decode": row.plan.decode_tokens_per_second if row.plan else None}
        if differences(expected, reply):
            wrong.append(f"{question['model'].slug} {question['gpu'].slug} {question['request']}: {expected} != {reply}")
    assert wrong == [], f"{len(wrong)} of {len(asked)} differ:\n" + "\n".join(wrong[:10])
    assert {a["verdict"] for a in got} == {"on_gpus", "part_in_ram", "does_not_run"}
    assert {a["reason"] for a in got} >= {None, "context_beyond_window", "engine_does_not_run", "no_checkpoint"}


def test_the_javascript_planner_splits_unequal_layers_over_stages_as_plan_does(catalog, run_js):
    """Nemotron-NAS over pipeline stages: each stage's own layers, weights and attention layers alike
    (loaded_weights.layer_sizes and fullest_stage_attention_layers, exported in the model tables)."""
    nas = next(m for m in catalog.models if m.slug == "llama-3-3-nemotron-super-49b-v1")
    asked = [{"model": nas, "gpu": next(g for g in catalog.gpus if g.slug == slug), "custom": False, "count": count,
              "engine": engine, "context": 8192, "users": 1, "kv_dtype": "auto", "precision": "native", "fraction": None}
             for slug in ("a100-40gb", "h100-sxm", "l40s") for count in (3, 5, 6) for engine in ("vllm", "sglang")]
    got = ask(run_js, catalog, asked, "return P.planJson(P.plan(data.models[q.model], data.shared, gpu, q.count, r));")
    wrong = mismatches(asked, got, lambda q: plan_json(plan(q["model"], q["gpu"], q["count"], request_of(q))), differences)
    assert wrong == [] and any(reply["pp"] > 1 for reply in got)


def test_the_javascript_planner_sizes_global_layers_of_their_own_as_plan_does(catalog, run_js):
    """Gemma 4: vLLM's blocks of two page sizes (a global layer's smaller page takes more tokens a
    block), the value slot it loads, and llama.cpp's cells of two widths (cell_bytes by letter)."""
    gemma = next(m for m in catalog.models if m.slug == "gemma-4-31b")
    gpus = [g for g in catalog.gpus if g.slug in ("h100-sxm", "a100-40gb", "rtx-4090", "l40s")]
    # at 4 bits, the NVFP4 checkpoint whose own KV cache is FP8 (checkpoints.cache_dtype)
    asked = [{"model": gemma, "gpu": gpu, "custom": False, "count": count, "engine": engine, "context": context,
              "users": 1, "kv_dtype": kv, "precision": precision, "fraction": None}
             for gpu in gpus for count in (1, 2, 4, 8) for engine in ("vllm", "sglang") for context in (4096, 131072)
             for kv in ("auto", "fp8") for precision in ("native", "4bit")]
    got = ask(run_js, catalog, asked, "return P.planJson(P.plan(data.models[q.model], data.shared, gpu, q.count, r));")
    wrong = mismatches(asked, got, lambda q: plan_json(plan(q["model"], q["gpu"], q["count"], request_of(q))), differences)
    assert wrong == [] and {reply["starts"] for reply in got} == {True, False}
    assert {reply["reason"] for reply in got if reply["engine"] == "sglang"} == {"engine_does_not_run"}
    assert {(r["precision"], r["kv_dtype"], r["kv_cache_dtype"]) for r in got if r["engine"] == "vllm"} == {
        ("native", "auto", "auto"), ("native", "fp8", "fp8"), ("4bit", "auto", "fp8"), ("4bit", "fp8", "fp8")}
    requests = [LlamaCppRequest(quant=quant, context=context, cache_type=cache) for quant in ("Q4_K_M", "Q8_0")
                for context in (4096, 65536) for cache in ("f16", "q8_0")]
    data = tables(catalog, [gemma])
    data["questions"] = [{"model": gemma.slug, "gpu": gpu.slug, "count": 1, "request": {
        "quant": r.quant, "context": r.context, "users": 1, "nGpuLayers": None, "nCpuMoe": None, "cacheType": r.cache_type}}
        for gpu in gpus for r in requests]
    replies = run_js("""return P.llamaCppPlan(data.models[q.model], data.shared,
        data.shared.gpus.find(g => g.slug === q.gpu), q.count, q.request);""", data)
    expected = [llama_cpp_json(llama_cpp_plan(gemma, gpu, 1, r)) for gpu in gpus for r in requests]
    assert [differences(e, g) for e, g in zip(expected, replies)] == [[]] * len(expected)


def test_the_javascript_planner_sizes_compressed_attention_as_plan_does(catalog, run_js):
    """DeepSeek-V4: vLLM's packed groups of blocks of their own, the attention workspace (with the
    draft's hidden states when the MTP layer drafts), FP8 rows whatever is asked, and no plan on the
    GPUs whose kernels are not FlashMLA's."""
    flash, pro = (next(m for m in catalog.models if m.slug == slug) for slug in ("deepseek-v4-flash", "deepseek-v4-pro"))
    gpus = [g for g in catalog.gpus if g.slug in ("h100-sxm", "h200", "b200", "a100-80gb", "rtx-5090", "mi300x", "gh200")]
    # GH200, one to a machine: 3, 5 and 13 pipeline stages
    asked = [{"model": model, "gpu": gpu, "custom": False, "count": count, "engine": "vllm", "context": context,
              "users": users, "kv_dtype": kv, "precision": "native", "fraction": None, "speculative": speculative}
             for model in (flash, pro) for gpu in gpus for count in (1, 2, 3, 5, 8, 13, 16)
             for context in (4096, 262144, None) for users in (1, 3) for kv in ("auto", "fp8") for speculative in (None, "mtp")
             if count <= gpu.machine_shapes[-1] or count % gpu.machine_shapes[-1] == 0]
    got = ask(run_js, catalog, asked, "return P.planJson(P.plan(data.models[q.model], data.shared, gpu, q.count, r));")
    wrong = mismatches(asked, got, lambda q: plan_json(plan(q["model"], q["gpu"], q["count"], request_of(q))), differences)
    assert wrong == [] and {reply["starts"] for reply in got} == {True, False}
    assert {"gpu_not_planned", "gpu_without_kernels"} <= {reply["reason"] for reply in got}
    assert {reply["kv_cache_dtype"] for reply in got} == {"fp8"}
    # llama.cpp: its own stores per layer (a stream for each slot), every quant and cache type
    requests = [LlamaCppRequest(quant=quant, context=context, users=users, cache_type=cache)
                for quant in ("Q4_K_M", "Q8_0", "MXFP4_MOE") for context in (4096, 131072) for users in (1, 3)
                for cache in ("f16", "q8_0", "q4_0")]
    data = tables(catalog, [flash])
    data["questions"] = [{"model": flash.slug, "gpu": gpu.slug, "count": 2, "request": {
        "quant": r.quant, "context": r.context, "users": r.users, "nGpuLayers": None, "nCpuMoe": None, "cacheType": r.cache_type}}
        for gpu in gpus for r in requests]
    replies = run_js("""return P.llamaCppPlan(data.models[q.model], data.shared,
        data.shared.gpus.find(g => g.slug === q.gpu), q.count, q.request);""", data)
    expected = [llama_cpp_json(llama_cpp_plan(flash, gpu, 2, r)) for gpu in gpus for r in requests]
    assert [differences(e, g) for e, g in zip(expected, replies)] == [[]] * len(expected)
    assert {reply["kv_bytes_per_token"] for reply in replies} == {6_880, 21 * (544 + 136) // 4 + 20 * (544 // 128),
                                                                   21 * (288 + 72) // 4 + 20 * (288 // 128)}


def test_the_javascript_planner_plans_unified_memory_machines_as_plan_does(catalog, run_js):
    """Macs, DGX Spark and Strix Halo: vLLM and SGLang not planned; llama.cpp with every layer on the
    GPU by default (within its share of the memory), and layers asked onto the CPU read at the
    machine's own bandwidth."""
    unified = [g for g in catalog.gpus if g.gpu_memory_share is not None]
    assert {g.slug for g in unified} >= {"dgx-spark", "mac-m4-max-128gb", "strix-halo-128gb", "mac-m3-ultra-512gb"}
    models = [m for m in catalog.models if m.slug in ("gpt-oss-120b", "qwen3-30b-a3b", "llama-3-3-70b-instruct")]
    asked = [{"model": model, "gpu": gpu, "custom": False, "count": 1, "engine": engine, "context": 8192, "users": 1,
              "kv_dtype": "auto", "precision": "native", "fraction": None}
             for model in models for gpu in unified for engine in ("vllm", "sglang")]
    got = ask(run_js, catalog, asked, "return P.planJson(P.plan(data.models[q.model], data.shared, gpu, q.count, r));")
    wrong = mismatches(asked, got, lambda q: plan_json(plan(q["model"], q["gpu"], q["count"], request_of(q))), differences)
    assert wrong == [] and {reply["reason"] for reply in got} == {"unified_memory"}
    requests = [LlamaCppRequest(quant="Q4_K_M", context=32768), LlamaCppRequest(quant="Q8_0", context=32768),
                LlamaCppRequest(quant="Q4_K_M", context=32768, n_gpu_layers=10)]
    data = tables(catalog, models)
    data["questions"] = [{"model": m.slug, "gpu": gpu.slug, "count": 1, "request": {
        "quant": r.quant, "context": r.context, "users": 1, "nGpuLayers": r.n_gpu_layers, "nCpuMoe": None,
        "cacheType": r.cache_type}} for m in models for gpu in unified for r in requests]
    replies = run_js("""return P.llamaCppPlan(data.models[q.model], data.shared,
        data.shared.gpus.find(g => g.slug === q.gpu), q.count, q.request);""", data)
    expected = [llama_cpp_json(llama_cpp_plan(m, gpu, 1, r)) for m in models for gpu in unified for r in requests]
    assert [differences(e, g) for e, g in zip(expected, replies)] == [[]] * len(expected)
    assert {reply["n_cpu_moe"] for reply in replies} == {0}
    assert {reply["starts"] for reply in replies} == {True, False}


# ---- the cheapest setup for a workload: cheapestOptions against cheapest.py --------------------
def test_the_javascript_cheapest_setups_are_the_python_ones(catalog, run_js):
    from generator.sizing.cheapest import Question, cheapest_options, market_gpus
    from generator.sizing.throughput import workload_at
    from generator.sizing.llama_cpp import LlamaCppPlan
    rng = random.Random(5)
    models = [m for m in catalog.models if m.slug in ("gpt-oss-120b", "qwen3-8b", "llama-3-3-70b-instruct", "kimi-k3",
                                                      "gemma-3-4b-it", "glm-4-5-air", "nvidia-nemotron-nano-9b-v2")]
    asked = []
    for model in models:
        for _ in range(3):
            context = rng.choice([4096, 32768, model.context_window or 32768])
            asked.append({"model": model, "context": context, "users": rng.choice([1, 8, 64]),
                          "floor": rng.choice([None, None, 20.0, 80.0])})
    data = tables(catalog, models)
    data["questions"] = [{"model": q["model"].slug, "context": q["context"], "users": q["users"], "floor": q["floor"]} for q in asked]
    got = run_js("""const asked = {context: q.context, workload: P.workloadAt(data.shared, q.context, q.users), floor: q.floor};
        return P.cheapestOptions(data.models[q.model], data.shared, P.marketGpus(data.shared), asked, true)
            .map(o => P.optionJson(o, asked));""", data)

    def key(option) -> list:
        plan = option.plan
        llama = isinstance(plan, LlamaCppPlan)
        speed = option.speed
        return [plan.gpu.slug, option.gpus, option.engine, None if llama else plan.request.precision,
                plan.request.quant if llama else None, None if option.price_per_hour is None else float(option.price_per_hour),
                None if speed is None else round(speed.output_tokens_per_second_per_user, 2)]

    for question, reply in zip(asked, got):
        workload = workload_at(question["context"], question["users"])
        expected = [key(o) for o in cheapest_options(question["model"], market_gpus(catalog.gpus),
                                                     Question(question["context"], workload, question["floor"]))]
        mine = [[o["gpu"], o["count"], o["engine"], o["precision"], o["quant"], o["price_per_hour"],
                 None if o["output_tokens_per_second_per_user"] is None else round(o["output_tokens_per_second_per_user"], 2)]
                for o in reply]
        assert len(mine) == len(expected), (question["model"].slug, question["context"], question["users"])
        for theirs, ours in zip(expected, mine):
            assert theirs[:5] == ours[:5], (question["model"].slug, theirs, ours)
            assert theirs[5] == pytest.approx(ours[5]) and (theirs[6] is None) == (ours[6] is None)
            assert theirs[6] is None or ours[6] == pytest.approx(theirs[6], rel=1e-3)
    # the questions reach every engine, and a speed floor that nothing meets
    assert {o["engine"] for reply in got for o in reply} == {"vllm", "sglang", "llama.cpp"}
    assert any(reply == [] for reply in got)
    # machines joined where no single machine holds the model: Kimi-K3 on H100s alone
    kimi = next(m for m in catalog.models if m.slug == "kimi-k3")
    data = dict(tables(catalog, [kimi]), questions=[{"gpu": "h100-sxm"}])
    (joined,) = run_js("""const asked = {context: 32768, workload: P.workloadAt(data.shared, 32768, 1), floor: null};
        const gpus = data.shared.gpus.filter(g => g.slug === q.gpu).map(g => [g, true]);
        return P.cheapestOptions(data.models.kimi, data.shared, gpus, asked, true).map(o => P.optionJson(o, asked));"""
                       .replace("data.models.kimi", "data.models['kimi-k3']"), data)
    h100 = next(g for g in catalog.gpus if g.slug == "h100-sxm")
    (expected,) = cheapest_options(kimi, ((h100, True),), Question(32768, workload_at(32768, 1)))
    assert [joined[0]["gpu"], joined[0]["count"], joined[0]["machines"], joined[0]["precision"]] == [
        "h100-sxm", expected.gpus, expected.machines, expected.plan.request.precision] and expected.machines > 1
