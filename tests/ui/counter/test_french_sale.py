"""A counter sale in French, end to end (issue 33): French chosen in Settings → Language as
the staff's language and in the profile as the customer's, a sale made through the real
window (the amount typed, Enter, the code shown, the sandbox paying it, PAID), the staff's
side and the customer's display in French, then the shift closed and its report's PDF read
back with pdftotext, in French."""

from __future__ import annotations

import subprocess

from PySide6.QtCore import Qt

from paydesk.ui.counter import report_paper
from paydesk.ui.counter.sales import STATE
from tests.helpers import need_system
from tests.ui import press
from tests.ui.counter.conftest import SHOP_EMAIL, open_counter_tab
from tests.ui.test_language import _choose

NBSP = "\u00a0"


def _shown(loop, name):
    loop.until(lambda: press.shown(name) is not None, message=f"the {name} window")
    return press.shown(name)


def _pdf_lines(path) -> list[str]:
    pdftotext = need_system("pdftotext", "poppler-utils")
    text = subprocess.run(
        [pdftotext, "-layout", str(path), "-"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def _french_staff_and_customer(start_app, loop):
    """Français chosen in Settings → Language (from the next start), PayDesk started again,
    then Français as the profile's customer language (and the shop's e-mail) in the editor."""
    first = start_app(sandbox=True)
    first.wait_started()
    _choose(first, loop, "Français")
    assert first.close() == 0
    app = start_app(sandbox=True)
    app.on_links_tab()
    press.click(app.window.edit_profile)
    loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor = press.shown("profile-editor")
    press.type_into(editor.counter.shop_email, SHOP_EMAIL)
    press.choose(editor.counter.customer_language, "Français")
    press.click(editor.save_button)
    loop.until(lambda: press.shown("profile-editor") is None, timeout=30, message="the editor to close")
    assert app.session.profile.customer_language == "fr"
    app.window.activateWindow()  # the editor closed: the staff is back at the window
    loop.until(app.window.isActiveWindow, message="the window in front")
    return app


def test_a_counter_sale_in_french_end_to_end(start_app, loop):
    app = _french_staff_and_customer(start_app, loop)
    counter = open_counter_tab(app, loop)
    tab, controller = counter.tab, app.window.desk.counter

    # the staff's counter tab, in French, before the first sale
    assert tab.accessibleName() == "Caisse"
    assert tab.counter_name.text() == f"Caisse{NBSP}: {controller.name}"
    assert tab.sell_button.text() == "Encaisser" and tab.new_sale_button.text() == "Nouvelle vente"
    assert tab.close_shift_button.text() == "Clôturer la session de caisse…"
    assert tab.note.placeholderText() == "Vente 0001"  # the title the customer will read
    assert tab.amount.placeholderText() == "p. ex. 25"
    loop.until(lambda: tab.totals.text() == f"Aujourd’hui{NBSP}: aucune vente pour l’instant", message="no sales yet")
    headers = [tab.model.headerData(c, Qt.Orientation.Horizontal) for c in range(tab.model.columnCount())]
    assert headers == ["Heure", "Objet", "Montant", "État", "Référence"]
    assert tab.place.toggle.text() == "Ouvrir l’écran client"
    press.click(tab.place.toggle)  # the customer's view beside the amount box
    assert tab.place.toggle.text() == "Fermer l’écran client"
    view = counter.view
    assert view is tab.place.beside and view.isVisible()

    # the amount typed, Enter: the code shows, in the customer's French
    sale = counter.sell("7")
    assert sale.record is not None and sale.record.title == "Vente 0001"
    loop.until(lambda: view.words.text() == "EN ATTENTE DE PAIEMENT", message="the customer's words in French")
    assert view.qr.isVisible() and view.amount.text() == "7,00\u00a0GBP"
    assert tab.mirror.state.text() == "EN ATTENTE DE PAIEMENT"  # the staff's, French too
    assert tab.mirror.amount.text() == "7,00\u00a0GBP" and tab.mirror.title.text() == "Vente 0001"
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "En attente", message="the open sale listed")
    loop.until(lambda: "en attente 7,00" in tab.totals.text(), message="the totals")
    assert tab.totals.text() == f"Aujourd’hui, GBP{NBSP}: encaissé 0,00 · en attente 7,00 · annulé 0,00"

    # finance's Counter shifts window (Ctrl+Shift+H): the shift and the open sale, in French
    press.key(tab.amount, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    loop.until(lambda: press.shown("counter-shifts-window") is not None, message="the Counter shifts window")
    shifts = press.shown("counter-shifts-window")
    loop.until(lambda: shifts.loaded and shifts.sales_model.rowCount() == 1, message="its lists")
    assert shifts.windowTitle() == "Sessions de caisse"
    assert shifts.sales.accessibleName() == "Ventes en attente et paiements après annulation"
    assert shifts.sales_model.headers() == ("Heure", "Caisse", "Vente", "Objet", "Montant", "État", "Référence")
    listed = shifts.sales_model.at(0)
    assert [shifts.sales_model.text(listed, c) for c in (2, 4, 5)] == ["Vente 0001", "7,00\u00a0GBP", "En attente"]
    assert shifts.shifts_model.headers()[:6] == (
        "Caisse",
        "Session",
        "Ouverture",
        "Ouverte par",
        "Clôture",
        "Clôturée par",
    )
    assert shifts.shifts_model.text(shifts.shifts_model.at(0), 4) == "en cours"
    press.escape(shifts.shifts)
    loop.until(lambda: not shifts.isVisible(), message="the window closed")
    app.window.activateWindow()
    loop.until(app.window.isActiveWindow, message="the window in front")

    # Enter again while the code can be paid: said in French
    press.enter(tab.amount)
    assert tab.message.text() == f"Le code de ce client est à l’écran{NBSP}: Échap commence une nouvelle vente"

    # the sandbox pays it: PAID on both screens, in French
    counter.pay(sale)
    loop.until(lambda: view.phase == "paid", timeout=30, message="paid on the customer's screen")
    assert view.words.text() == "Payé"
    loop.until(lambda: tab.mirror.state.text() == "PAYÉ", timeout=30, message="PAID on the staff's screen")
    loop.until(lambda: counter.listed_state(sale.tx_ref) == "Payée", timeout=30, message="paid in the list")
    loop.until(lambda: "encaissé 7,00" in tab.totals.text(), message="the totals")
    state = tab.model.index(0, STATE)
    assert state.data() == "Payée"

    # the shift closed: the count asked, in French, then the report saved as PDF
    task = press.starting("close shift", lambda: press.click(tab.close_shift_button))
    box = _shown(loop, "confirm-close-shift")
    assert box.windowTitle() == "Clôturer la session de caisse"
    assert box.text() == f"Clôturer la session de la caisse {controller.name}{NBSP}?"
    told = box.informativeText()
    for said in ("Ventes réalisées", "Payées", f"Encaissé (GBP){NBSP}: 7,00\u00a0GBP", f"Mode{NBSP}: Test"):
        assert said in told, told
    press.click(press.button(box, "Clôturer la session de caisse"))
    report = _shown(loop, "shift-report")
    assert report.windowTitle() == f"Rapport de caisse — {controller.name}"
    assert [b.text() for b in (report.print_button, report.save_button, report.folder_button, report.close_button)] == [
        "Imprimer…",
        "Enregistrer en PDF…",
        "Ouvrir le dossier",
        "Fermer",
    ]
    said = dict(report.lines())
    assert said["Ventes réalisées"] == "1" and said["Payées"] == "1" and said["Annulées"] == "0"
    assert said["Encaissé (GBP)"] == "7,00\u00a0GBP" and said["Mode"] == "Test (pas d’argent réel)"
    closed = loop.run(controller.book.shift(sale.shift_id))
    saved = report_paper.folder() / report_paper.report_name(closed)
    assert saved.parent.name == "Rapports de caisse" and saved.name.startswith(f"Session {closed.id} — ")
    loop.until(lambda: report.message.text() == f"Rapport enregistré en PDF dans {saved}", message="the PDF saved")

    # the PDF, read back: the report's French lines
    lines = _pdf_lines(saved)
    assert f"Rapport de caisse — {controller.name} — TEST" in lines, lines
    for label, value in report.lines():
        assert " ".join(f"{label} {value}".split()) in lines, (label, value, "\n".join(lines))
    assert "Ventes réalisées 1" in lines and "Encaissé (GBP) 7,00 GBP" in lines
    assert not [line for line in lines if "Sales made" in line or "Shift report" in line]
    press.click(report.close_button)
    assert loop.run(task).id == sale.shift_id
    app.close()
