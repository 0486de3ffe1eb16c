"""The Transactions tab in French (issue 33): a payment's details, the list's count and the
end of day read in the staff's language, with French dates and counts, as the window shows
them when started with French chosen. Exports stay as they were (tests/desk/test_day.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from PySide6.QtCore import Qt

from paydesk.ledger import LinkRecord
from paydesk.service.models import PaymentRequest
from tests.helpers import control
from tests.ui import press

DAYS = ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche")
MONTHS = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)
THOUSANDS = "\u202f"  # French groups thousands with a narrow no-break space (CLDR)
NBSP = "\u00a0"  # and puts a no-break space before a colon


@pytest.fixture
def french(start_app, qapp):
    """The window started with French chosen (--language fr); English again after
    (tests/ui/conftest.py: each test begins in English)."""
    app = start_app(sandbox=True, language="fr")
    app.wait_started()
    yield app
    if not app.task.done():
        app.close()


def failed_today(app, n: int) -> list[LinkRecord]:
    """``n`` payments of today that failed, already in the ledger (a busy day)."""
    now = datetime.now(UTC)
    start = datetime.combine(date.today(), datetime.min.time()).astimezone()
    step = max(timedelta(seconds=1), (now - start) / (n + 2))
    return [
        LinkRecord(
            id=0,
            profile_id=app.session.profile.id,
            mode="test",
            tx_ref=f"FR-FAIL-{i:05d}",
            amount=Decimal(5),
            currency="GBP",
            email=f"client{i}@example.com",
            first_name="Jeanne",
            last_name="Martin",
            state="failed",
            created_at=max(start.astimezone(UTC), now - step * (i + 1)),
            updated_at=now,
            reference=f"PDK-FR-{i:06x}",
        )
        for i in range(n)
    ]


def test_the_transactions_tab_and_the_end_of_day_read_in_french(french, loop):
    app, window = french, french.window
    loop.run(app.session.ledger.import_records(failed_today(app, 1000)))
    made = loop.run(
        window.links.create(
            PaymentRequest(
                amount=Decimal("1250"),
                currency="GBP",
                email="ada@example.com",
                first_name="Ada",
                last_name="Lovelace",
                tx_ref="FR-PAID-1",
                title="Commande",
                description="Deux cafés",
            )
        )
    )
    control(app.session.profile.base_url, loop.run(app.session.key()), f"pay/{made.reference}", {"outcome": "success"})

    press.tab(window.tabs, "Transactions")
    tab = window.transactions_tab
    loop.until(lambda: tab.loaded and tab.model.counted, message="the list")
    press.key(tab, Qt.Key.Key_F5)  # the payments just imported: the list read again
    loop.until(lambda: tab.count.text() == f"1{THOUSANDS}001 enregistrements", message="the count in French")

    # a payment looked up: its details in French
    press.type_into(tab.lookup_box, "FR-PAID-1")
    loop.run(press.starting("lookup", lambda: press.enter(tab.lookup_box)), timeout=60)
    details = tab.details
    loop.until(lambda: details.state.text() == "PAYÉ", message="the paid payment")
    assert details.captions["amount"].text() == f"Montant{NBSP}:"
    assert details.values["amount"].text() == f"1{THOUSANDS}250,00{NBSP}GBP"
    assert details.values["amount"].accessibleName() == f"Montant{NBSP}: 1{THOUSANDS}250,00{NBSP}GBP"
    assert details.values["origin"].text() == "ici, en lien de paiement"
    today = date.today()
    created = details.values["created"].text()
    assert created.startswith(f"{today.day} {MONTHS[today.month - 1][:3]}"), created  # "27 nov. 2026 10:05"
    assert details.copy_ref.text() == "Copier la référence"
    assert details.buttons["receipt-print"].text() == "Imprimer le reçu…"
    assert details.details.toolTip() == "Ce que le service a répondu, mot pour mot"

    # the end of day: its heading's day in French, its counts written the French way
    press.click(tab.end_of_day)
    loop.until(lambda: press.shown("end-of-day") is not None, message="the end of day")
    day = press.shown("end-of-day")
    assert day.windowTitle() == "Clôture de la journée"
    loop.until(lambda: day.figures["Links made"].text() == f"1{THOUSANDS}001", timeout=30, message="the figures")
    assert day.figures["Failed"].text() == f"1{THOUSANDS}000"
    assert day.figures["Failed"].accessibleName() == f"Refusé{NBSP}: 1{THOUSANDS}000"
    loop.until(lambda: day.figures["Paid"].text() == "1", timeout=30, message="the paid one counted")
    spelled = f"{DAYS[today.weekday()]} {today.day} {MONTHS[today.month - 1]} {today.year}"
    assert f"liens créés le {spelled}, heure locale" in day.heading.text(), day.heading.text()
    assert day.export.text() == "Exporter en CSV…" and day.print.text() == "Imprimer…"
    header = [day.totals_model.headerData(c, Qt.Orientation.Horizontal) for c in range(6)]
    assert header == ["Devise", "Payé", "Encaissé", "Frais", "Remboursé", "Net"]
    loop.until(lambda: day.totals_model.rowCount() == 1, message="the day's totals")
    collected = day.totals_model.index(0, 2).data()
    assert collected == f"1{THOUSANDS}250,00", collected
    press.click(day.close_button)
    loop.until(lambda: press.shown("end-of-day") is None, message="the end of day closed")
    assert app.close() == 0
