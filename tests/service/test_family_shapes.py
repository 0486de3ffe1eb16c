"""The client's reading of the --family sandbox's answers, where they are the family's real
server code's (SERVICE.md 1b): a card's ``amount`` is its balance (what it was issued with is
said only by the create's answer), a refusal of an amount outside the merchant's limits names
the amount, a payment whose fee is passed to the customer is looked up as the amount less the
charge (and is still the same payment), and a notification's ``meta`` is JSON text."""

from decimal import Decimal

import httpx
import pytest

from paydesk.service import CardState, PaymentRequest, ServiceClient, ValidationError
from paydesk.service.models import Transaction
from tests import dialects
from tests.waiting import until_async


@pytest.fixture
def family(make_sandbox):
    sb = make_sandbox("family", base_path="/pay", **dialects.options("family"))
    sb.fund_live_wallet()  # its cards draw on the live balance, whichever key
    return sb


def _request(tx_ref, amount=1000, **over):
    return PaymentRequest(
        amount=Decimal(amount),
        currency="GBP",
        email="ada@example.com",
        first_name="Ada",
        last_name="Lovelace",
        tx_ref=tx_ref,
        title="Coffee",
        description="Two flat whites",
        **over,
    )


async def test_a_cards_balance_is_its_amount_and_its_issue_only_the_creates(family):
    async with ServiceClient(family.base_url, family.key("live"), backoff=0.01) as client:
        made = await client.create_card(
            Decimal(50), "GBP", "https://shop.example/cards", first_name="Ada", last_name="Lovelace"
        )
        # the create answers no state: read back; its answer alone says what it was issued with
        assert made.status is CardState.ACTIVE and made.status_raw == 1
        assert (made.amount, made.balance, made.charge, made.paid) == (
            Decimal("50.00"),
            Decimal("50.00"),
            None,
            Decimal("51.5"),
        )
        await client.fund_card(made.card_hash, 20)
        read = await client.card(made.card_hash)
        assert (read.balance, read.amount) == (Decimal("70.00"), None)
        listed = next(c for c in await client.cards() if c.card_hash == made.card_hash)
        assert (listed.balance, listed.amount) == (Decimal("70.00"), None)


async def test_an_amount_outside_the_merchants_limits_names_the_amount(family):
    family.settings(amount_limits={"GBP": {"min_amount": 5, "max_amount": 500}})
    async with ServiceClient(family.base_url, family.key(), backoff=0.01) as client:
        for amount, said in ((3, "The minimum amount for GBP is 5"), (600, "The maximum amount for GBP is 500")):
            with pytest.raises(ValidationError) as refused:
                await client.create_payment(_request(f"LIM-{amount}", amount))
            assert refused.value.message == said
            assert refused.value.errors == {"amount": [said]}


async def test_a_paid_link_whose_fee_the_customer_pays_is_still_ours(family):
    family.settings(customer_pays_fee=True)
    async with ServiceClient(family.base_url, family.key(), backoff=0.01) as client:
        link = await client.create_payment(_request("FEE-1"))
        family.control(f"pay/{link.checkout_url.rsplit('/', 1)[1]}", {"outcome": "success"})
        tx = await client.validate("FEE-1")
        assert tx.amount == Decimal("985.80") and tx.charge == Decimal("14.20")
        # settling a create whose answer was lost: the service's payment is this one
        again = await client.create_payment(_request("FEE-1"), resumed=True)
        assert again.recovered and again.tx_ref == "FEE-1"


async def test_a_notifications_meta_as_json_text_reads_as_its_object(family):
    with family.client() as c:
        c.put("/_sandbox/webhook", json={"url": "https://hooks.example/pay"}).raise_for_status()
    async with ServiceClient(family.base_url, family.key(), backoff=0.01) as client:
        for ref, meta in (("META-1", {"till": "3"}), ("META-2", None)):
            link = await client.create_payment(_request(ref, meta=meta or {}))
            family.control(f"pay/{link.checkout_url.rsplit('/', 1)[1]}", {"outcome": "success"})

    async def sent() -> list[dict] | None:
        async with httpx.AsyncClient(
            base_url=family.base_url, headers={"Authorization": f"Bearer {family.key()}"}
        ) as c:
            logged = (await c.get("/_sandbox/notifications")).json()["data"]
        return logged if len(logged) == 2 else None

    logged = await until_async(sent, 15, "both notifications sent", every=0.05)
    bodies = {n["body"]["tx_ref"]: n["body"] for n in logged}  # (the log holds it decoded)
    assert bodies["META-1"]["meta"] == '{"till":"3"}' and bodies["META-2"]["meta"] == "null"
    assert Transaction.parse(bodies["META-1"], None).meta == {"till": "3"}
    assert Transaction.parse(bodies["META-2"], None).meta == {}
