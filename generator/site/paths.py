"""Site paths: pure string helpers shared by the view models, the renderer and the site writer.

A page is named by its path inside a language, without extension: "index", "models",
"models/kimi-k3", "gpus/b300". The helpers below turn that name into the files and URLs it has.
"""

from __future__ import annotations

import posixpath
from urllib.parse import urlsplit


FIT_PAGE = "fit"  # What fits my GPUs

# The calculator's data, at the site root (one copy for every language).
PLAN_DATA_DIR = "assets/plan"


def plan_data_url(lang: str, page: str) -> str:
    """The data folder relative to `page`'s HTML file (pages fetch it with a relative URL)."""
    return relative_path(PLAN_DATA_DIR, posixpath.dirname(html_file(lang, page)))


def model_page(slug: str) -> str:
    return f"models/{slug}"


def gpu_page(slug: str) -> str:
    return f"gpus/{slug}"


def source_file(page: str) -> str:
    """The Markdown file MkDocs reads for `page`, relative to a language's docs_dir."""
    return f"{page}.md"


def page_url(page: str) -> str:
    """`page`'s HTML file relative to its language's root (MkDocs' page.url)."""
    return f"{page}.html"


def html_file(lang: str, page: str) -> str:
    """The HTML file MkDocs writes for `page`, relative to the site root."""
    return f"{lang}/{page_url(page)}"


def twin_file(lang: str, page: str) -> str:
    """The Markdown twin written beside the HTML (`kimi-k3.html.md`)."""
    return html_file(lang, page) + ".md"


def relative_path(path: str, start: str) -> str:
    """posixpath.relpath of two paths below the same root ("models/kimi-k3.md" from "gpus":
    "../models/kimi-k3.md"), in strings alone: relpath reads the working directory at each call, and
    a GPU page links every model."""
    parts = [part for part in posixpath.normpath(path).split("/") if part != "."]
    base = [part for part in posixpath.normpath(start).split("/") if part != "."]
    common = 0
    for ours, theirs in zip(parts, base):
        if ours != theirs:
            break
        common += 1
    return "/".join([".."] * (len(base) - common) + parts[common:]) or "."


def relative_source_link(from_page: str, to_page: str) -> str:
    """A link MkDocs resolves between two source files of the same language."""
    return relative_path(source_file(to_page), posixpath.dirname(from_page) or ".")


def relative_html_link(from_lang: str, from_page: str, to_lang: str, to_page: str) -> str:
    """A relative link between two built HTML pages, possibly across languages."""
    start = posixpath.dirname(html_file(from_lang, from_page))
    return relative_path(html_file(to_lang, to_page), start)


def base_path(base_url: str) -> str:
    """The path part of the site's base URL: "/" or "/some/prefix/"."""
    return urlsplit(base_url).path or "/"
