"""Catalog text is escaped wherever it lands: Markdown tables, HTML, titles, twins, URLs.

The hostile site is the fixture catalog (tests/fixtures/catalog/) with one model renamed.
"""

import html
import re
import shutil
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from tests.conftest import FIXTURE, run_build

HOSTILE = "<img src=x onerror=alert(1)> a|b *c* `d` [e](f) #g </title> {: onclick=alert(1) }"
SLUG = "img-src-x-onerror-alert-1-a-b-c-d-e-f-g-title-onclick-alert-1"


class Text(HTMLParser):
    """The visible text of an HTML document, and the cells of each table row."""

    def __init__(self):
        super().__init__()
        self.parts, self.rows, self.skip = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag == "tr":
            self.rows.append(0)
        if tag in ("td", "th") and self.rows:
            self.rows[-1] += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def text_of(document: str) -> Text:
    parser = Text()
    parser.feed(document)
    return parser


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    content = tmp_path_factory.mktemp("hostile") / "content"
    shutil.copytree(FIXTURE, content)
    source = content / "models" / "mistral-7b-v0-1.yaml"
    text = source.read_text().replace("name: Mistral-7B-v0.1", f"name: {HOSTILE!r}".replace("'", '"'))
    source.unlink()
    (content / "models" / f"{SLUG}.yaml").write_text(text)
    out = content.parent / "site"
    result = run_build(content, out)
    assert result.returncode == 0, result.stderr
    return out


def attribute_names(page: str) -> set[str]:
    names: set[str] = set()

    class Collect(HTMLParser):
        def handle_starttag(self, tag, attrs):
            names.update(name for name, _ in attrs)

    Collect().feed(page)
    return names


def test_no_raw_markup_from_the_catalog_anywhere(hostile_site):
    for path in hostile_site.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".md", ".txt", ".xml", ".json"):
            text = path.read_text(encoding="utf-8")
            assert "<img src=x" not in text, path
            if path.suffix == ".html":  # no attribute list ("{: onclick=... }") from catalog text
                assert "onclick" not in attribute_names(text), path
            assert "</title> -" not in text and "#g </title>" not in text, path


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_the_name_reads_as_itself_on_its_page_and_in_its_twin(hostile_site, lang):
    page = (hostile_site / lang / "models" / f"{SLUG}.html").read_text()
    visible = "".join(text_of(page).parts)
    assert HOSTILE in visible
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    assert HOSTILE in html.unescape(title)
    twin = (hostile_site / lang / "models" / f"{SLUG}.html.md").read_text()
    rendered = MarkdownIt("commonmark").enable("table").render(twin)
    assert HOSTILE in "".join(text_of(rendered).parts)


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_a_pipe_in_a_name_does_not_split_table_cells(hostile_site, lang):
    index = text_of((hostile_site / lang / "models.html").read_text())
    assert set(index.rows) == {8}  # every row of the models table keeps its 8 cells
    gpu = text_of((hostile_site / lang / "gpus" / "rtx-4090.html").read_text())
    assert HOSTILE in "".join(gpu.parts)
