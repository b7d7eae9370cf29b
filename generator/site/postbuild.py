"""Files written after the MkDocs builds: sitemaps, llms.txt, the root landing page, the calculator's
data."""

from __future__ import annotations

import html
import json
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from generator.languages import LANGUAGES, load_translations
from generator.site import paths
from generator.site.files import write_if_changed
from generator.site.shared_assets import ASSETS
from generator.site.render import escape_markdown
from generator.site.structured_data import inert_json, inert_json_array, inert_json_object
from generator.catalog.records import Catalog, Site
from generator.sizing.fit import FIT_QUANTS
from generator.sizing.plan_data import largest_machine, model_tables, quant_tables, shared_tables
from generator.sizing.stock import stock_gpus


def write_sitemap(site_dir: Path, site: Site, page_paths: list[str]) -> None:
    """One <url> per page and language, each listing every language's version (and x-default)."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
        ' xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ]
    for page in page_paths:
        versions = [(lang, site.base_url + paths.html_file(lang, page)) for lang in site.languages]
        versions.append(("x-default", versions[0][1]))
        for lang, url in versions[:-1]:
            lines.append("  <url>")
            lines.append(f"    <loc>{escape(url)}</loc>")
            lines.append(f"    <lastmod>{site.prices_date}</lastmod>")
            for other, other_url in versions:
                lines.append(
                    f'    <xhtml:link rel="alternate" hreflang="{other}" href={quoteattr(other_url)}/>'
                )
            lines.append("  </url>")
    lines.append("</urlset>")
    write_if_changed(site_dir / "sitemap.xml", "\n".join(lines) + "\n")


def write_robots_txt(site_dir: Path, site: Site) -> None:
    """robots.txt: every page may be crawled, and the sitemap is named."""
    write_if_changed(site_dir / "robots.txt", f"User-agent: *\nAllow: /\n\nSitemap: {site.base_url}sitemap.xml\n")


def write_llms_txt(site_dir: Path, site: Site, twins: list[tuple[str, str, str]]) -> None:
    """llms.txt (llmstxt.org): the Markdown twin of every page, as (language, page, title)."""
    lines = [
        f"# {escape_markdown(site.brand)} GPU requirements",
        "",
        "> GPU memory to serve and fine-tune open-weight LLMs, the smallest GPU setup that holds each"
        " one, and its hourly price. Every page has a Markdown twin at its URL plus `.md`.",
    ]
    for lang in site.languages:
        lines += ["", f"## {lang}", ""]
        for twin_lang, page, title in twins:
            if twin_lang == lang:
                lines.append(f"- [{escape_markdown(title)}]({site.base_url}{paths.twin_file(lang, page)})")
    write_if_changed(site_dir / "llms.txt", "\n".join(lines) + "\n")


def write_root_index(site_dir: Path, site: Site) -> None:
    """site/index.html: links to each language, and a script that follows the browser's language."""
    links = "\n".join(
        f'      <li><a href="{lang}/index.html" hreflang="{lang}" lang="{lang}">'
        f"{html.escape(LANGUAGES[lang].name)}</a></li>"
        for lang in site.languages
    )
    alternates = "\n".join(
        f'  <link rel="alternate" hreflang="{lang}" href="{html.escape(site.base_url)}{lang}/index.html">'
        for lang in site.languages
    )
    languages = ",".join(f'"{lang}"' for lang in site.languages)
    gettext = load_translations(site.languages[0]).gettext  # the page's language: the site's first
    description = gettext("How much GPU memory open-weight LLMs need, the setups that serve them, how fast and at what "
                          "cost: a page per model and per GPU.")
    page = f"""<!doctype html>
<html lang="{site.languages[0]}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{html.escape(site.brand)}</title>
  <meta name="description" content="{html.escape(description)}">
  <link rel="canonical" href="{html.escape(site.base_url)}">
  <link rel="icon" href="{ASSETS}/images/favicon.png">
{alternates}
  <link rel="alternate" hreflang="x-default" href="{html.escape(site.base_url)}">
  <script>
    (function () {{
      var languages = [{languages}];
      var wanted = (navigator.languages || [navigator.language || ""]).map(function (l) {{
        return l.slice(0, 2).toLowerCase();
      }});
      for (var i = 0; i < wanted.length; i++) {{
        if (languages.indexOf(wanted[i]) >= 0) {{
          location.replace(wanted[i] + "/index.html");
          return;
        }}
      }}
    }})();
  </script>
</head>
<body>
  <main>
    <h1>{html.escape(site.brand)}</h1>
    <ul>
{links}
    </ul>
  </main>
</body>
</html>
"""
    write_if_changed(site_dir / "index.html", page)


def _plan_parts(data: dict) -> dict:
    """A model's parts of the fit page's files: its tables without llama.cpp's (models.json), and
    llama.cpp's for each GGUF quant it has a file at (llama-cpp/<quant>.json), each as inert JSON text."""
    quants = {quant: inert_json(value) for quant in FIT_QUANTS for value in quant_tables([data], quant).values()}
    return {"fit": inert_json(dict(data, llama_cpp=None)), "quants": quants}


def write_plan_data(site_dir: Path, catalog: Catalog, unchanged: frozenset[str] = frozenset(),
                    kept_parts: Path | None = None) -> None:
    """The calculator's data, once for every language (plan_data.py): assets/plan/shared.json
    (engines, their constants, GPUs), one file per model for its page, and all models for the fit page.
    A model without an architecture has no tables: its page has no calculator and the fit page does
    not list it. Files of models the catalog no longer has are removed (only .json files in that folder).
    `unchanged`: models whose page this build did not remake (the cache's: the same model, GPUs and
    code), whose file is left as it is and whose parts of the fit page's files are read back from
    `kept_parts` (a file of the build cache, written for the next build) rather than made again."""
    folder = site_dir / paths.PLAN_DATA_DIR
    offered = stock_gpus(catalog.gpus, catalog.inventory) if catalog.inventory else None
    write_if_changed(folder / "shared.json", inert_json(shared_tables(catalog.gpus, offered)))
    machine = largest_machine(catalog.gpus + tuple(gpu for gpu, _ in offered or ()))
    try:
        kept = json.loads(kept_parts.read_text(encoding="utf-8")) if kept_parts else {}
    except (OSError, ValueError):
        kept = {}
    # Each model's part is kept as JSON text, not as the tables themselves: at thousands of models
    # those would hold hundreds of MB while the files are written.
    parts: dict[str, dict] = {}
    for model in sorted(catalog.models, key=lambda m: m.slug):
        if not model.architecture:
            continue
        model_file = folder / "models" / f"{model.slug}.json"
        part = kept.get(model.slug) if model.slug in unchanged and model_file.is_file() else None
        if not (isinstance(part, dict) and isinstance(part.get("fit"), str) and isinstance(part.get("quants"), dict)):
            data = model_tables(model, machine)
            write_if_changed(model_file, inert_json(data))
            part = _plan_parts(data)
        parts[model.slug] = part
    for path in (folder / "models").glob("*.json"):
        if path.stem not in parts:
            path.unlink()
    # the fit page: every model without llama.cpp's tables, and those per GGUF quant, fetched when
    # the reader asks for llama.cpp (llama-cpp/Q4_K_M.json: each model's tables for that file alone)
    write_if_changed(folder / "models.json", inert_json_array([part["fit"] for part in parts.values()]))
    for quant in FIT_QUANTS:
        entries = [(slug, part["quants"][quant]) for slug, part in parts.items() if quant in part["quants"]]
        write_if_changed(folder / "llama-cpp" / f"{quant}.json", inert_json_object(entries))
    if kept_parts is not None:
        write_if_changed(kept_parts, json.dumps(parts, sort_keys=True))
