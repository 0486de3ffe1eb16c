"""Every focusable control has a name in the accessibility tree (what a screen reader says)."""

from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QWidget

from paydesk.ui.profile_editor import ProfileEditor
from tests.ui import press


def _walk(iface, seen, out, depth=0):
    if iface is None or not iface.isValid() or depth > 40:
        return
    key = id(iface.object()) if iface.object() is not None else (iface.text(QAccessible.Text.Name), depth)
    if key in seen:
        return
    seen.add(key)
    out.append(iface)
    for i in range(iface.childCount()):
        _walk(iface.child(i), seen, out, depth + 1)


def _unnamed_focusable(root: QWidget, at_least: int = 10) -> list[str]:
    found = []
    nodes = []
    _walk(QAccessible.queryAccessibleInterface(root), set(), nodes)
    assert len(nodes) >= at_least, "the accessibility tree is empty"
    for iface in nodes:
        state = iface.state()
        if state.focusable and not state.invisible:
            if not iface.text(QAccessible.Text.Name).strip():
                obj = iface.object()
                found.append(f"{iface.role()} {obj.objectName() if obj else '?'} {type(obj).__name__}")
    return found


def test_main_window_controls_are_named(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    assert _unnamed_focusable(app.window) == []
    # and the names are the visible labels
    assert app.window.mode_button.accessibleName() == app.window.mode_button.text()
    app.close()


def test_profile_editor_controls_are_named(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    task = press.click_starting(app.window.edit_profile, "editor")
    loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor: ProfileEditor = press.shown("profile-editor")
    assert _unnamed_focusable(editor) == []
    loop.until(lambda: editor.key_fields[("test", "secret")].edit.text(), message="the keys")
    assert editor.key_fields[("test", "secret")].edit.text() == loop.run(app.session.key("test"))
    assert [b.accessibleName() for b in (editor.check_button, editor.save_button, editor.cancel_button)] == [
        "Check keys",
        "Save",
        "Cancel",
    ]
    press.escape(editor.name)  # Escape cancels
    loop.until(task.done, message="the editor to close")
    app.close()


def test_first_run_controls_are_named(start_app, loop):
    app = start_app()
    loop.until(
        lambda: getattr(app.window, "first_run", None) is not None and app.window.first_run.isVisible(),
        message="first run",
    )
    dialog = app.window.first_run
    assert _unnamed_focusable(dialog, at_least=3) == []
    assert dialog.isWindow() and dialog.windowTitle() == "Welcome to PayDesk"
    press.escape(dialog.try_sandbox)  # Escape closes it
    loop.until(lambda: press.closed(dialog), message="first run closed")
    app.close()


def test_the_walk_finds_an_unnamed_control(qtbot):
    """The check itself can fail: an icon-only button with no name is reported."""
    from PySide6.QtWidgets import QLineEdit, QPushButton, QVBoxLayout

    box = QWidget()
    qtbot.addWidget(box)
    layout = QVBoxLayout(box)
    named = QLineEdit()
    named.setAccessibleName("Amount")
    layout.addWidget(named)
    layout.addWidget(QPushButton(""))
    box.show()
    assert len(_unnamed_focusable(box, at_least=2)) == 1


def test_transactions_tab_controls_are_named(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    window = app.window
    press.tab(window.tabs, "Transactions")
    loop.until(lambda: window.transactions_tab.loaded, message="the transactions tab")
    tab = window.transactions_tab
    press.choose(tab.filters.range, "Custom…")  # the date fields show too
    assert _unnamed_focusable(tab) == []
    for name in (
        "lookup-box",
        "ledger-search",
        "ledger-state",
        "ledger-currency",
        "ledger-range",
        "check-all-open",
        "export",
        "end-of-day-button",
        "copy-reference",
    ):
        widget = tab.findChild(QWidget, name)
        assert widget is not None and widget.accessibleName(), name
    assert tab.check_all.accessibleName() == tab.check_all.text() == "Check all open"
    press.click(window.transactions_tab.end_of_day)
    from PySide6.QtWidgets import QApplication

    loop.until(
        lambda: any(w.objectName() == "end-of-day" and w.isVisible() for w in QApplication.topLevelWidgets()),
        message="end of day",
    )
    dialog = next(w for w in QApplication.topLevelWidgets() if w.objectName() == "end-of-day")
    assert dialog.windowTitle() == "End of day" and dialog.isWindow()
    assert _unnamed_focusable(dialog, at_least=3) == []
    press.click(dialog.close_button)
    loop.until(lambda: press.closed(dialog), message="End of day closed")
    app.close()


def _labels_named_otherwise(root: QWidget) -> list[str]:
    """Shown labels whose accessible name does not say the text they show (a screen reader
    then says something other than what the eye reads): an empty label named with words, or
    a name without the label's text (a short context before it, "State: PAID", is kept)."""
    from PySide6.QtWidgets import QLabel

    return [
        f"{label.objectName() or '?'}: shows {label.text()!r}, named {label.accessibleName()!r}"
        for label in root.findChildren(QLabel)
        if label.isVisible()
        and label.accessibleName()
        and not label.text().startswith("<")  # a paragraph of prose, named by its gist
        and (not label.text() or label.text() not in label.accessibleName())
    ]


def test_labels_are_named_by_what_they_show(start_app, loop):
    """The units hint showed "whole units, no pence" and was named with a long sentence; the
    links panel's and the snippet dialog's outcome showed nothing and were named "Nothing
    done yet" / "Nothing copied yet". The longer words are their descriptions now."""
    app = start_app(sandbox=True)
    app.wait_started()
    tab = app.window.links_tab
    loop.until(lambda: tab.loaded, message="the links tab")
    assert tab.form.units.isVisible() and tab.form.units.accessibleDescription()
    assert _labels_named_otherwise(app.window) == []
    from tests.ui.test_first_session import type_form

    type_form(tab)
    press.click(tab.website)
    loop.until(
        lambda: getattr(tab, "snippets", None) is not None and tab.snippets.isVisible(), message="the snippets dialog"
    )
    assert _labels_named_otherwise(tab.snippets) == []
    press.escape(tab.snippets)
    app.close()
