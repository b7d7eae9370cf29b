"""Turn page view models into Markdown: Jinja2 templates, gettext words, Babel number formats.

Templates format, they never compute. Every `{{ value }}` is Markdown-escaped on its way out
(the environment's `finalize`), so catalog text lands as text; helpers that build Markdown
themselves (links) return `Markdown` strings, which pass through unchanged.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import html
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Callable
from urllib.parse import quote

import babel
import jinja2
from markupsafe import Markup
from babel.lists import format_list
from babel.dates import format_date
from babel.numbers import format_currency, format_decimal, format_percent, get_group_symbol, parse_pattern

from generator.site import view_models as page_models
from generator.site import paths
from generator.catalog.records import STALE_AFTER_DAYS, LocalizedText, Site
from generator.languages import LANGUAGES, load_translations
from generator.sizing.throughput import WORKLOAD_TOKENS
from generator.sizing.fit import VERDICTS
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.llama_cpp import LLAMA_CPP, RAM_BANDWIDTH
from generator.sizing.plan_data import CALCULATOR_LIMITS
from generator.sizing.setups import MACHINE_SIZE
from generator.site.row_tables import KeptRows, PageParts
from generator.site.structured_data import inert_json, markdown_text

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = ROOT / "site_templates"


@dataclass(frozen=True)
class RenderedPage:
    markdown: str
    title: str  # plain text
    faq: tuple[tuple[str, str], ...]  # (question, answer) as plain text
    scripts: tuple[str, ...] = ()  # the scripts the page loads (assets/javascripts/<name>.js), in order
    parts: dict[str, str] = field(default_factory=dict)  # the HTML page's parts of rows, by name (row_tables.py)

    @property
    def description(self) -> str:
        """The meta description: the page's first paragraph (its own numbers, in its language) as
        plain text, cut at a word before DESCRIPTION_LENGTH characters."""
        paragraph = next((block for block in self.markdown.split("\n\n")
                          if block.strip() and not block.lstrip().startswith(("#", "|", "<", "-", "`", "["))), "")
        text = markdown_text(" ".join(paragraph.split()))
        if len(text) <= DESCRIPTION_LENGTH:
            return text
        return text[:DESCRIPTION_LENGTH].rsplit(" ", 1)[0].rstrip(",;:") + "…"


DESCRIPTION_LENGTH = 300  # search engines show about 150 to 300 characters


TEMPLATES = {
    page_models.HomePage: "index.md.j2",
    page_models.ModelsIndexPage: "models.md.j2",
    page_models.GpusIndexPage: "gpus.md.j2",
    page_models.ModelPage: "model.md.j2",
    page_models.GpuPage: "gpu.md.j2",
    page_models.FitPage: "fit.md.j2",
}
ROW_MACROS = "_rows.md.j2"  # one model's row of a table in a part of rows (row_tables.py)


# Text that is already Markdown (escaped catalog text, links, macro output). Jinja's autoescape
# passes it through; everything else goes through `as_markdown`, which escapes it for Markdown.
Markdown = Markup

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|])")


def escape_markdown(text: str) -> str:
    """Make catalog text render as itself in Markdown (tables, links, inline HTML)."""
    # braces too: "{: onclick=... }" at the end of a line would be an attribute list (attr_list)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("{", "&#123;").replace("}", "&#125;")
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    return "\\" + text if text.startswith(("#", "+", "-", "=")) else text


def as_markdown(value: object) -> Markdown:
    return value if isinstance(value, Markup) else Markdown(escape_markdown(str(value)))


def link_target(url: str) -> Markdown:
    """A link target (an https URL or a root-relative path, checked by the catalog), percent-encoded
    so that no character can end it early in Markdown or in an HTML attribute."""
    return Markdown(quote(url, safe=_URL_SAFE))


def external_link(text: str, url: str) -> Markdown:
    """A Markdown link to an absolute URL."""
    return Markdown(f"[{escape_markdown(text)}]({link_target(url)})")


# Left as they are: what URLs are made of. Encoded: spaces, quotes, parentheses, < >,
# backslashes and every non-ASCII or control character.
_URL_SAFE = ":/?#[]@!$&*+,;=%~-._"


def html_text(value: object) -> Markdown:
    """Text inside a raw HTML block of a page (the calculator): HTML-escaped, not Markdown-escaped."""
    return Markdown(html.escape(str(value)))


def json_script(data: object) -> Markdown:
    """JSON for a <script type="application/json"> element: nothing in it can close the element."""
    return Markdown(inert_json(data))


def code_block(command: str) -> Markdown:
    """A command for a fenced code block: shown verbatim (built from validated ids and numbers)."""
    return Markdown(command.replace("```", ""))


def code_span(text: str) -> Markdown:
    """Inline code, verbatim (a flag and its value, built from our own names and numbers)."""
    return Markdown(f"`{text.replace('`', '')}`")


# Where the compiled templates are kept, beside their sources as Python keeps its own (`.pyc` in
# __pycache__): compiling every template takes about 2 s, in every process that renders. Like a
# `.pyc`, what is there is code, run as the templates: it is kept in the code's own tree, never in a
# content or output folder.
COMPILED_DIR = "__pycache__"


class CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja2's bytecode cache (keyed by each template's name and source checksum, written in one
    rename), where a folder that cannot be read or written (a read-only install) means compiling again."""

    def __init__(self, directory: Path):
        with contextlib.suppress(OSError):
            directory.mkdir(exist_ok=True)
        super().__init__(str(directory))

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # unreadable or cut short: compiled again, and written anew
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


# A number pattern parsed once, not at every number it formats.
_pattern = functools.cache(parse_pattern)


class Renderer:
    """Renders pages of one language, as MkDocs sources or as Markdown twins."""

    def __init__(self, site: Site, lang: str, templates_dir: Path = TEMPLATES_DIR):
        if lang not in LANGUAGES:
            raise ValueError(f"no translations for language '{lang}'")
        self.site = site
        self.lang = lang
        self.language = LANGUAGES[lang]
        self.locale = self.language.babel_locale
        # Babel takes the parsed locale: given its name, every number parses it again
        self.babel_locale = babel.Locale.parse(self.locale)
        self.group_symbol = get_group_symbol(self.babel_locale)
        env = jinja2.Environment(
            bytecode_cache=CompiledTemplates(templates_dir / COMPILED_DIR),
            loader=jinja2.FileSystemLoader(templates_dir),
            finalize=self.as_markdown,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=True,  # with `as_markdown`: Markdown escaping, and macros return Markdown
        )
        translations = load_translations(lang)
        self.gettext = translations.gettext
        self.ngettext = translations.ngettext
        env.globals.update(_=self.translate, gettext=self.translate, ngettext=self.translate_plural)
        env.globals["machine_size"] = MACHINE_SIZE  # "more than one 8-GPU machine"
        env.globals["stale_after_days"] = STALE_AFTER_DAYS  # "price of …, over 90 days old"
        env.globals.update(calculator_limits=CALCULATOR_LIMITS, serving_engines=tuple(SERVING_ENGINES.values()),
                           llama_cpp_ram_bandwidth=RAM_BANDWIDTH, llama_cpp=LLAMA_CPP, workload_tokens=WORKLOAD_TOKENS,
                           fit_verdicts=VERDICTS)
        env.filters.update(
            number=self.number,
            gb=self.gigabytes,
            money=self.money,
            percent=self.percent,
            factor=self.factor,
            params_short=self.params_short,
            gb_fine=self.gigabytes_fine,
            or_list=self.or_list,
            rate=self.rate,
            seconds=self.seconds,
            millions=self.millions,
            bits=self.bits,
            date=self.date,
            gb_apart=self.gigabytes_apart,
            code=code_block,
            code_span=code_span,
            href=link_target,
            h=self.html_text,
            json_script=json_script,
        )
        self.env = env

    # ---- words: gettext with %(name)s placeholders; the values are Markdown-escaped

    def _in_language(self, value: object) -> object:
        return value.in_language(self.lang) if isinstance(value, LocalizedText) else value

    def as_markdown(self, value: object) -> Markdown:
        """A value as Markdown text; catalog text in this page's language."""
        return as_markdown(self._in_language(value))

    def html_text(self, value: object) -> Markdown:
        """Text in a raw HTML block (html_text); catalog text in this page's language."""
        return html_text(self._in_language(value))

    def translate(self, message: str, **values: object) -> Markdown:
        return self._format(self.gettext(message), values)

    def translate_plural(self, singular: str, plural: str, count: int, **values: object) -> Markdown:
        return self._format(self.ngettext(singular, plural, count), {"num": self.number(count), **values})

    def _format(self, message: str, values: dict[str, object]) -> Markdown:
        return Markdown(message % {name: self.as_markdown(value) for name, value in values.items()})

    # ---- number formats (DESIGN: GB = 10^9 bytes, rounded to whole GB, only at display)

    def number(self, value: int) -> str:
        if isinstance(value, int):
            # NOTE: the same digits as Babel's "#,##0" for these locales, ~20× faster: thousands of
            # pages format hundreds of thousands of integers.
            return f"{value:,}".replace(",", self.group_symbol)
        return format_decimal(value, locale=self.babel_locale)

    def gigabytes(self, byte_count: int) -> str:
        return self.number(int((Decimal(byte_count) / 10**9).quantize(Decimal(1), rounding=ROUND_HALF_UP)))

    def gigabytes_apart(self, first: int, second: int) -> tuple[str, str]:
        """Two sizes in GB with the fewest decimals (up to 3) that tell them apart, so that a page never
        says "13 GB, more than its 13 GB"."""
        for decimals in range(4):
            step = Decimal(1).scaleb(-decimals)
            pair = tuple((Decimal(value) / 10**9).quantize(step, rounding=ROUND_HALF_UP) for value in (first, second))
            if pair[0] != pair[1] or first == second:
                break
        pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
        return tuple(format_decimal(value, format=_pattern(pattern), locale=self.babel_locale) for value in pair)

    def or_list(self, items) -> str:
        """1, 2, 4 or 8 (pt: 1, 2, 4 ou 8)."""
        return format_list([self.number(item) for item in items], style="or", locale=self.babel_locale)

    def gigabytes_fine(self, byte_count: int) -> str:
        """GB with the decimals a small figure needs: 0.23, 4.84, 29.2, 1,561 (and < 0.01)."""
        if 0 < byte_count < 5 * 10**6:
            # our own text: "<" and a space start no tag in Markdown or HTML, so it stays as written
            # (escaped, a twin would show "&lt; 0.01" to whoever reads the Markdown)
            return Markdown("< " + format_decimal(Decimal("0.01"), locale=self.babel_locale))
        gigabytes = Decimal(byte_count) / 10**9
        pattern = "#,##0.##" if abs(gigabytes) < 10 else "#,##0.#" if abs(gigabytes) < 100 else "#,##0"
        return format_decimal(gigabytes, format=_pattern(pattern), locale=self.babel_locale)

    def rate(self, per_second: float) -> str:
        """Tokens per second: one decimal below 10 (0.5, 2.2), whole numbers above."""
        pattern = "#,##0.#" if per_second < 10 else "#,##0"
        return format_decimal(Decimal(str(per_second)), format=_pattern(pattern), locale=self.babel_locale)

    def seconds(self, value: float) -> str:
        """A duration: milliseconds below a second (4 ms, 350 ms), else seconds (2.41 s, 12.6 s)."""
        if value < 1:
            return format_decimal(max(round(value * 1000), 1), locale=self.babel_locale) + " ms"
        pattern = "#,##0.00" if value < 10 else "#,##0.0"
        return format_decimal(Decimal(str(value)).quantize(Decimal("0.01")), format=_pattern(pattern), locale=self.babel_locale) + " s"

    def millions(self, count: int) -> str:
        """A count in millions, as a line of the cost chart says it: 2.4, 36, 1,250."""
        value = Decimal(count) / 10**6
        pattern = "#,##0.#" if value < 100 else "#,##0"
        return format_decimal(value, format=_pattern(pattern), locale=self.babel_locale)

    def date(self, iso: str) -> str:
        """An ISO date as the language writes it: 27 de julho de 2026, July 27, 2026."""
        return format_date(dt.date.fromisoformat(iso), format=self.language.date_style, locale=self.babel_locale)

    def bits(self, value: float) -> str:
        """Bits per weight, two decimals as llama.cpp prints them (4.89; pt: 4,89)."""
        return format_decimal(Decimal(str(value)).quantize(Decimal("0.01")), format=_pattern("#,##0.00"), locale=self.babel_locale)

    def money(self, amount: Decimal) -> str:
        return format_currency(amount, self.site.currency, locale=self.babel_locale)

    def percent(self, share: Fraction | Decimal) -> str:
        value = share if isinstance(share, Decimal) else Decimal(share.numerator) / share.denominator
        return format_percent(value, locale=self.babel_locale)

    def factor(self, value: Fraction) -> str:
        """An exact factor of a formula: 0.5, 1.4, 16 (pt: 0,5, 1,4)."""
        return format_decimal(Decimal(value.numerator) / value.denominator, locale=self.babel_locale)

    def params_short(self, params: int) -> str:
        """2,779,940,000,000 -> 2.8T; 70,553,706,496 -> 70.6B; 405,000,000,000 -> 405B; 999,885,952 -> 1B
        (what would print as 1,000 of a unit is one of the next)."""
        for unit, size in (("T", 10**12), ("B", 10**9), ("M", 10**6)):
            if params * 2000 >= size * 1999:
                scaled = Decimal(params) / size
                pattern = "#,##0" if scaled >= 100 else "#,##0.#"
                return format_decimal(scaled, format=_pattern(pattern), locale=self.babel_locale) + unit
        return format_decimal(params, locale=self.babel_locale)

    # ---- pages

    def render(self, page: page_models.Page, twin: bool, kept: KeptRows | None = None) -> str:
        """Markdown for `page`: links between MkDocs sources, or absolute `.html.md` links (twin)."""
        return self.render_page(page, twin, kept).markdown

    def render_page(self, page: page_models.Page, twin: bool, kept: KeptRows | None = None) -> RenderedPage:
        """`page`'s Markdown with the title and questions the template wrote (its `title` and
        `faq` variables), as plain text for titles, the search index and JSON-LD; for the HTML
        page, the HTML of its parts of rows (row_tables.py: `kept`, the rows kept from a build)."""
        parts = PageParts(lambda: self.env.get_template(ROW_MACROS).make_module(
            dict(variables, link=self._linker(page.path, twin, lambda: True))), twin, kept)
        link = self._linker(page.path, twin, lambda: parts.in_part)
        variables = dict(
            page=page,
            site=self.site,
            lang=self.lang,
            link=link,
            gpu_link=lambda gpu: link(gpu.name, paths.gpu_page(gpu.slug)),
            external=external_link,
            twin=twin,
            plan_data=paths.plan_data_url(self.lang, page.path),
            intl_locale=self.locale.replace("_", "-"),
            slot=parts.slot,
            table_rows=parts.table_rows,
            inline_rows=parts.inline_rows,
        )
        module = self.env.get_template(TEMPLATES[type(page)]).make_module(variables)
        faq = getattr(module, "faq", None)
        return RenderedPage(
            markdown=str(module),
            title=markdown_text(module.title),
            faq=tuple((markdown_text(q), markdown_text(a)) for q, a in faq.items) if faq else (),
            scripts=tuple(getattr(module, "scripts", ())),
            parts=parts.html() if parts.slots or parts.raw else {},
        )

    def _linker(self, from_page: str, twin: bool, to_html: Callable[[], bool]) -> Callable[[str, str], Markdown]:
        """Links of a twin to twins; of an HTML page's Markdown to MkDocs sources, or to HTML pages
        where `to_html()` says (a part of rows, which MkDocs does not read: row_tables.py)."""
        prefix = paths.base_path(self.site.base_url)

        def link(text: str, to_page: str, query: str = "") -> Markdown:
            """`query`: a calculator's question (`?gpu=…`), on the HTML page only (a twin has no calculator)."""
            if twin:
                target = prefix + paths.twin_file(self.lang, to_page)
            elif to_html():
                target = paths.relative_html_link(self.lang, from_page, self.lang, to_page) + quote(query, safe=_URL_SAFE)
            else:
                target = paths.relative_source_link(from_page, to_page) + quote(query, safe=_URL_SAFE)
            return Markdown(f"[{escape_markdown(self._in_language(text))}]({target})")

        return link
