"""A fee passed to the customer, against the --family sandbox (SERVICE.md 1b): the service's
lookup then reports the amount less the charge. That is the same payment, not another amount:
the details show the link's amount and what the merchant receives, no warning, and the
receipt keeps the link's amount."""

import pytest

from paydesk.desk.receipt import lines

pytestmark = pytest.mark.dialects("family")


def test_the_link_amount_and_what_the_merchant_receives(shop):
    shop.sandbox.settings(customer_pays_fee=True)
    made = shop.create("SHOP-FEE-1", amount=1000)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    found = shop.lookup("SHOP-FEE-1")
    details = shop.tab.details
    assert details.state.text() == "PAID" and found.message == ""
    assert not details.message.isVisible()  # no warning: nothing changed
    values = {k: v.text() for k, v in details.values.items()}
    assert values["amount"] == "GBP 1,000.00" and values["fee"] == "GBP 14.20"
    assert values["received"].startswith("GBP 985.80: the amount less the fee")
    record = shop.loop.run(shop.session.ledger.get(shop.profile.id, "SHOP-FEE-1"))
    assert record.amount == 1000 and record.error is None
    assert ("Amount", "GBP 1,000.00") in lines(record, "Corner Shop")
    assert '"amount": "985.80"' in details.raw.toPlainText()  # the service's words, as said


def test_nothing_more_is_said_when_the_merchant_pays_the_fee(shop):
    made = shop.create("SHOP-FEE-2", amount=1000)
    shop.control(f"pay/{made.reference}", {"outcome": "success"})
    shop.lookup("SHOP-FEE-2")
    values = {k: v.text() for k, v in shop.tab.details.values.items()}
    assert values["amount"] == "GBP 1,000.00" and values["received"] == ""
