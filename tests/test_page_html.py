"""What is changed in every page MkDocs writes (generator/site/page_html.py)."""

from __future__ import annotations

import pytest

from generator.site.page_html import page_rewrite, wrap_tables

WRAPPED = '<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="vram-table">'


@pytest.mark.parametrize("html, expected", [
    ("<p>x</p>", "<p>x</p>"),
    ("<table>\n<tr><td>1</td></tr>\n</table>", WRAPPED + "\n<tr><td>1</td></tr>\n</table></div></div>"),
    # two tables: each wrapped once, what lies between them left as it is
    ("<table><tr></tr></table><p>a</p><table><tr></tr></table>",
     WRAPPED + "<tr></tr></table></div></div><p>a</p>" + WRAPPED + "<tr></tr></table></div></div>"),
    # a table with attributes is not ours to wrap, and a wrapped one is not wrapped again
    ('<table class="q"><tr></tr></table>', '<table class="q"><tr></tr></table>'),
    # escaped catalog text is text, not a tag
    ("<p>&lt;table&gt;</p>", "<p>&lt;table&gt;</p>"),
    ('<table class="q"></table><table>x</table>', '<table class="q"></table>' + WRAPPED + "x</table></div></div>"),
    ("<p>a</p><table><tr>", "<p>a</p><table><tr>"),  # not closed: left
])
def test_tables_come_wrapped_as_material_would_wrap_them(html, expected):
    assert wrap_tables(html) == expected
    assert wrap_tables(wrap_tables(html)) == expected


def test_a_page_rewrite_moves_assets_and_wraps_tables():
    rewrite = page_rewrite("/docs/", "pt")
    html = '<link rel="stylesheet" href="../assets/vram.css"><table><tr></tr></table>'
    assert rewrite(html, 1) == '<link rel="stylesheet" href="../../assets/vram.css">' + WRAPPED + "<tr></tr></table></div></div>"
