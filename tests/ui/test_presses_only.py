"""Every UI test presses only what a user can: through tests/ui/press.py, on visible, enabled
widgets. This scans the source of tests/ui (and tests/packaging) and fails on any call that
stands for a user without being one: ``.click()``, ``.trigger()``, ``.setText()`` on a field,
``.accept()``/``.reject()``/``.done(code)`` on a dialog, ``.emit()`` of a widget's signal,
``.setCurrentIndex()`` for a choice, QTest events sent past press.py's checks, or a widget's
slot called directly (``create_from_form()``, ``submit()``, ``save()``...).

Run as a module it prints the count of test functions that do (``python -m
tests.ui.test_presses_only``): the figure issue 15 asks for.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = (ROOT / "tests" / "ui", ROOT / "tests" / "packaging")
HELPER = ROOT / "tests" / "ui" / "press.py"
SELF = Path(__file__).resolve()

# a user's action done from code, by the method's name
ALWAYS = {"click", "animateClick", "trigger", "toggle", "emit", "accept", "reject"}
# typing, or choosing, by setting the value a user would have typed or chosen
SETTERS = {
    "setText",
    "setPlainText",
    "insertPlainText",
    "setValue",
    "setDate",
    "setChecked",
    "setCurrentIndex",
    "setCurrentText",
    "setCurrentWidget",
    "setCurrentRow",
    "selectRow",
}
# the widgets' own slots: what a button, a shortcut or Enter runs
SLOTS = {
    "create_from_form",
    "submit",
    "open_editor",
    "show_snippets",
    "print_qr",
    "export_csv",
    "request_refresh",
    "request_create",
    "show_card",
    "reload_list",
    "end_of_day",
    "check_all_open",
    "toggle_mode",
    "show_link",
    "add_row",
}
# slots whose name is common: flagged only on these receivers (the last name before the dot)
SLOTS_ON = {"save": {"editor", "panel"}, "check": {"editor"}, "export": {"tab"}, "lookup": {"tab"}, "copy": {"box"}}
# the tests' own helpers (press.py, and the desks that wrap it): their methods are not slots
TEST_HELPERS = {"press", "desk", "shop", "self"}
QTEST = {
    "mouseClick",
    "mouseDClick",
    "mousePress",
    "mouseRelease",
    "keyClick",
    "keyClicks",
    "keyPress",
    "keyRelease",
    "keySequence",
}

# Calls that look like a user's but are not one, each with its reason: (file relative to the
# repository, function, method name).
ALLOWED = {
    (
        "tests/ui/test_layout_audit.py",
        "test_a_fitted_label_makes_its_letters_smaller_where_narrow_and_is_not_cut",
        "setText",
    ): "the audit's own check on a label it builds itself, no window of PayDesk's: the words a state shows",
    (
        "tests/ui/counter/test_long_day.py",
        "sell",
        "emit",
    ): "says another till's sales on the hub as the shared ledger says them: no user presses that",
    (
        "tests/ui/test_widgets.py",
        "test_a_label_shows_plain_text",
        "setText",
    ): "the label helper's own test: the program sets a label's text, as PayDesk does",
    (
        "tests/ui/cards/test_money_safety.py",
        "test_a_copied_number_leaves_the_clipboard_when_paydesk_closes",
        "setText",
    ): "another program copies to the clipboard: not a press in PayDesk",
    (
        "tests/ui/cards/test_card_secrets.py",
        "test_reveal_hides_again_and_nothing_leaks",
        "setText",
    ): "another program copies to the clipboard: not a press in PayDesk",
    (
        "tests/ui/counter/test_heard_late.py",
        "test_the_sale_heard_as_it_was_before_its_link_was_answered_changes_nothing_on_the_screens",
        "emit",
    ): "says a sale and its link on the hub late, as the shared ledger's feed can: no user presses that",
    (
        "tests/ui/counter/test_heard_late.py",
        "test_the_books_word_older_than_the_one_heard_does_not_take_the_sale_back",
        "emit",
    ): "says the link paid on the hub before the book holds it, as a word heard first: no user presses that",
    (
        "tests/ui/counter/test_counter_shifts.py",
        "test_a_paid_sale_heard_late_as_open_stays_out_of_the_open_sales",
        "emit",
    ): "says a sale on the hub late, as the shared ledger's feed can: no user presses that",
    (
        "tests/ui/test_links.py",
        "test_the_link_heard_late_as_it_was_before_its_answer_changes_nothing_shown",
        "emit",
    ): "says a link on the hub late, as the shared ledger's feed can: no user presses that",
    ("tests/ui/test_signals.py", "tell", "emit"): "the bridge's test emits the desk's events, which no user presses",
    (
        "tests/ui/transactions/test_notifications.py",
        "announce",
        "emit",
    ): "says an inbox entry on the hub as the receiver says it: no user presses that",
    (
        "tests/ui/transactions/test_notifications.py",
        "refuse",
        "emit",
    ): "says a refused request's trace on the hub as the receiver says it: no user presses that",
    (
        "tests/ui/counter/test_monitor.py",
        "test_a_monitor_unplugged_brings_the_view_beside_the_amount_box",
        "emit",
    ): "a monitor unplugged and plugged in, as Qt says it (offscreen Qt cannot unplug one)",
}


@dataclass(frozen=True)
class Finding:
    path: str
    function: str
    line: int
    call: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} in {self.function}: {self.call}"


def _receiver(node: ast.expr) -> str:
    """The last name of what a method is called on: ``tab.panel`` -> "panel"."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript):
        return _receiver(node.value)
    if isinstance(node, ast.Call):
        return _receiver(node.func)
    return ""


def _flag(call: ast.Call) -> str | None:
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    name, on = func.attr, _receiver(func.value)
    if on in ("QTest", "qtbot") and name in QTEST:
        return f"{on}.{name}"
    if on in TEST_HELPERS:
        return None
    if name in ALWAYS or name in SLOTS:
        return name
    if name == "done" and (call.args or call.keywords):  # a dialog's done(code), not a
        return name  # future's done()
    if name in SETTERS:
        return name
    if name in SLOTS_ON and on in SLOTS_ON[name]:
        return name
    return None


def findings_in(source: str, path: str) -> list[Finding]:
    """Every call in ``source`` that stands for a user, with the function it is in."""
    tree = ast.parse(source)
    found: list[Finding] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = child.name if function == "<module>" else f"{function}.{child.name}"
            elif isinstance(child, ast.ClassDef):
                inner = child.name
            if isinstance(child, ast.Call):
                what = _flag(child)
                if what is not None:
                    found.append(Finding(path, inner, child.lineno, what))
            visit(child, inner)

    visit(tree, "<module>")
    return found


def scanned_files() -> list[Path]:
    files = []
    for folder in SCANNED:
        files += sorted(p for p in folder.rglob("*.py") if p not in (HELPER, SELF))
    return files


def all_findings() -> list[Finding]:
    found = []
    for path in scanned_files():
        rel = path.relative_to(ROOT).as_posix()
        found += [
            f
            for f in findings_in(path.read_text(encoding="utf-8"), rel)
            if (rel, f.function.split(".")[-1], f.call) not in ALLOWED
        ]
    return found


def test_no_ui_test_presses_what_a_user_could_not():
    found = all_findings()
    assert not found, (
        "these stand for a user without being one; go through tests/ui/press.py "
        "(press.click, press.type_into, press.enter, press.key, press.choose):\n" + "\n".join(map(str, found))
    )


SAMPLE = """
def test_create(tab, dialog, loop, window, sb):
    tab.form.amount.setText("25")               # typing, from code
    tab.form.create_button.click()              # a click, from code
    window.refresh_action.trigger()             # a menu, from code
    dialog.accept()                             # a dialog closed from code
    dialog.done(1)
    tab.filters.state.setCurrentIndex(2)        # a choice, from code
    tab.table.doubleClicked.emit(None)          # a signal, from code
    loop.run(tab.create_from_form())            # the Create button's slot
    loop.run(editor.save())
    QTest.keyClick(tab.form.amount, 16777220)   # past press.py's checks
    qtbot.keyClicks(tab.form.title, "cake")
    assert task.done() and sb.clipboard_text()  # not presses
    press.click(tab.form.create_button); desk.submit(dialog, "Done")
"""


def test_the_scan_finds_each_kind_of_press_from_code():
    """The scan can fail: a sample test with each kind of call is caught, line by line."""
    found = findings_in(SAMPLE, "sample.py")
    assert [(f.line, f.call) for f in found] == [
        (3, "setText"),
        (4, "click"),
        (5, "trigger"),
        (6, "accept"),
        (7, "done"),
        (8, "setCurrentIndex"),
        (9, "emit"),
        (10, "create_from_form"),
        (11, "save"),
        (12, "QTest.keyClick"),
        (13, "qtbot.keyClicks"),
    ]
    assert {f.function for f in found} == {"test_create"}


def test_the_allow_list_names_calls_that_exist():
    """An allow-list entry whose call is gone is stale: remove it."""
    present = set()
    for path in scanned_files():
        rel = path.relative_to(ROOT).as_posix()
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                present.add((rel, node.name))
    assert all((path, function) in present for path, function, _ in ALLOWED), ALLOWED


if __name__ == "__main__":
    found = all_findings()
    tests = sorted({(f.path, f.function) for f in found if f.function.startswith("test_")})
    helpers = sorted({(f.path, f.function) for f in found if not f.function.startswith("test_")})
    for f in found:
        print(f)
    print(
        f"\n{len(found)} calls; {len(tests)} test functions and {len(helpers)} helper "
        f"functions press what a user could not",
        file=sys.stderr,
    )
