"""The layout audit's states of the windows and dialogs beyond the main window's tabs: the
Cards tab's dialogs, the Counter tab's with Counter shifts, Bulk links' steps with Batches
and E-mail links, and the Notifications window."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt

from paydesk.i18n import _
from tests.ui import press
from tests.ui.layout_states.reach import (
    LONG_FIRST,
    LONG_LAST,
    LONG_TITLE,
    checked,
    counter_tab,
    menu,
    messages_of,
    shown_window,
)


def test_cards(app, loop, seen):
    from tests.ui.cards.test_wallet import Desk

    desk = Desk(app, loop)
    window, tab = app.window, desk.tab
    seen.look(window, "Cards, an empty wallet")
    desk.press(tab.wallet.create_button)
    dialog = desk.dialog("create-card-dialog")
    seen.look(dialog, "Create card, empty")
    seen.steady(dialog, lambda: press.click(dialog.action), messages_of(dialog), "Create card's messages appear")
    press.type_into(dialog.callback, "not an address")
    press.click(dialog.action)
    seen.look(dialog, "Create card with every message")
    press.type_into(dialog.first_name, LONG_FIRST)
    press.type_into(dialog.last_name, LONG_LAST)
    press.type_into(dialog.amount, "50")
    press.type_into(dialog.callback, "")
    seen.look(dialog, "Create card, filled")
    desk.submit(dialog, "Card created")
    seen.look(dialog, "Create card, done")
    desk.close(dialog)
    loop.until(lambda: tab.page.record is not None, message="the card's page")
    seen.look(window, "Cards, a card's page")
    press.click(tab.page.secret.reveal_button)
    loop.until(
        lambda: tab.page.secret.number.text() and "•" not in tab.page.secret.number.text(),
        timeout=30,
        message="the number revealed",
    )
    seen.look(window, "Cards, the number revealed")
    for kind in ("fund", "withdraw"):
        desk.press(tab.page.buttons[kind])
        dialog = desk.dialog(f"{kind}-dialog")
        seen.look(dialog, f"{kind}, empty")
        press.type_into(dialog.amount, "12.5")
        seen.steady(
            dialog, lambda dialog=dialog: press.click(dialog.action), messages_of(dialog), f"{kind}'s message appears"
        )
        seen.look(dialog, f"{kind} with its message")
        press.type_into(dialog.amount, "5")
        desk.submit(dialog, "New balance")
        seen.look(dialog, f"{kind}, done")
        desk.close(dialog)
    desk.press(tab.page.buttons["block"])
    loop.until(
        lambda: tab.page.buttons["block"].text() == _("Unblock") and tab.page.buttons["block"].isEnabled(),
        timeout=30,
        message="blocked",
    )
    seen.look(window, "Cards, a blocked card")
    desk.press(tab.page.buttons["block"])
    loop.until(
        lambda: tab.page.buttons["block"].text() == _("Block") and tab.page.buttons["terminate"].isEnabled(),
        timeout=30,
        message="unblocked",
    )
    desk.press(tab.page.buttons["terminate"])
    dialog = desk.dialog("terminate-dialog")
    seen.look(dialog, "Terminate, empty")
    press.type_into(dialog.last4, "0000")
    seen.steady(dialog, lambda: press.click(dialog.action), messages_of(dialog), "Terminate's error appears")
    seen.look(dialog, "Terminate with its error")
    press.escape(dialog)
    press.tab(tab.sections, _("Audit log"))
    seen.look(window, "Cards, the audit log")


def test_counter(app, loop, seen):
    session = app.session
    loop.run(session.save_profile(replace(session.profile, walk_in_name=f"{LONG_FIRST} {LONG_LAST}"), {}))
    counter = counter_tab(app, loop)
    window, tab = app.window, counter.tab
    seen.look(window, "the Counter tab, empty")
    seen.steady(
        window,
        lambda: (
            press.type_into(tab.amount, "12.5"),
            press.enter(tab.amount),
            loop.until(tab.messages["amount"].isVisible, message="the Amount's message"),
        ),
        messages_of(tab),
        "the counter's Amount message appears",
    )
    seen.look(window, "the Counter tab, the Amount's message")
    press.type_into(tab.note, LONG_TITLE)
    counter.sell("25")
    seen.look(window, "the Counter tab, a sale's code on screen")
    press.click(tab.place.toggle)
    seen.look(window, "the Counter tab, the customer's view beside the amount box")
    voided = tab.mirror.sale
    press.click(tab.new_sale_button)
    box = shown_window(loop, "confirm-void")
    seen.look(box, "Void this sale?")
    press.click(press.button(box, _("Void sale")))
    loop.until(lambda: tab.mirror.sale is None, message="the sale voided")
    seen.look(window, "the Counter tab after a void")
    # the voided sale paid after all: the red banner, and Refund's question
    counter.pay(voided)
    loop.until(lambda: tab.banner.isVisible(), timeout=30, message="the red banner")
    seen.look(window, "the Counter tab, a payment after a void")
    press.click(tab.banner.refund)
    box = shown_window(loop, "confirm-refund")
    seen.look(box, "Record a refund?")
    press.escape(box)
    # the voided sale in Transactions: its row and its details
    press.tab(window.tabs, "Transactions")
    transactions = window.transactions_tab
    loop.until(lambda: transactions.loaded and transactions.model.rowCount() > 0, message="the list")
    loop.until(lambda: transactions.model.row_of(voided.record.key) is not None, message="the voided sale listed")
    row = transactions.model.row_of(voided.record.key)
    index = transactions.model.index(row, 0)
    press.click(transactions.table.viewport(), pos=transactions.table.visualRect(index).center())
    loop.until(lambda: transactions.details.values["voided"].isVisible(), message="its void in the details")
    seen.look(window, "Transactions, a sale paid after its void at the counter")
    press.tab(window.tabs, "Counter")
    # Rename counter…, with its message
    press.click(tab.rename_button)
    dialog = shown_window(loop, "rename-counter")
    seen.look(dialog, "Rename the counter")
    press.type_into(dialog.name, "")
    seen.steady(
        dialog,
        lambda: (press.click(dialog.rename), loop.until(dialog.message.isVisible, message="the message")),
        messages_of(dialog),
        "Rename's message appears",
    )
    seen.look(dialog, "Rename the counter, refused")
    press.escape(dialog)
    # Close shift…: the count so far, then the report
    press.click(tab.close_shift_button)
    box = shown_window(loop, "confirm-close-shift")
    seen.look(box, "Close shift?")
    press.click(press.button(box, _("Close shift")))
    report_dialog = shown_window(loop, "shift-report")
    seen.look(report_dialog, "the shift report after a close")
    press.click(report_dialog.close_button)
    # finance's Counter shifts window
    menu(app, loop, window.view_menu, window.counter_shifts_action)
    shifts = shown_window(loop, "counter-shifts-window")
    loop.until(lambda: shifts.shifts_model.rowCount() > 0, message="the shifts")
    index = shifts.shifts_model.index(0, 0)
    press.click(shifts.shifts.viewport(), pos=shifts.shifts.visualRect(index).center())
    seen.look(shifts, "Counter shifts, a shift chosen")
    press.click(shifts.report_button)
    report_dialog = shown_window(loop, "shift-report")
    seen.look(report_dialog, "a shift's report from Counter shifts")
    press.click(report_dialog.close_button)


def test_counter_asking_for_the_shops_email(app, loop, seen):
    """A profile without the shop's e-mail: the Counter tab asks for it at its top, empty,
    refused with its message, and filled."""
    session = app.session
    loop.run(session.save_profile(replace(session.profile, shop_email=""), {}))
    window = app.window
    press.tab(window.tabs, "Counter")
    ask = window.counter_tab.shop_email
    loop.until(ask.isVisible, message="the shop's e-mail asked")
    seen.look(window, "the Counter tab asking for the shop's e-mail")
    press.type_into(ask.field, "till@")
    seen.steady(
        window,
        lambda: (press.click(ask.save_button), loop.until(ask.message.isVisible, message="the e-mail refused")),
        messages_of(ask),
        "the shop e-mail's message appears",
    )
    seen.look(window, "the Counter tab, the shop's e-mail refused")
    press.type_into(ask.field, "till.and.back.office.of.the.corner.shop@" + "example.com")
    seen.look(window, "the Counter tab, the shop's e-mail typed")


def test_bulk_and_batches(app, loop, seen, tmp_path):
    from tests.ui.bulk.conftest import row, write_csv

    window = app.window
    press.click(window.links_tab.bulk)
    bulk = shown_window(loop, "bulk-window")
    seen.look(bulk, "Bulk links, the file step")
    broken = tmp_path / "broken.csv"
    broken.write_bytes(b"\x00\x01 not a sheet")
    press.click(bulk.file_step.choose)
    press.save_as(shown_window(loop, "bulk-open-dialog"), broken)
    loop.until(bulk.file_step.message.text, message="the file's message")
    seen.look(bulk, "Bulk links, a file refused")
    rows = [row(i, first_name=LONG_FIRST, last_name=LONG_LAST, title=LONG_TITLE) for i in range(2, 6)] + [
        row(6, amount="1,500"),
        row(7, email="nobody"),
    ]
    sheet = write_csv(tmp_path / "september-invoices-for-the-supporters-club.csv", rows)
    press.click(bulk.file_step.choose)
    press.save_as(shown_window(loop, "bulk-open-dialog"), sheet)
    loop.until(lambda: bulk.stack.currentWidget() is bulk.mapping_step, message="columns")
    seen.look(bulk, "Bulk links, the columns step")
    press.click(bulk.next)
    loop.until(lambda: bulk.stack.currentWidget() is bulk.check_step, message="dry run")
    seen.look(bulk, "Bulk links, the dry run with problems")
    press.click(bulk.check_step.all)
    seen.look(bulk, "Bulk links, all or nothing refused")
    press.click(bulk.check_step.skip)
    press.click(bulk.check_step.create_links)
    loop.until(lambda: bulk.stack.currentWidget() is bulk.progress_step, message="progress")
    outcome = bulk.progress_step.outcome
    loop.until(lambda: outcome.isVisible() and outcome.text(), 60, message="the batch done")
    seen.look(bulk, "Bulk links, the batch done")
    press.click(bulk.progress_step.batches)
    batches = shown_window(loop, "batches-window")
    loop.until(lambda: batches.rows_model.rowCount() > 0, message="the batch's rows")
    seen.look(batches, "Batches, a batch chosen")
    seen.steady(
        batches,
        lambda: (
            press.click(batches.check_all),
            loop.until(lambda: batches.said.text().startswith(checked(batches)), 30, message="checked"),
        ),
        [batches.said],
        "the Batches window's message appears",
    )
    seen.look(batches, "Batches, a message said")
    press.click(batches.email)
    mail = shown_window(loop, "bulk-mail")
    loop.until(lambda: mail.preview.toPlainText(), message="the preview")
    seen.look(mail, "E-mail links, as opened")
    press.type_into(mail.host, "smtp.example.com")
    press.type_into(mail.user, "shop")
    press.type_into(mail.from_address, "not an address")
    press.type_into(mail.test_to, "nobody")
    seen.steady(
        mail,
        lambda: (
            press.click(mail.test_button),
            loop.until(lambda: any(m.isVisible() for m in mail.messages.values()), message="messages"),
        ),
        messages_of(mail),
        "E-mail links' messages appear",
    )
    seen.look(mail, "E-mail links with its messages")
    press.click(mail.close_button)


def test_notifications_window(app, loop, seen):
    window = app.window
    press.key(
        window.focusWidget() or window,
        Qt.Key.Key_N,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    notes = shown_window(loop, "notifications-window")
    loop.until(lambda: notes.offered is not None and notes.test_button.isEnabled(), 30, message="the test offered")
    seen.look(notes, "Notifications, empty")
    press.click(notes.test_button)
    loop.until(lambda: notes.outcome is not None, 60, message="the test notification")
    loop.until(lambda: notes.model.rowCount() > 0, message="the notification listed")
    index = notes.model.index(0, 0)
    press.click(notes.table.viewport(), pos=notes.table.visualRect(index).center())
    loop.until(notes.details.toPlainText, message="its details")
    seen.look(notes, "Notifications after a test notification")
