"""The receiver over real HTTP on 127.0.0.1, writing into a desk built as the app builds it
(tests/desk/conftest.py's fixtures), with a real sandbox over real HTTP behind it. Plain
asyncio, no Qt."""

from __future__ import annotations

import json
from decimal import Decimal

import httpx
import pytest

from paydesk.ledger.inbox import InboxQuery
from paydesk.receiver.serve import Receiver
from paydesk.receiver.signature import sign
from paydesk.service.models import PaymentRequest
from tests.desk.conftest import add_profile, desk, keys, service, session, until  # noqa: F401


@pytest.fixture
async def receiver(desk):  # noqa: F811 - the desk fixture, imported above
    """The desk's receiver on a free port of 127.0.0.1, started; closed after."""
    made = Receiver(desk, "127.0.0.1", 0)
    await made.start()
    desk.receiver = made
    yield made
    await made.close()
    desk.receiver = None


def request(tx_ref: str, amount: int = 12, **over) -> PaymentRequest:
    return PaymentRequest(
        amount=Decimal(amount),
        currency="GBP",
        email="kim@example.com",
        first_name="Kim",
        last_name="Lee",
        tx_ref=tx_ref,
        title="Tea",
        **over,
    )


def envelope(tx_ref: str, status: str = "success", event: str = "payment.completed") -> bytes:
    """A body in the sandbox's shape (``{"event", "data"}``)."""
    return json.dumps(
        {"event": event, "data": {"tx_ref": tx_ref, "status": status, "amount": 12, "currency": "GBP"}},
        separators=(",", ":"),
    ).encode()


def php_body(tx_ref: str, status: str = "success") -> bytes:
    """A bare transaction written as PHP's JSON encoder writes it ("/" as "\\/")."""
    text = json.dumps(
        {"tx_ref": tx_ref, "status": status, "amount": "12.00", "customization": {"logo": "https://cdn.example/l.png"}},
        separators=(",", ":"),
    )
    return text.replace("/", "\\/").encode()


async def post(
    url: str,
    body: bytes,
    signature: str | None = None,
    *,
    content_type: str | None = "application/json",
    method: str = "POST",
    **headers: str,
) -> httpx.Response:
    sent = dict(headers)
    if content_type is not None:
        sent["Content-Type"] = content_type
    if signature is not None:
        sent["Signature"] = signature
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.request(method, url, content=body, headers=sent)


async def signed(url: str, body: bytes, key: str) -> httpx.Response:
    return await post(url, body, sign(body, key))


async def entries(desk, **query):  # noqa: F811
    return await desk.inbox.page(InboxQuery(**query))
