"""The client against the sandbox in each of its three dialects (strict, --quirks,
--family): a payment's life looked up, where the lookup lives and that it is remembered,
and a card's life, its refusals included. PayDesk works against all three unchanged."""

from decimal import Decimal

import httpx
import pytest

from paydesk.config import keycheck
from paydesk.service import CardState, NotFoundError, PaymentRequest, ServiceClient, TransactionState, ValidationError
from tests import dialects

LOOKUP_PATH = {"strict": "api/transaction", "quirks": "api/transaction", "family": "api/verify-payment"}


@pytest.fixture(params=dialects.params())
def service(request, make_sandbox):
    sb = make_sandbox(request.param, base_path="/pay", **dialects.options(request.param))
    if request.param == "family":
        sb.fund_live_wallet()  # its cards draw on the live balance, whichever key
    return sb


def _client(sb, **kw):
    kw.setdefault("backoff", 0.01)
    return ServiceClient(sb.base_url, sb.key(), **kw)


def _request(tx_ref, **over):
    fields = dict(
        amount=Decimal(1000),
        currency="USD",
        email="ada@example.com",
        first_name="Ada",
        last_name="Lovelace",
        tx_ref=tx_ref,
        title="Coffee",
        description="Two flat whites",
    )
    fields.update(over)
    return PaymentRequest(**fields)


async def _control(sb, path, body):
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {sb.key()}"}) as http:
        (await http.post(f"{sb.base_url}/_sandbox/{path}", json=body)).raise_for_status()


async def _link(client, sb, tx_ref):
    link = await client.create_payment(_request(tx_ref))
    return link.checkout_url.rsplit("/", 1)[1]


async def test_a_payment_looked_up_through_its_life(service):
    async with _client(service) as client:
        reference = await _link(client, service, "D-1")
        tx = await client.validate("D-1")
        assert tx.status is TransactionState.PENDING and not tx.status.final
        await _control(service, f"pay/{reference}", {"outcome": "success"})
        tx = await client.validate("D-1")
        assert tx.status is TransactionState.SUCCESS and tx.status.final
        assert tx.amount == Decimal("1000.00") and tx.currency == "USD"
        await _control(service, f"transactions/{reference}/status", {"status": "refunded"})
        assert (await client.validate("D-1")).status is TransactionState.REFUNDED


async def test_a_failed_payment_is_a_lookup_that_succeeded(service):
    """The family answers it as HTTP 201, status "failed/cancelled": the lookup worked, the
    payment failed. Before: a ValidationError("Payment details")."""
    async with _client(service) as client:
        failed = await _link(client, service, "D-2")
        cancelled = await _link(client, service, "D-3")
        await _control(service, f"pay/{failed}", {"outcome": "failed"})
        await _control(service, f"pay/{cancelled}", {"outcome": "cancelled"})
        tx = await client.validate("D-2")
        assert tx.status is TransactionState.FAILED and tx.status.final
        assert tx.tx_ref == "D-2" and tx.amount == Decimal("1000.00")
        gone = await client.validate("D-3")
        expected = (
            TransactionState.FAILED if dialects.dialect_of(service) == "family" else TransactionState.CANCELLED
        )  # the family has one word for both
        assert gone.status is expected and gone.status.final


async def test_unknown_and_blank_references(service):
    async with _client(service) as client:
        with pytest.raises(NotFoundError):
            await client.validate("NO-SUCH-REF")
        with pytest.raises(ValidationError):
            await client.validate(" ")


async def test_the_lookup_path_is_found_out_and_told(service):
    expected = LOOKUP_PATH[dialects.dialect_of(service)]
    heard = []
    async with _client(service, on_lookup_path=heard.append) as client:
        assert client.lookup_path is None
        await _link(client, service, "D-4")
        await client.validate("D-4")
        await client.validate("D-4")
        assert client.lookup_path == expected and heard == [expected]  # told once
    # a client that was told the wrong one (the deployment changed) finds the right one
    wrong = next(p for p in LOOKUP_PATH.values() if p != expected)
    heard.clear()
    async with _client(service, lookup_path=wrong, on_lookup_path=heard.append) as client:
        assert (await client.validate("D-4")).tx_ref == "D-4"
        assert client.lookup_path in (wrong, expected)  # strict and quirks have both
        if dialects.dialect_of(service) == "family":
            assert heard == [expected]
    assert await keycheck.lookup_path(service.base_url, service.key()) == expected


async def test_a_card_life_with_its_refusals(service):
    async with _client(service) as client:
        card = await client.create_card(
            Decimal(100), "USD", "https://shop.example/h", first_name="Ada", last_name="Lovelace"
        )
        assert card.status is CardState.ACTIVE and card.currency == "USD"
        assert card.expiration and len(card.expiration) == 7 and card.expiration[4] == "-"
        h = card.card_hash
        assert await client.fund_card(h, 50)
        assert await client.withdraw_card(h, 20)
        assert (await client.card(h)).balance == Decimal("130.00")
        # too little merchant balance: the family answers 201 "success" with no card
        with pytest.raises(ValidationError) as info:
            await client.fund_card(h, 9_000_000)
        assert "insufficient" in info.value.message.lower()
        assert (await client.card(h)).balance == Decimal("130.00")
        with pytest.raises(ValidationError):
            await client.withdraw_card(h, 500)  # more than the card holds
        assert (await client.card(h)).balance == Decimal("130.00")
        assert await client.terminate_card(h)
        listed = [c.card_hash for c in await client.cards() if c.status is not CardState.INACTIVE]
        assert h not in listed
        with pytest.raises(NotFoundError):
            await client.card("ch_unknown")
