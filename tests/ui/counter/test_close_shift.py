"""Close shift… on the Counter tab, pressed as staff press it: the count so far asked first
(Cancel closes nothing), then frozen in the ledger, then the report to save as PDF (read
back with pdftotext) and to print (to a file, through Qt's dialog); the next sale opens a
new shift at zero, and the closed one's figures do not move when a voided sale of it is paid
afterwards. View → Counter shifts… (Ctrl+Shift+H) lists it."""

from __future__ import annotations

import subprocess

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from paydesk.ledger.counter import SaleQuery
from paydesk.ui.counter import report_paper
from tests.helpers import need_system
from tests.ui import press
from tests.ui.test_accessibility import _labels_named_otherwise, _unnamed_focusable


def _shown(loop, name):
    loop.until(lambda: press.shown(name) is not None, message=f"the {name} window")
    return press.shown(name)


def _pdf_text(path) -> str:
    pdftotext = need_system("pdftotext", "poppler-utils")
    text = subprocess.run(
        [pdftotext, "-layout", str(path), "-"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def _void(counter, loop):
    """Escape on a payable sale, and Void sale: the sale voided."""
    task = press.starting("new sale", lambda: press.escape(counter.tab.amount))
    press.click(press.button(_shown(loop, "confirm-void"), "Void sale"))
    return loop.run(task)


def test_close_shift_asks_freezes_and_saves_the_report(counter, loop, tmp_path):
    tab, app = counter.tab, counter.app
    controller, book = app.window.desk.counter, app.window.desk.counter.book
    paid = counter.sell("7")
    counter.pay(paid)
    loop.until(
        lambda: (
            tab.mirror.state.text() == "PAID"
            and counter.listed_state(paid.tx_ref) == "Paid"
            and not controller.payable()
        ),
        timeout=30,
        message="PAID on the staff's screen, in the list and to the controller",
    )
    loop.run(press.starting("new sale", lambda: press.escape(tab.amount)))  # paid: no asking
    voided_sale = counter.sell("5")
    voided = _void(counter, loop)
    assert voided.key == voided_sale.key and voided.voided
    shift = loop.run(controller.shift())

    # Cancel: nothing is closed
    task = press.starting("close shift", lambda: press.click(tab.close_shift_button))
    box = _shown(loop, "confirm-close-shift")
    assert box.text() == f"Close the shift of counter {controller.name}?"
    told = " ".join(box.informativeText().split())
    for said in ("Sales made: 2", "Paid: 1", "Voided: 1", "GBP paid: GBP 7.00", "GBP voided: GBP 5.00"):
        assert said in told, told
    assert "Closed" not in told  # not closed yet: the count so far, without its Closed line
    press.click(press.button(box, "Cancel"))
    assert loop.run(task) is None
    assert not loop.run(book.shift(shift.id)).closed

    # Close shift: frozen, then the report
    task = press.starting("close shift", lambda: press.click(tab.close_shift_button))
    press.click(press.button(_shown(loop, "confirm-close-shift"), "Close shift"))
    report = _shown(loop, "shift-report")
    assert report.windowTitle() == f"Shift report — {controller.name}" and report.isWindow()
    assert _unnamed_focusable(report, at_least=3) == [] and _labels_named_otherwise(report) == []
    assert [
        b.accessibleName() for b in (report.print_button, report.save_button, report.folder_button, report.close_button)
    ] == ["Print", "Save as PDF", "Open folder", "Close"]
    closed = loop.run(book.shift(shift.id))
    assert closed.closed and closed.closed_by == controller.user
    assert (closed.figures.made, closed.figures.paid, closed.figures.voided) == (2, 1, 1)
    assert report.values["Sales made"].text() == "2" and report.values["Shift"].text() == str(shift.id)
    # saved by itself as PDF, in Documents/Shift reports; Print… has the focus (a printer
    # must be chosen), and Open folder is offered
    saved = report_paper.folder() / report_paper.report_name(closed)
    assert saved.name.startswith(f"Shift {shift.id} — {controller.name} — ")
    assert report.message.text() == f"Saved the report as PDF to {saved}"
    assert report.message.isVisible() and report.folder_button.isVisible()
    assert report.print_button.isDefault() and report.focusWidget() is report.print_button
    text = _pdf_text(saved)
    for label, value in report.lines():
        assert f"{label} {value}" in text, (label, value, text)
    press.click(report.save_button)
    dialog = _shown(loop, "save-dialog")
    target = tmp_path / "shift.pdf"
    name = dialog.findChild(QLineEdit, "fileNameEdit")
    press.type_into(name, str(target))
    press.enter(name)
    loop.until(lambda: report.message.text() == f"Saved the report to {target}", message="the PDF saved")
    text = _pdf_text(target)
    for label, value in report.lines():
        assert f"{label} {value}" in text, (label, value, text)
    assert f"Shift report — {controller.name} — TEST" in text
    # Print…, to a PDF file through Qt's own dialog: the report says where it went
    press.click(report.print_button)
    loop.until(
        lambda: getattr(report, "print_dialog", None) is not None and report.print_dialog.isVisible(),
        message="Qt's print dialog",
    )
    printed = tmp_path / "printed.pdf"
    press.print_to_file(report.print_dialog, printed)
    loop.until(lambda: report.message.text() == f"Printed to a PDF file: {printed}", message="printing")
    assert "Sales made 2" in _pdf_text(printed)
    press.click(report.close_button)
    assert loop.run(task).id == shift.id

    # the next sale opens a new shift, at zero; the closed one's figures stay
    counter.pay(voided)  # the customer pays the voided link after the close
    loop.until(lambda: tab.banner.isVisible(), timeout=30, message="paid after void")
    after = counter.sell("9")
    assert after.shift_id != shift.id
    now = loop.run(book.figures(SaleQuery(shift_id=after.shift_id)))
    assert now.made == 1 and now.paid == 0 and now.paid_after_void == 0
    again = loop.run(book.shift(shift.id))
    assert again.figures == closed.figures and again.figures.paid_after_void == 0

    # finance's window (Ctrl+Shift+H) lists both shifts, newest first
    app.window.activateWindow()  # the report closed: the staff is back at the window
    loop.until(app.window.isActiveWindow, message="the window in front")
    press.click(tab.amount)
    press.key(tab.amount, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    loop.until(lambda: press.shown("counter-shifts-window") is not None, message="the Counter shifts window")
    shifts = press.shown("counter-shifts-window")
    assert shifts is app.window.counter_shifts_window
    loop.until(lambda: shifts.loaded, message="its lists")
    assert shifts.windowTitle() == "Counter shifts"
    assert _unnamed_focusable(shifts) == [] and _labels_named_otherwise(shifts) == []
    model = shifts.shifts_model
    assert [model.at(row)[0].id for row in range(model.rowCount())] == [after.shift_id, shift.id]
    assert model.text(model.at(1), 4) != "open" and model.text(model.at(0), 4) == "open"
    press.escape(shifts.shifts)  # Escape closes it
    loop.until(lambda: not shifts.isVisible(), message="the window closed")


def test_a_shift_closed_meanwhile_is_told_and_its_report_shown(counter, loop):
    """Another window on the same data folder (or another desk) closes the shift while the
    staff read its count: their Close shift closes nothing else, opens no empty shift, says
    who closed it and shows that shift's report."""
    tab, controller = counter.tab, counter.app.window.desk.counter
    book = controller.book
    sale = counter.sell("7")
    task = press.starting("close shift", lambda: press.click(tab.close_shift_button))
    box = _shown(loop, "confirm-close-shift")
    loop.run(book.close_shift(sale.shift_id, "bob"))  # the other window's close
    shifts = loop.run(book.shifts())
    press.click(press.button(box, "Close shift"))
    told = _shown(loop, "close-shift-told")
    assert told.text().startswith("This shift was closed already (by bob, "), told.text()
    press.click(press.button(told, "OK"))
    report = _shown(loop, "shift-report")
    said = dict(report.lines())
    assert said["Shift"] == str(sale.shift_id) and said["Sales made"] == "1"
    assert said["Closed"].endswith(" by bob")
    press.click(report.close_button)
    assert loop.run(task).id == sale.shift_id
    assert loop.run(book.shifts()) == shifts  # no shift opened to be closed
    assert loop.run(book.current_shift(controller.name, sale.profile_id, sale.mode)) is None


def test_a_mode_switched_while_asked_closes_the_shift_confirmed(counter, loop):
    """The staff confirm the test shift's count; the mode is switched to live before they
    press Close shift: the test shift is closed, and no live shift is opened to be closed."""
    tab, app = counter.tab, counter.app
    controller, book = app.window.desk.counter, app.window.desk.counter.book
    sale = counter.sell("4")
    task = press.starting("close shift", lambda: press.click(tab.close_shift_button))
    box = _shown(loop, "confirm-close-shift")
    loop.run(app.session.set_mode("live"))
    press.click(press.button(box, "Close shift"))
    report = _shown(loop, "shift-report")
    said = dict(report.lines())
    assert said["Shift"] == str(sale.shift_id) and said["Sales made"] == "1"
    assert said["Mode"].startswith("Test")
    press.click(report.close_button)
    closed = loop.run(task)
    assert closed.id == sale.shift_id and closed.mode == "test" and closed.closed
    assert loop.run(book.current_shift(controller.name, sale.profile_id, "live")) is None
