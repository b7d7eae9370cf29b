"""JSON-LD for a page (its FAQ is the page's own questions, as the template wrote them), JSON safe in
HTML, and plain text of Markdown."""

from __future__ import annotations

import html
import json
import re

import orjson
from markdown_it import MarkdownIt

_MARKDOWN = MarkdownIt("commonmark")
_TAG = re.compile(r"<[^>]+>")


def _text(rendered_html: str) -> str:
    return " ".join(html.unescape(_TAG.sub("", rendered_html)).split())


def markdown_text(markdown: str) -> str:
    """The plain text a line of Markdown shows (escapes and entities resolved)."""
    return _text(_MARKDOWN.renderInline(markdown))


def inert_json(data: object, ensure_ascii: bool = False, separators: tuple[str, str] | None = (",", ":")) -> str:
    """JSON with no <, > or & as such (\\u escapes: the same data once parsed), so that it stays
    inert inside a <script> element and carries no markup into any file. Its compact form is
    orjson's (a GPU page's API file, 270 KB at 1,000 models, is written again at every model added):
    the same text as json's but for floats, printed in the shortest form that reads back the same
    number (0.00009, where json prints 9e-05)."""
    if ensure_ascii or separators != (",", ":"):
        text = json.dumps(data, ensure_ascii=ensure_ascii, sort_keys=True, separators=separators)
    else:
        text = orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def inert_json_array(items: list[str]) -> str:
    """inert_json of a list, from its items' inert_json texts."""
    return "[" + ",".join(items) + "]"


def inert_json_object(entries: list[tuple[str, str]]) -> str:
    """inert_json of a mapping, from (key, its value's inert_json text) pairs: sorted by key, as
    inert_json sorts them."""
    return "{" + ",".join(inert_json(key) + ":" + value for key, value in sorted(entries)) + "}"


def json_ld(faq: tuple[tuple[str, str], ...], breadcrumbs: list[tuple[str, str]]) -> str | None:
    """A <script type="application/ld+json"> body: FAQPage and BreadcrumbList, safe inside HTML."""
    graph = []
    if faq:
        graph.append({
            "@type": "FAQPage",
            "mainEntity": [
                {"@type": "Question", "name": q, "acceptedAnswer": {"@type": "Answer", "text": a}} for q, a in faq
            ],
        })
    if len(breadcrumbs) > 1:
        graph.append({
            "@type": "BreadcrumbList",
            "itemListElement": [
                {"@type": "ListItem", "position": n, "name": name, "item": url}
                for n, (name, url) in enumerate(breadcrumbs, 1)
            ],
        })
    if not graph:
        return None
    return inert_json({"@context": "https://schema.org", "@graph": graph}, ensure_ascii=True, separators=None)
