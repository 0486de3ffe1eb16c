"""What the first real session found on the Payment links tab, profiles and start-up (issue 15,
section 3: defects 3, 12 and the rough edges), each pressed as a user would, against the
embedded sandbox over real HTTP. (Defect 2, one Enter at the counter making one link, moved
with the counter to its own tab: tests/ui/counter.)"""

import subprocess
from pathlib import Path

from PySide6.QtCore import QStandardPaths, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLineEdit, QPushButton

from paydesk.ui.profile_editor import ProfileEditor
from tests.helpers import need_system
from tests.profiles import TEST_SECRET, use_profile
from tests.ui import press
from tests.ui.test_links import control, decode_qr

CUSTOMER = dict(
    amount="25",
    email="ada@example.com",
    first_name="Ada",
    last_name="Lovelace",
    title="Flat white",
    description="Large, oat milk",
)


def type_form(tab, **values):
    """Type the customer's details into the link form, key by key."""
    for key, text in {**CUSTOMER, **values}.items():
        press.type_into(getattr(tab.form, key), text)


def green_pixels(widget) -> int:
    image = widget.grab().toImage()
    return sum(
        1
        for y in range(0, image.height(), 2)
        for x in range(0, image.width(), 2)
        if (c := image.pixelColor(x, y)).green() > c.red() + 60
    )


# -- defect 3: a new profile opens in test mode -----------------------------------------------


def test_a_profile_added_while_live_opens_in_test_mode(start_app, loop, sandbox):
    """Regression: a profile added while in live mode (with test keys only) landed in live."""
    app = start_app(sandbox=True).on_links_tab()
    window = app.window
    # the desk was in live mode: switched with the mode button, and its confirmation
    task = press.click_starting(window.mode_button, "mode")
    loop.until(lambda: press.shown("confirm-live") is not None, message="the confirmation")
    press.click(press.button(press.shown("confirm-live"), "Switch to live"))
    loop.until(task.done, message="the switch")
    assert task.result() is True and app.session.mode == "live"
    assert window.live_banner.isVisible()
    press.click(window.add_profile)
    loop.until(
        lambda: isinstance(getattr(window, "editor", None), ProfileEditor) and window.editor.isVisible(),
        message="the profile editor",
    )
    editor = window.editor
    press.type_into(editor.name, "Coffee shop")
    press.type_into(editor.url, sandbox.base_url)
    press.type_into(editor.key_fields[("test", "secret")].edit, sandbox.key("test"))
    press.type_into(editor.key_fields[("test", "public")].edit, sandbox.key("test", "public"))
    press.click(editor.save_button)
    loop.until(lambda: app.session.profile.name == "Coffee shop", timeout=30, message="the new profile")
    assert app.session.mode == "test"
    assert window.banner.isVisible() and not window.live_banner.isVisible()
    assert window.windowTitle() == "PayDesk — Coffee shop — TEST"


# -- defect 12: typing goes to the tab's first field ------------------------------------------


def test_typing_right_after_start_goes_to_the_first_field_not_the_profile_box(start_app, loop, sandbox):
    """Regression: focus started in the Profile box, so typing at once switched profiles."""
    first = start_app(sandbox=True).on_links_tab()
    use_profile(loop, first.session, sandbox, name="Zeta shop", keys=TEST_SECRET, activate=False)
    assert first.close() == 0

    app = start_app(sandbox=True).on_links_tab()
    window = app.window
    tab = window.links_tab
    assert window.focusWidget() is tab.form.amount
    press.key(window.focusWidget(), Qt.Key.Key_Z)  # what a user typing at once types into
    press.key(window.focusWidget(), Qt.Key.Key_2)
    assert app.session.profile.name == "Sandbox"
    assert tab.form.amount.text() == "z2"

    bar = window.tabs.tabBar()
    press.click(bar, pos=bar.tabRect(1).center())  # Transactions
    assert window.focusWidget() is window.transactions_tab.lookup_box
    press.click(bar, pos=bar.tabRect(0).center())
    assert window.focusWidget() is tab.form.amount
    assert app.session.profile.name == "Sandbox"


# -- rough edges ------------------------------------------------------------------------------


def test_a_paid_code_is_dimmed_and_marked_paid(start_app, loop):
    app = start_app(sandbox=True).on_links_tab()
    tab = app.window.links_tab
    type_form(tab)
    press.click(tab.form.create_button)
    loop.until(lambda: tab.panel.record is not None and tab.panel.record.state == "pending", message="the link")
    record = tab.panel.record
    assert decode_qr(tab.panel.qr) == [record.checkout_url]
    control(app, f"pay/{record.reference}", {"outcome": "success"})
    loop.until(lambda: tab.panel.state.text() == "PAID", timeout=30, message="PAID on screen")
    qr = tab.panel.qr
    assert decode_qr(qr) == []  # nobody scans a code that can no longer be paid
    assert "PAID" in qr.accessibleName()
    assert green_pixels(qr) > 50  # the word PAID, in green, across the code


def test_copy_and_save_say_when_done_and_save_starts_in_documents(start_app, loop, tmp_path):
    app = start_app(sandbox=True).on_links_tab()
    tab = app.window.links_tab
    type_form(tab)
    press.click(tab.form.create_button)
    loop.until(lambda: tab.panel.record is not None and tab.panel.record.checkout_url, message="the link")
    panel = tab.panel
    press.click(panel.buttons["copy-link"])
    assert QGuiApplication.clipboard().text() == panel.record.checkout_url
    assert panel.outcome.text() == "Link copied to the clipboard"
    assert app.window.last_call.text() == "Link copied to the clipboard"
    press.click(panel.buttons["copy-qr"])
    assert panel.outcome.text() == "QR image copied to the clipboard"

    documents = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation))
    documents.mkdir(parents=True, exist_ok=True)
    task = press.click_starting(panel.buttons["save-png"])
    loop.until(lambda: press.modal() is not None and press.modal().isVisible(), message="the save dialog")
    dialog = press.modal()
    assert Path(dialog.directory().absolutePath()) == documents  # not the working folder
    target = tmp_path / "till.png"
    name_box = dialog.findChild(QLineEdit, "fileNameEdit")
    press.type_into(name_box, str(target))
    press.enter(name_box)
    loop.until(task.done, message="the save")
    assert task.result() == str(target)
    assert panel.outcome.text() == f"Saved PNG to {target}" and target.stat().st_size > 200
    # the next one opens where the last was saved
    task = press.click_starting(panel.buttons["save-svg"])
    loop.until(lambda: press.modal() is not None and press.modal().isVisible(), message="the second save dialog")
    second = press.modal()
    assert Path(second.directory().absolutePath()) == tmp_path
    press.escape(second)
    loop.until(task.done, message="the save's task to end (nothing saved)")
    assert task.result() is None and press.closed(second)
    assert panel.outcome.text() == f"Saved PNG to {target}"


def test_the_printed_code_carries_a_test_mark_in_test_mode(start_app, loop, tmp_path):
    pdftotext = need_system("pdftotext", "poppler-utils")
    app = start_app(sandbox=True).on_links_tab()
    tab = app.window.links_tab
    type_form(tab)
    press.click(tab.form.create_button)
    loop.until(lambda: tab.panel.record is not None and tab.panel.record.checkout_url, message="the link")
    press.click(tab.panel.buttons["print"])
    loop.until(
        lambda: getattr(tab.panel, "print_dialog", None) is not None and tab.panel.print_dialog.isVisible(),
        message="Qt's print dialog",
    )
    dialog = tab.panel.print_dialog
    pdf = tmp_path / "code.pdf"
    # Qt's own dialog, answered as a user prints to a PDF file (Print to File (PDF))
    press.print_to_file(dialog, pdf)
    # where the file went, not "Sent to the printer" (issue 28, item 15)
    loop.until(lambda: tab.panel.outcome.text() == f"Printed to a PDF file: {pdf}", message="printing")
    assert pdf.read_bytes().startswith(b"%PDF")
    text = subprocess.run([pdftotext, str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "TEST" in text and "not a real payment" in text
    assert tab.panel.record.tx_ref in text


def test_the_website_snippet_is_a_template_filled_per_order(start_app, loop):
    app = start_app(sandbox=True).on_links_tab()
    tab = app.window.links_tab
    type_form(tab)
    typed_ref = tab.form.tx_ref.text()
    task = press.click_starting(tab.website)
    loop.until(
        lambda: getattr(tab, "snippets", None) is not None and tab.snippets.isVisible(), message="the snippets dialog"
    )
    dialog = tab.snippets
    for key in ("form", "inline"):
        text = dialog.texts[key].toPlainText()
        for placeholder in (
            "{{ORDER_REFERENCE}}",
            "{{AMOUNT}}",
            "{{CUSTOMER_EMAIL}}",
            "{{CUSTOMER_FIRST_NAME}}",
            "{{CUSTOMER_LAST_NAME}}",
        ):
            assert placeholder in text, (key, placeholder)
        # no one order's values: not the reference, the customer, nor the amount typed
        for value in (typed_ref, "ada@example.com", "Lovelace", '"25"'):
            assert value not in text, (key, value)
        assert "Flat white" in text  # the merchant's own title stays
    from PySide6.QtWidgets import QLabel

    explanation = dialog.findChild(QLabel, "snippet-explanation")
    assert explanation.isVisible() and "every order" in explanation.text()
    press.click(dialog.findChild(QPushButton, "copy-inline"))
    assert QGuiApplication.clipboard().text() == dialog.texts["inline"].toPlainText()
    assert dialog.outcome.text() == "Copied the inline checkout to the clipboard"
    press.escape(dialog)
    loop.until(task.done, message="show_snippets' task to end")
    assert press.closed(dialog)


def test_where_an_amount_is_typed_it_says_whole_units(start_app, loop):
    app = start_app(sandbox=True).on_links_tab()
    tab = app.window.links_tab
    assert tab.form.units.isVisible() and "no pence" in tab.form.units.text()
