"""One story per model page: the sections of every shipped model page agree with each other.

Read from the Markdown twins of the shipped site (English): the headline table (the seed's rule),
what vLLM does on its setups, the FAQ, "A setup to serve it" and "GPUs per type".
"""

import re
from dataclasses import replace
from decimal import Decimal

import pytest

from generator.site.render import Renderer
from generator.site.view_models import build_pages

OUTCOME = re.compile(r"^- At (16|8|4) bits on (\d+) × (.+?), (?:vLLM [\d.]+ )?"
                     r"(starts with the full context|starts with up to ([\d,]+) tokens of context|does not start|there is no vLLM [\d.]+ plan here)")
HEADLINE_ROW = re.compile(r"^\| (16|8|4) bits \| [\d,]+ GB: (\d+) × \[(.+?)\]\(")
# a row of "GPUs per type": the GPU, the setup that serves it and its price, then GPUs for the weights per format
TYPE_ROW = re.compile(r"^\| \[(.+?)\]\([^)]*\) \| (.+?) \| (\$[\d,.]+|no price)(?: \(price of [^)]*\))? \|(?: [\d,]+ \|){4}$")


def section(text: str, heading: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return lines[start + 1:end]


def model_twins(site):
    return sorted((site / "en" / "models").glob("*.html.md"))


def money(text: str) -> Decimal:
    return Decimal(text.lstrip("$").replace(",", ""))


def test_every_headline_setup_says_what_the_engine_does_on_it_right_below(shipped_site):
    for path in model_twins(shipped_site):
        text = path.read_text(encoding="utf-8")
        if "## A setup to serve it" not in text:
            continue
        serve = section(text, "## What it takes to serve it")
        headline = {m.group(1): (m.group(2), m.group(3)) for m in map(HEADLINE_ROW.match, serve) if m}
        outcomes = {m.group(1): m for m in map(OUTCOME.match, serve) if m}
        assert outcomes.keys() == headline.keys(), path.name
        for bits, (count, gpu) in headline.items():
            assert (outcomes[bits].group(2), outcomes[bits].group(3)) == (count, gpu), (path.name, bits)
        if any(not m.group(4).startswith("starts with the full") for m in outcomes.values()):
            assert any(line.startswith("- For one sequence at the full context: ") for line in serve), path.name


@pytest.fixture(scope="module")
def market_twins(catalog) -> dict[str, str]:
    """The shipped models' English twins priced by the market alone (the catalog without its stock,
    whose setups the shipped pages show): the market's story, told the same way."""
    market = replace(catalog, inventory=None)
    renderer = Renderer(market.site, "en")
    return {page.path: renderer.render(page, twin=True) for page in build_pages(market) if page.path.startswith("models/")}


def test_the_single_gpu_answer_says_what_context_that_gpu_holds(market_twins, shipped_site):
    """"Yes" names a GPU vLLM starts on, with the context it holds there (the list under the headline
    says the same); where the rule's one GPU does not start, the answer says so. With the operator's
    stock (the shipped site) the headline's setups are the stock's, and one GPU stays a fact of the
    market's cards: the answer is the market's."""
    answers = {"yes": 0, "not with the default flags": 0}
    for path in model_twins(shipped_site):
        text = path.read_text(encoding="utf-8")
        market = market_twins[f"models/{path.name.removesuffix('.html.md')}"]
        single = next(line for line in market.splitlines() if line.startswith("**Can I run ") and "single GPU" in line)
        if "?** No. " not in single:  # "No" names the table's 4-bit setup: the stock's there
            assert single in text.splitlines(), path.name
    for name, text in market_twins.items():
        if "## A setup to serve it" not in text:
            continue
        answer = next(line for line in text.splitlines() if line.startswith("**Can I run "))
        serve = section(text, "## What it takes to serve it")
        if " Yes. At " in answer:
            answers["yes"] += 1
            bits, gpu = re.search(r"Yes\. At (\d+) bits it needs about [\d,]+ GB: one (.+?) GPU\.", answer).groups()
            outcome = next(line for line in serve if line.startswith(f"- At {bits} bits on 1 × {gpu}, "))
            assert "does not start" not in outcome, name
            assert answer.endswith(" There, " + outcome.split(", ", 1)[1]), name
        elif "Not with the default flags" in answer:
            answers["not with the default flags"] += 1
            bits = re.search(r"at (\d+) bits it needs", answer).group(1)
            assert any(line.startswith(f"- At {bits} bits on 1 × ") and "does not start" in line for line in serve), name
    assert answers["yes"] > 50 and answers["not with the default flags"] >= 1


def test_bf16_headline_setups_agree_with_gpus_per_type(shipped_site):
    """Where the published checkpoint is BF16, 16 bits is what "GPUs per type" plans: a headline setup
    that starts at the full context needs no more GPUs of its type than that table says, and one that
    does not start there needs at least as many."""
    checked = 0
    for path in model_twins(shipped_site):
        text = path.read_text(encoding="utf-8")
        if "| Published format | BF16 |" not in text or "## GPUs per type" not in text:
            continue
        outcome = next((m for m in map(OUTCOME.match, section(text, "## What it takes to serve it")) if m and m.group(1) == "16"), None)
        if outcome is None:
            continue
        rows = {m.group(1): m.group(2) for m in map(TYPE_ROW.match, section(text, "## GPUs per type")) if m}
        planned = rows[outcome.group(3)]
        if planned.startswith("does not fit") or "machines of" in planned:
            assert not outcome.group(4).startswith("starts with the full"), path.name
            continue
        needed = int(planned.split(" × ")[0])
        if outcome.group(4).startswith("starts with the full"):
            assert needed <= int(outcome.group(2)), path.name
        else:
            assert needed >= int(outcome.group(2)), path.name
        checked += 1
    assert checked > 40


def test_the_cheapest_setup_is_the_cheapest_single_machine_the_page_lists(market_twins, shipped_site):
    """The market's setup to serve it is the cheapest single machine of "GPUs per type" (else group);
    where the operator's stock serves it (the shipped site), the market's choice stands beside the stock's."""
    cheaper_groups = in_stock = 0
    twins = [(path.name, path.read_text(encoding="utf-8")) for path in model_twins(shipped_site)]
    for name, text in twins + list(market_twins.items()):
        if "## A setup to serve it" not in text:
            continue
        claim = next(line for line in section(text, "## A setup to serve it") if line.startswith("Of the setups in "))
        rows = [m for m in map(TYPE_ROW.match, section(text, "## GPUs per type")) if m and m.group(3) != "no price"]
        single = [money(m.group(3)) for m in rows if "machines of" not in m.group(2)]
        groups = [money(m.group(3)) for m in rows if "machines of" in m.group(2)]
        if claim.startswith("Of the setups in stock on "):
            in_stock += 1
            market = re.search(r"On the market, the cheapest such setup is .+?, from (\$[\d,.]+) per hour \(", claim)
            assert market and (min(single) if single else min(groups)) == money(market.group(1)), name
            continue
        chosen = money(re.search(r"from (\$[\d,.]+) per hour \(price of [^)]*\)\.$", claim).group(1))
        assert (min(single) if single else min(groups)) == chosen, name
        cheaper = [price for price in groups if price < chosen]
        group_line = next((line for line in section(text, "## A setup to serve it") if line.startswith("A group of machines costs less")), None)
        if cheaper and single:
            cheaper_groups += 1
            assert group_line and f"from ${min(cheaper)} (price of " in group_line, name
        else:
            assert group_line is None, name
    assert in_stock > 100 and cheaper_groups > 0


@pytest.mark.parametrize("lang, pattern", [("en", r"(\d[\d.,]*) GB, more than its \1 GB"), ("pt", r"(\d[\d.,]*) GB, mais que os \1 GB")])
def test_rounding_never_reads_x_more_than_x(shipped_site, lang, pattern):
    found = [p.name for p in (shipped_site / lang / "models").glob("*.html.md") if re.search(pattern, p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_gpus_an_engine_is_not_planned_on_say_so_and_set_nothing(shipped_site):
    """DeepSeek-V4: vLLM's FlashMLA runs on compute capability 9.x and 10.x; on the other GPUs the page
    says the plan is not modelled (never "more than 64 machines", never a setup)."""
    text = (shipped_site / "en" / "models" / "deepseek-v4-flash.html.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in map(TYPE_ROW.match, section(text, "## GPUs per type")) if m}
    not_planned = "not planned: the memory of vLLM's kernels for this attention on this GPU is not modelled"
    assert rows["Instinct MI300X"] == rows["RTX 5090"] == not_planned
    assert rows["A100 80GB SXM"] == rows["L40S"] == "none: vLLM has no kernels for this attention on this GPU"
    assert rows["H100 SXM"].endswith("× H100 SXM") and rows["B200"].startswith("1 × B200")
    serve = section(text, "## What it takes to serve it")
    outcomes = [m for m in map(OUTCOME.match, serve) if m]
    # A40 (8.6): no kernels at all
    assert outcomes and all(m.group(4) == "does not start" for m in outcomes if "A40" in m.group(3))
    # its GGUF files are made from the converter's Q8_0 and MXFP4 output
    own = section(text, "## Run it on your own GPU")
    assert "llama-quantize --allow-requantize, which MXFP4_MOE, the last row, does not need" in own[1]
    assert any(line.startswith("| MXFP4\\_MOE | 155 GB |") for line in own), own
