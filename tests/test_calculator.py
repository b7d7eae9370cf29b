"""The calculator in a real Chromium: the model pages and the fit page use planner.js as a reader would
(inputs, address, languages, keyboard), and show the figures of `python -m generator plan --json`.

Python is the source of truth: every expected figure is planner.py's, computed here in-process with
the same function the command prints. tests/test_planner_js.py holds planner.js to those figures on
a thousand questions.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from generator.catalog.records import Gpu
from generator.site.figures import answer_json, llama_cpp_json
from generator.sizing.fit import fit_row, llama_cpp_fit_row
from generator.sizing.llama_cpp import LlamaCppRequest, llama_cpp_plan
from generator.sizing.planner import PlanRequest, answer
from generator.site.render import Renderer

# ---- the pages, as a reader uses them (the fixture catalog's site) -------------------------------

def open_calculator(page, server, lang, slug, query, ready="starts"):
    page.goto(f"{server}{lang}/models/{slug}.html{query}")
    page.wait_for_selector(f"#calculator:not([hidden]) [data-out='{ready}'][data-value]")


def model_and_gpu(catalog, model_slug, gpu_slug):
    return (next(m for m in catalog.models if m.slug == model_slug), next(g for g in catalog.gpus if g.slug == gpu_slug))


def outputs(page) -> dict:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#calculator [data-out][data-value]')]
        .map(e => [e.dataset.out, e.dataset.value]))""")


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_calculator_answers_the_question_in_the_address(page, server, fixture_catalog, lang):
    query = "?gpu=h100-sxm&count=2&context=32768&users=8&engine=sglang&kv-dtype=fp8&precision=fp8"
    open_calculator(page, server, lang, "llama-3-1-8b-instruct", query)
    model, gpu = model_and_gpu(fixture_catalog, "llama-3-1-8b-instruct", "h100-sxm")
    expected = answer_json(answer(model, gpu, 2, PlanRequest(
        engine="sglang", context=32768, users=8, kv_dtype="fp8", precision="fp8")))
    shown = outputs(page)
    for field in ("weights_bytes_per_gpu", "available_kv_bytes_per_gpu", "kv_tokens", "max_context", "max_users"):
        assert int(shown[field]) == expected[field], field
    assert shown["starts"] == "starts" and abs(float(shown["decode_tokens_per_second"]) - expected["decode_tokens_per_second"]) < 1e-6
    assert float(shown["price_per_hour"]) == expected["price_per_hour"]
    assert page.locator("#calculator [data-out='command']").inner_text() == expected["command"]
    assert page.url.endswith(query)
    assert page.problems == []


@pytest.mark.parametrize("lang, engine", [("en", "vllm"), ("pt", "sglang")])
def test_drafting_with_the_mtp_layer_is_asked_in_the_address_and_answered_like_plan(page, server, fixture_catalog, lang, engine):
    """DeepSeek-V3 ships one MTP layer: the box loads it, caches it and prints the engine's flags, as
    `plan --speculative mtp` does; the box is there only for models with such layers."""
    query = f"?gpu=h200&count=8&context=32768&users=4&engine={engine}&kv-dtype=auto&precision=native&mtp=1"
    open_calculator(page, server, lang, "deepseek-v3", query)
    model, gpu = model_and_gpu(fixture_catalog, "deepseek-v3", "h200")
    expected = answer_json(answer(model, gpu, 8, PlanRequest(engine=engine, context=32768, users=4, speculative="mtp")))
    plain = answer_json(answer(model, gpu, 8, PlanRequest(engine=engine, context=32768, users=4)))
    shown = outputs(page)
    for field in ("weights_bytes_per_gpu", "available_kv_bytes_per_gpu", "kv_tokens", "max_users"):
        assert int(shown[field]) == expected[field], field
    assert expected["weights_bytes_per_gpu"] > plain["weights_bytes_per_gpu"]
    assert page.locator("#calculator [data-out='command']").inner_text() == expected["command"]
    assert "--speculative" in expected["command"]
    assert page.url.endswith(query)
    # unchecked, the address drops it and the figures are the plain plan's
    page.uncheck("#calculator input[name=mtp]")
    page.wait_for_function("!location.search.includes('mtp')")
    assert page.locator("#calculator [data-out='command']").inner_text() == plain["command"]
    page.goto(f"{server}{lang}/models/llama-3-1-8b-instruct.html")
    assert page.locator("#calculator input[name=mtp]").count() == 0
    assert page.problems == []


@pytest.mark.parametrize("lang, sentence", [
    ("en", "As asked, it does not start ({reason}); with {changes} it does."),
    ("pt", "Com as opções pedidas, não inicia ({reason}); com {changes}, inicia."),
])
def test_the_figures_are_for_the_flags_asked_and_the_remedy_is_said_beside_them(page, server, fixture_catalog, lang, sentence):
    """Llama-3.1-8B at its full 131,072 tokens on one RTX 4090: with vLLM's defaults the KV cache
    cannot hold the context; the table says so, the note names the flags that start it, and the
    command printed is the one that starts."""
    query = "?gpu=rtx-4090&count=1&context=131072&users=1&engine=vllm&kv-dtype=auto&precision=native"
    open_calculator(page, server, lang, "llama-3-1-8b-instruct", query)
    model, gpu = model_and_gpu(fixture_catalog, "llama-3-1-8b-instruct", "rtx-4090")
    expected = answer_json(answer(model, gpu, 1, PlanRequest(context=131072)))
    assert expected["starts"] is False and expected["remedy"]["starts"]
    shown = outputs(page)
    assert shown["starts"] == "does_not_start"
    for field in ("weights_bytes_per_gpu", "available_kv_bytes_per_gpu", "kv_tokens", "max_context", "max_users"):
        assert int(shown[field]) == expected[field], field
    # what does not start shows no speed or price as if it ran
    assert page.locator("#calculator [data-out='decode_tokens_per_second']").inner_text() == "–"
    assert page.locator("#calculator [data-out='price_per_hour']").inner_text() == "–"
    assert page.locator("#calculator [data-out='command']").inner_text() == expected["remedy"]["command"]
    reasons = page.evaluate("() => JSON.parse(document.querySelector('[data-vram-text]').textContent)")
    why = page.locator("#calculator [data-out='why']").inner_text()
    assert why == sentence.format(reason=reasons[expected["reason"]], changes=", ".join(expected["remedy"]["changes"]))
    assert page.problems == []


@pytest.mark.parametrize("lang, sentence", [
    ("en", "As asked, it does not start (its context window is 32,768 tokens); with --max-model-len 32768 it does."),
    ("pt", "Com as opções pedidas, não inicia (a janela de contexto dele é de 32.768 tokens); com --max-model-len 32768, inicia."),
])
def test_a_context_past_the_window_says_the_window_and_plans_it(page, server, fixture_catalog, lang, sentence):
    """Mistral-7B v0.1's window is 32,768 tokens: asked for 65,536 it does not start, and the command
    printed is the one at its window."""
    open_calculator(page, server, lang, "mistral-7b-v0-1", "?gpu=h100-sxm&count=1&context=65536&users=1")
    assert outputs(page)["starts"] == "does_not_start"
    assert page.locator("#calculator [data-out='why']").inner_text() == sentence
    assert "--max-model-len 32768" in page.locator("#calculator [data-out='command']").inner_text()
    assert page.problems == []


@pytest.mark.parametrize("lang, verdict", [("en", "no: its context window is 32,768 tokens"),
                                           ("pt", "não: a janela de contexto dele é de 32.768 tokens")])
def test_the_fit_page_marks_the_models_whose_window_is_shorter_than_the_context(page, server, lang, verdict):
    page.goto(f"{server}{lang}/fit.html?gpu=h100-sxm&count=8&context=65536&users=1")
    page.wait_for_function("document.querySelector('[data-vram-fit] form') && !document.querySelector('[data-vram-fit] form').hidden")
    row = page.locator("tr[data-model='mistral-7b-v0-1']")
    # under load the row's attribute can land before its text: wait until the verdict shows
    page.wait_for_function("document.querySelector(\"tr[data-model='mistral-7b-v0-1'] [data-out='fits']\").innerText !== ''")
    assert row.get_attribute("data-fits") == "false"
    assert row.locator("[data-out='fits']").inner_text() == verdict
    # a model whose window holds the context is planned as before
    assert page.locator("tr[data-model='llama-3-1-8b-instruct']").get_attribute("data-fits") == "true"
    assert page.problems == []


@pytest.mark.parametrize("lang, verdict, note", [
    ("en", "yes, for 1 of the 4 users asked", "It starts, but holds 1 user at once at this context, fewer than asked."),
    ("pt", "sim, para 1 dos 4 usuários pedidos", "Inicia, mas atende 1 usuário por vez neste contexto, menos do que o pedido."),
])
def test_starting_for_fewer_users_than_asked_is_its_own_verdict(page, server, fixture_catalog, lang, verdict, note):
    """Llama-3.1-8B at 131,072 tokens on two RTX 4090: vLLM starts, with room for one such sequence, not four."""
    open_calculator(page, server, lang, "llama-3-1-8b-instruct", "?gpu=rtx-4090&count=2&context=131072&users=4")
    model, gpu = model_and_gpu(fixture_catalog, "llama-3-1-8b-instruct", "rtx-4090")
    expected = answer_json(answer(model, gpu, 2, PlanRequest(context=131072, users=4)))
    assert (expected["verdict"], expected["max_users"]) == ("starts_for_fewer_users", 1)
    assert outputs(page)["starts"] == "starts_for_fewer_users"
    assert page.locator("#calculator [data-out='starts']").inner_text() == verdict
    assert page.locator("#calculator [data-out='why']").inner_text() == note  # one user: the singular
    assert page.problems == []


@pytest.mark.parametrize("lang, mark", [("en", "# does not start as printed"), ("pt", "# não inicia assim")])
def test_a_command_that_does_not_start_is_marked(page, server, lang, mark):
    """Kimi-K3 on one RTX 4090: nothing starts it, so no remedy; the command printed says it does not start."""
    open_calculator(page, server, lang, "kimi-k3", "?gpu=rtx-4090&count=1&context=8192&users=1")
    assert outputs(page)["starts"] == "does_not_start"
    command = page.locator("#calculator [data-out='command']").inner_text().splitlines()
    assert command[0] == mark and command[1].startswith("vllm serve moonshotai/Kimi-K3")
    assert page.locator("#calculator [data-out='price_per_hour']").inner_text() == "–"
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_inputs_change_the_figures_and_the_address(page, server, fixture_catalog, lang):
    page.goto(f"{server}{lang}/models/llama-3-1-8b-instruct.html")
    page.wait_for_selector("#calculator:not([hidden]) [data-out='starts'][data-value]")
    page.select_option("#calculator select[name=gpu]", "h100-sxm")
    page.fill("#calculator input[name=count]", "1")
    page.fill("#calculator input[name=context]", "8192")
    page.fill("#calculator input[name=users]", "4")
    page.select_option("#calculator select[name=precision]", "bf16")
    model = next(m for m in fixture_catalog.models if m.slug == "llama-3-1-8b-instruct")
    gpu = next(g for g in fixture_catalog.gpus if g.slug == "h100-sxm")
    expected = answer_json(answer(model, gpu, 1, PlanRequest(context=8192, users=4, precision="bf16")))
    shown = outputs(page)
    assert int(shown["weights_bytes_per_gpu"]) == expected["weights_bytes_per_gpu"]
    assert int(shown["max_users"]) == expected["max_users"]
    # the numbers as Babel prints them on the pages, in the page's language (16.1 GB / 16,1 GB)
    babel = Renderer(fixture_catalog.site, lang)
    assert page.locator("#calculator [data-out='weights_bytes_per_gpu']").inner_text() == \
        babel.gigabytes_fine(expected["weights_bytes_per_gpu"]) + " GB"
    assert page.locator("#calculator [data-out='kv_tokens']").inner_text() == babel.number(expected["kv_tokens"])
    assert page.locator("#calculator [data-out='decode_tokens_per_second']").inner_text() == \
        babel.rate(expected["decode_tokens_per_second"]) + " tokens/s"
    # every price shows the day it was read, as the pages write it (price_age.py, issue 5/8)
    assert page.locator("#calculator [data-out='price_per_hour']").inner_text() == {
        "en": f"{babel.money(Decimal(str(expected['price_per_hour'])))} per hour (price of September 25, 2026)",
        "pt": f"{babel.money(Decimal(str(expected['price_per_hour'])))} por hora (preço de 25 de setembro de 2026)"}[lang]
    assert "gpu=h100-sxm" in page.url and "context=8192" in page.url and "users=4" in page.url
    # the language switch keeps the question
    other = "en" if lang == "pt" else "pt"
    href = page.locator(f".md-select__link[hreflang={other}]").get_attribute("href")
    assert href.endswith("?" + page.url.split("?")[1])
    assert page.problems == []


def test_the_calculator_is_used_with_the_keyboard_alone(page, server):
    page.goto(f"{server}en/models/llama-3-1-8b-instruct.html")
    page.wait_for_selector("#calculator:not([hidden]) [data-out='starts'][data-value]")
    page.focus("#calculator input[name=context]")
    page.keyboard.press("Control+A")
    page.keyboard.type("4096")
    page.keyboard.press("Tab")  # to the users
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    assert "context=4096" in page.url and "users=3" in page.url
    labels = page.evaluate("""() => [...document.querySelectorAll('#calculator input, #calculator select')]
        .filter(e => !e.closest('[hidden]')).map(e => e.labels.length)""")
    assert labels and all(count == 1 for count in labels)
    assert page.problems == []


HOSTILE = [
    '?gpu=<img src=x onerror="window.pwned=1">&count=2',
    "?context=1e99&users=-4&engine=javascript:alert(1)",
    "?kv-dtype=%22%3E%3Cscript%3Ewindow.pwned%3D1%3C%2Fscript%3E&count=3.5",
    "?count=99999999999999999999&context=0",
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_addresses_are_ignored_with_a_note_and_run_nothing(page, server, query):
    page.goto(f"{server}en/models/llama-3-1-8b-instruct.html{query}")
    page.wait_for_selector("#calculator:not([hidden]) [data-out='starts'][data-value]")
    note = page.locator("#calculator [data-out='note']")
    assert note.is_visible() and note.inner_text().startswith("Ignored in the address")
    assert page.evaluate("window.pwned") is None
    assert page.locator("#calculator img, #calculator script:not([type='application/json'])").count() == 0
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_fit_page_answers_like_plan(page, server, fixture_catalog, lang):
    page.goto(f"{server}{lang}/fit.html?gpu=h100-sxm&count=8&context=32768&users=2")
    page.wait_for_function("document.querySelector('[data-vram-fit] form') && !document.querySelector('[data-vram-fit] form').hidden")
    gpu = next(g for g in fixture_catalog.gpus if g.slug == "h100-sxm")
    rows = page.evaluate("""() => [...document.querySelectorAll('tr[data-model]')].map(r => [r.dataset.model, r.dataset.fits,
        r.dataset.maxContext, r.querySelector('a').getAttribute('href')])""")
    assert len(rows) == len([m for m in fixture_catalog.models if m.architecture])
    for slug, fits, max_context, href in rows:
        model = next(m for m in fixture_catalog.models if m.slug == slug)
        row = fit_row(model, gpu, 8, PlanRequest(context=32768, users=2))
        assert fits == ("true" if row.fits else "false"), slug
        assert int(max_context) == row.plan.max_context, slug
        assert href.startswith(f"models/{slug}.html?") and "gpu=h100-sxm" in href and f"precision={row.plan.request.precision}" in href
    assert {fits for _, fits, _, _ in rows} == {"true", "false"}
    # filter by what fits, then sort by name
    page.select_option("[data-vram-fit] select[name=show]", "on_gpus")
    visible = page.evaluate("() => [...document.querySelectorAll('tr[data-model]')].filter(r => !r.hidden).map(r => r.dataset.fits)")
    assert visible and set(visible) == {"true"}
    page.click("button[data-sort=name]")
    names = page.evaluate("() => [...document.querySelectorAll('tr[data-model]')].map(r => r.dataset.name.toLowerCase())")
    assert names == sorted(names)
    assert page.problems == []


@pytest.mark.parametrize("lang, texts", [
    ("en", {"on": "on the GPUs", "part": "part in RAM ({ram} GB), {rate} tokens/s", "window": "no: its context window is 32,768 tokens",
            "layout": "no: its llama.cpp layout is not modelled here"}),
    ("pt", {"on": "nas GPUs", "part": "parte na RAM ({ram} GB), {rate} tokens/s", "window": "não: a janela de contexto dele é de 32.768 tokens",
            "layout": "não: o layout dele no llama.cpp não é modelado aqui"}),
])
def test_the_fit_page_gives_llama_cpp_s_three_verdicts(page, server, fixture_catalog, lang, texts):
    """One RTX 4090 at 65,536 tokens with a Q4_K_M file: the Llamas on the card, DeepSeek's experts in
    RAM at a speed, Mistral-7B v0.1 past its window, Kimi-K3's latent-MoE layout not modelled; each row as
    llama_cpp_fit_row answers, in the page's words and numbers."""
    page.goto(f"{server}{lang}/fit.html?gpu=rtx-4090&count=1&context=65536&users=1&engine=llama.cpp&quant=Q4_K_M&cache-type=f16")
    page.wait_for_selector("[data-vram-fit][data-answered='llama.cpp']")
    gpu, babel = next(g for g in fixture_catalog.gpus if g.slug == "rtx-4090"), Renderer(fixture_catalog.site, lang)
    rows = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('tr[data-model]')].map(r => [r.dataset.model,
        [r.dataset.verdict, r.querySelector('[data-out=fits]').textContent, r.querySelector('[data-out=precision]').textContent,
         r.querySelector('a').getAttribute('href')]]))""")
    expected = {m.slug: llama_cpp_fit_row(m, gpu, 1, LlamaCppRequest(context=65536)) for m in fixture_catalog.models if m.architecture}
    assert {slug: row[0] for slug, row in rows.items()} == {slug: row.verdict for slug, row in expected.items()}
    assert rows["llama-3-1-8b-instruct"][:3] == ["on_gpus", texts["on"], "GGUF Q4_K_M"]
    deepseek = expected["deepseek-v3"]
    assert rows["deepseek-v3"][1] == texts["part"].format(ram=babel.gigabytes_fine(deepseek.ram_bytes),
                                                          rate=babel.rate(deepseek.plan.decode_tokens_per_second))
    assert rows["mistral-7b-v0-1"][1:3] == [texts["window"], "–"]
    assert rows["kimi-k3"][1] == texts["layout"]
    # each row's link asks the model page the same llama.cpp question
    assert rows["deepseek-v3"][3].endswith("&engine=llama.cpp&quant=Q4_K_M&cache-type=f16")
    # what runs, on the card or in part: the two that do not are hidden
    page.select_option("[data-vram-fit] select[name=show]", "runs")
    hidden = page.evaluate("() => [...document.querySelectorAll('tr[data-model]')].filter(r => r.hidden).map(r => r.dataset.model)")
    assert sorted(hidden) == sorted(slug for slug, row in expected.items() if row.verdict == "does_not_run")
    assert "show=runs" in page.url and "engine=llama.cpp" in page.url
    # the vLLM-only choice hides, llama.cpp's show
    assert not page.locator("[data-vram-fit] select[name=kv-dtype]").is_visible()
    assert page.locator("[data-vram-fit] select[name=quant]").is_visible()
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_4_bit_question_serves_a_4_bit_checkpoint(page, server, fixture_catalog, lang):
    """Weights at 4 bits: the figures, the checkpoint shown and the command are those of the model's
    4-bit checkpoint (plan --precision 4), never the published BF16 repo."""
    query = "?gpu=rtx-4090&count=1&context=16384&users=2&engine=vllm&kv-dtype=auto&precision=4bit"
    open_calculator(page, server, lang, "llama-3-1-8b-instruct", query)
    model, gpu = model_and_gpu(fixture_catalog, "llama-3-1-8b-instruct", "rtx-4090")
    expected = answer_json(answer(model, gpu, 1, PlanRequest(context=16384, users=2, precision="4bit")))
    assert expected["checkpoint"] == "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16" and expected["starts"]
    shown = outputs(page)
    assert int(shown["weights_bytes_per_gpu"]) == expected["weights_bytes_per_gpu"]
    assert page.locator("#calculator [data-out='checkpoint']").inner_text() == expected["checkpoint"]
    assert page.locator("#calculator [data-out='command']").inner_text() == expected["command"]
    assert expected["command"].startswith("vllm serve RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16")
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_bits_without_a_checkpoint_print_no_command_and_say_why(page, server, fixture_catalog, lang):
    """DeepSeek-V2 has no 4-bit checkpoint in the catalog: no command, and the note says so."""
    open_calculator(page, server, lang, "deepseek-v2", "?gpu=h100-sxm&count=8&context=8192&users=1&engine=sglang&precision=4bit")
    assert outputs(page)["starts"] == "does_not_start"
    assert page.locator("#calculator [data-out='command']").inner_text() == "–"
    assert page.locator("#calculator [data-out='checkpoint']").inner_text() == "–"
    reasons = page.evaluate("() => JSON.parse(document.querySelector('[data-vram-text]').textContent)")
    why = page.locator("#calculator [data-out='why']").inner_text()
    assert reasons["no_checkpoint"] in why and "llama.cpp" in why and "GGUF" in why
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_fit_page_names_the_checkpoint_that_fits(page, server, fixture_catalog, lang):
    """On one RTX 4090 at 131,072 tokens, Llama-3.1-8B's BF16 weights leave too little for the KV
    cache; its 8-bit checkpoint fits, and the row names it (its link asks for that precision)."""
    page.goto(f"{server}{lang}/fit.html?gpu=rtx-4090&count=1&context=131072&users=1")
    page.wait_for_function("document.querySelector('[data-vram-fit] form') && !document.querySelector('[data-vram-fit] form').hidden")
    model, gpu = model_and_gpu(fixture_catalog, "llama-3-1-8b-instruct", "rtx-4090")
    row = fit_row(model, gpu, 1, PlanRequest(context=131072))
    assert row.fits and row.plan.weights.checkpoint is not None
    cell = page.locator("tr[data-model='llama-3-1-8b-instruct'] [data-out='precision']").inner_text()
    assert cell.endswith(f"({row.plan.weights.repo})")
    assert page.problems == []


def test_the_fit_page_without_javascript_is_a_table(browser, server):
    context = browser.new_context(java_script_enabled=False)
    static = context.new_page()
    static.goto(f"{server}en/fit.html")
    assert static.locator("tr[data-model]").count() >= 5
    assert static.locator("tr[data-fits=true]").count() >= 1
    context.close()


def test_my_own_gpu_is_planned_from_the_memory_and_bandwidth_typed_in(page, server, fixture_catalog):
    page.goto(f"{server}en/models/mistral-7b-v0-1.html?gpu=custom&gpu-memory-gb=24&gpu-bandwidth-gbs=1008&count=1&context=16384")
    page.wait_for_selector("#calculator:not([hidden]) [data-out='starts'][data-value]")
    assert page.locator("#calculator input[name=gpu-memory-gb]").is_visible()
    # the same card as a catalog record: no price, no CUDA-reported total, NVIDIA's usual MXFP4 padding
    card = Gpu(slug="custom", name="My GPU", vendor="NVIDIA", memory_bytes=24 * 10**9, machine_shapes=(1, 2, 4, 8),
               bandwidth_bytes_per_second=1008 * 10**9)
    model = next(m for m in fixture_catalog.models if m.slug == "mistral-7b-v0-1")
    expected = answer_json(answer(model, card, 1, PlanRequest(context=16384)))
    shown = outputs(page)
    for field in ("weights_bytes_per_gpu", "available_kv_bytes_per_gpu", "kv_tokens", "max_context", "max_users"):
        assert int(shown[field]) == expected[field], field
    assert abs(float(shown["decode_tokens_per_second"]) - expected["decode_tokens_per_second"]) < 1e-6
    assert page.locator("#calculator [data-out='price_per_hour']").inner_text() == "no price"
    # without a memory the question cannot be asked, and the note says what to type
    page.fill("#calculator input[name=gpu-memory-gb]", "")
    assert page.locator("#calculator [data-out='note']").inner_text() == "Type your GPU's memory to plan on it."
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_calculator_plans_llama_cpp_from_the_address(page, server, fixture_catalog, lang):
    query = "?engine=llama.cpp&gpu=rtx-4090&count=1&context=16384&users=1&quant=Q5_K_M&cache-type=q8_0"
    open_calculator(page, server, lang, "llama-3-1-8b-instruct", query, ready="gguf_file_bytes")
    model, gpu = model_and_gpu(fixture_catalog, "llama-3-1-8b-instruct", "rtx-4090")
    expected = llama_cpp_json(llama_cpp_plan(model, gpu, 1, LlamaCppRequest(quant="Q5_K_M", context=16384, cache_type="q8_0")))
    shown = outputs(page)
    for field in ("gguf_file_bytes", "weights_bytes_per_gpu", "weights_bytes_in_ram", "kv_bytes_per_gpu",
                  "compute_buffer_bytes", "n_gpu_layers"):
        assert int(shown[field]) == expected[field], field
    assert page.locator("#calculator [data-out='command']").inner_text() == expected["command"]
    assert not page.locator("#calculator [data-out='kv_tokens']").is_visible()  # vLLM's figures are hidden
    babel = Renderer(fixture_catalog.site, lang)
    assert page.locator("#calculator [data-out='bits_per_weight']").inner_text() == babel.bits(expected["bits_per_weight"])
    # llama.cpp runs on one machine: two machines' worth of GPUs is refused with a note
    largest = gpu.machine_shapes[-1]
    page.fill("#calculator input[name=count]", str(2 * largest))
    assert str(largest) in page.locator("#calculator [data-out='note']").inner_text()
    assert page.problems == []


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_llama_cpp_plan_that_does_not_fit_shows_no_speed_or_price(page, server, lang):
    """DeepSeek-V3 with every layer asked on one RTX 4090: it does not fit, and says so."""
    query = "?engine=llama.cpp&gpu=rtx-4090&count=1&context=4096&users=1&quant=Q4_K_M&n-gpu-layers=62"
    open_calculator(page, server, lang, "deepseek-v3", query, ready="gguf_file_bytes")
    assert outputs(page)["starts"] == "false"
    # under load the row can still be laid out when the figures land: wait until it shows text
    page.wait_for_function("document.querySelector(\"#calculator [data-out='decode_tokens_per_second']\").innerText !== ''")
    assert page.locator("#calculator [data-out='decode_tokens_per_second']").inner_text() == "–"
    assert page.locator("#calculator [data-out='price_per_hour']").inner_text() == "–"
    command = page.locator("#calculator [data-out='command']").inner_text().splitlines()
    assert command[0] in ("# does not start as printed", "# não inicia assim") and command[1] == "llama-server \\"
    assert page.problems == []


@pytest.mark.parametrize("lang, note", [
    ("en", "As asked, it does not start: its context window is 32,768 tokens."),
    ("pt", "Com as opções pedidas, não inicia: a janela de contexto dele é de 32.768 tokens."),
])
def test_llama_cpp_past_the_window_is_refused_as_the_command_refuses_it(page, server, lang, note):
    page.goto(f"{server}{lang}/models/mistral-7b-v0-1.html?engine=llama.cpp&gpu=rtx-4090&count=1&context=65536&users=1")
    page.wait_for_selector("#calculator:not([hidden]) [data-out='note']:not([hidden])")
    assert page.locator("#calculator [data-out='note']").inner_text() == note
    assert page.problems == []


def test_fit_rows_take_the_largest_format_that_serves_the_users(catalog):
    model, gpu = model_and_gpu(catalog, "llama-3-1-8b-instruct", "h100-sxm")
    row = fit_row(model, gpu, 1, PlanRequest(context=32768, users=4))
    assert row.fits and row.plan.request.precision == "native"  # its BF16 weights, 16 GB, fit an 80 GB card
    kimi, card = model_and_gpu(catalog, "kimi-k3", "rtx-4090")
    assert not fit_row(kimi, card, 1, PlanRequest(context=32768)).fits  # 2.8T parameters on 24 GB


# ---- throughput at a workload, and the cheapest setup when the one asked falls short ------------

@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_calculator_times_the_workload_asked_as_plan_does(page, server, fixture_catalog, lang):
    from generator.sizing.throughput import Workload
    query = "?gpu=rtx-4090&count=2&context=16384&users=8&engine=vllm&kv-dtype=auto&input-tokens=3000&output-tokens=700&precision=native"
    open_calculator(page, server, lang, "llama-3-1-8b-instruct", query)
    model, gpu = model_and_gpu(fixture_catalog, "llama-3-1-8b-instruct", "rtx-4090")
    expected = answer_json(answer(model, gpu, 2, PlanRequest(context=16384, users=8)), Workload(8, 3000, 700))
    shown = outputs(page)
    for field in ("output_tokens_per_second", "output_tokens_per_second_per_user", "ttft_seconds", "tpot_seconds"):
        assert expected[field] and float(shown[field]) == pytest.approx(expected[field], rel=1e-3), field
    per_user = page.locator("#calculator [data-out='output_tokens_per_second_per_user']").inner_text()
    assert per_user.endswith("tokens/s") and ("," in per_user or "." in per_user or per_user[0].isdigit())
    assert page.locator("#calculator [data-cheapest]").is_hidden()  # it serves the 8 users: nothing to suggest
    assert page.url.endswith(query) and page.problems == []


@pytest.mark.parametrize("lang, label", [("en", "Cheapest for this question"), ("pt", "O mais barato para esta pergunta")])
def test_a_setup_that_falls_short_offers_the_cheapest_for_the_question(page, server, fixture_catalog, lang, label):
    from generator.sizing.cheapest import Question, cheapest_options, market_gpus
    from generator.sizing.throughput import workload_at
    # 64 users of the whole window do not fit on one RTX 4090
    query = "?gpu=rtx-4090&count=1&context=131072&users=64&engine=vllm&kv-dtype=auto&precision=native"
    open_calculator(page, server, lang, "llama-3-1-8b-instruct", query)
    page.wait_for_selector("#calculator [data-cheapest]:not([hidden]) [data-out='cheapest'][data-value]")
    model = next(m for m in fixture_catalog.models if m.slug == "llama-3-1-8b-instruct")
    options = cheapest_options(model, market_gpus(fixture_catalog.gpus), Question(131072, workload_at(131072, 64)))
    shown = page.evaluate("() => JSON.parse(document.querySelector(\"[data-out='cheapest']\").dataset.value)")
    assert shown == [[o.setup.gpu.slug, o.gpus, o.engine] for o in options] and shown
    assert page.locator("#calculator [data-cheapest] h3").inner_text() == label
    # its link asks that setup: the calculator then answers it, and it serves the 64 users
    page.locator("#calculator [data-out='cheapest'] li a").first.click()
    page.wait_for_function("() => document.querySelector(\"[data-out='starts']\").dataset.value === 'starts'")
    assert f"gpu={options[0].setup.gpu.slug}" in page.url and f"count={options[0].gpus}" in page.url
    assert page.locator("#calculator [data-cheapest]").is_hidden() and page.problems == []


def test_a_workload_longer_than_the_context_is_said_in_one_line(page, server):
    open_calculator(page, server, "en", "llama-3-1-8b-instruct",
                    "?gpu=rtx-4090&count=1&context=4096&users=1&engine=vllm&kv-dtype=auto&precision=native")
    page.fill("#calculator input[name='input-tokens']", "4000")
    page.fill("#calculator input[name='output-tokens']", "500")
    note = page.locator("#calculator [data-out='note']")
    note.wait_for(state="visible")
    assert note.inner_text() == "The prompt and the answer (4000 and 500 tokens) are more than the context (4096 tokens)."
