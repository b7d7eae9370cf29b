"""The front matter of each page's MkDocs source: language alternates, description, JSON-LD."""

from __future__ import annotations

import json
from dataclasses import dataclass

from generator.catalog.records import Site
from generator.languages import LANGUAGES
from generator.site import paths
from generator.site.render import RenderedPage, Renderer
from generator.site.structured_data import json_ld

SECTION_TITLES = {"models": "Models", "gpus": "GPUs"}  # msgids the templates use too


@dataclass(frozen=True)
class Alternate:
    lang: str
    name: str
    href: str  # relative to the page
    url: str  # absolute


def alternates(site: Site, lang: str, page: str) -> list[Alternate]:
    return [
        Alternate(
            lang=other,
            name=LANGUAGES[other].name,
            href=paths.relative_html_link(lang, page, other, page),
            url=site.base_url + paths.html_file(other, page),
        )
        for other in site.languages
    ]


def _breadcrumbs(site: Site, lang: str, page: str, title: str, renderer: Renderer) -> list[tuple[str, str]]:
    _ = renderer.gettext
    crumbs = [(_("Home"), site.base_url + paths.html_file(lang, "index"))]
    section = page.split("/")[0] if "/" in page else None
    if section:
        crumbs.append((_(SECTION_TITLES[section]), site.base_url + paths.html_file(lang, section)))
    if page != "index":
        crumbs.append((title, site.base_url + paths.html_file(lang, page)))
    return crumbs


def front_matter(site: Site, lang: str, page: str, rendered: RenderedPage, renderer: Renderer) -> str:
    meta = {
        "alternates": [vars(a) for a in alternates(site, lang, page)],
        "x_default": site.base_url + paths.html_file(site.languages[0], page),
    }
    if rendered.description:
        meta["description"] = rendered.description
    if rendered.scripts:  # overrides/main.html loads them: only the pages that use them do
        meta["scripts"] = list(rendered.scripts)
    structured = json_ld(rendered.faq, _breadcrumbs(site, lang, page, rendered.title, renderer))
    if structured:
        meta["json_ld"] = structured
    # JSON is YAML, and much faster to write than YAML for thousands of pages
    return "---\n" + json.dumps(meta, sort_keys=True, ensure_ascii=False) + "\n---\n\n"
