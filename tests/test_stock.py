"""The operator's own platform (inventory.yaml): which setup in stock serves a requirement, and the
largest machine in stock, hand-computed; and `size` saying so, as the seed article does for Kimi-K3."""

import json
import shutil
from decimal import Decimal

import pytest

from generator.catalog.records import Inventory, StockOffer
from generator.cli.main import main
from generator.sizing.stock import in_stock_setup, largest_node
from generator.catalog.loader import load_catalog
from generator.site.render import Renderer
from generator.site.view_models import build_page, build_pages
from tests.conftest import CONTENT, twin
from tests.formula_records import gpu

GB = 10**9
# The market: an 80 GB card at $2 (any shape of 1 to 8), a 141 GB one at $3, a 24 GB one at $0.50
MARKET = (gpu("h100", 80 * GB, "2.00"), gpu("h200", 141 * GB, "3.00"), gpu("rtx", 24 * GB, "0.50"))


def stock(*offers: tuple[str, tuple[int, ...], bool, str | None]) -> Inventory:
    return Inventory(False, tuple(StockOffer(slug, machines, joined, None if price is None else Decimal(price), "2026-12-01", "feed")
                                  for slug, machines, joined, price in offers))


def shown(setup):
    return None if setup is None else (setup.gpu.slug, setup.gpus_per_machine, setup.machines, setup.price_per_hour)


@pytest.mark.parametrize("required_gb, inventory, expected", [
    # 100 GB: 2 × H100 at the operator's $2.50 (5.00 an hour) beats 1 × H200 at $6 — only shapes in stock count
    pytest.param(100, stock(("h100", (1, 2, 4, 8), False, "2.50"), ("h200", (1,), False, "6.00")),
                 ("h100", 2, 1, Decimal("5.00")), id="cheapest-shape-in-stock"),
    # the H100 only as 8-GPU machines: 8 × 2.50 = 20.00, so the H200 at 6.00 wins
    pytest.param(100, stock(("h100", (8,), False, "2.50"), ("h200", (1,), False, "6.00")),
                 ("h200", 1, 1, Decimal("6.00")), id="only-the-shapes-in-stock"),
    # 700 GB: more than 8 × 80 = 640, so one machine of H100 does not hold it; joined, 2 machines of 8
    pytest.param(700, stock(("h100", (8,), True, "2.50")), ("h100", 8, 2, Decimal("40.00")), id="machines-joined"),
    pytest.param(700, stock(("h100", (8,), False, "2.50")), None, id="no-multi-node"),
    # priced on request: chosen only where no priced type in stock holds it, the fewest GPUs first
    pytest.param(100, stock(("h100", (1, 2, 4, 8), False, None), ("h200", (1,), False, None)),
                 ("h200", 1, 1, None), id="on-request-fewest-gpus"),
    pytest.param(100, stock(("h100", (1, 2, 4, 8), False, None), ("rtx", (8,), False, "0.50")),
                 ("rtx", 8, 1, Decimal("4.00")), id="a-priced-one-first"),
])
def test_the_setup_in_stock(required_gb, inventory, expected):
    assert shown(in_stock_setup(required_gb * GB, MARKET, inventory)) == expected


def test_the_largest_machine_in_stock_is_the_one_with_most_memory():
    inventory = stock(("rtx", (1, 2, 4, 8), False, "0.50"), ("h200", (1, 2), False, "3.00"), ("h100", (4,), False, None))
    assert shown(largest_node(MARKET, inventory)) == ("h100", 4, 1, None)  # 320 GB beats 282 and 192
    assert largest_node(MARKET, stock()) is None


def test_size_says_kimi_k3_fits_no_machine_of_a_stock_of_8_h100(tmp_path, capsys):
    """The seed article: "o maior nó com estoque é 8× H100 = 640 GB, não há multi-nó, e nenhum formato
    do K3 cabe nisso". With that stock, no setup in stock holds Kimi-K3 at any precision, and the
    largest machine is 8 × 80 GB = 640 GB."""
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    (content / "inventory.yaml").write_text(
        "sample: true\noffers:\n  - {gpu: h100-sxm, machines: [1, 2, 4, 8], multi_node: false, date: 2026-07-18, "
        "source: the seed article's live catalogue}\n", encoding="utf-8")
    for precision in ("native", "8", "4"):
        assert main(["size", "kimi-k3", "--precision", precision, "--content", str(content), "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["in_stock_setup"] is None
        assert report["largest_node_in_stock"] == {"gpu": "h100-sxm", "count": 8, "gpus_per_machine": 8, "machines": 1,
                                                   "memory_bytes": 640 * GB, "price_per_hour": None}
    assert main(["size", "kimi-k3", "--precision", "4", "--content", str(content)]) == 0
    assert "in stock                none holds it: the largest machine in stock is 8 × H100 SXM, 640.00 GB" in capsys.readouterr().out


def test_size_prices_the_shipped_sample_stock_as_the_seed_page(capsys):
    """The sample inventory's one offer: Kimi-K3 at 4 bits in stock on 8 × B300, US$ 36.80 an hour."""
    assert main(["size", "kimi-k3", "--precision", "4", "--json"]) == 0
    setup = json.loads(capsys.readouterr().out)["in_stock_setup"]
    assert (setup["gpu"], setup["count"], setup["price_per_hour"]) == ("b300", 8, 36.8)


def catalog_with_stock(tmp_path, offers: str):
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    (content / "inventory.yaml").write_text(f"sample: true\noffers:\n{offers}", encoding="utf-8")
    return load_catalog(content)


H100_ONLY = "  - {gpu: h100-sxm, machines: [1, 2, 4, 8], multi_node: false, date: 2026-07-18, source: the live catalogue}\n"


def test_kimi_k3_pages_say_it_runs_nowhere_in_a_stock_of_8_h100(tmp_path):
    """The seed article's verdict with its numbers, in both languages: the largest node in stock is
    8 × H100 = 640 GB, no multi-node, and even at 4 bits Kimi-K3 needs 1,668 GB; no deploy link."""
    catalog = catalog_with_stock(tmp_path, H100_ONLY)
    pt, en = twin(catalog, "pt", "models/kimi-k3"), twin(catalog, "en", "models/kimi-k3")
    said_pt = ("Hoje não roda na Arrakis: a maior máquina em estoque é 8 × H100 SXM (640 GB), não há multinó, e mesmo "
               "em 4 bits o Kimi-K3 precisa de cerca de 1.668 GB.")
    said_en = ("Not on Arrakis today: the largest machine in stock is 8 × H100 SXM (640 GB), machines are not joined "
               "into one setup, and even at 4 bits Kimi-K3 needs about 1,668 GB.")
    assert f"**{said_pt}**" in pt and f"**Posso rodar o Kimi-K3 na Arrakis hoje?** {said_pt}" in pt
    assert f"**{said_en}**" in en and f"**Can I run Kimi-K3 on Arrakis today?** {said_en}" in en
    assert "/console/" not in pt and "/console/" not in en  # the deploy link only where a setup in stock holds it


def test_a_model_that_fits_in_stock_keeps_its_deploy_link_and_says_what_holds_it(tmp_path):
    catalog = catalog_with_stock(tmp_path, H100_ONLY)
    en, pt = twin(catalog, "en", "models/llama-3-1-8b-instruct"), twin(catalog, "pt", "models/llama-3-1-8b-instruct")
    assert "](/console/#/models?model=meta-llama/Llama-3.1-8B-Instruct)" in en
    assert ("**Can I run Llama-3.1-8B-Instruct on Arrakis today?** Yes: at 16 bits it needs about 19 GB, and Arrakis has "
            "one H100 SXM GPU in stock, at a price on request.") in en
    assert ("**Posso rodar o Llama-3.1-8B-Instruct na Arrakis hoje?** Sim: em 16 bits ele precisa de cerca de 19 GB, e a "
            "Arrakis tem uma GPU H100 SXM em estoque, com preço sob consulta.") in pt


def test_a_model_that_fits_the_market_but_not_the_stock(tmp_path):
    """Stock of one 24 GB card: Qwen3-32B needs about 20 GB at 4 bits by the rule, 39 GB at 8, so it
    is in stock at 4 bits; Llama-3.3-70B needs 42 GB even at 4 bits: not in stock, on the market yes."""
    catalog = catalog_with_stock(tmp_path, "  - {gpu: rtx-4090, machines: [1], multi_node: false, price_per_gpu_hour: 0.40, "
                                           "date: 2026-07-18, source: feed}\n")
    qwen = twin(catalog, "en", "models/qwen3-32b")
    assert ("Yes: at 4 bits it needs about 20 GB, and Arrakis has one RTX 4090 GPU in stock, from $0.40 per hour."
            in qwen)
    llama = twin(catalog, "en", "models/llama-3-3-70b-instruct")
    assert ("Not on Arrakis today: the largest machine in stock is 1 × RTX 4090 (24 GB), machines are not joined "
            "into one setup, and even at 4 bits Llama-3.3-70B-Instruct needs about 42 GB.") in llama
    # the table says so, with the market's smallest setup beside, its provider and date
    row = next(line for line in llama.splitlines() if line.startswith("| 4 bits |"))
    assert row.startswith("| 4 bits | 42 GB: not in stock on Arrakis; on the market: 1 × [")
    assert "from $" in row and ", price of " in row
    assert "| 4 bits | 20 GB: 1 × [RTX 4090](/en/gpus/rtx-4090.html.md), from $0.40 per hour (price of July 18, 2026)" in qwen
    # and in Portuguese
    llama_pt = twin(catalog, "pt", "models/llama-3-3-70b-instruct")
    assert ("Hoje não roda na Arrakis: a maior máquina em estoque é 1 × RTX 4090 (24 GB), não há multinó, e mesmo em 4 "
            "bits o Llama-3.3-70B-Instruct precisa de cerca de 42 GB.") in llama_pt
    assert "| 4 bits | 42 GB: fora de estoque na Arrakis; no mercado: 1 × [" in llama_pt
    assert ("| 4 bits | 20 GB: 1 × [RTX 4090](/pt/gpus/rtx-4090.html.md), a partir de US$\xa00,40 por hora (preço de 18 de "
            "julho de 2026)") in twin(catalog, "pt", "models/qwen3-32b")


def test_the_sample_stock_answers_the_seed_page(catalog):
    """Kimi-K3 with the shipped sample: in stock at 4 bits on 8 × B300, from US$ 36.80 an hour."""
    assert ("**Posso rodar o Kimi-K3 na Arrakis hoje?** Sim: em 4 bits ele precisa de cerca de 1.668 GB, e a Arrakis tem "
            "8 GPUs B300 em estoque, a partir de US$\xa036,80 por hora.") in twin(catalog, "pt", "models/kimi-k3")


def test_a_page_names_what_runs_in_stock_instead(tmp_path):
    """Seed 000's "Rode hoje o que realmente cabe": with 8 × H100 in stock, Kimi-K3's page names the
    models in stock that start, its own family first, then by size. Kimi-K2 (1,026.4B × 0.5 × 1.2 =
    616 GB at 4 bits) fits 8 × 80 GB by memory, but vLLM has no 4-bit checkpoint of it to start, so
    the first is GLM-5 (754B × 0.5 × 1.2 = 452 GB); a page whose model runs in stock names none."""
    catalog = catalog_with_stock(tmp_path, H100_ONLY)
    pt = twin(catalog, "pt", "models/kimi-k3")
    assert "## O que roda hoje na Arrakis" in pt
    section = pt.split("## O que roda hoje na Arrakis", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| [")]
    assert rows[0] == ("| [GLM-5](/pt/models/glm-5.html.md) | `754B` | 452 GB em 4 bits: "
                       "8 × [H100 SXM](/pt/gpus/h100-sxm.html.md) (preço sob consulta) |")
    assert not any("kimi-k2-instruct" in row for row in rows)
    assert len(rows) == 5 and all("8 × [H100 SXM]" in row for row in rows)
    assert "What runs on Arrakis today instead" in twin(catalog, "en", "models/kimi-k3")
    assert "What runs on Arrakis today instead" not in twin(catalog, "en", "models/llama-3-1-8b-instruct")


def test_kimi_k3_against_8_h100_says_what_would_change_it(tmp_path):
    """Seed 000's reasoning: what the model needs against the largest machine in stock, and what
    would change the verdict. 1,668 GB at 4 bits over 8 × 80 GB = 640 GB a machine: 3 machines
    joined (1,920 GB); the weights: 1,561 GB as published (MXFP4 experts, BF16 rest; see
    test_architecture_sizing's multi-node case) and 916 GB at ~2 bits, both over 640 GB."""
    catalog = catalog_with_stock(tmp_path, H100_ONLY)
    en, pt = twin(catalog, "en", "models/kimi-k3"), twin(catalog, "pt", "models/kimi-k3")
    assert ("Its weights alone take 1,561 GB in the published format and 916 GB in the smallest format sized here "
            "(~2-bit mixed). A multi-node offer would change that: 3 machines of 8 × H100 SXM, joined, hold it at "
            "4 bits. No format sized here fits its weights in 640 GB. llama.cpp can keep the experts in system RAM "
            "instead, at about ") in en
    assert ("Só os pesos ocupam 1.561 GB no formato publicado e 916 GB no menor formato dimensionado aqui (~2 bits "
            "misto). Uma oferta multinó mudaria isso: 3 máquinas de 8 × H100 SXM, unidas, comportam o modelo em 4 "
            "bits. Em nenhum formato dimensionado aqui os pesos cabem em 640 GB.") in pt
    # nothing in stock holds it at any precision: the table says so, and its setup is planned on the market
    assert "| 4 bits | 1,668 GB: not in stock on Arrakis; on the market: 8 × [" in en
    assert ("Nothing in stock on Arrakis starts it with one sequence at the full context, so this section plans it on "
            "the market's GPUs.") in en


def test_a_setup_that_holds_the_model_but_does_not_start_it_gets_no_deploy_link(tmp_path):
    """Command-R v01 at 4 bits: 35B × 0.5 × 1.2 = 21 GB fits a 24 GB card by the rule, but vLLM finds
    no memory left for the KV cache there: the page says so, without a deploy link, and the models
    index does not list it as running today."""
    catalog = catalog_with_stock(tmp_path, "  - {gpu: rtx-4090, machines: [1], multi_node: false, price_per_gpu_hour: 0.40, "
                                           "date: 2026-07-18, source: feed}\n")
    en = twin(catalog, "en", "models/c4ai-command-r-v01")
    said = ("Not on Arrakis today: at 4 bits it needs about 21 GB, which fits in one RTX 4090 GPU in stock, but vLLM "
            "0.33.0 does not start there with its default flags (see “What it takes to serve it”).")
    assert f"**{said}**" in en and f"**Can I run C4AI Command-R v01 on Arrakis today?** {said}" in en
    assert "/console/" not in en
    assert "- At 4 bits on 1 × RTX 4090, vLLM 0.33.0 does not start: the weights and the runtime leave nothing" in en
    index = build_page(catalog, "models")
    rows = {row.model.slug: row for row in index.rows}
    assert rows["c4ai-command-r-v01"].in_stock is None and rows["qwen3-32b"].in_stock is not None


def test_the_setup_to_serve_it_is_the_stocks_with_the_market_beside(catalog):
    """The shipped sample: Kimi-K3 is served on the stock's 8 × B300 at US$ 36.80 an hour, and the
    market's own choice stands beside it with its provider."""
    en = twin(catalog, "en", "models/kimi-k3")
    section = en.split("## A setup to serve it", 1)[1].split("\n## ", 1)[0]
    assert "Of the setups in stock on Arrakis, the cheapest single machine on which vLLM 0.33.0 starts" in section
    assert ": 8 × B300. From $36.80 per hour (price of August 27, 2026). On the market, the cheapest such setup is " in section


def test_every_page_reads_in_its_language_against_a_stock_priced_on_request(tmp_path):
    """The seed article's stock (8 × H100, machines of 1 to 8, no price: on request) passes `check`,
    so every page of both languages renders with it, the Portuguese ones without the English
    phrases of the stock (a setup in stock served "at a price on request" once broke the build)."""
    catalog = catalog_with_stock(tmp_path, H100_ONLY)
    english = ("not in stock on", "on the market:", "price on request", "Not on Arrakis today", "in stock on Arrakis")
    pages = build_pages(catalog)
    for lang in ("pt", "en"):
        renderer = Renderer(catalog.site, lang)
        for page in pages:
            text = renderer.render(page, twin=True)
            if lang == "pt":
                assert not [phrase for phrase in english if phrase in text], page.path
    renderer = Renderer(catalog.site, "pt")
    plus = renderer.render(next(p for p in pages if p.path == "models/c4ai-command-r-plus-08-2024"), twin=True)
    assert "- Para uma sequência no contexto completo: 4 × H100 SXM, com preço sob consulta (veja" in plus
    assert "As configurações em estoque na Arrakis têm preço sob consulta; ao lado de cada uma, o menor preço" in plus
