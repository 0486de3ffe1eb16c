"""What a receipt for a paid transaction says, line by line (label, value): the merchant, the
customer, the amount, the state, when it was paid and made, both references. Qt-free; the
painting is ui/transactions/receipt.py. The merchant's own fee is not the customer's
business: it is not among the lines."""

from __future__ import annotations

from datetime import UTC, datetime

from ..i18n import ENGLISH, NP_, Words, customer
from ..ledger import LinkRecord
from .formats import money_in, time_in
from .states import service_words
from .texts import utc_time

# the receipt's labels, in the customer's language where it is painted (a receipt is the
# customer's: the profile's customer language)
MERCHANT, CUSTOMER = NP_("receipt", "Merchant"), NP_("receipt", "Customer")
EMAIL, AMOUNT, STATE = NP_("receipt", "E-mail"), NP_("receipt", "Amount"), NP_("receipt", "State")
PAID, MADE = NP_("receipt", "Paid"), NP_("receipt", "Link made")  # Paid: when it was paid
REFERENCE, SERVICE_REFERENCE = NP_("receipt", "Reference"), NP_("receipt", "Service reference")
TITLE = NP_("receipt", "Title")
FIXED = {REFERENCE, SERVICE_REFERENCE}  # read back and typed: the fixed font


def paid_at(record: LinkRecord) -> datetime | None:
    """When the service says the payment completed (its ``updated_at``), if it said."""
    raw = (record.raw or {}).get("updated_at")
    try:
        when = datetime.fromisoformat(str(raw).replace("Z", "+00:00")) if raw else None
    except ValueError:
        return None
    return when if when is None or when.tzinfo else when.replace(tzinfo=UTC)


def lines(record: LinkRecord, merchant: str, words: Words | None = None) -> list[tuple[str, str]]:
    """The receipt's lines as (label, value), in ``words``' language (the customer's;
    English when none is given); those with nothing to say left out."""
    words = words or customer(ENGLISH)
    paid = paid_at(record)
    rows = [
        (MERCHANT, merchant),
        (CUSTOMER, record.customer),
        (EMAIL, record.email),
        (AMOUNT, money_in(record.amount, record.currency, words)),
        (STATE, service_words(record, words).words),  # the payment, as paid
        (PAID, f"{time_in(paid, words)} ({utc_time(paid)})" if paid else words.gettext("not said by the service")),
        (MADE, f"{time_in(record.created_at, words)} ({utc_time(record.created_at)})"),
        (REFERENCE, record.tx_ref),
        (SERVICE_REFERENCE, record.reference or ""),
        (TITLE, record.title),
    ]
    return [(words.pgettext("receipt", label), value) for label, value in rows if value]
