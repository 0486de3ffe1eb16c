"""The catalogues (desktop/paydesk/locale): the template holds every message the code marks,
each language's compiled catalogue is its source compiled, and French is complete."""

from __future__ import annotations

import io
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "desktop" / "paydesk"
LOCALE = PACKAGE / "locale"
KEYWORDS = {
    "_": None,
    "N_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "NP_": ((1, "c"), 2),
}  # as scripts/catalogues
FIX = "run ./dev catalogues (extract, update, compile) and translate what it lists"


def marked() -> set[str | tuple[str, ...]]:
    found: set[str | tuple[str, ...]] = set()
    for filename, _line, message, _comments, _context in extract_from_dir(
        str(PACKAGE), [("**.py", "python")], keywords=KEYWORDS
    ):
        if not filename.startswith("sandbox/"):
            found.add(message)
    return found


def catalogue(path: Path, locale: str | None = None):
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def test_the_template_holds_every_message_the_code_marks():
    template = catalogue(LOCALE / "paydesk.pot")
    held = {m.id for m in template if m.id}
    assert marked() == held, FIX


def test_each_compiled_catalogue_is_its_source_compiled():
    sources = sorted(LOCALE.glob("*/LC_MESSAGES/paydesk.po"))
    assert sources, "no language has a catalogue"
    for po in sources:
        compiled = io.BytesIO()
        write_mo(compiled, catalogue(po, po.parent.parent.name), use_fuzzy=False)
        assert po.with_suffix(".mo").read_bytes() == compiled.getvalue(), f"{po.with_suffix('.mo')}: {FIX}"


def test_french_is_complete_with_no_fuzzy_message():
    french = catalogue(LOCALE / "fr" / "LC_MESSAGES" / "paydesk.po", "fr")
    template = catalogue(LOCALE / "paydesk.pot")
    untranslated = [
        m.id for m in french if m.id and (not m.string or (isinstance(m.string, tuple) and not all(m.string)))
    ]
    fuzzy = [m.id for m in french if m.id and m.fuzzy]
    missing = [m.id for m in template if m.id and french.get(m.id, context=m.context) is None]
    assert (untranslated, fuzzy, missing) == ([], [], []), FIX


def test_french_keeps_each_message_placeholders():
    import re

    french = catalogue(LOCALE / "fr" / "LC_MESSAGES" / "paydesk.po", "fr")
    for m in french:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        wanted = set(re.findall(r"\{\w+(?::[^}]*)?\}", ids[-1]))
        for string in strings:
            assert set(re.findall(r"\{\w+(?::[^}]*)?\}", string)) == wanted, m.id


def test_no_message_groups_a_number_the_english_way():
    """A number a person reads inside a message is grouped by desk/formats.py in the staff's
    language ("10 000 000" in French): no placeholder carries Python's "," format spec, which
    writes "10,000,000" whatever the language."""
    import re

    template = catalogue(LOCALE / "paydesk.pot", None)
    grouped = [
        m.id
        for m in template
        if m.id
        and any(
            "," in spec
            for text in (m.id if isinstance(m.id, tuple) else (m.id,))
            for spec in re.findall(r"\{\w+:([^}]*)\}", text)
        )
    ]
    assert grouped == [], "fill these placeholders with number_in/amount_in (desk/formats.py)"


def test_french_typography_a_no_break_space_before_double_punctuation():
    """French sets a no-break space (U+00A0) before : ; ? ! so the sign never starts a line
    alone; a plain space there (a query string such as "?sslmode=" aside) is a slip."""
    import re

    slip = re.compile(r" [:;?!](?=\s|$|»|\))")
    french = catalogue(LOCALE / "fr" / "LC_MESSAGES" / "paydesk.po", "fr")
    slips = []
    for m in french:
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        slips += [s for s in strings if m.id and s and slip.search(s)]
    assert slips == [], slips
