"""Every UI string of the templates is translated to Portuguese; the .pot matches the templates."""

from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent


def extracted_msgids() -> set:
    method_map, options_map = parse_mapping_cfg(open(ROOT / "babel.cfg"))
    return {
        message if isinstance(message, str) else message[0]
        for _, _, message, _, _ in extract_from_dir(ROOT, method_map, options_map)
    }


def test_the_template_catalog_is_up_to_date():
    with open(ROOT / "locales" / "messages.pot", "rb") as pot:
        in_pot = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(pot) if m.id}
    assert in_pot == extracted_msgids(), "run the extract and update commands in the README"


def test_every_string_has_a_portuguese_translation():
    with open(ROOT / "locales" / "pt" / "LC_MESSAGES" / "messages.po", "rb") as po:
        catalog = read_po(po)
    for msgid in extracted_msgids():
        message = catalog.get(msgid) or next((m for m in catalog if isinstance(m.id, tuple) and m.id[0] == msgid), None)
        assert message is not None, f"missing in pt: {msgid!r}"
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"untranslated in pt: {msgid!r}"
        assert not message.fuzzy, f"fuzzy in pt: {msgid!r}"
