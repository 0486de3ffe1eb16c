"""Renaming the counter on the Counter tab: fine while the open shift has no sales; refused,
next to the name, once it has."""

from __future__ import annotations

from tests.ui import press
from tests.ui.test_accessibility import _unnamed_focusable


def _rename(counter, loop, name):
    tab = counter.tab
    task = press.click_starting(tab.rename_button, "rename counter")
    loop.until(lambda: press.shown("rename-counter") is not None, message="the rename dialog")
    dialog = press.shown("rename-counter")
    assert dialog.windowTitle() == "Rename the counter"
    assert _unnamed_focusable(dialog, at_least=3) == []
    press.type_into(dialog.name, name)
    press.enter(dialog.name)
    return task, dialog


def test_rename_while_the_shift_has_no_sales_then_refused(counter, loop):
    tab = counter.tab
    task, _ = _rename(counter, loop, "Till 7")
    assert loop.run(task) and tab.counter_name.text() == "Counter: Till 7"
    assert counter.window.desk.counter.name == "Till 7"
    counter.sell("3")
    task, dialog = _rename(counter, loop, "Till 8")
    loop.until(lambda: dialog.message.isVisible(), message="why not")
    assert "close the shift" in dialog.message.text()
    press.click(dialog.cancel)
    assert not loop.run(task) and tab.counter_name.text() == "Counter: Till 7"
