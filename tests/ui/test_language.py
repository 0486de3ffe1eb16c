"""The shop's languages: Settings → Language for the staff (from the next start, Qt's own
dialogs included), and the profile's customer language on the customer's screen."""

from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox, QMessageBox

from tests.ui import press
from tests.ui.counter.conftest import SHOP_EMAIL, Counter


def _language_menu(app, loop):
    """Settings, then Language, clicked open as a person opens them: the submenu."""
    window = app.window
    bar, settings = window.menuBar(), window.settings_menu
    press.click(bar, pos=bar.actionGeometry(settings.menuAction()).center())
    loop.until(settings.isVisible, message="the Settings menu")
    item = next(a for a in settings.actions() if a.menu() is not None and a.menu().objectName() == "language-menu")
    press.click(settings, pos=settings.actionGeometry(item).center())
    submenu = item.menu()
    loop.until(submenu.isVisible, message="the Language menu")
    return item, submenu


def _choose(app, loop, name: str) -> None:
    _item, submenu = _language_menu(app, loop)
    action = next(a for a in submenu.actions() if a.text() == name)
    press.click(submenu, pos=submenu.actionGeometry(action).center())
    loop.until(lambda: not submenu.isVisible(), message="the menu closed")


def test_french_chosen_in_the_menu_is_the_window_language_from_the_next_start(start_app, loop, paths):
    app = start_app(sandbox=True)
    app.wait_started()
    item, submenu = _language_menu(app, loop)
    assert item.text() == "&Language"
    assert "next start" in " ".join(a.text() for a in submenu.actions())
    assert [a.text() for a in submenu.actions() if a.isChecked()] == ["The system's language"]
    press.escape(submenu)
    press.escape(app.window.settings_menu)
    _choose(app, loop, "Français")
    loop.until(lambda: '"language": "fr"' in paths.profiles.read_text(), message="the choice saved")
    assert app.window.settings_menu.title() == "&Settings"  # this run stays in English
    assert app.close() == 0

    again = start_app(sandbox=True)
    again.wait_started()
    item, submenu = _language_menu(again, loop)
    assert item.text() == "&Langue"
    assert [a.text() for a in submenu.actions() if a.isChecked()] == ["Français"]
    assert "prochain démarrage" in " ".join(a.text() for a in submenu.actions())
    press.escape(submenu)
    press.escape(again.window.settings_menu)
    assert again.window.transactions_tab.filters.state.itemText(0) == "Tous les états"
    # Qt's own words in its standard dialogs
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    assert buttons.button(QDialogButtonBox.StandardButton.Cancel).text().replace("&", "") == "Annuler"
    box = QMessageBox()
    box.setStandardButtons(QMessageBox.StandardButton.Yes)
    assert box.button(QMessageBox.StandardButton.Yes).text().replace("&", "") == "Oui"
    _choose(again, loop, "La langue du système")
    loop.until(lambda: '"language"' not in again.session.file.path.read_text(), message="back to the system's")
    assert again.close() == 0

    third = start_app(sandbox=True)
    third.wait_started()
    item, _submenu = _language_menu(third, loop)
    assert item.text() == "&Language"  # the test's system language is English (LANG unset or C)
    third.close()


def test_the_customer_reads_the_profile_customer_language(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    press.click(app.window.edit_profile)
    loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor = press.shown("profile-editor")
    combo = editor.counter.customer_language
    assert combo.accessibleName() == "Customer language" and combo.currentText() == "English"
    press.type_into(editor.counter.shop_email, SHOP_EMAIL)
    press.choose(combo, "Français")
    press.click(editor.save_button)
    loop.until(lambda: press.shown("profile-editor") is None, timeout=30, message="the editor to close")
    assert app.session.profile.customer_language == "fr"

    press.tab(app.window.tabs, "Counter")
    counter = Counter(app, loop)
    loop.until(lambda: counter.tab.loaded, message="the Counter tab loaded")
    press.click(counter.tab.place.toggle)
    view = counter.view
    sale = counter.sell("7")
    loop.until(lambda: view.words.text() == "EN ATTENTE DE PAIEMENT", message="the customer's words in French")
    assert view.words.accessibleName() == "État\u00a0: EN ATTENTE DE PAIEMENT"
    assert counter.tab.mirror.state.text() == "WAITING FOR PAYMENT"  # the staff's stay English
    counter.pay(sale)
    loop.until(lambda: view.phase == "paid", message="paid")
    assert view.words.text() == "Payé"
    loop.until(lambda: view.phase == "thanks", message="thanks")
    assert view.words.text() == "Merci"
    app.close()


def test_a_refusal_the_desk_says_reads_in_french_when_french_is_chosen(start_app, loop):
    """The link form's reference, mistyped: the check is the service layer's sentence (which
    imports no words), said in French beside the field, and nothing can be created."""

    app = start_app(sandbox=True, language="fr")
    app.wait_started()
    loop.until(lambda: app.window.links_tab.loaded, message="the links tab")
    form = app.window.links_tab.form
    ref = form.tx_ref.text()  # PayDesk's own: its last characters check the rest
    typo = ref[:-1] + next(c for c in "XYZ" if c != ref[-1])
    press.type_into(form.tx_ref, typo)
    message = form.messages["tx_ref"]
    assert message.isVisible()
    assert message.text() == "Cette référence n’est pas valide (une faute de frappe)\u00a0: vérifiez chaque caractère"
    assert not form.create_button.isEnabled()
    assert app.close() == 0
