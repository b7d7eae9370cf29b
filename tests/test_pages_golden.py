"""Golden pages: the Markdown twins of the fixture catalog's pages, and the seed page read line by line.

The golden files come from the fixture catalog (tests/fixtures/catalog/), so editing content/ never
changes them. After a deliberate change to templates, translations or the fixture, regenerate them
with `UPDATE_GOLDEN=1 python -m pytest tests/test_pages_golden.py` and review the diff. The seed
page is checked against the shipped catalog (content/): our Kimi-K3 page must keep reading as it.
"""

import os
from dataclasses import replace
from pathlib import Path

import pytest

from generator.site.render import Renderer
from tests.conftest import twin

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
SEED_PAGE = HERE / "seed" / "kimi-k3.pt.md"  # copy of the seed page the product comes from
FIXTURE_MODELS = sorted(p.stem for p in (HERE / "fixtures" / "catalog" / "models").glob("*.yaml"))
# every fixture model; both indexes; the home page; a GPU with a price and one without
PAGES = [f"models/{slug}" for slug in FIXTURE_MODELS] + ["models", "gpus", "index", "gpus/b300", "gpus/mi325x", "fit"]
CASES = [(lang, page) for lang in ("pt", "en") for page in PAGES]



@pytest.mark.parametrize("lang, page_path", CASES)
def test_twin_matches_golden_file(fixture_catalog, lang, page_path):
    actual = twin(fixture_catalog, lang, page_path)
    golden = GOLDEN / lang / f"{page_path}.html.md"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8")
    assert golden.exists(), f"no golden file {golden}; run UPDATE_GOLDEN=1 python -m pytest {__file__}"
    assert actual == golden.read_text(encoding="utf-8")


def test_every_golden_file_has_a_case():
    """A golden file no case reads is stale; UPDATE_GOLDEN=1 removes it."""
    expected = {GOLDEN / lang / f"{page_path}.html.md" for lang, page_path in CASES}
    stale = sorted(p for p in GOLDEN.rglob("*.md") if p not in expected)
    if os.environ.get("UPDATE_GOLDEN"):
        for path in stale:
            path.unlink()
        stale = []
    assert stale == [], f"golden files without a case; run UPDATE_GOLDEN=1 python -m pytest {__file__}"


# Where our page deliberately differs from the seed page, and why.
SEED_DIFFERENCES = {
    # a link's text says where it goes, not a raw path (issue 7/7)
    "Mais modelos: [/models](/pt/models.html.md).": "[Todos os modelos](/pt/models.html.md).",
    # the deploy link names the model and says where it goes (issue 7/7)
    "[Implante na Arrakis](/console/#/models?model=moonshotai/Kimi-K3).":
        "[Implante o Kimi-K3 na Arrakis](/console/#/models?model=moonshotai/Kimi-K3) (abre o console da Arrakis com este modelo selecionado).",
    # "pelas 8" read like a time of day: "pelas 8 GPUs" (issue 7/7); every price shows the day it
    # was read (issue 5/8; Arrakis's B300 price, content/gpus.yaml)
    "| 4 bits | 1.668 GB: 8 × [B300](/pt/gpus/b300.html.md), a partir de US$\u00a036,80 por hora pelas 8 |":
        "| 4 bits | 1.668 GB: 8 × [B300](/pt/gpus/b300.html.md), a partir de US$\u00a036,80 por hora pelas 8 GPUs "
        "(preço de 27 de agosto de 2026) |",
    "| QLoRA | 1.946 GB: 8 × [B300](/pt/gpus/b300.html.md), a partir de US$\u00a036,80 por hora pelas 8 |":
        "| QLoRA | 1.946 GB: 8 × [B300](/pt/gpus/b300.html.md), a partir de US$\u00a036,80 por hora pelas 8 GPUs "
        "(preço de 27 de agosto de 2026) |",
    # the "about" table's header row names its columns instead of being empty (issue 8/8)
    "| | |": "| Propriedade | Valor |",
    # numbers in the "about" table are formatted per locale, like every other number on the page
    "| Parâmetros | `2.8T` |": "| Parâmetros | `2,8T` |",
    "| Janela de contexto (tokens) | `1,048,576` |": "| Janela de contexto (tokens) | `1.048.576` |",
    # the sources say MXFP4 routed experts with a BF16 trunk, not FP8 (content/models/kimi-k3.yaml),
    # and catalog text is written in each page's language (issue 7/7); "Publicado em" read like a
    # date: "Formato publicado" (issue 8/8)
    "| Publicado em | `FP8` |": "| Formato publicado | MXFP4 (especialistas roteados) + BF16 (restante) |",
    # the Hugging Face license tag "other" names the Modified MIT license
    "| Licença | `other` |": None,
    # the weights went public on 2026-07-27 (sources in content/models/kimi-k3.yaml)
    # (and dates are written as each language writes them, issue 7/7)
    "| Data de lançamento | `2026-06-13` |": "| Data de lançamento | 27 de julho de 2026 |",
}


def test_kimi_k3_pt_page_reads_as_the_seed_page(seed_catalog):
    """Every line of the seed page appears in our page, in the same order (more may follow): the
    shipped models and GPUs with the seed's price list, the brand's own (conftest.seed_catalog)."""
    ours = twin(seed_catalog, "pt", "models/kimi-k3").splitlines()
    position = 0
    for line in SEED_PAGE.read_text(encoding="utf-8").splitlines():
        expected = SEED_DIFFERENCES.get(line, line)
        if not expected or not expected.strip():
            continue
        assert expected in ours[position:], f"seed line missing or out of order: {expected!r}"
        position = ours.index(expected, position) + 1


@pytest.mark.parametrize(
    "lang, needles",
    [
        ("pt", ["6.672 GB", "3.336 GB", "1.668 GB", "1.946 GB", "44.479 GB", "8 × [B300]",
                "US$\u00a036,80", "mais de uma máquina de 8 GPUs"]),
        ("en", ["6,672 GB", "3,336 GB", "1,668 GB", "1,946 GB", "44,479 GB", "8 × [B300]",
                "$36.80", "more than one 8-GPU machine"]),
    ],
)
def test_kimi_k3_numbers_in_each_locale(seed_catalog, lang, needles):
    page = twin(seed_catalog, lang, "models/kimi-k3")
    for needle in needles:
        assert needle in page, needle


@pytest.mark.parametrize("value", [0, 7, 999, 1_000, 6_672, 44_479, 1_048_576, 2_779_931_837_184, -12_345])
@pytest.mark.parametrize("lang", ["pt", "en"])
def test_fast_integer_format_is_babels(catalog, lang, value):
    from babel.numbers import format_decimal

    renderer = Renderer(catalog.site, lang)
    assert renderer.number(value) == format_decimal(value, locale=renderer.locale)


def test_market_prices_say_where_they_come_from(catalog):
    """With the market's prices only (the shipped catalog without its stock), the cost answer says
    where they come from."""
    text = twin(replace(catalog, inventory=None), "pt", "models/kimi-k3")
    assert ("Cada configuração desta página mostra o menor preço por GPU-hora que encontramos com fonte (o provedor e a "
            "data estão na página de cada GPU); na Arrakis você paga por hora a partir de um saldo pré-pago.") in text


def test_stock_prices_keep_the_seed_sentence_and_name_the_market_beside(catalog):
    """With the operator's stock and the market's prices (the shipped catalog), every setup is the
    stock's at its price, and the market's lowest price stands beside it, with provider and date."""
    text = twin(catalog, "pt", "models/kimi-k3")
    assert ("Cada configuração desta página mostra o menor preço por GPU-hora na Arrakis agora, e você paga por hora a "
            "partir de um saldo pré-pago. Ao lado, o menor preço de mercado que encontramos com fonte, com o provedor e a "
            "data.") in text
    row = next(line for line in text.splitlines() if line.startswith("| 4 bits |"))
    assert row.startswith("| 4 bits | 1.668 GB: 8 × [B300](/pt/gpus/b300.html.md), a partir de US$\u00a036,80 por hora "
                          "pelas 8 GPUs (preço de 27 de agosto de 2026); no mercado: 8 × [")
    assert "por hora pelas 8 GPUs (" in row.split("; no mercado: ", 1)[1]  # a provider and a date


def test_own_prices_keep_the_seed_sentence(seed_catalog):
    """With every price the brand's own, the cost answer is the seed page's, word for word."""
    text = twin(seed_catalog, "pt", "models/kimi-k3")
    seed = next(line for line in SEED_PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("**Quanto custa"))
    assert seed in text.splitlines()
