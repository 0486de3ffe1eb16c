"""What a receipt for a paid transaction says, line by line (label, value): the merchant, the
customer, the amount, the state, when it was paid and made, both references. Qt-free; the
painting is ui/transactions/receipt.py. The merchant's own fee is not the customer's
business: it is not among the lines."""

from __future__ import annotations

from datetime import UTC, datetime

from ..ledger import LinkRecord
from .states import service_words
from .texts import local_time, money_text, utc_time


def paid_at(record: LinkRecord) -> datetime | None:
    """When the service says the payment completed (its ``updated_at``), if it said."""
    raw = (record.raw or {}).get("updated_at")
    try:
        when = datetime.fromisoformat(str(raw).replace("Z", "+00:00")) if raw else None
    except ValueError:
        return None
    return when if when is None or when.tzinfo else when.replace(tzinfo=UTC)


def lines(record: LinkRecord, merchant: str) -> list[tuple[str, str]]:
    """The receipt's lines, those with nothing to say left out."""
    paid = paid_at(record)
    rows = [
        ("Merchant", merchant),
        ("Customer", record.customer),
        ("E-mail", record.email),
        ("Amount", f"{record.currency} {money_text(record.amount)}"),
        ("State", service_words(record).words),  # the payment, as paid
        ("Paid", f"{local_time(paid)} ({utc_time(paid)})" if paid else "not said by the service"),
        ("Link made", f"{local_time(record.created_at)} ({utc_time(record.created_at)})"),
        ("Reference", record.tx_ref),
        ("Service reference", record.reference or ""),
        ("Title", record.title),
    ]
    return [(label, value) for label, value in rows if value]
