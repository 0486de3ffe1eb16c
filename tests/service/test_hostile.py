"""A hostile local server: only typed errors come out, within the timeout, and no key leaks."""

import asyncio
import json
import time

import pytest

from paydesk.service import (AnswerLostError, ServiceClient, ServiceError,
                             ServiceUnavailableError, UnexpectedAnswerError)

KEY = "sec-test-HOSTILEhostile0123456789abcdefAB"
WRONG_TYPES = {"status": "success", "message": "Payment details", "data": {
    "tx_ref": ["x"], "status": 7, "amount": {"v": 1}, "charge": True, "created_at": 12,
    "customization": "nope", "meta": 3, "email": [], "currency": {}}}


def _http(status: int, body: bytes, ctype: str = "application/json", length: int | None = None) -> bytes:
    head = (f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\n"
            f"Content-Length: {len(body) if length is None else length}\r\n\r\n")
    return head.encode() + body


HITS: dict[str, int] = {}


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    request = await reader.readuntil(b"\r\n\r\n")
    scenario = request.split(b" ")[1].split(b"/")[1].decode()
    HITS[scenario] = HITS.get(scenario, 0) + 1
    try:
        if scenario == "badjson":
            writer.write(_http(200, b"{not json"))
        elif scenario == "html":
            writer.write(_http(200, b"<html><body>Welcome to nginx</body></html>", "text/html"))
        elif scenario == "html500":
            writer.write(_http(502, b"<html>Bad gateway</html>", "text/html"))
        elif scenario == "empty":
            writer.write(_http(200, b""))
        elif scenario == "huge":
            writer.write(_http(200, b"[" + b"1," * (5 * 1024 * 1024) + b"1]"))
        elif scenario == "array":
            writer.write(_http(200, b"[1, 2, 3]"))
        elif scenario == "wrongtypes":
            writer.write(_http(200, json.dumps(WRONG_TYPES).encode()))
        elif scenario == "echo":  # shows the request, Authorization header and all
            writer.write(_http(400, request, "text/plain"))
        elif scenario == "echojson":
            writer.write(_http(400, json.dumps({"status": "failed",
                                                "message": request.decode()}).encode()))
        elif scenario == "endless":  # headers, then a trickle that never ends
            writer.write(_http(200, b"", length=10**9))
            while True:
                writer.write(b" ")
                await writer.drain()
                await asyncio.sleep(0.05)
        elif scenario == "silent":
            await asyncio.sleep(3600)
        elif scenario == "cut":
            writer.transport.abort()
            return
        await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


@pytest.fixture
async def hostile():
    server = await asyncio.start_server(_handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.close()


@pytest.mark.parametrize("scenario,kind", [
    ("badjson", UnexpectedAnswerError), ("html", UnexpectedAnswerError),
    ("html500", ServiceUnavailableError), ("empty", UnexpectedAnswerError),
    ("huge", UnexpectedAnswerError), ("array", UnexpectedAnswerError),
    ("wrongtypes", UnexpectedAnswerError), ("echo", UnexpectedAnswerError),
    ("endless", AnswerLostError), ("silent", AnswerLostError), ("cut", AnswerLostError),
])
async def test_only_typed_errors(hostile, scenario, kind):
    async with ServiceClient(f"{hostile}/{scenario}", KEY, timeout=1.0, retries=1,
                             backoff=0.01) as client:
        started = time.monotonic()
        with pytest.raises(ServiceError) as info:
            await client.validate("X-1")
        elapsed = time.monotonic() - started
    assert type(info.value) is kind or isinstance(info.value, kind), repr(info.value)
    assert elapsed < 1.0 * 2 + 1  # two tries of 1 s at most, and a little slack
    for text in (str(info.value), repr(info.value), getattr(info.value, "snippet", "")):
        assert KEY not in text and "HOSTILE" not in text
    if kind is UnexpectedAnswerError:
        assert len(info.value.snippet) <= 200


async def test_echoed_key_is_redacted_in_messages(hostile):
    async with ServiceClient(f"{hostile}/echojson", KEY, timeout=1.0) as client:
        with pytest.raises(ServiceError) as info:
            await client.validate("X-1")
    assert "authorization: bearer [redacted]" in info.value.message.lower()
    assert "user-agent: paydesk/0.1.0" in info.value.message.lower()  # names PayDesk and its version
    assert "accept: application/json" in info.value.message.lower()
    assert KEY not in str(info.value) and "HOSTILE" not in repr(info.value)


async def test_writes_are_not_blindly_retried(hostile):
    HITS.clear()
    async with ServiceClient(f"{hostile}/cut", KEY, timeout=1.0, retries=5, backoff=0.01) as client:
        with pytest.raises(AnswerLostError):
            await client.fund_card("ch_x", 10)
    assert HITS["cut"] == 1  # the answer was lost after sending: a write is not sent again
    async with ServiceClient(f"{hostile}/cut", KEY, timeout=1.0, retries=2, backoff=0.01) as client:
        with pytest.raises(AnswerLostError):
            await client.cards()
    assert HITS["cut"] == 1 + 3  # a read is retried, bounded
