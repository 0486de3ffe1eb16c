"""Issue 28's items 9, 10 and 11, what a person sees at once: no window grows past its
screen, a field's message moves nothing, and the texts the issue found cut are read whole.
Run on screens of 1280×800 and 1024×768 (tests/ui/test_layout_audit.py)."""

from __future__ import annotations

from paydesk.i18n import _, ngettext
from tests import helpers
from tests.ui import press
from tests.ui.layout_audit import moved, settle, shows_whole, tooltip_of
from tests.ui.layout_states.reach import (
    LONG_PROFILE,
    LONG_TITLE,
    checked,
    counter_tab,
    create_link,
    messages_of,
    open_editor,
    pay,
    rename_profile,
    shown_window,
    to_tab,
    wait_over,
    within_screen,
)


def test_no_window_grows_past_its_screen(app, loop):
    """Item 9: a long status message (a long profile name saved), a link's QR code and a
    counter sale grew the window to 1600-1866 px, and it could not be made smaller."""
    window = app.window
    within_screen(window, "as it opened")
    opened = window.size()
    rename_profile(app, loop)
    status = window.status.last_call
    message = status.text()
    assert LONG_PROFILE in message
    within_screen(window, "a long status message")
    # the message, as a person reads it: no wider than the window, whole in its tooltip and
    # its accessible name
    assert status.geometry().right() <= window.statusBar().width()
    assert message in tooltip_of(status) and message in status.accessibleName()
    create_link(app, loop)
    loop.until(lambda: window.links_tab.panel.record is not None, message="the link shown")
    within_screen(window, "a link's QR code shown")
    counter = counter_tab(app, loop)
    press.type_into(counter.tab.note, LONG_TITLE)
    counter.sell("25")
    within_screen(window, "a counter sale shown")
    press.click(counter.tab.place.toggle)  # the customer's view beside the amount box
    within_screen(window, "the customer's view beside the amount box")
    # and it is made as small as it opened again, as a person drags its corner
    window.resize(opened.width() + 100, opened.height())
    settle()
    window.resize(opened)
    settle()
    assert window.size() == opened, (
        f"resized to {opened.width()}×{opened.height()}, it stays {window.width()}×{window.height()}"
    )


def test_a_fields_message_moves_nothing(app, loop, tmp_path):
    """Item 10: widgets moved under the mouse when a field's message appeared or cleared
    (the Amount field of the link form, the Look up box, the Batches window): clicks
    landed in the wrong box."""
    from tests.ui.bulk.conftest import row, write_csv

    window, form = app.window, app.window.links_tab.form
    said = [*messages_of(form), form.why_disabled]  # why Create is disabled: a message too
    found = moved(window, lambda: press.type_into(form.amount, "12.5"), said, "the Amount's message appeared")
    assert form.messages["amount"].isVisible()
    found += moved(window, lambda: press.type_into(form.amount, "12"), said, "the Amount's message cleared")
    assert not form.messages["amount"].isVisible()
    to_tab(window, "transactions")
    tab = window.transactions_tab
    found += moved(
        window,
        lambda: press.type_into(tab.lookup_box, "not a reference!"),
        [tab.lookup_message],
        "the Look up's message appeared",
    )
    assert tab.lookup_message.isVisible()
    found += moved(
        window, lambda: press.type_into(tab.lookup_box, ""), [tab.lookup_message], "the Look up's message cleared"
    )
    # the Batches window, its message said after Check all open
    to_tab(window, "links")
    press.click(window.links_tab.bulk)
    bulk = shown_window(loop, "bulk-window")
    press.click(bulk.file_step.choose)
    press.save_as(shown_window(loop, "bulk-open-dialog"), write_csv(tmp_path / "fees.csv", [row(2), row(3)]))
    loop.until(lambda: bulk.stack.currentWidget() is bulk.mapping_step, message="columns")
    press.click(bulk.next)
    loop.until(lambda: bulk.stack.currentWidget() is bulk.check_step, message="dry run")
    press.click(bulk.check_step.create_links)
    outcome = bulk.progress_step.outcome
    loop.until(lambda: outcome.isVisible() and outcome.text(), 60, message="the batch done")
    press.click(bulk.progress_step.batches)
    batches = shown_window(loop, "batches-window")
    loop.until(lambda: batches.rows_model.rowCount() == 2, message="the batch's rows")
    found += moved(
        batches,
        lambda: (
            press.click(batches.check_all),
            loop.until(lambda: batches.said.text().startswith(checked(batches)), 30, message="checked"),
        ),
        [batches.said],
        "the Batches window's message appeared",
    )
    assert not found, "\n".join(map(str, found))


def test_the_profile_editor_after_check_keys_shows_every_text_whole(app, loop):
    """Item 11: after Check keys, the key fields were squashed to slivers, "key" read "kev"
    (its caption cut at the bottom) and the webhook's help was cut at the top and bottom."""
    from PySide6.QtWidgets import QLabel

    from paydesk.ui.field_message import OK_STYLE

    editor = open_editor(app, loop)
    press.click(editor.check_button)
    wait_over(loop, editor)
    for (mode, kind), field in editor.key_fields.items():
        said = editor.key_messages[(mode, kind)]
        assert said.styleSheet() == OK_STYLE, f"the {mode} {kind} key: {said.text()}"  # said in green: it works
        least = field.edit.minimumSizeHint().height()
        assert field.edit.height() >= least, (
            f"the {mode} {kind} key's field is {field.edit.height()} px high, it needs {least}"
        )
    cut = [
        label.text()
        for label in editor.findChildren(QLabel)
        if label.isVisible() and label.text() and not shows_whole(label)
    ]
    assert cut == [], f"cut: {cut}"
    assert editor.webhook_note.isVisible() and shows_whole(editor.webhook_note)
    within_screen(editor, "the profile editor")


def test_the_terminate_dialogs_error_is_read_whole(app, loop):
    """Item 11: the Terminate dialog's error was cut."""
    from tests.ui.cards.test_wallet import Desk

    desk = Desk(app, loop)
    tab = desk.tab
    _said, card = desk.create("50", "GBP")
    loop.until(lambda: tab.page.record is not None, message="the card's page")
    desk.press(tab.page.buttons["terminate"])
    dialog = desk.dialog("terminate-dialog")
    press.type_into(dialog.last4, "0000")
    press.click(dialog.action)
    message = dialog.last4_message
    loop.until(message.isVisible, message="the error")
    assert message.text() == _("That is not the end of {masked}: type its last four digits to confirm").format(
        masked=card.masked
    )
    assert shows_whole(message), f"{message.text()!r} is cut: {message.width()}×{message.height()} shown"
    within_screen(dialog, "the Terminate dialog")
    press.escape(dialog)


def test_end_of_day_shows_net_without_scrolling_and_refunds_plainly(app, loop):
    """Item 11: End of day's Net column was hidden behind a horizontal scroll bar, and
    Refunded read "1: 45.00" (one payment refunded, 45.00 given back)."""
    kept = create_link(app, loop, amount="40")
    back = create_link(app, loop, amount="45")
    pay(app, loop, kept)
    pay(app, loop, back)
    helpers.control(
        app.session.profile.base_url,
        loop.run(app.session.key()),
        f"transactions/{back.reference}/status",
        {"status": "refunded"},
    )
    from PySide6.QtCore import Qt

    window = app.window
    to_tab(window, "transactions")
    press.click(window.transactions_tab.end_of_day)
    dialog = shown_window(loop, "end-of-day")
    table = dialog.totals
    loop.until(lambda: dialog.figures["Refunded or reversed"].text() == "1", timeout=30, message="the refund counted")
    model = table.model()
    loop.until(lambda: model.rowCount() == 1, message="totals")
    settle()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[4:] == [_("Refunded"), _("Net")]
    refunded = ngettext("{amount} ({count} payment)", "{amount} ({count} payments)", 1)
    assert model.index(0, 4).data() == refunded.format(amount="45.00", count=1)
    assert not table.horizontalScrollBar().isVisible(), "the totals scroll sideways"
    viewport = table.viewport().rect()
    for column in range(model.columnCount()):
        cell = table.visualRect(model.index(0, column))
        assert viewport.contains(cell), f"{headers[column]} is not all in view: {cell}"
    within_screen(dialog, "End of day")
    press.click(dialog.close_button)


# -- the states ----------------------------------------------------------------------------


def _seen_across(area, widget) -> bool:
    """Whether ``widget`` lies across the scroll area's viewport, left to right, as it is
    scrolled now (a person reads it without scrolling sideways)."""
    viewport = area.viewport()
    left = widget.mapTo(viewport, widget.rect().topLeft()).x()
    return left >= 0 and left + widget.width() <= viewport.width()


def test_the_details_pane_shows_its_state_and_buttons_without_scrolling_sideways(app, loop):
    """The Transactions details pane at 1024 px scrolled sideways: its state and the Copy
    buttons were cut at its right edge, a long e-mail held it wide."""
    from PySide6.QtWidgets import QScrollArea

    record = create_link(app, loop)
    pay(app, loop, record)
    window = app.window
    to_tab(window, "transactions")
    tab = window.transactions_tab
    loop.until(lambda: tab.loaded and tab.model.rowCount() > 0, message="the list")
    press.click(tab.table.viewport(), pos=tab.table.visualRect(tab.model.index(0, 0)).center())
    details = tab.details
    loop.until(lambda: details.state.text() == _("PAID"), timeout=30, message="PAID")
    settle()
    area = next(a for a in tab.findChildren(QScrollArea) if a.widget() is details)
    bar = area.horizontalScrollBar()
    assert bar.maximum() == bar.minimum(), (
        f"the details scroll sideways: {details.width()} px wide in {area.viewport().width()}"
    )
    shown = [
        details.state,
        details.copy_ref,
        details.copy_service_ref,
        *details.buttons.values(),
        details.values["email"],
        details.values["customer"],
    ]
    hidden = [w.objectName() for w in shown if not _seen_across(area, w)]
    assert hidden == [], f"past the pane's side: {hidden}"
    email = details.values["email"]
    assert email.text() == record.email and shows_whole(email)


def test_counter_shifts_show_an_open_sales_reference_whole(app, loop):
    """Item 2 of the second reading: in the Counter shifts window as it opens, the open
    sales' Reference column sat past the list's right edge (or was cut to a few characters)."""
    from PySide6.QtWidgets import QStyleOptionViewItem

    from tests.ui.layout_states.reach import menu

    counter = counter_tab(app, loop)
    press.type_into(counter.tab.note, LONG_TITLE)
    sale = counter.sell("25")
    window = app.window
    menu(app, loop, window.view_menu, window.counter_shifts_action)
    shifts = shown_window(loop, "counter-shifts-window")
    model, table = shifts.sales_model, shifts.sales
    loop.until(lambda: model.rowCount() > 0, message="the open sale listed")
    settle()
    index = model.index(0, model.headers().index(_("Reference")))
    assert index.data() == sale.tx_ref
    cell = table.visualRect(index)
    assert table.viewport().rect().contains(cell), (
        f"the Reference column at {cell.x()}..{cell.right()} px, the list shows {table.viewport().width()} px"
    )
    option = QStyleOptionViewItem()
    table.initViewItemOption(option)
    option.rect = cell
    need = table.itemDelegateForIndex(index).sizeHint(option, index).width()
    assert need <= cell.width(), f"{sale.tx_ref} needs {need} px, its column has {cell.width()}"
    press.escape(shifts)
