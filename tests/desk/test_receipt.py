"""What a receipt says (desk/receipt.py), line by line; its painting is tested in
tests/ui/transactions/test_receipts.py."""

import json
from datetime import UTC, datetime
from decimal import Decimal

from paydesk.desk.receipt import lines, paid_at
from paydesk.desk.texts import local_time, utc_time
from paydesk.ledger import LinkRecord

MADE = datetime(2026, 11, 3, 9, 30, tzinfo=UTC)


def record(raw: dict | None = None, **over) -> LinkRecord:
    fields = dict(
        id=1,
        profile_id="p1",
        mode="test",
        tx_ref="SHOP-1",
        amount=Decimal(25),
        currency="GBP",
        email="ada@example.com",
        first_name="Ada",
        last_name="Lovelace",
        state="success",
        created_at=MADE,
        updated_at=MADE,
        reference="svc-9",
        fee=Decimal("0.35"),
        raw_json=json.dumps(raw) if raw is not None else None,
    )
    fields.update(over)
    return LinkRecord(**fields)


def test_when_the_service_says_it_was_paid():
    assert paid_at(record()) is None  # read in a list: no answer kept
    assert paid_at(record({"updated_at": "2026-11-03T10:00:00Z"})) == datetime(2026, 11, 3, 10, tzinfo=UTC)
    assert paid_at(record({"updated_at": "2026-11-03T10:00:00"})) == datetime(
        2026, 11, 3, 10, tzinfo=UTC
    )  # no zone said: UTC
    assert paid_at(record({"updated_at": "yesterday"})) is None


def test_a_receipts_lines_leave_out_what_is_not_said_and_the_fee():
    paid = datetime(2026, 11, 3, 10, tzinfo=UTC)
    said = dict(lines(record({"updated_at": "2026-11-03T10:00:00Z"}), "Corner Shop"))
    assert list(said) == [
        "Merchant",
        "Customer",
        "E-mail",
        "Amount",
        "State",
        "Paid",
        "Link made",
        "Reference",
        "Service reference",
    ]  # no title, no fee
    assert said["Customer"] == "Ada Lovelace" and said["Amount"] == "GBP 25.00"
    assert said["Paid"] == f"{local_time(paid)} ({utc_time(paid)})"
    assert said["Reference"] == "SHOP-1" and said["Service reference"] == "svc-9"
    unsaid = dict(lines(record(reference=None, customization={"title": "Order 7"}), "Shop"))
    assert unsaid["Paid"] == "not said by the service" and unsaid["Title"] == "Order 7"
    assert "Service reference" not in unsaid
