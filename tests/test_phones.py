"""The pages on a phone: 390 CSS px wide, touch, in both languages, in a real Chromium.

What a reader on a phone needs (issue 8/8): no page wider than the screen (tables scroll inside
themselves), the columns a reader decides by on screen first, tap targets of at least 24 × 24 px
(WCAG 2.2, 2.5.8; links inside a sentence are exempt), a chart whose text is at least 12 px with
values on its axis, and long model pages folded to their headings until opened.
"""

from __future__ import annotations

import pytest

PHONE = {"width": 390, "height": 844}
# every tap target of the page, but links inside a sentence (a paragraph, a list item, a caption)
TARGETS = """() => [...document.querySelectorAll('a[href], button, input, select, summary')].filter(e => {
    const r = e.getBoundingClientRect(), style = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && !e.closest('p, li, figcaption, [hidden]')
      && !(e.tagName === 'A' && e.closest('.md-typeset') && e.parentElement.closest('p, li'));
  }).map(e => { const r = e.getBoundingClientRect();
    return [e.tagName + ' ' + (e.getAttribute('aria-label') || e.textContent || e.name || '').trim().slice(0, 30),
            Math.round(r.width * 10) / 10, Math.round(r.height * 10) / 10]; })"""


@pytest.fixture
def phone(browser, server):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: m.type == "error" and page.problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: page.problems.append(f"page error: {e}"))
    yield page
    context.close()


def open_page(phone, server, path: str, ready: str | None = None):
    phone.goto(f"{server}{path}")
    phone.wait_for_load_state("networkidle")
    if ready:
        phone.wait_for_selector(ready)


def page_width(phone) -> int:
    return phone.evaluate("() => document.scrollingElement.scrollWidth")


def right_edges(phone, selector: str) -> list[float]:
    return phone.evaluate(f"() => [...document.querySelectorAll({selector!r})].map(e => e.getBoundingClientRect().right)")


PAGES = [
    ("models/llama-3-1-8b-instruct.html", "#calculator:not([hidden]) [data-out='starts'][data-value]"),
    ("models.html", "[data-vram-index] form:not([hidden])"),
    ("fit.html?gpu=rtx-4090&count=1&context=32768&users=1&engine=llama.cpp&quant=Q4_K_M&cache-type=f16",
     "[data-vram-fit][data-answered='llama.cpp']"),
    ("gpus.html", "[data-vram-index] form:not([hidden])"),
    ("gpus/rtx-4090.html", None),
    ("index.html", None),
]


@pytest.mark.parametrize("lang", ["pt", "en"])
@pytest.mark.parametrize("path, ready", PAGES)
def test_no_page_is_wider_than_the_phone_and_every_tap_target_is_24_px(phone, server, lang, path, ready):
    open_page(phone, server, f"{lang}/{path}", ready)
    assert page_width(phone) <= PHONE["width"]
    small = [target for target in phone.evaluate(TARGETS) if target[1] < 24 or target[2] < 24]
    assert small == []
    assert phone.problems == []


# Every layout shift the page makes, from the first frame on (the Layout Instability API).
SHIFTS = """window.vramShifts = [];
new PerformanceObserver(list => { for (const entry of list.getEntries()) window.vramShifts.push(entry.value); })
  .observe({type: 'layout-shift', buffered: true});"""


@pytest.mark.parametrize("lang", ["pt", "en"])
@pytest.mark.parametrize("path, ready", PAGES)
def test_pages_do_not_move_while_they_load(phone, server, lang, path, ready):
    # Tables come wrapped in the HTML, and the first one is laid out at once: wrapped by Material's
    # script after load, with a 40rem placeholder, a GPU page's headings moved (0.15, page_html.py).
    phone.add_init_script(SHIFTS)
    open_page(phone, server, f"{lang}/{path}", ready)
    phone.wait_for_timeout(500)
    assert sum(phone.evaluate("() => window.vramShifts")) < 0.01


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_columns_a_reader_decides_by_are_on_screen_first(phone, server, lang):
    # GPUs per type (opened): the GPU, the setup that serves it and its price
    open_page(phone, server, f"{lang}/models/llama-3-1-8b-instruct.html")
    phone.click("#gpus-per-type > summary")
    heads = phone.locator("#gpus-per-type th")
    assert heads.count() == 7
    assert max(right_edges(phone, "#gpus-per-type th:nth-child(-n+3)")) <= PHONE["width"]
    # the models index: the model, its memory at 4 bits and the smallest setup
    open_page(phone, server, f"{lang}/models.html", "[data-vram-index] form:not([hidden])")
    first = phone.evaluate("() => [...document.querySelectorAll('[data-vram-index] th')].slice(0, 3).map(th => th.textContent.trim())")
    assert first[2] == {"en": "Smallest setup at 4 bits", "pt": "Menor configuração em 4 bits"}[lang]
    assert max(right_edges(phone, "[data-vram-index] th:nth-child(-n+3)")) <= PHONE["width"] + 1
    # the fit page: the model and its verdict
    open_page(phone, server, f"{lang}/fit.html", "[data-vram-fit][data-answered]")
    assert max(right_edges(phone, "[data-vram-fit] th:nth-child(-n+2)")) <= PHONE["width"]


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_chart_has_values_on_its_axis_and_text_of_12_px_at_least(phone, server, lang):
    open_page(phone, server, f"{lang}/models/llama-3-1-8b-instruct.html", "#calculator:not([hidden]) [data-out='starts'][data-value]")
    phone.wait_for_selector("[data-out='chart'] text[data-axis='y']")
    chart = phone.locator("[data-out='chart']")
    chart.scroll_into_view_if_needed()
    sizes = phone.evaluate("""() => { const svg = document.querySelector("[data-out='chart']");
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale); }""")
    assert sizes and min(sizes) >= 12
    values = phone.evaluate("() => [...document.querySelectorAll(\"[data-out='chart'] text[data-axis='y']\")].map(t => t.textContent)")
    assert len(values) == 4 and all(value.endswith(" GB") for value in values)
    assert chart.bounding_box()["width"] <= PHONE["width"]


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_model_page_folds_its_detailed_sections_on_a_phone_and_opens_them_on_demand(browser, phone, server, lang):
    open_page(phone, server, f"{lang}/models/llama-3-1-8b-instruct.html")
    folds = phone.evaluate("() => [...document.querySelectorAll('details.vram-fold')].map(d => [d.id, d.open])")
    assert {fold for fold, _ in folds} >= {"weights", "kv-cache", "gpus-per-type", "method", "sources"}
    assert not any(is_open for _, is_open in folds)
    folded_height = phone.evaluate("() => document.scrollingElement.scrollHeight")
    phone.click("#gpus-per-type > summary")
    assert phone.evaluate("() => document.getElementById('gpus-per-type').open")
    assert phone.evaluate("() => document.scrollingElement.scrollHeight") > folded_height
    # on a wide screen every section is open, as the page is served
    desktop = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    desktop.goto(f"{server}{lang}/models/llama-3-1-8b-instruct.html")
    desktop.wait_for_load_state("networkidle")
    assert all(is_open for _, is_open in desktop.evaluate(
        "() => [...document.querySelectorAll('details.vram-fold')].map(d => [d.id, d.open])"))
    desktop.context.close()


def test_search_results_wrap_on_a_phone(phone, server):
    open_page(phone, server, "pt/search.html?q=especialistas")
    phone.wait_for_selector(".pagefind-ui__result", timeout=20000)
    assert page_width(phone) <= PHONE["width"]
    assert phone.problems == []
