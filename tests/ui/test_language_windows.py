"""The main window, its Payment links tab and the Notifications window in French: menus,
the four tabs (the tab "Counter" is the till, "Caisse", never the role "Caissier"), the
link on screen with its amount as French writes it, and the QR code of a paid link marked
in green whatever the words say."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel, QLineEdit

from tests.ui import press
from tests.ui.test_links import control, create, fill
from tests.ui.transactions.test_receipts import pdf_text

NBSP = "\u00a0"
NNBSP = "\u202f"  # French groups thousands with a narrow no-break space


@pytest.fixture
def french(start_app, qapp):
    """PayDesk started in French (--language fr); English again after (tests/ui/conftest.py)."""
    app = start_app(sandbox=True, language="fr")
    app.on_links_tab()
    yield app


def _menu_titles(window) -> list[str]:
    return [a.text() for a in window.menuBar().actions() if a.isVisible()]


def _greens(image: QImage) -> int:
    """How many pixels of the paid green (#1b7f3b) the image holds (the words' strokes)."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    found = 0
    for y in range(0, image.height()):
        for x in range(0, image.width()):
            colour = image.pixelColor(x, y)
            if colour.green() > 100 and colour.red() < 70 and colour.blue() < 100:
                found += 1
    return found


def test_the_main_window_in_french(french, loop):
    window = french.window
    assert _menu_titles(window) == ["&Paramètres", "&Liens", "&Affichage"]
    assert [a.text() for a in window.view_menu.actions()] == [
        "&Notifications…",
        "Sessions de &caisse…",
        "Lo&ts…",
        "&Activité…",
    ]
    assert [a.text() for a in window.settings_menu.actions() if a.menu() is None] == [
        "&Registre partagé…",
        "&Personnel…",
    ]
    bar = window.tabs.tabBar()
    # the tab is the till ("Caisse"), not the person at it (the role "Caissier")
    assert [bar.tabText(i) for i in range(bar.count())] == ["Liens de paiement", "Transactions", "Cartes", "Caisse"]
    french.loop.until(lambda: window.built_tabs == {"links", "transactions", "cards", "counter"}, message="the tabs")
    # each tab said as its title reads
    assert [window.tabs.widget(i).accessibleName() for i in range(bar.count())] == [
        "Liens de paiement",
        "Transactions",
        "Cartes",
        "Caisse",
    ]
    assert window.mode_button.text() == "Passer en mode réel"
    assert window.edit_profile.text() == "Modifier le profil…" and window.add_profile.text() == "Ajouter un profil…"
    assert window.banner.text().startswith(f"MODE TEST{NBSP}: rien ici n’est de l’argent réel.")
    assert window.windowTitle().endswith(" — TEST") and window.where.accessibleDescription().endswith(", mode test")

    tab = window.links_tab
    assert tab.website.text() == "Pour votre site web…" and tab.bulk.text() == "Liens par lot…"
    assert [b.text() for b in tab.panel.buttons.values()] == [
        "Copier le lien",
        "Copier l’image du QR code",
        "Enregistrer en PNG…",
        "Enregistrer en SVG…",
        "Imprimer…",
        "Ouvrir dans le navigateur",
    ]
    model = tab.recent.model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["Référence", "Montant", "Objet", "État", "Créé le"]

    fill(tab, amount="1500")
    tx_ref = tab.form.tx_ref.text()
    record = create(tab, loop)
    assert record is not None, tab.form.why_disabled.text()
    assert window.last_call.text() == f"Lien {tx_ref} créé"  # what the status bar says
    panel = tab.panel
    assert panel.state.text() == "EN ATTENTE DE PAIEMENT"
    assert panel.amount.text() == f"1{NNBSP}500,00{NBSP}GBP"  # as French writes an amount
    assert panel.reference.text() == f"Référence {tx_ref}"
    assert panel.qr.accessibleName() == "QR code du lien de paiement"
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == tx_ref)
    assert model.index(row, 1).data() == f"1{NNBSP}500,00{NBSP}GBP"
    created = model.index(row, 4).data()
    assert created.split(" ")[1].rstrip(".") in (
        "janv",
        "févr",
        "mars",
        "avr",
        "mai",
        "juin",
        "juil",
        "août",
        "sept",
        "oct",
        "nov",
        "déc",
    ), created

    control(french, f"pay/{record.reference}", {"outcome": "success"})
    loop.until(lambda: panel.state.text() == "PAYÉ", timeout=30, message="the panel to say PAYÉ")
    assert panel.qr.accessibleName() == f"QR code du lien de paiement{NBSP}: PAYÉ, ne peut plus être payé"
    # paid: the words across the code in green, as in English (not the red of a failure)
    assert _greens(panel.qr.grab().toImage()) > 20


def test_the_notifications_window_in_french(french, loop):
    window = french.window
    bar, view = window.menuBar(), window.view_menu
    press.click(bar, pos=bar.actionGeometry(view.menuAction()).center())
    loop.until(view.isVisible, message="the Affichage menu")
    item = next(a for a in view.actions() if a.objectName() == "notifications-action")
    press.click(view, pos=view.actionGeometry(item).center())
    loop.until(lambda: window.notifications_window is not None and window.notifications_window.isVisible())
    notes = window.notifications_window
    assert notes.windowTitle() == "Notifications — PayDesk"
    assert [notes.verdict.itemText(i) for i in range(notes.verdict.count())][:3] == [
        "Tous les verdicts",
        "En attente",
        "Appliquée",
    ]
    assert notes.test_button.text() == "Envoyer une notification de test"
    assert notes.search.placeholderText() == "référence ou événement"
    model = notes.model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["Heure", "Référence", "Événement", "Verdict", "Profil / mode", "Détail"]
    loop.until(lambda: notes.offered is not None and notes.test_button.isEnabled(), 30, message="the test offered")
    press.click(notes.test_button)
    loop.until(lambda: notes.outcome is not None, 60, message="the test notification")
    assert notes.result.text().startswith(f"Les notifications fonctionnent{NBSP}: PAYÉ en "), notes.result.text()
    loop.until(lambda: notes.model.rowCount() > 0, message="the notification listed")
    assert model.index(0, 3).data() == "Appliquée" and model.index(0, 4).data().endswith(" · TEST")
    loop.until(lambda: notes.count.text() == "1 notification", message="the count, in French")


def test_a_link_printed_from_the_tab_is_in_the_customer_language(start_app, loop, tmp_path):
    """The staff read English; the profile's customer reads French: the page a customer scans
    (the link's QR code printed from the Payment links tab) is in French."""
    app = start_app(sandbox=True)
    app.on_links_tab()
    window = app.window
    press.click(window.edit_profile)
    loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor = press.shown("profile-editor")
    press.choose(editor.counter.customer_language, "Français")
    press.click(editor.save_button)
    loop.until(lambda: press.shown("profile-editor") is None, timeout=30, message="the editor to close")
    assert app.session.profile.customer_language == "fr"

    tab = window.links_tab
    fill(tab, amount="1500")
    record = create(tab, loop)
    assert record is not None, tab.form.why_disabled.text()
    assert tab.panel.amount.text() == "GBP 1,500.00"  # the staff's words stay English
    task = press.click_starting(tab.panel.buttons["print"])
    loop.until(
        lambda: getattr(tab.panel, "print_dialog", None) is not None and tab.panel.print_dialog.isVisible(),
        message="Qt's print dialog",
    )
    pdf = tmp_path / "link.pdf"
    # no printer here: Qt's dialog offers "Print to File (PDF)"; type the file's name
    press.type_into(tab.panel.print_dialog.findChild(QLineEdit, "filename"), str(pdf))
    press.click(press.button(tab.panel.print_dialog, "Print"))
    loop.until(task.done, message="printing")
    assert task.result() is True
    text = " ".join(pdf_text(pdf).split())
    assert "ce n’est pas un vrai paiement" in text and "1 500,00 GBP" in text, text
    assert "not a real payment" not in text


def test_the_profile_counter_defaults_in_french(french, loop):
    """The profile editor's Counter group: the till's defaults (Caisse), each caption and
    the empty walk-in name's message in French."""
    press.click(french.window.edit_profile)
    loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    group = press.shown("profile-editor").counter
    assert group.title() == "Caisse"
    captions = [label.text() for label in group.findChildren(QLabel) if label.buddy() is not None]
    assert captions == [
        "Nom du client de passa&ge",
        "&E-mail du magasin",
        "&Logo de l’écran client",
        "Lang&ue du client",
    ]
    assert group.choose_logo.text() == "Choisir…" and group.logo.placeholderText() == "aucun"
    press.click(group.walk_in)
    press.clear(group.walk_in)
    editor = press.shown("profile-editor")
    press.click(editor.save_button)  # refused: the message beside the box, in French
    loop.until(lambda: group.walk_in_message.text() != "", message="the walk-in name's message")
    assert group.walk_in_message.text() == "Saisissez le nom du client de passage"
    press.escape(editor)


def test_the_walk_in_name_follows_the_customer_language(start_app, loop):
    """The walk-in name the profile was made with is the customer's (it is the name on the
    counter's payments and receipts): French chosen for the customer, it reads "Client de
    passage", English again, "Walk-in customer"; a name the person typed stays as typed."""
    app = start_app(sandbox=True)
    app.on_links_tab()
    press.click(app.window.edit_profile)
    loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor = press.shown("profile-editor")
    group = editor.counter
    assert group.walk_in.text() == "Walk-in customer"
    press.choose(group.customer_language, "Français")
    assert group.walk_in.text() == "Client de passage"
    press.choose(group.customer_language, "English")
    assert group.walk_in.text() == "Walk-in customer"
    press.click(group.walk_in)
    press.clear(group.walk_in)
    press.type_into(group.walk_in, "Passing trade")
    press.choose(group.customer_language, "Français")
    assert group.walk_in.text() == "Passing trade"
    press.click(editor.save_button)
    loop.until(lambda: press.shown("profile-editor") is None, timeout=30, message="the editor to close")
    assert (app.session.profile.walk_in_name, app.session.profile.customer_language) == ("Passing trade", "fr")
