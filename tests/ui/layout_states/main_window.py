"""The layout audit's states of the main window: each tab empty and filled, long names and
a long status message, the profile editor, the link form with every field's message, a link
on screen, Transactions with its dialogs, the settings and confirmations, the first run."""

from __future__ import annotations

from paydesk.i18n import _
from tests.ui import press
from tests.ui.layout_states.reach import (
    QT_DIALOG,
    create_link,
    fill_link,
    menu,
    messages_of,
    open_editor,
    pay,
    rename_profile,
    shown_window,
    wait_over,
)


def test_main_window_tabs(app, loop, seen):
    window = app.window
    for title in ("Payment links", "Transactions", "Cards", "Counter"):
        press.tab(window.tabs, title)
        seen.look(window, f"the {title} tab, empty")


# -- helpers: reaching a window as a user does -------------------------------------------


def test_long_names_and_status_message(app, loop, seen):
    rename_profile(app, loop)
    window = app.window
    for title in ("Payment links", "Transactions", "Cards", "Counter"):
        press.tab(window.tabs, title)
        seen.look(window, f"the {title} tab, a long profile name and status message")


def test_profile_editor(app, loop, seen):
    editor = open_editor(app, loop)
    seen.look(editor, "the profile editor, as opened")
    press.click(editor.check_button)
    wait_over(loop, editor)
    seen.look(editor, "the profile editor after Check keys")
    # every field's message: each field wrong, then Save
    for field, typed in (
        (editor.name, " "),
        (editor.currencies, "pounds"),
        (editor.card_codes, "12=POUNDS"),
        (editor.prefix, "TOO-LONG-PREFIX"),
        (editor.callback_default, "nowhere"),
        (editor.return_default, "nowhere"),
        (editor.counter.walk_in, "W" * 120),
        (editor.counter.shop_email, "shop"),
        (editor.counter.logo, "/no/such/logo.png"),
    ):
        press.type_into(field, typed)
    for field in editor.key_fields.values():
        press.type_into(field.edit, "sk_test_not_a_key_" + "x" * 40)
    press.type_into(editor.webhook.edit, "whsec_" + "x" * 40)
    messages = [m for m in editor.findChildren(type(editor.name_message))]

    def check_keys():
        press.click(editor.check_button)
        wait_over(loop, editor)

    seen.steady(editor, check_keys, messages, "Check keys said what is wrong")
    seen.look(editor, "the profile editor with its messages")
    press.click(editor.save_button)
    wait_over(loop, editor)
    seen.look(editor, "the profile editor after Save, every field wrong")
    press.click(editor.cancel_button)


def test_links_form_with_every_message(app, loop, seen):
    window, form = app.window, app.window.links_tab.form
    said = [*messages_of(form), form.why_disabled]  # the field's, and why Create is disabled
    seen.steady(window, lambda: press.type_into(form.amount, "12.5"), said, "the Amount's message appears")
    seen.steady(window, lambda: press.type_into(form.amount, "12"), said, "the Amount's message clears")
    for field, typed in (
        (form.amount, "12.5"),
        (form.email, "not an address"),
        (form.first_name, "F" * 101),
        (form.last_name, "L" * 101),
        (form.title, "T" * 101),
        (form.description, "D" * 256),
        (form.logo, "logo.png"),
        (form.callback_url, "callback"),
        (form.return_url, "return"),
        (form.tx_ref, "not a reference!"),
    ):
        press.type_into(field, typed)
    press.click(form.meta.add_button)
    press.click(form.meta.add_button)
    seen.look(window, "the link form with every field's message")


def test_a_link_on_screen(app, loop, seen):
    rename_profile(app, loop)
    record = create_link(app, loop)
    window = app.window
    loop.until(lambda: window.links_tab.panel.record is not None, message="the link shown")
    seen.look(window, "a link's QR code on screen, long names")
    pay(app, loop, record)
    loop.until(lambda: window.links_tab.panel.state.text() == _("PAID"), timeout=30, message="PAID")
    seen.look(window, "a paid link on screen")


def test_transactions(app, loop, seen, tmp_path):
    record = create_link(app, loop)
    pay(app, loop, record)
    window = app.window
    press.tab(window.tabs, "Transactions")
    tab = window.transactions_tab
    loop.until(lambda: tab.loaded and tab.model.rowCount() > 0, message="the list")
    index = tab.model.index(0, 0)
    press.click(tab.table.viewport(), pos=tab.table.visualRect(index).center())
    loop.until(lambda: tab.details.record is not None, message="the details")
    loop.until(lambda: tab.details.state.text() == _("PAID"), timeout=30, message="PAID")
    seen.look(window, "Transactions, a paid link's details")
    press.click(tab.details.details)
    seen.look(window, "Transactions, the service's answer shown")
    # End of day
    press.click(tab.end_of_day)
    dialog = shown_window(loop, "end-of-day")
    loop.until(lambda: dialog.totals.model().rowCount() > 0, timeout=30, message="the figures")
    seen.look(dialog, "End of day")
    press.click(dialog.close_button)
    # Export…: Qt's save dialog
    press.click(tab.export_button)
    save = shown_window(loop, "save-dialog")
    seen.look(save, "the export's save dialog", checks=QT_DIALOG)
    press.escape(save)
    # a receipt: Qt's print dialog, and the save dialog of Save receipt as PDF…
    press.click(tab.details.buttons["receipt-pdf"])
    save = shown_window(loop, "save-dialog")
    seen.look(save, "the receipt's save dialog", checks=QT_DIALOG)
    press.escape(save)
    press.click(tab.details.buttons["receipt-print"])
    printing = shown_window(loop, "print-dialog")
    seen.look(printing, "the receipt's print dialog", checks=QT_DIALOG)
    press.escape(printing)
    # the Look up box's message, said as a reference is mistyped
    seen.steady(
        window,
        lambda: press.type_into(tab.lookup_box, "not a reference!"),
        messages_of(tab),
        "the Look up's message appears",
    )
    seen.look(window, "Transactions, a mistyped reference")
    seen.steady(window, lambda: press.type_into(tab.lookup_box, ""), messages_of(tab), "the Look up's message clears")
    press.type_into(tab.lookup_box, "NO-SUCH-REFERENCE")
    press.enter(tab.lookup_box)
    loop.until(tab.lookup_message.isVisible, message="the look-up's message")
    seen.look(window, "Transactions, a look-up that found nothing")
    press.click(tab.check_all)
    loop.until(lambda: tab.work.report.text(), timeout=60, message="Check all open")
    seen.look(window, "Transactions after Check all open")


def test_settings_and_confirmations(app, loop, seen):
    window = app.window
    menu(app, loop, window.settings_menu, window.shared_ledger_action)
    dialog = shown_window(loop, "shared-ledger")
    seen.look(dialog, "Shared ledger, as opened")
    press.type_into(dialog.url, "postgresql://paydesk@ledger.shop.lan/paydesk")
    seen.steady(
        dialog,
        lambda: (press.click(dialog.save_button), loop.until(dialog.url_message.isVisible, message="the message")),
        messages_of(dialog),
        "the ledger address's message appears",
    )
    seen.look(dialog, "Shared ledger, an address refused")
    press.click(dialog.cancel_button)
    # For your website…
    fill_link(window.links_tab.form)
    press.click(window.links_tab.website)
    loop.until(
        lambda: getattr(window.links_tab, "snippets", None) is not None and window.links_tab.snippets.isVisible(),
        message="the snippets",
    )
    seen.look(window.links_tab.snippets, "For your website")
    press.escape(window.links_tab.snippets)
    # Switch to live mode?
    press.click(window.mode_button)
    box = shown_window(loop, "confirm-live")
    seen.look(box, "Switch to LIVE mode?")
    press.click(press.button(box, _("Switch to live")))
    loop.until(lambda: window.mode_button.text() == _("Switch to test mode"), message="the window in live mode")
    seen.look(window, "the main window in live mode")


def test_first_run(start_app, loop, seen):
    app = start_app()
    dialog = shown_window(loop, "first-run")
    seen.look(dialog, "the first-run dialog")
    press.enter(dialog)
    app.wait_started()
