"""Exports stay machine-readable whatever the staff's language (issue 33 §2): the same
payments exported with English chosen and with French chosen give the same file, column
names, ISO dates, plain decimals and the service's state words included."""

from __future__ import annotations

import csv
import re
from datetime import datetime
from decimal import Decimal
from types import SimpleNamespace

from paydesk.desk.export import HEADER
from paydesk.i18n import _
from paydesk.service.models import PaymentRequest
from tests import helpers
from tests.ui import press
from tests.ui.transactions.test_export import answer_save_dialog

ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
LOCAL = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")
PLAIN = re.compile(r"\d+\.\d\d")  # no grouping, a point before the cents

# (first name, last name, amount, title, what the customer does: None leaves it open)
PAYMENTS = (
    ("Camille", "Durand", 1234, "Atelier pâtisserie du samedi", "success"),
    ("Léa", "Petit", 18, "Boîte de 12 macarons", "failed"),
    ("Hugo", "Moreau", 2500, "Pièce montée", None),
)


def make_payments(app, loop) -> None:
    """The payments, made through the links controller and settled by their customers."""
    for first, last, amount, title, outcome in PAYMENTS:
        tx_ref = loop.run(app.window.links.next_reference(app.session.profile))
        request = PaymentRequest(
            Decimal(amount), "GBP", f"{last.lower()}@example.com", first, last, tx_ref, title=title
        )
        record = loop.run(app.window.links.create(request))
        if outcome is not None:  # the customer pays, or fails to (the sandbox's control API)
            key = loop.run(app.session.key())
            helpers.control(app.session.profile.base_url, key, f"pay/{record.reference}", {"outcome": outcome})
        loop.run(app.window.links.check(record))


def export_csv(app, loop, path):
    """Transactions, then Export…, the file's name typed into the save dialog: its rows."""
    window = app.window
    press.tab(window.tabs, _("Transactions"))
    tab = window.transactions_tab
    loop.until(lambda: tab.loaded and tab.model.rowCount() == len(PAYMENTS), message="the payments listed")
    task = press.click_starting(tab.export_button, "export")
    answer_save_dialog(SimpleNamespace(loop=loop), path)
    loop.until(task.done, timeout=60, message="the export")
    assert task.result() == path
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def test_the_transactions_csv_is_the_same_in_french_as_in_english(start_app, loop, tmp_path):
    # (each test begins in English: tests/ui/conftest.py)
    english = start_app(sandbox=True, language="en")
    english.on_links_tab()
    make_payments(english, loop)
    in_english = export_csv(english, loop, tmp_path / "transactions-en.csv")
    assert english.close() == 0

    french = start_app(sandbox=True, language="fr")
    french.on_links_tab()
    assert french.window.transactions_tab.filters.state.itemText(0) == "Tous les états"  # French on screen
    in_french = export_csv(french, loop, tmp_path / "transactions-fr.csv")
    assert french.close() == 0

    assert in_french[0] == in_english[0] == list(HEADER)
    assert in_french == in_english
    column = {name: i for i, name in enumerate(HEADER)}
    rows = {row[column["first_name"]]: row for row in in_french[1:]}
    assert set(rows) == {first for first, *_ in PAYMENTS}
    for row in rows.values():
        for name in ("created_utc", "updated_utc", "last_checked_utc"):
            assert ISO_UTC.fullmatch(row[column[name]]), (name, row[column[name]])
            datetime.fromisoformat(row[column[name]].replace("Z", "+00:00"))
        assert LOCAL.fullmatch(row[column["created_local"]]), row[column["created_local"]]
        assert PLAIN.fullmatch(row[column["amount"]]) and row[column["currency"]] == "GBP"
    camille, lea, hugo = rows["Camille"], rows["Léa"], rows["Hugo"]
    assert camille[column["amount"]] == "1234.00" and PLAIN.fullmatch(camille[column["fee"]])
    assert hugo[column["amount"]] == "2500.00"
    # PayDesk's words for the state and the service's own, neither translated
    said = [(r[column["state"]], r[column["service_state"]]) for r in (camille, lea, hugo)]
    assert said == [("PAID", "success"), ("PAYMENT FAILED", "failed"), ("WAITING FOR PAYMENT", "pending")]
    assert camille[column["made"]] == "here" and camille[column["mode"]] == "test"
