"""Who did it, at the counter: Ana sells and Ben closes the shift; the count asked before the
close says who opened it, the shift report says who opened it and who closed it (on screen
and in its PDF, read back with pdftotext), and View → Counter shifts… names them. People are
signed in through the desk's own API (``session.staff.signed_in``): the sign-in screen is
another change's."""

from __future__ import annotations

from PySide6.QtCore import Qt

from paydesk.desk.staff import Person, Role
from paydesk.ui.counter import report_paper
from tests.ui import press
from tests.ui.counter.test_close_shift import _pdf_text, _shown

ANA = Person("p-ana", "Ana", Role.COUNTER)
BEN = Person("p-ben", "Ben", Role.COUNTER)


def test_the_shift_report_says_who_opened_and_who_closed_it(counter, loop):
    tab, app = counter.tab, counter.app
    staff = app.session.staff
    staff.signed_in(ANA)
    sale = counter.sell("7")
    assert sale.actor == "Ana"
    staff.signed_in(BEN)  # Ben takes over the counter: the shift stays open
    task = press.starting("close shift", lambda: press.click(tab.close_shift_button))
    box = _shown(loop, "confirm-close-shift")
    told = " ".join(box.informativeText().split())
    assert " by Ana" in told, told
    press.click(press.button(box, "Close shift"))
    report = _shown(loop, "shift-report")
    lines = dict(report.lines())
    assert lines["Opened"].endswith(" by Ana") and lines["Closed"].endswith(" by Ben"), lines
    assert report.values["Opened"].text() == lines["Opened"]
    shift = loop.run(app.window.desk.counter.book.shift(sale.shift_id))
    assert (shift.opened_actor, shift.closed_actor) == ("Ana", "Ben")
    # the newest of this shift's name: another test's shift 1 of this computer closed in the
    # same minute is saved beside it under another name (a report is never overwritten)
    stem = report_paper.report_name(shift).removesuffix(".pdf")
    saved = sorted(report_paper.folder().glob(f"{stem}*.pdf"), key=lambda p: p.stat().st_mtime)
    text = _pdf_text(saved[-1])
    assert f"Opened {lines['Opened']}" in text and f"Closed {lines['Closed']}" in text, text
    press.click(report.close_button)
    closed = loop.run(task)
    assert closed.id == shift.id
    # finance's Counter shifts window names them too (a Counter does not see it: Fay does)
    staff.signed_in(Person("p-fay", "Fay", Role.FINANCE))
    window = app.window
    window.activateWindow()
    loop.until(window.isActiveWindow, message="the window in front")
    target = window.focusWidget() or window  # Fay's tab: the Counter tab is not hers
    press.key(target, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    loop.until(lambda: press.shown("counter-shifts-window") is not None, message="the Counter shifts window")
    shifts = press.shown("counter-shifts-window")
    loop.until(lambda: shifts.loaded, message="its lists")
    model = shifts.shifts_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    shown = {h: model.index(0, c).data() for c, h in enumerate(headers)}  # the newest shift's row
    assert (shown["Opened by"], shown["Closed by"]) == ("Ana", "Ben")
