"""The languages the site is written in: one record each, read by the catalog (which text it takes),
the renderer (Babel's numbers, dates and money), the MkDocs configuration (the theme's language),
the language switch, and add-model (its notes, from the same gettext catalogs as the pages).

Adding a language is its record here, `locales/<code>/LC_MESSAGES/messages.po`, and its code in
`content/site.yaml`'s `languages`.
"""

from __future__ import annotations

import gettext
import io
from dataclasses import dataclass
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES_DIR = Path(__file__).resolve().parent.parent / "locales"


@dataclass(frozen=True)
class Language:
    code: str  # the site's folder (/pt/), hreflang, catalog text's key ({en: ..., pt: ...})
    name: str  # in the language switch, in the language itself
    babel_locale: str  # numbers, dates and money as the language writes them (DESIGN: pt formats as pt_BR)
    theme_language: str  # Material for MkDocs' theme.language
    date_style: str = "long"  # Babel's date format: 27 de julho de 2026, July 27, 2026


LANGUAGES = {language.code: language for language in (
    Language("pt", "Português", "pt_BR", "pt-BR"),
    Language("en", "English", "en_US", "en"),
)}
# The msgids' language, which catalog text must give.
SOURCE_LANGUAGE = "en"


def load_translations(code: str, locales_dir: Path = LOCALES_DIR) -> gettext.GNUTranslations:
    """Compile locales/<code>/LC_MESSAGES/messages.po in memory (no .mo file is committed)."""
    po_path = locales_dir / code / "LC_MESSAGES" / "messages.po"
    with po_path.open("rb") as po_file:
        catalog = read_po(po_file, locale=LANGUAGES[code].babel_locale)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def in_every_language(message: str, **values: object) -> dict[str, str]:
    """`message` (an English msgid, `%(name)s` placeholders) in every language, as catalog text
    ({en: ..., pt: ...}); a language without a translation gets the English."""
    codes = [SOURCE_LANGUAGE, *sorted(set(LANGUAGES) - {SOURCE_LANGUAGE})]
    return {code: load_translations(code).gettext(message) % values for code in codes}
