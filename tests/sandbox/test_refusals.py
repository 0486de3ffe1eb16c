"""Bodies the sandbox refuses before any work: too deep, too large, or not JSON at all."""

import json
import time

import httpx
import pytest

from tests.helpers import RawHttp, payment

DEEP_ARRAY = "[" * 30_000 + "]" * 30_000  # 60 KB: under the size limit, far over the depth


def _nested_object(depth: int) -> dict:
    value: dict = {"k": "v"}
    for _ in range(depth):
        value = {"k": value}
    return value


def _nothing_created(sb, tx_ref="DEEP-1"):
    with sb.client() as c:
        assert c.get(f"/api/transaction/{tx_ref}").status_code == 404


@pytest.mark.parametrize(
    "path,kind",
    [
        ("/api/payment", "secret"),
        ("/api/js_transfer", "public"),
        ("/api/virtual_card/create", "secret"),
        ("/_sandbox/faults", "secret"),
    ],
)
def test_deep_nesting_is_refused_with_400(sandbox, path, kind):
    """Item 6: 30,000 nested arrays answer 400 (not 500) on every JSON route."""
    with sandbox.client(kind=kind) as c:
        method = "PUT" if path.endswith("faults") else "POST"
        r = c.request(method, path, content=DEEP_ARRAY, headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert r.json()["status"] == "failed" and "32 deep" in r.json()["message"]


def test_deep_meta_is_refused_and_nothing_is_created(sandbox):
    """Item 6: a deep object in ``meta`` is refused whole, before anything is stored."""
    with sandbox.client() as c:
        r = c.post("/api/payment", json=payment("DEEP-1", meta=_nested_object(40)))
    assert r.status_code == 400 and "32 deep" in r.json()["message"]
    _nothing_created(sandbox)


def test_deep_meta_on_the_website_form_is_an_html_400(sandbox):
    """Item 6: on ``/ext_transfer`` (an HTML route) the refusal is a page, not JSON."""
    fields = {
        **{k: v for k, v in payment("DEEP-1").items() if isinstance(v, str)},
        "secret_key": sandbox.key(kind="public"),
        "meta": "[" * 5000 + "]" * 5000,
    }
    r = httpx.post(sandbox.base_url + "/ext_transfer", data=fields)
    assert r.status_code == 400 and "text/html" in r.headers["content-type"]
    assert "meta must be a JSON object of at most 20 strings" in r.text
    _nothing_created(sandbox)


@pytest.mark.parametrize(
    "path,kind,html",
    [
        ("/api/js_transfer", "public", False),
        ("/api/payment", "secret", False),
        ("/ext_transfer", None, True),
    ],
)
def test_a_body_over_the_limit_is_refused_on_its_length(sandbox, path, kind, html):
    """Item 8: a declared 50 MB body is refused at once, none of it read, and the
    connection is closed rather than drained."""
    conn = RawHttp(sandbox.base_url)
    headers = {
        "Content-Type": "application/x-www-form-urlencoded" if html else "application/json",
        "Content-Length": str(50 * 1024 * 1024),
    }
    if kind:
        headers["Authorization"] = f"Bearer {sandbox.key(kind=kind)}"
    try:
        conn.send(conn.request_head("POST", path, headers) + b'{"amount": "1"')
        started = time.monotonic()
        status, got, body = conn.response(timeout=5)
        assert time.monotonic() - started < 2
        assert status == 413 and got["connection"] == "close"
        if html:
            assert got["content-type"].startswith("text/html") and b"at most 64 KB" in body
        else:
            assert json.loads(body)["message"] == "Request body must be at most 64 KB"
        assert conn.closed_by_server(wait=2)
    finally:
        conn.close()


def test_a_chunked_body_is_not_read_past_the_limit(sandbox):
    """Item 8: a chunked body with no length is read up to the limit, then refused."""
    conn = RawHttp(sandbox.base_url)
    head = conn.request_head(
        "POST",
        "/api/payment",
        {
            "Authorization": f"Bearer {sandbox.key()}",
            "Content-Type": "application/json",
            "Transfer-Encoding": "chunked",
        },
    )
    chunk = b"x" * 16384
    try:
        conn.send(head)
        for _ in range(6):  # 96 KB, and never the last chunk
            conn.send(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        status, got, body = conn.response(timeout=5)
        assert status == 413 and got["connection"] == "close"
        assert json.loads(body)["status"] == "failed"
        assert conn.closed_by_server(wait=2)
    finally:
        conn.close()
    with sandbox.client() as c:  # and everyone else is still served
        assert c.post("/api/payment", json=payment("AFTER-1")).status_code == 201


@pytest.mark.parametrize(
    "path,kind,ctype",
    [
        ("/api/payment", "secret", "text/plain"),
        ("/api/payment", "secret", "application/x-www-form-urlencoded"),
        ("/api/js_transfer", "public", "text/plain"),
        ("/api/virtual_card/create", "secret", "text/plain; charset=utf-8"),
    ],
)
def test_json_routes_answer_415_to_other_types(sandbox, path, kind, ctype):
    """Item 9: a JSON body sent as another type is not taken as JSON."""
    body = payment("TYPE-1", customer={"email": "a@example.com", "first_name": "A", "last_name": "B"})
    with sandbox.client(kind=kind) as c:
        r = c.post(path, content=json.dumps(body), headers={"Content-Type": ctype})
    assert r.status_code == 415, r.text
    assert r.json() == {"status": "failed", "message": "Content-Type must be application/json", "data": None}
    _nothing_created(sandbox, "TYPE-1")


def test_json_with_a_charset_is_json(sandbox):
    """Item 9: ``application/json; charset=utf-8`` is still JSON."""
    with sandbox.client() as c:
        r = c.post(
            "/api/payment",
            content=json.dumps(payment("TYPE-2")),
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
    assert r.status_code == 201, r.text
