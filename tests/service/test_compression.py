"""The client behind a compressing proxy: every call works, as it does without one."""

import asyncio
import gzip
from decimal import Decimal

import httpx
import pytest

from paydesk.service import CardState, PaymentRequest, ServiceClient, TransactionState


class CompressingProxy:
    """A reverse proxy on loopback that gzips every answer of the service behind it (as
    nginx with ``gzip on`` does), one request per connection."""

    def __init__(self, upstream: str):
        self.upstream = upstream.rstrip("/")
        self.compressed = 0

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self._http = httpx.AsyncClient()
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/pay"

    async def close(self) -> None:
        self._server.close()
        await self._http.aclose()

    async def _handle(self, reader, writer) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
            length = int(headers.get("Content-Length", headers.get("content-length", "0")))
            body = await reader.readexactly(length) if length else b""
            forwarded = {
                k: v for k, v in headers.items() if k.lower() not in ("host", "accept-encoding", "content-length")
            }
            base = self.upstream.rsplit("/pay", 1)[0]
            reply = await self._http.request(method, base + target, content=body, headers=forwarded)
            packed = gzip.compress(reply.content)
            self.compressed += "gzip" in headers.get("Accept-Encoding", "")
            writer.write(
                (
                    f"HTTP/1.1 {reply.status_code} X\r\n"
                    f"Content-Type: {reply.headers.get('content-type', '')}\r\n"
                    f"Content-Encoding: gzip\r\nContent-Length: {len(packed)}\r\n"
                    "Connection: close\r\n\r\n"
                ).encode()
                + packed
            )
            await writer.drain()
        finally:
            writer.close()


@pytest.fixture
async def proxied(sandbox):
    proxy = CompressingProxy(sandbox.base_url)
    url = await proxy.start()
    yield url, proxy
    await proxy.close()


async def test_every_call_works_behind_a_compressing_proxy(sandbox, proxied):
    """Item 13: behind a compressing proxy every call failed (the client read the raw,
    compressed bytes)."""
    url, proxy = proxied
    async with ServiceClient(url, sandbox.key(), backoff=0.01) as client:
        link = await client.create_payment(
            PaymentRequest(
                amount=Decimal(25),
                currency="GBP",
                email="ada@example.com",
                first_name="Ada",
                last_name="Lovelace",
                tx_ref="GZ-1",
            )
        )
        assert link.checkout_url.startswith(sandbox.base_url + "/payment/")
        tx = await client.validate("GZ-1")
        assert tx.status is TransactionState.PENDING and tx.amount == Decimal("25.00")
        card = await client.create_card(Decimal(100), "USD")
        assert card.status is CardState.ACTIVE
        assert await client.fund_card(card.card_hash, 5) == "Card Funding successful"
        assert [c.card_hash for c in await client.cards()] == [card.card_hash]
    assert proxy.compressed >= 5  # every call asked for, and got, a compressed answer
