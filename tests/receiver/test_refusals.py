"""Refused before any work, nothing kept: bodies over 64 KB (said by Content-Length before a
byte is read, or streamed past the limit), content types other than application/json, and
methods other than POST. Hostile JSON (nested deeper than Python's parser goes) is answered
as any other body: 401 and a trace of its first bytes when no key verifies it (never an
inbox entry)."""

from __future__ import annotations

import asyncio

import pytest

from paydesk.ledger.inbox import BAD_SIGNATURE, IGNORED, LIMIT, REFUSED_HEAD, InboxQuery
from paydesk.receiver.signature import sign
from tests.helpers import RawHttp
from tests.receiver.conftest import entries, post
from tests.waiting import until_async

NESTED = (b"[" * 50000 + b"]" * 50000)[:60000]  # within 64 KB, deeper than json.loads goes


async def _nothing_kept(desk):
    await asyncio.sleep(0.1)
    assert await desk.inbox.count(InboxQuery()) == 0


def _raw(url: str, head: dict[str, str], chunks: list[bytes]) -> tuple[int, bool]:
    """One request spoken byte by byte: the head, then ``chunks`` as they are (in another
    thread: the receiver answers on the test's loop). The status, and whether the receiver
    then closed the connection."""
    http = RawHttp(url.rsplit("/", 1)[0])
    try:
        http.send(http.request_head("POST", "/notifications", head))
        try:
            for chunk in chunks:
                http.send(chunk)
        except (ConnectionResetError, BrokenPipeError):
            # it answered and closed before the rest of the body was sent (a fresh clone's
            # run saw it): the answer waits in this side's buffer, read below
            pass
        status, _, _ = http.response()
        return status, http.closed_by_server()
    finally:
        http.close()


async def test_a_body_said_to_be_over_64_kb_is_refused_before_it_is_read(desk, receiver):
    head = {"Content-Type": "application/json", "Content-Length": str(LIMIT + 1), "Signature": "0" * 64}
    # nothing of the body is sent: the answer comes from the head alone
    status, closed = await asyncio.to_thread(_raw, receiver.url, head, [])
    assert status == 413 and closed
    await _nothing_kept(desk)


async def test_a_streamed_body_is_cut_at_64_kb(desk, receiver):
    head = {"Content-Type": "application/json", "Transfer-Encoding": "chunked", "Signature": "0" * 64}
    piece = b"x" * 8192
    chunks = [b"%x\r\n%s\r\n" % (len(piece), piece)] * (LIMIT // len(piece) + 2) + [b"0\r\n\r\n"]
    status, _ = await asyncio.to_thread(_raw, receiver.url, head, chunks)
    assert status == 413
    await _nothing_kept(desk)


async def test_a_body_of_64_kb_exactly_is_taken(desk, add_profile, receiver, sandbox):
    await add_profile()
    body = b'{"pad":"' + b"x" * (LIMIT - 10) + b'"}'
    assert len(body) == LIMIT
    answer = await post(receiver.url, body, sign(body, sandbox.key("test", "secret")))
    assert answer.status_code == 200
    assert await desk.inbox.count(InboxQuery()) == 1


async def test_a_body_over_64_kb_is_refused(desk, receiver):
    answer = await post(receiver.url, b"{" + b" " * LIMIT + b"}", "0" * 64)
    assert answer.status_code == 413
    await _nothing_kept(desk)


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonp",
        "text/json",
    ],
)
async def test_other_content_types_are_refused(desk, receiver, content_type):
    answer = await post(receiver.url, b'{"tx_ref":"X"}', "0" * 64, content_type=content_type)
    assert answer.status_code == 415
    await _nothing_kept(desk)


async def test_json_with_a_charset_is_taken(desk, receiver):
    answer = await post(receiver.url, b'{"tx_ref":"X"}', "0" * 64, content_type="application/json; charset=utf-8")
    assert answer.status_code == 401  # taken, and refused for its signature
    assert [t.head for t in await desk.inbox.refused_page()] == [b'{"tx_ref":"X"}']


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH", "OPTIONS"])
async def test_other_methods_are_refused(desk, receiver, method):
    answer = await post(receiver.url, b'{"tx_ref":"X"}', "0" * 64, method=method)
    assert answer.status_code == 405
    await _nothing_kept(desk)


async def test_both_paths_and_no_other(desk, receiver):
    root = receiver.url.rsplit("/", 1)[0]
    assert (await post(root + "/", b"{}", "0" * 64)).status_code == 401
    assert (await post(root + "/notifications", b"{}", "0" * 64)).status_code == 401
    assert (await post(root + "/elsewhere", b"{}", "0" * 64)).status_code == 404
    assert len(await desk.inbox.refused_page()) == 2


async def test_a_deeply_nested_unsigned_body_is_a_bad_signature(desk, receiver):
    answer = await post(receiver.url, NESTED, "0" * 64)
    assert answer.status_code == 401, answer.text
    assert await entries(desk) == []  # never parsed, never kept
    traced = await desk.inbox.refused_page()
    assert [(t.reason, t.size, t.head) for t in traced] == [(BAD_SIGNATURE, len(NESTED), NESTED[:REFUSED_HEAD])]


async def test_a_deeply_nested_signed_body_is_kept_and_ignored(desk, add_profile, sandbox, receiver):
    """Junk that verifies (a key of the merchant's signed it) is kept, names nothing, and is
    decided "ignored": nothing to look up."""
    await add_profile()
    answer = await post(receiver.url, NESTED, sign(NESTED, sandbox.key("test", "secret")))
    assert answer.status_code == 200, answer.text

    async def ignored():
        kept = await entries(desk)
        return [e for e in kept if e.verdict == IGNORED and e.tx_ref is None]

    await until_async(ignored, 10, "the signed junk decided ignored")
