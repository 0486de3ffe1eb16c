"""No user-visible literal outside _() in desk/ and ui/ (tests/i18n/literals.py says how one
is found): every literal that reads like words is translated, or listed in
tests/i18n/not_words.json with why no person reads it as words (an export's column names, a
font's family, a programmer's error). A listed literal no longer in its module fails too, so
the list stays what the code holds."""

from __future__ import annotations

import json

from tests.i18n.literals import found, kept, literals


def test_every_literal_is_translated_or_said_why_it_is_not():
    listed = kept()
    unexplained = {}
    for name, texts in found().items():
        left = [t for t in texts if t not in listed.get(name, {}).get("literals", [])]
        if left:
            unexplained[name] = left
    assert not unexplained, (
        "user-visible words outside _() (wrap them: paydesk/i18n.py, then ./dev catalogues); a literal "
        "no person reads as words goes in tests/i18n/not_words.json with why: "
        + json.dumps(unexplained, indent=1, ensure_ascii=False)
    )


def test_the_kept_list_holds_only_what_the_code_holds_and_says_why():
    now = found()
    for name, entry in kept().items():
        gone = [t for t in entry["literals"] if t not in now.get(name, [])]
        assert not gone, f"{name}: no longer there, take them out of not_words.json: {gone}"
        assert entry["why"] and entry["why"] != "TO SAY", f"{name}: say why these are not words a person reads"


def test_a_label_with_its_mnemonic_counts_as_words(tmp_path):
    """ "&Title" and "Re&ference" are a label's one word, shown as "Title" and "Reference":
    found like any other (a one-word label was missed while its mnemonic hid it)."""
    module = tmp_path / "form.py"
    module.write_text('label = QLabel("&Title")\nother = QLabel("Re&ference")\nfine = QLabel(_("&Amount"))\n', "utf-8")
    assert [text for _line, text in literals(module)] == ["&Title", "Re&ference"]
