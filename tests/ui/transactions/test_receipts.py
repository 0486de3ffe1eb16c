"""Receipts as a customer reads them, and references drawn as they are (issue 15 §3.9): the
title wraps between words, the e-mail whole, the merchant as customers know it, no fee of
the merchant's; references, keys and URLs in a fixed face without ligatures, on paper (the
PDF read back with pdftotext) and on screen (each widget's font). Widgets are pressed
through tests/ui/press.py only."""

import subprocess
from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from paydesk.ui.fixed_text import is_fixed
from paydesk.ui.transactions.receipt import pdf_bytes
from tests.helpers import need_system
from tests.ui import press

TITLE = "Refurbished espresso machine with a steam wand and two portafilters for the café"
LONG_MAIL = "a.very.long.customer.address.that.goes.on.and.on.and.on@example.com"


def dialog(name):
    return next((w for w in QApplication.topLevelWidgets() if w.objectName() == name and w.isVisible()), None)


def pdf_text(path) -> str:
    pdftotext = need_system("pdftotext", "poppler-utils")
    return subprocess.run([pdftotext, str(path), "-"], capture_output=True, text=True, check=True, timeout=60).stdout


def save_receipt(shop, ref: str, target) -> str:
    """Look ``ref`` up, press Save receipt as PDF…, type the file's path; the PDF's text."""
    press.tab(shop.window.tabs, "Transactions")
    press.type_into(shop.tab.lookup_box, ref)
    press.enter(shop.tab.lookup_box)
    details = shop.tab.details
    shop.loop.until(
        lambda: (
            details.values["tx_ref"].text() == ref
            and details.state.text() == "PAID"
            and details.values["fee"].text() != "not known"
        ),
        message="the paid payment and its fee",
    )
    press.click(details.buttons["receipt-pdf"])
    shop.loop.until(lambda: dialog("save-dialog") is not None, message="the save dialog")
    name = dialog("save-dialog").findChild(QLineEdit, "fileNameEdit")
    press.type_into(name, str(target))
    press.enter(name)
    shop.loop.until(lambda: target.exists() and target.stat().st_size > 1000, message="the PDF")
    return pdf_text(target)


def test_a_receipt_wraps_between_words_and_keeps_the_merchants_fee_private(strict_shop, tmp_path):
    """Regression: "espresso mac / hine", a ">" alone on a line, and the merchant's own fee
    shown to the customer."""
    shop = strict_shop
    made = shop.create("SHOP-RCPT-W", amount=42, title=TITLE, email=LONG_MAIL)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    text = save_receipt(shop, "SHOP-RCPT-W", tmp_path / "receipt.pdf")
    fee = shop.tab.details.values["fee"].text()  # e.g. "GBP 0.79": the merchant's business
    words = text.split()
    assert all(word in words for word in TITLE.split()), text  # no word broken
    lines = [line.strip() for line in text.splitlines()]
    assert ">" not in lines and "<" not in text
    assert LONG_MAIL in "".join(words)  # all of it, wrapped only where it must
    assert "Fee" not in text and fee not in text and fee.split()[-1] not in words


def test_a_receipt_names_the_merchant_as_customers_know_it(strict_shop, tmp_path):
    """Regression: the receipt named the profile ("Sandbox"), not the merchant."""
    shop = strict_shop
    press.tab(shop.window.tabs, "Payment links")
    press.key(shop.window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    shop.loop.until(lambda: dialog("profile-editor") is not None, message="the profile editor")
    editor = dialog("profile-editor")
    field = editor.findChild(QLineEdit, "profile-merchant-name")
    assert field.placeholderText() == "Corner Shop"  # empty: the profile's name
    press.type_into(field, "Corner Shop Coffee Ltd")
    press.click(editor.save_button)
    shop.loop.until(lambda: dialog("profile-editor") is None, timeout=30, message="the profile saved")
    assert shop.session.profile.merchant_name == "Corner Shop Coffee Ltd"
    made = shop.create("SHOP-RCPT-M", amount=42)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    text = save_receipt(shop, "SHOP-RCPT-M", tmp_path / "merchant.pdf")
    assert "Corner Shop Coffee Ltd" in text


def test_references_print_without_ligatures(strict_shop, tmp_path):
    """Regression: test_a_receipt_as_pdf failed whenever the service reference held "ff":
    pdftotext read "cﬀb" (one ligature glyph) where the receipt meant "cffb"."""
    shop = strict_shop
    made = shop.create("SHOP-office-waffle-fifl", amount=12)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    record = replace(shop.lookup("SHOP-office-waffle-fifl").record, reference="PDK-cffb-affi-offl-fj")
    target = tmp_path / "ligatures.pdf"
    target.write_bytes(pdf_bytes(record, "Corner Shop", test=True))
    words = pdf_text(target).split()
    assert "SHOP-office-waffle-fifl" in words and "PDK-cffb-affi-offl-fj" in words
    assert not any(ch in "".join(words) for ch in "\ufb00\ufb01\ufb02\ufb03\ufb04")


def test_references_keys_and_urls_are_drawn_in_the_fixed_face_everywhere(strict_shop):
    from paydesk.ui.profile_editor import ProfileEditor

    shop = strict_shop
    made = shop.create("SHOP-FONT-1")
    window = shop.window
    tab = shop.tab
    shop.loop.until(lambda: tab.model.row_of(made.key) is not None, message="the row")
    model = tab.model
    fonts = {
        "lookup box": tab.lookup_box.font(),
        "ledger reference column": model.data(model.index(model.row_of(made.key), 0), Qt.ItemDataRole.FontRole),
        "details reference": tab.details.values["tx_ref"].font(),
        "details service reference": tab.details.values["reference"].font(),
        "links form reference": window.links_tab.form.tx_ref.font(),
        "links form callback URL": window.links_tab.form.callback_url.font(),
        "links panel reference": window.links_tab.panel.reference.font(),
        "card number": window.cards_tab.page.secret.number.font(),
        "card security code": window.cards_tab.page.secret.code.font(),
        "card notification URL": window.cards_tab.page.values["callback"].font(),
    }
    recent = window.links_tab.recent.model()
    shop.loop.until(lambda: recent.rowCount() > 0, message="the recent list")
    fonts["recent links reference"] = recent.data(recent.index(0, 0), Qt.ItemDataRole.FontRole)
    editor = ProfileEditor(shop.session, shop.profile, window)
    try:
        for (mode, kind), key_field in editor.key_fields.items():
            fonts[f"{mode} {kind} key"] = key_field.edit.font()
        fonts["service address"] = editor.url.font()
    finally:
        editor.deleteLater()
    plain = [name for name, font in fonts.items() if font is None or not is_fixed(font)]
    assert plain == [], f"drawn with ligatures or shaping: {plain}"
    # and the fixed face is not the ordinary one: it tells 0 from O and 1 from l
    assert tab.lookup_box.font().family() != tab.count.font().family()
    assert not is_fixed(tab.count.font())


def test_a_long_reference_prints_on_one_line(strict_shop, tmp_path):
    """A reference is never broken (issue 28, item 14), on paper too: a finance file's own
    reference, longer than the receipt's line, printed whole on one line (smaller), not
    wrapped at its last characters."""
    shop = strict_shop
    long_ref = "INV-2025-SPRING-TERM-FEES-YEAR7-PARENT-GUARDIAN-00003"
    made = shop.create(long_ref, amount=42)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    text = save_receipt(shop, long_ref, tmp_path / "long.pdf")
    lines = [line.strip() for line in text.splitlines()]
    assert lines.count(long_ref) == 2, text  # beside "Reference", and under the code
    assert made.reference in lines, text


def test_a_receipt_is_in_the_customers_language(strict_shop, tmp_path):
    """Issue 33: the profile's customer language on paper; the staff's window stays English."""
    shop = strict_shop
    press.tab(shop.window.tabs, "Payment links")
    press.key(shop.window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    shop.loop.until(lambda: dialog("profile-editor") is not None, message="the profile editor")
    editor = dialog("profile-editor")
    press.choose(editor.counter.customer_language, "Français")
    press.click(editor.save_button)
    shop.loop.until(lambda: dialog("profile-editor") is None, timeout=30, message="the profile saved")
    made = shop.create("SHOP-RCPT-FR", amount=1500)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    text = save_receipt(shop, "SHOP-RCPT-FR", tmp_path / "recu.pdf")
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    assert "Reçu de paiement — TEST" in lines
    for label in ("Commerçant", "Client", "Montant", "État", "Payé le", "Lien créé le", "Référence"):
        assert any(line.startswith(label) for line in lines), (label, lines)
    assert "1 500,00 GBP" in " ".join(text.split()).replace("\u202f", " ").replace("\u00a0", " ")
    assert "PAYÉ" in text and "Scanner pour retrouver le paiement" in text
    assert "SHOP-RCPT-FR" in text.split()
    assert shop.tab.details.state.text() == "PAID"  # the staff's words stay the staff's
