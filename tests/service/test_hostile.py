"""A hostile local server: only typed errors come out, within the timeout, and no key leaks."""

import asyncio
import gzip
import json
import time
import zlib
from decimal import Decimal
from urllib.parse import quote

import pytest

from paydesk.service import (
    AnswerLostError,
    ClientClosedError,
    PaymentRequest,
    RateLimitedError,
    ServiceClient,
    ServiceError,
    ServiceUnavailableError,
    UnexpectedAnswerError,
)

KEY = "sec-test-HOSTILEhostile0123456789abcdefAB"
WRONG_TYPES = {
    "status": "success",
    "message": "Payment details",
    "data": {
        "tx_ref": ["x"],
        "status": 7,
        "amount": {"v": 1},
        "charge": True,
        "created_at": 12,
        "customization": "nope",
        "meta": 3,
        "email": [],
        "currency": {},
    },
}


def _http(
    status: int, body: bytes, ctype: str = "application/json", length: int | None = None, **headers: str
) -> bytes:
    extra = "".join(f"{k.replace('_', '-')}: {v}\r\n" for k, v in headers.items())
    head = (
        f"HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\n{extra}"
        f"Content-Length: {len(body) if length is None else length}\r\n\r\n"
    )
    return head.encode() + body


def _envelope(data, status="success", message="Payment details") -> bytes:
    return json.dumps({"status": status, "message": message, "data": data}).encode()


TRANSACTION = {
    "tx_ref": "X-1",
    "status": "pending",
    "amount": "1,000.00",
    "currency": "USD",
    "charge": "14.20",
    "email": "a@example.com",
    "reference": "PDK-1",
    "created_at": "2026-11-22T10:00:00.000000Z",
    "updated_at": "2026-11-22T10:00:00.000000Z",
}
CARD = {
    "card_hash": "ch_1",
    "status": 1,
    "card_pan": "4242424242424242",
    "cvv": "123",
    "masked_card": "424242******4242",
    "currency": "11",
    "amount": "100",
}


def _deflate(data: bytes, raw: bool = False) -> bytes:
    z = zlib.compressobj(wbits=-15 if raw else 15)
    return z.compress(data) + z.flush()


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
            writer.write(_http(400, json.dumps({"status": "failed", "message": request.decode()}).encode()))
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
        elif scenario == "deep":  # 100,000 nested arrays in 200 KB
            writer.write(
                _http(200, b'{"status": "success", "message": "x", "data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
            )
        elif scenario == "deeperror":  # a deep validation message
            writer.write(
                _http(
                    400,
                    b'{"status": "failed", "message": {"amount": ' + b"[" * 3000 + b"]" * 3000 + b'}, "data": null}',
                )
            )
        elif scenario == "infinity":  # a card whose status is Infinity, another 1e309
            body = _envelope({**CARD, "status": "__INF__"}, message="All Cards")
            writer.write(_http(200, body.replace(b'"__INF__"', b"Infinity")))
        elif scenario == "hugenumber":
            body = _envelope([{**CARD, "status": "__BIG__"}], message="All Cards")
            writer.write(_http(200, body.replace(b'"__BIG__"', b"1e309")))
        elif scenario == "fardate":
            writer.write(_http(200, _envelope({**TRANSACTION, "created_at": "9999-12-31T23:59:59-14:00"})))
        elif scenario in ("gzip", "deflate", "rawdeflate"):
            plain = _envelope(TRANSACTION)
            packed = gzip.compress(plain) if scenario == "gzip" else _deflate(plain, raw=scenario == "rawdeflate")
            writer.write(_http(200, packed, Content_Encoding="gzip" if scenario == "gzip" else "deflate"))
        elif scenario == "gzipbomb":  # 30 KB that inflate to 30 MB
            writer.write(_http(200, gzip.compress(b" " * (30 * 1024 * 1024)), Content_Encoding="gzip"))
        elif scenario == "brotli":
            writer.write(_http(200, b"\x0b\x02\x80{}\x03", Content_Encoding="br"))
        elif scenario in ("echokey", "echokeytext"):  # a service that repeats the key it got
            key = request.split(b"Bearer ", 1)[1].split(b"\r\n", 1)[0].decode()
            if scenario == "echokey":
                writer.write(
                    _http(
                        401,
                        json.dumps(
                            {
                                "status": "failed",
                                "message": f"Invalid key {key}",
                                "errors": {"key": [f"{key} is not a key of ours"]},
                            }
                        ).encode(),
                    )
                )
            else:
                writer.write(_http(400, f"<p>key={key}</p>".encode(), "text/html"))
        elif scenario == "slowdown":
            writer.write(_http(429, b'{"status": "failed", "message": "slow"}', Retry_After="99999"))
        elif scenario == "slowdate":
            writer.write(
                _http(429, b'{"status": "failed", "message": "slow"}', Retry_After="Fri, 31 Dec 9999 23:59:59 GMT")
            )
        elif scenario == "shortwait":
            writer.write(_http(429, b'{"status": "failed", "message": "slow"}', Retry_After="4"))
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


@pytest.mark.parametrize(
    "scenario,kind",
    [
        ("badjson", UnexpectedAnswerError),
        ("html", UnexpectedAnswerError),
        ("html500", ServiceUnavailableError),
        ("empty", UnexpectedAnswerError),
        ("huge", UnexpectedAnswerError),
        ("array", UnexpectedAnswerError),
        ("wrongtypes", UnexpectedAnswerError),
        ("echo", UnexpectedAnswerError),
        ("endless", AnswerLostError),
        ("silent", AnswerLostError),
        ("cut", AnswerLostError),
    ],
)
async def test_only_typed_errors(hostile, scenario, kind):
    async with ServiceClient(f"{hostile}/{scenario}", KEY, timeout=1.0, retries=1, backoff=0.01) as client:
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


OPERATIONS = {
    "validate": lambda c: c.validate("X-1"),
    "create_payment": lambda c: c.create_payment(
        PaymentRequest(
            amount=Decimal(10), currency="USD", email="a@example.com", first_name="A", last_name="B", tx_ref="X-1"
        )
    ),
    "create_card": lambda c: c.create_card(Decimal(10), "USD"),
    "fund_card": lambda c: c.fund_card("ch_1", 5),
    "cards": lambda c: c.cards(),
    "card": lambda c: c.card("ch_1"),
}


@pytest.mark.parametrize("scenario", ["deep", "deeperror", "infinity", "hugenumber", "fardate"])
@pytest.mark.parametrize("operation", OPERATIONS)
async def test_only_service_errors_leave_the_client(hostile, scenario, operation):
    """Item 12: RecursionError (deep JSON) and OverflowError (a card status of Infinity or
    1e309, a timestamp past year 9999 in UTC) escaped the client. Whatever the answer, a
    call returns or raises a ServiceError."""
    async with ServiceClient(
        f"{hostile}/{scenario}", KEY, timeout=2.0, retries=0, backoff=0.01, create_attempts=2, create_deadline=5
    ) as client:
        try:
            await OPERATIONS[operation](client)
        except ServiceError as error:
            assert KEY not in str(error)


@pytest.mark.parametrize("scenario", ["gzip", "deflate", "rawdeflate"])
async def test_compressed_answers_are_read(hostile, scenario):
    """Item 13: the client advertised gzip and deflate but read the raw bytes, so a
    compressing proxy broke every call."""
    async with ServiceClient(f"{hostile}/{scenario}", KEY, timeout=2.0) as client:
        tx = await client.validate("X-1")
    assert tx.tx_ref == "X-1" and tx.amount == Decimal("1000.00")


async def test_a_compressed_answer_is_limited_by_its_decoded_size(hostile):
    """Item 13: 30 KB of gzip that inflate to 30 MB are refused at 2 MB decoded."""
    async with ServiceClient(f"{hostile}/gzipbomb", KEY, timeout=5.0, retries=0) as client:
        with pytest.raises(UnexpectedAnswerError, match="far too large"):
            await client.validate("X-1")


async def test_an_unknown_coding_is_a_typed_error(hostile):
    """Item 13: only what the client advertises (gzip, deflate) is decoded."""
    async with ServiceClient(f"{hostile}/brotli", KEY, timeout=2.0, retries=0) as client:
        with pytest.raises(UnexpectedAnswerError, match="encoded as 'br'"):
            await client.validate("X-1")


@pytest.mark.parametrize(
    "key", ["MYSHOP-LIVE-7f3a9c2e1b", "sec-test-abcd-EFGH-1234-ijkl-5678", "k3y!with spaces&symbols"]
)
@pytest.mark.parametrize("scenario", ["echokey", "echokeytext"])
async def test_the_clients_own_key_never_appears_in_what_it_raises(hostile, scenario, key):
    """Item 14: a key of another shape (MYSHOP-LIVE-...) echoed by a service appeared
    whole in AuthenticationError, ValidationError and UnexpectedAnswerError; a family key
    with hyphens in its body was redacted only in part. The client removes its own key,
    exactly, from everything it raises."""
    async with ServiceClient(f"{hostile}/{scenario}", key, timeout=2.0, retries=0) as client:
        with pytest.raises(ServiceError) as info:
            await client.validate("X-1")
    error = info.value
    texts = [str(error), repr(error), error.message, getattr(error, "snippet", "")]
    texts += [f"{k} {m}" for k, msgs in getattr(error, "errors", {}).items() for m in msgs]
    for text in texts:
        assert key not in text and key[:12] not in text, text
        assert quote(key, safe="") not in text
    assert "[redacted]" in " ".join(texts)


@pytest.mark.parametrize("scenario", ["slowdown", "slowdate"])
@pytest.mark.parametrize("operation", ["validate", "create_payment", "cards"])
async def test_a_long_retry_after_is_not_waited_out(hostile, scenario, operation):
    """Item 15: a 429 with Retry-After 99999 made validate take 60 s and create_payment
    140 s. A wait longer than the client's max_retry_wait (5 s) is not taken: the call
    raises RateLimitedError at once, with retry_after capped at 300 s for the caller."""
    async with ServiceClient(f"{hostile}/{scenario}", KEY, timeout=5.0) as client:
        started = time.monotonic()
        with pytest.raises(RateLimitedError) as info:
            await OPERATIONS[operation](client)
    assert time.monotonic() - started < 1.0
    assert info.value.retry_after == 300


async def test_create_payment_has_an_overall_deadline(hostile):
    """Item 15: against a silent service create_payment took about 14 minutes (8 attempts,
    each a send and lookups, at 20 s each). Past its deadline it raises AnswerLostError
    (the intent may have arrived: the caller settles it later)."""
    async with ServiceClient(f"{hostile}/silent", KEY, timeout=1.0, create_deadline=2.5, backoff=0.01) as client:
        started = time.monotonic()
        with pytest.raises(AnswerLostError, match="within 2.5 s"):
            await OPERATIONS["create_payment"](client)
        assert time.monotonic() - started < 3.5
        started = time.monotonic()  # and per call
        with pytest.raises(AnswerLostError):
            await client.create_payment(
                PaymentRequest(
                    amount=Decimal(10),
                    currency="USD",
                    email="a@example.com",
                    first_name="A",
                    last_name="B",
                    tx_ref="X-2",
                ),
                deadline=1.5,
            )
        assert time.monotonic() - started < 2.5


async def test_a_closed_client_raises_a_typed_error(hostile):
    """Issue 8, section 2: a call on a closed client raised httpx's RuntimeError."""
    client = ServiceClient(f"{hostile}/html", KEY, timeout=1.0)
    await client.aclose()
    for operation in OPERATIONS.values():
        with pytest.raises(ClientClosedError):
            await operation(client)


async def test_closing_while_waiting_between_retries_ends_the_call_at_once(hostile):
    """Issue 8, section 2: a client closed while a call waits between retries (here a
    4 s Retry-After) ends the call with ClientClosedError at once, not after the wait."""
    client = ServiceClient(f"{hostile}/shortwait", KEY, timeout=2.0)
    call = asyncio.ensure_future(client.validate("X-1"))
    await asyncio.sleep(0.3)  # the first 429 is in; the call is waiting
    started = time.monotonic()
    await client.aclose()
    with pytest.raises(ClientClosedError):
        await call
    assert time.monotonic() - started < 0.5
