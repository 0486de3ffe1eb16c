"""No new user-visible literal outside _() in desk/ and ui/ (tests/i18n/literals.py says how
one is found): each module holds at most what tests/i18n/untranslated.json, the words left
to translate, says; a module not listed holds none. The count only goes down."""

from __future__ import annotations

import json

from tests.i18n.literals import BASELINE, PACKAGE, counts, literals


def test_no_module_holds_more_untranslated_words_than_before():
    left = json.loads(BASELINE.read_text("utf-8"))
    grown = {}
    for name, n in counts().items():
        if n > left.get(name, 0):
            grown[name] = [f"line {line}: {text!r}" for line, text in literals(PACKAGE / name)]
    assert not grown, (
        "user-visible words outside _() (wrap them: paydesk/i18n.py; then ./dev catalogues): "
        + json.dumps(grown, indent=1, ensure_ascii=False)
    )


def test_a_module_wrapped_whole_is_held_to_none():
    """What was swept stays swept: the modules translated whole are not in the baseline."""
    left = json.loads(BASELINE.read_text("utf-8"))
    for swept in ("ui/language.py", "desk/states.py", "ui/counter/display.py"):
        assert swept not in left


def test_a_label_with_its_mnemonic_counts_as_words(tmp_path):
    """ "&Title" and "Re&ference" are a label's one word, shown as "Title" and "Reference":
    found like any other (a one-word label was missed while its mnemonic hid it)."""
    module = tmp_path / "form.py"
    module.write_text('label = QLabel("&Title")\nother = QLabel("Re&ference")\nfine = QLabel(_("&Amount"))\n', "utf-8")
    assert [text for _line, text in literals(module)] == ["&Title", "Re&ference"]
