"""The Cards tab in French (the staff's language chosen at start): the wallet, a card's page,
its transactions and the audit log read in French, amounts and dates as French writes them;
the audit's CSV export stays as it is in any language (its header and its words)."""

import httpx
from PySide6.QtCore import Qt

from paydesk.desk.export import AUDIT_HEADER
from tests.ui import press
from tests.ui.cards.test_wallet import Desk, exported_audit

NBSP, GROUP = "\u00a0", "\u202f"  # French: before the currency; between thousands
FRENCH_MONTHS = ("janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc.")


def _headers(model) -> list[str]:
    return [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]


def _column(model, column: int) -> list[str]:
    return [model.data(model.index(r, column)) for r in range(model.rowCount())]


def _french_moment(text: str, seconds: bool) -> bool:
    """``27 nov. 2026 14:05`` (``:03`` with seconds): a French month, no English one."""
    day, month, year, clock = text.split(" ")
    return day.isdigit() and month in FRENCH_MONTHS and year.isdigit() and clock.count(":") == (2 if seconds else 1)


def test_the_cards_tab_and_a_card_page_read_in_french(start_app, loop, tmp_path):
    app = start_app(sandbox=True, language="fr")
    app.wait_started()
    window, session = app.window, app.session
    # Ctrl+3, the Cards tab's key (the tab bar's titles are the main window's words)
    press.key(window.focusWidget() or window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    loop.until(lambda: window.tabs.currentWidget() is window.cards_tab, message="the cards tab")
    tab = window.cards_tab
    loop.until(lambda: tab.loaded, message="the cards tab read")
    wallet, page = tab.wallet, tab.page

    # a card made at the service and bought with there (another desk, a shop), then read
    # by Refresh as a person does
    key = loop.run(session.key())
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
    base = session.profile.base_url
    made = httpx.post(f"{base}/api/virtual_card/create", json={"amount": "1500", "currency": "GBP"}, headers=headers)
    card_hash = made.json()["data"]["card_hash"]
    bought = httpx.post(
        f"{base}/_sandbox/cards/{card_hash}/purchase",
        json={"amount": "25", "description": "Corner cafe"},
        headers=headers,
    )
    assert bought.is_success, bought.text

    assert [b.text() for b in (wallet.create_button, wallet.refresh_button)] == ["Créer une carte…", "Actualiser"]
    assert wallet.state_filter.itemText(0) == "Tous les états"
    loop.until(wallet.refresh_button.isEnabled, timeout=30, message="the first reading over")
    press.click(wallet.refresh_button)
    loop.until(lambda: wallet.count.text() == "1 carte", timeout=30, message="the count, in French")
    loop.until(lambda: wallet.as_of.text().startswith(f"À jour{NBSP}: lues auprès du service le"), message="as of")
    assert _headers(wallet.model) == ["Carte", "Nom sur la carte", "Solde", "État", "Expiration", "Créée le"]
    row = wallet.model.row_of(card_hash)
    assert wallet.model.data(wallet.model.index(row, 2)) == f"1{GROUP}475,00{NBSP}GBP"
    assert wallet.model.data(wallet.model.index(row, 3)) == "Active"
    assert _french_moment(wallet.model.data(wallet.model.index(row, 5)), seconds=False)
    # the state filter chooses by the states, whatever its words
    press.choose(wallet.state_filter, "Bloquée")
    loop.until(lambda: wallet.count.text() == "0 carte", message="no blocked card")
    press.choose(wallet.state_filter, "Active")
    loop.until(lambda: wallet.count.text() == "1 carte", message="the active card")
    press.choose(wallet.state_filter, "Tous les états")

    index = wallet.model.index(wallet.model.row_of(card_hash), 0)
    press.click(wallet.table.viewport(), pos=wallet.table.visualRect(index).center())
    loop.until(lambda: page.record is not None and page.record.card_hash == card_hash, message="its page")
    assert page.title.text() == f"Carte {page.record.masked}"
    assert [b.text() for b in page.buttons.values()] == [
        "Alimenter…",
        "Retirer…",
        "Bloquer",
        "Résilier…",
        "Actualiser la carte",
    ]
    assert page.values["balance"].text() == f"1{GROUP}475,00{NBSP}GBP"
    assert page.values["state"].text() == "Active"
    assert page.values["balance"].accessibleName() == f"Solde{NBSP}: 1{GROUP}475,00{NBSP}GBP"
    assert _french_moment(page.values["seen"].text(), seconds=True)
    assert _headers(page.tx_model) == ["Type", "Montant", "Libellé", "Date"]
    press.click(page.buttons["reload"])  # the card and its transactions from the service
    loop.until(lambda: page.tx_model.rowCount() == 2, timeout=30, message="the card's transactions")
    assert sorted(_column(page.tx_model, 0)) == ["Crédit", "Débit"]
    assert f"−25,00{NBSP}GBP" in _column(page.tx_model, 1)
    assert all(_french_moment(t, seconds=True) for t in _column(page.tx_model, 3))

    press.click(page.buttons["block"])
    loop.until(lambda: page.buttons["block"].text() == "Débloquer", timeout=30, message="blocked")
    loop.until(lambda: "Appuyez sur Débloquer pour annuler." in page.message.text(), message="what it did")
    assert "Carte bloquée." in page.message.text()
    loop.until(lambda: page.values["state"].text() == "Bloquée", message="its state")

    audit = tab.audit
    press.tab(tab.sections, "Journal d’audit")
    loop.until(lambda: audit.model.rowCount() == 2, message="the audit lines")
    assert _headers(audit.model)[:8] == [
        "Quand",
        "Utilisateur",
        "Profil",
        "Mode",
        "Carte",
        "Opération",
        "Montant",
        "Résultat",
    ]
    assert _column(audit.model, 5) == ["blocage", "blocage"]
    assert _column(audit.model, 7) == ["effectuée", "envoyée"]
    assert all(_french_moment(t, seconds=True) for t in _column(audit.model, 0))
    assert audit.action.itemText(0) == "Toutes les opérations"
    press.choose(audit.result, "Envoyée")
    loop.until(lambda: audit.model.rowCount() == 1, message="the sent line only")
    press.choose(audit.result, "Tous les résultats")

    # the export: the same file as in English
    assert audit.export_button.text() == "Exporter en CSV…"
    rows = exported_audit(loop, audit, tmp_path / "audit.csv", 3)
    assert rows[0] == list(AUDIT_HEADER)
    assert [(r[3], r[5], r[8]) for r in rows[1:]] == [("test", "block", "done"), ("test", "block", "sent")]
    assert app.close() == 0


def test_a_card_made_in_french_is_kept_in_english_and_read_in_french(start_app, loop, tmp_path):
    """The ledger holds no words of a language (docs/USER_GUIDE.md): a card created with French
    chosen writes its audit line's detail in English, so the export's Detail column is the
    same in any language, while the audit log on screen reads it in French."""
    app = start_app(sandbox=True, language="fr")
    app.wait_started()
    desk = Desk(app, loop)
    text, _card = desk.create()
    assert text.startswith("Carte créée")
    tab, audit = desk.tab, desk.tab.audit
    press.tab(tab.sections, "Journal d’audit")
    loop.until(lambda: audit.model.rowCount() == 2, message="the audit lines")
    assert _headers(audit.model)[8] == "Détail"
    assert _column(audit.model, 8) == ["Carte créée", ""]

    rows = exported_audit(loop, audit, tmp_path / "audit.csv", 3)
    detail = AUDIT_HEADER.index("Detail")
    assert [(r[5], r[8], r[detail]) for r in rows[1:]] == [
        ("create", "done", "Card created"),
        ("create", "sent", ""),
    ]
    assert app.close() == 0
