"""What is changed in every page MkDocs writes, as it writes it (mkdocs_runner.py calls `rewrite`).

- Asset addresses point at the site's one `assets/` folder (shared_assets.py).
- Tables come wrapped for scrolling sideways, as Material's JavaScript would wrap them after the
  page has loaded. Wrapped by the script, a table in view changes size and moves what follows it
  (Lighthouse measured a layout shift of 0.15 on a GPU page at 390 px, a quarter of the mobile
  performance score); written wrapped, it is laid out once. The table gets a class, which Material's
  script leaves alone (it wraps `table:not([class])`), and vram.css gives it Material's table style.
"""

from __future__ import annotations

import functools
from typing import Callable

from generator.site.shared_assets import point_at_shared_assets

TABLE_CLASS = "vram-table"
# Material 9's wrapper (its bundle's `renderTable`): the same elements and classes, so its styles apply.
_WRAP_START = f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="{TABLE_CLASS}">'
_WRAP_END = "</table></div></div>"


def wrap_tables(html: str) -> str:
    """Every `<table>` without attributes (Python-Markdown's, our templates') wrapped, up to its
    `</table>` (tables do not nest in our pages); a table that has attributes, and so one already
    wrapped, is left as it is. Catalog text never holds a tag: it is escaped (render.py). Found with
    str.find: a regular expression read a GPU page's 300 KB of tables a character at a time."""
    pieces, position = [], 0
    while (start := html.find("<table>", position)) >= 0:
        end = html.find("</table>", start)
        if end < 0:  # not closed: left as it is
            break
        pieces += [html[position:start], _WRAP_START, html[start + 7:end], _WRAP_END]
        position = end + 8
    return "".join(pieces) + html[position:] if pieces else html


def page_rewrite(base: str, lang: str) -> Callable[[str, int], str]:
    """The rewrite of `lang`'s pages: `rewrite(html, depth)`, depth being the folders between the page
    and its language folder; `base`: the site's path ("/" or "/docs/")."""
    move_assets = functools.partial(point_at_shared_assets, absolute_prefix=f"{base}{lang}/", shared_prefix=base)
    return lambda html, depth: wrap_tables(move_assets(html, depth))
