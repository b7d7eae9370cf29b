"""Catalog text that pages show (source notes, the published format) in each page's language.

A note or a published format is English text, or a mapping `{en: ..., pt: ...}`; each page shows
its own language's text, and the English where the catalog gives no translation.
"""

import re

import pytest

from generator.catalog.loader import CatalogError, load_catalog
from generator.site.render import Renderer
from tests.conftest import twin

LLAMA = "models/llama-3-1-8b-instruct.yaml"



def edit(content, name, old, new):
    path = content / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_each_page_shows_the_note_and_format_in_its_language(content_copy):
    edit(content_copy, LLAMA, "  note: Official model card.",
         "  note: {en: Official model card., pt: Cartão oficial do modelo.}")
    edit(content_copy, LLAMA, "  note: Read in a faithful (trimmed) copy of the config.json.",
         "  note: {en: Read in a copy of config.json., pt: Lido numa cópia do config.json.}")
    edit(content_copy, LLAMA, "  value: BF16\n", "  value: {en: BF16 (all weights), pt: BF16 (todos os pesos)}\n")
    edit(content_copy, "gpus.yaml", 'note: "NVIDIA H200, H200 SXM, 141 GB"',
         'note: {en: "H200 SXM: 141 GB", pt: "H200 SXM: 141 GB de memória"}')
    catalog = load_catalog(content_copy)
    pt, en = (twin(catalog, lang, "models/llama-3-1-8b-instruct") for lang in ("pt", "en"))
    assert "(Cartão oficial do modelo.)" in pt and "Official model card." not in pt
    assert "(Official model card.)" in en and "Cartão" not in en
    assert "(Lido numa cópia do config.json.)" in pt and "(Read in a copy of config.json.)" in en
    assert "| Formato publicado | BF16 (todos os pesos) |" in pt
    assert "| Published format | BF16 (all weights) |" in en
    assert "como publicado: BF16 (todos os pesos)" in pt
    gpu_pt, gpu_en = (twin(catalog, lang, "gpus/h200") for lang in ("pt", "en"))
    assert "(H200 SXM: 141 GB de memória)" in gpu_pt and "(H200 SXM: 141 GB)" not in gpu_pt
    assert "(H200 SXM: 141 GB)" in gpu_en


def test_text_without_a_translation_shows_the_english_on_every_page(content_copy):
    catalog = load_catalog(content_copy)
    assert "(Official model card.)" in twin(catalog, "pt", "models/llama-3-1-8b-instruct")


@pytest.mark.parametrize("value, message", [
    ("{pt: Cartão oficial.}", "note: must be text, or a mapping of languages (en, pt) to text with 'en' (got ['pt'])"),
    ("{en: Official., portuguese: Oficial.}", "with 'en' (got ['en', 'portuguese'])"),
    ("{en: Official., pr: Oficial.}", "with 'en' (got ['en', 'pr'])"),  # a typo would show the English
    ("{en: Official., pt: ''}", "note: pt: must be non-empty text"),
    ("{en: Official., pt: [a, b]}", "note: pt: must be non-empty text"),
])
def test_a_bad_translation_is_one_line_naming_the_file_and_field(content_copy, value, message):
    edit(content_copy, LLAMA, "  note: Official model card.", f"  note: {value}")
    with pytest.raises(CatalogError) as error:
        load_catalog(content_copy)
    (line,) = error.value.problems
    assert line.startswith(f"{content_copy / LLAMA}:")
    assert "release_date.note: " in line and message in line


def test_the_shipped_catalog_gives_every_shown_text_in_portuguese(catalog):
    # every note; a published format only when it has words ("BF16" reads the same in both)
    missing = []
    for owner, sources, extra in (
        *((m.slug, m.sources, {"precision": m.precision} if m.precision and re.search("[a-z]{3}", str(m.precision)) else {})
          for m in catalog.models),
        *((g.slug, g.sources, {}) for g in catalog.gpus),
    ):
        texts = {f"{field}.note": source.note for field, source in sources.items()}
        texts.update({field: text for field, text in extra.items()})
        missing += [f"{owner}: {field}" for field, text in texts.items()
                    if text is not None and "pt" not in dict(text.translations)]
    assert missing == []


def test_catalog_text_in_raw_html_is_in_the_pages_language(content_copy):
    # the calculator's HTML block escapes with |h: catalog text there follows the page's language too
    from generator.catalog.records import LocalizedText

    catalog = load_catalog(content_copy)
    text = LocalizedText("<b>rest</b>", (("pt", "<b>restante</b>"),))
    assert Renderer(catalog.site, "pt").html_text(text) == "&lt;b&gt;restante&lt;/b&gt;"
    assert Renderer(catalog.site, "en").html_text(text) == "&lt;b&gt;rest&lt;/b&gt;"


def test_a_gpu_name_and_interconnect_with_words_show_in_each_page_s_language(content_copy):
    """A catalog name that carries words (`Instinct MI250X (one GCD)`) and an interconnect are shown in
    the page's language wherever the pages name the GPU: its page, the GPUs index, a model's setups."""
    edit(content_copy, "gpus.yaml", "    name: H200 SXM\n", '    name: {en: "H200 SXM (one card)", pt: "H200 SXM (uma placa)"}\n')
    edit(content_copy, "gpus.yaml", 'interconnect: {value: "NVLink 4, 900 GB/s"',
         'interconnect: {value: {en: "NVLink 4, 900 GB/s, no bridge", pt: "NVLink 4, 900 GB/s, sem ponte"}')
    catalog = load_catalog(content_copy)
    gpu = next(g for g in catalog.gpus if g.slug == "h200")
    assert gpu.name == "H200 SXM (one card)"  # code and the terminal read the English
    pt, en = (twin(catalog, lang, "gpus/h200") for lang in ("pt", "en"))
    assert pt.startswith("# H200 SXM (uma placa):") and "(one card)" not in pt
    assert en.startswith("# H200 SXM (one card):") and "(uma placa)" not in en
    h100_pt, h100_en = (twin(catalog, lang, "gpus/h100-sxm") for lang in ("pt", "en"))  # the first NVLink 4
    assert "| Interconexão | NVLink 4, 900 GB/s, sem ponte |" in h100_pt
    assert "| Interconnect | NVLink 4, 900 GB/s, no bridge |" in h100_en
    assert "[H200 SXM (uma placa)](" in twin(catalog, "pt", "gpus")
    assert "(one card)" not in twin(catalog, "pt", "models/kimi-k3")


def test_the_shipped_gpu_names_and_interconnects_with_words_have_their_portuguese(catalog):
    words = re.compile(r"\b(one|no|between|bridge|to the|mesh|way)\b")
    missing = [f"{g.slug}: {field}" for g in catalog.gpus for field, text in (("name", g.name), ("interconnect", g.interconnect))
               if text is not None and words.search(str(text)) and "pt" not in dict(getattr(text, "translations", ()))]
    assert missing == []
