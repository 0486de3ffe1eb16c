"""The family's notification as its real server code sends it (SERVICE.md 1b), over real HTTP
from the --family sandbox: ``meta`` a JSON-encoded string, ``customization.logo`` null, and
``currency`` the merchant's home currency, not the payment's. The receiver believes none of it:
the record shows what the re-read of the payment says (believe the record, not the envelope's
word)."""

from __future__ import annotations

import json

import pytest

from paydesk.ledger.inbox import APPLIED, PENDING, UNKNOWN_REFERENCE
from tests import profiles
from tests.receiver.conftest import entries, request


@pytest.fixture
async def family(desk, receiver, make_sandbox):
    """A --family sandbox whose notifications go to the receiver; its home currency USD (the
    payments here are in GBP), the profile knowing its webhook secret."""
    sb = make_sandbox("family", family=True, webhook_url=receiver.url)
    assert sb.settings(home_currency="USD")["home_currency"] == "USD"
    profile = await profiles.add_profile(desk.session, sb, txref_prefix="FAM", keys=profiles.SECRET_KEYS)
    await desk.keys.set(profile.id, "test", "webhook", sb.webhook_secret())
    return sb, profile


async def _decided(desk, until, tx_ref):
    async def found():
        kept = await entries(desk, text=tx_ref)
        return kept[0] if kept and kept[0].verdict != PENDING else None

    return await until(found, message=f"the notification of {tx_ref} kept and decided")


async def test_a_link_of_another_currency_keeps_its_currency_and_meta(desk, family, until):
    sb, profile = family
    record = await desk.links.create(request("FAM-GBP-1", description="Tea", meta={"till": "3"}))
    with sb.client() as c:
        c.post(f"/_sandbox/pay/{record.reference}", json={"outcome": "success"}).raise_for_status()
    entry = await _decided(desk, until, "FAM-GBP-1")
    body = json.loads(entry.body)
    # what the notification says: the home currency, meta as JSON text, no logo
    assert body["currency"] == "USD" and body["meta"] == '{"till":"3"}'
    assert body["customization"]["logo"] is None
    assert entry.verdict == APPLIED, entry.detail
    paid = await desk.session.ledger.get(profile.id, "FAM-GBP-1")
    assert (paid.state, paid.currency, paid.meta) == ("success", "GBP", {"till": "3"})
    assert paid.raw["currency"] == "GBP"  # the re-read's answer is what the record keeps


async def test_a_payment_made_elsewhere_is_recorded_as_the_re_read_says(desk, family, until):
    sb, profile = family
    with sb.client() as c:  # the merchant's website made it: PayDesk never saw it
        made = c.post(
            "/api/payment",
            json={
                "amount": "40",
                "currency": "GBP",
                "email": "web@example.com",
                "first_name": "Wes",
                "last_name": "Site",
                "tx_ref": "FAM-WEB-1",
                "meta": {"order": "77"},
                "customization": {"title": "Web order", "description": "From the website"},
            },
        )
        made.raise_for_status()
        reference = made.json()["data"]["checkout_url"].rsplit("/", 1)[1]
        c.post(f"/_sandbox/pay/{reference}", json={"outcome": "success"}).raise_for_status()
    entry = await _decided(desk, until, "FAM-WEB-1")
    body = json.loads(entry.body)
    assert body["currency"] == "USD" and body["meta"] == '{"order":"77"}'
    assert entry.verdict == UNKNOWN_REFERENCE and "now in the ledger" in entry.detail
    found = await desk.session.ledger.get(profile.id, "FAM-WEB-1")
    assert (found.state, found.origin, found.currency, found.amount, found.meta) == (
        "success",
        "lookup",
        "GBP",
        40,
        {"order": "77"},
    )
