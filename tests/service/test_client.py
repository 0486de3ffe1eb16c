"""The client against the sandbox, strict, --quirks and --family: every method, success and
each failure."""

from decimal import Decimal

import pytest

from paydesk.service import (
    AuthenticationError,
    CardState,
    DuplicateReferenceError,
    ModeMismatchError,
    NotFoundError,
    PaymentRequest,
    ServiceClient,
    ServiceUnavailableError,
    TransactionState,
    ValidationError,
)
from tests import dialects
from tests.helpers import free_port


@pytest.fixture(params=dialects.params())
def service(request, make_sandbox):
    sb = make_sandbox(base_path="/pay", **dialects.options(request.param))
    if request.param == "family":
        sb.fund_live_wallet()  # its cards draw on the live balance, whichever key
    return sb


# what the service says when a card action is done: the document's words, or the card
# issuer's that the family's server passes on
DOCUMENT_WORDS = {
    "fund": "Card Funding successful",
    "withdraw": "Card Withdrawal successful",
    "block": "Card Blocked",
    "unblock": "Card Unblocked",
    "terminate": "Card Terminated",
}
CARD_WORDS = {
    "strict": DOCUMENT_WORDS,
    "quirks": DOCUMENT_WORDS,
    "family": {
        "fund": "Card has been topped up successfully",
        "withdraw": "Funds have been unloaded from the card successfully",
        "block": "Card has been frozen successfully",
        "unblock": "Card has been unfrozen successfully",
        "terminate": "Card has been terminated successfully",
    },
}


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
        meta={"till": "3"},
    )
    fields.update(over)
    return PaymentRequest(**fields)


def _client(sb, mode="test", kind="secret", merchant=0, **kw):
    kw.setdefault("backoff", 0.01)
    return ServiceClient(sb.base_url, sb.key(mode, kind, merchant), **kw)


async def _pay(sb, tx_ref, outcome="success", mode="test"):
    import httpx

    async with _client(sb, mode) as client:
        tx = await client.validate(tx_ref)
    ref = tx.reference
    if ref is None:  # quirks: an unpaid lookup carries nothing; use the link we kept
        raise AssertionError("reference unknown")
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {sb.key(mode)}"}) as http:
        r = await http.post(f"{sb.base_url}/_sandbox/pay/{ref}", json={"outcome": outcome})
        r.raise_for_status()


async def test_create_and_validate(service):
    async with _client(service) as client:
        link = await client.create_payment(_request("S-1"))
        assert link.checkout_url.startswith(service.base_url + "/payment/") and not link.recovered
        tx = await client.validate("S-1")
        assert tx.status is TransactionState.PENDING
        if dialects.dialect_of(service) == "strict":  # the others: "Payment not submitted"
            assert tx.amount == Decimal("1000.00") and tx.charge == Decimal("14.20")
            assert tx.reference == link.checkout_url.rsplit("/", 1)[1]
            assert tx.created_at.tzinfo is not None and tx.meta == {"till": "3"}
        ref = link.checkout_url.rsplit("/", 1)[1]
        import httpx

        async with httpx.AsyncClient() as http:
            (
                await http.post(
                    f"{service.base_url}/_sandbox/pay/{ref}",
                    json={"outcome": "success"},
                    headers={"Authorization": f"Bearer {service.key()}"},
                )
            ).raise_for_status()
        tx = await client.validate("S-1")
        assert tx.status is TransactionState.SUCCESS and tx.status.final
        assert tx.amount == Decimal("1000.00") and tx.currency == "USD" and tx.mode == "test"


async def test_trailing_slash_base_url(service):
    async with ServiceClient(service.base_url + "/", service.key()) as client:
        await client.create_payment(_request("S-slash"))
        assert (await client.validate("S-slash")).tx_ref == "S-slash"


async def test_failures_are_typed(service):
    async with _client(service) as client:
        with pytest.raises(ValidationError) as info:
            await client.create_payment(_request("S-2", currency="NGN", email="nope"))
        assert info.value.errors["currency"] == ["Invalid currency, NGN is not supported"]
        if dialects.dialect_of(service) != "family":  # it checks the currency first, alone
            assert "email" in info.value.errors
        with pytest.raises(NotFoundError):
            await client.validate("NOPE-1")
        with pytest.raises(ValidationError) as info:
            await client.validate("  ")
        assert info.value.message == "tx_ref is required"
        await client.create_payment(_request("S-3"))
        with pytest.raises(DuplicateReferenceError):
            await client.create_payment(_request("S-3", amount=Decimal(5)))
    async with ServiceClient(service.base_url, "sec-test-" + "x" * 32) as bad:
        with pytest.raises(AuthenticationError) as info:
            await bad.validate("S-3")
        assert "x" * 32 not in str(info.value) and "x" * 32 not in repr(info.value)
    async with _client(service, kind="public") as public:
        with pytest.raises(AuthenticationError):
            await public.create_payment(_request("S-4"))
    async with _client(service, mode="live") as live:
        with pytest.raises(ModeMismatchError):
            await live.validate("S-3")


async def test_same_intent_twice_is_one_payment(service):
    """A second create with the same tx_ref and intent (a retry after a crash) is the same link."""
    async with _client(service) as client:
        first = await client.create_payment(_request("S-again"))
        second = await client.create_payment(_request("S-again"), resumed=True)
        assert second.recovered
        if dialects.dialect_of(service) == "strict":
            assert second.checkout_url == first.checkout_url


async def test_unreachable_service():
    async with ServiceClient(f"http://127.0.0.1:{free_port()}/pay", "sec-test-abc", backoff=0.01, retries=1) as client:
        with pytest.raises(ServiceUnavailableError):
            await client.validate("X")
        with pytest.raises(ServiceUnavailableError):
            await client.create_payment(_request("X-1"))


async def test_cards_every_operation(service):
    async with _client(service) as client:
        said = CARD_WORDS[dialects.dialect_of(service)]
        card = await client.create_card(
            Decimal(100), "USD", callback_url="https://shop.example/h", first_name="Ada", last_name="Lovelace"
        )
        assert card.status is CardState.ACTIVE and card.currency == "USD"
        assert card.currency_code == "11" and card.amount == Decimal(100)
        assert card.paid == Decimal("102.00")
        family = dialects.dialect_of(service) == "family"
        assert card.charge == (None if family else Decimal("2.00"))  # the family hides it
        assert "cvv" not in repr(card) and card.card_pan not in repr(card)
        h = card.card_hash
        assert await client.fund_card(h, 50) == said["fund"]
        assert await client.withdraw_card(h, Decimal(20)) == said["withdraw"]
        got = await client.card(h)
        assert got.balance == Decimal("130.00")
        assert await client.block_card(h) == said["block"]
        assert (await client.card(h)).status is CardState.BLOCKED
        with pytest.raises(ValidationError) as info:
            await client.fund_card(h, 1)
        assert info.value.message == "Card is blocked"
        assert await client.unblock_card(h) == said["unblock"]
        records = await client.card_transactions(h)
        # the family's card transactions are the issuer's (purchases) only
        assert [(r.type, r.amount) for r in records] == (
            [] if family else [("Credit", Decimal(100)), ("Credit", Decimal(50)), ("Debit", Decimal(20))]
        )
        listed = await client.cards()
        assert [c.card_hash for c in listed] == [h]
        assert await client.terminate_card(h) == said["terminate"]
        after = [c for c in await client.cards() if c.card_hash == h]
        if dialects.dialect_of(service) != "strict":
            assert after == []  # the family drops terminated cards from the list
        else:
            assert after[0].status is CardState.INACTIVE
        with pytest.raises(NotFoundError):
            await client.card("ch_unknown")
        with pytest.raises(ValidationError) as info:
            await client.create_card(
                Decimal(10**6), "USD", callback_url="https://shop.example/h", first_name="Ada", last_name="Lovelace"
            )
        assert "Insufficient Funds" in info.value.message


async def test_cards_absent_in_no_cards_deployment(make_sandbox):
    sb = make_sandbox(deployment="no-cards")
    async with _client(sb) as client:
        with pytest.raises(NotFoundError):
            await client.cards()


async def test_form_snippet_fields_start_a_payment(sandbox):
    """What the 'For your website' form posts is accepted by the service as it is."""
    import httpx

    from paydesk.service.snippets import form_fields

    fields = form_fields(_request("SNIP-1", callback_url="https://shop.example/cb"), sandbox.key(kind="public"))
    async with httpx.AsyncClient() as http:
        r = await http.post(sandbox.base_url + "/ext_transfer", data=fields)
    assert r.status_code == 303 and "/payment/PDK-" in r.headers["location"]
    async with _client(sandbox) as client:
        tx = await client.validate("SNIP-1")
    assert tx.type == "FORM" and tx.meta == {"till": "3"} and tx.customization["title"] == "Coffee"
