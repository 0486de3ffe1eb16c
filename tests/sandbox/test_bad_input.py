"""Bad input and bad keys: each answers the failed envelope naming the problem, and changes nothing."""

import sqlite3
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.helpers import payment


def _nothing_created(c: httpx.Client, tx_ref: str = "BAD-1") -> None:
    r = c.get(f"/api/transaction/{tx_ref}")
    assert r.status_code == 404, r.text


def _failed(r: httpx.Response, status: int, field: str | None, fragment: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert body["status"] == "failed" and body["data"] is None
    assert fragment in body["message"]
    if field:
        assert field in body["errors"]


@pytest.mark.parametrize(
    "amount,fragment",
    [
        ("-1", "digits 0-9"),
        ("0", "between 1 and"),
        ("1.5", "digits 0-9"),
        ("1e3", "digits 0-9"),
        (" 12", "digits 0-9"),
        ("١٢", "digits 0-9"),
        ("9" * 30, "between 1 and"),
        ("9" * 70, "at most 64 characters"),
        ("10000001", "between 1 and"),
        ("", "amount is required"),
        (None, "amount is required"),
        (12, "must be a string"),
        (True, "must be a string"),
        (["1"], "must be a string"),
        ("0x10", "digits 0-9"),
    ],
)
def test_bad_amounts(sandbox, amount, fragment):
    body = payment("BAD-1")
    if amount is None:
        del body["amount"]
    else:
        body["amount"] = amount
    with sandbox.client() as c:
        r = c.post("/api/payment", json=body)
        _failed(r, 400, "amount", fragment)
        _nothing_created(c)


@pytest.mark.parametrize(
    "field,value,fragment",
    [
        ("email", "not-an-email", "valid e-mail"),
        ("email", "a@b", "valid e-mail"),
        ("email", "a b@example.com", "valid e-mail"),
        ("email", "x" * 300 + "@example.com", "at most"),
        ("first_name", "", "first_name is required"),
        ("first_name", "   ", "first_name is required"),
        ("last_name", 42, "must be a string"),
        ("first_name", "x" * 101, "at most 100"),
        ("callback_url", "javascript:alert(1)", "http or https URL"),
        ("callback_url", "ftp://example.com/x", "http or https URL"),
        ("return_url", "http://", "http or https URL"),
        ("return_url", "not a url", "http or https URL"),
        ("currency", "NGN", "Invalid currency, NGN is not supported"),
        ("currency", "usd", "Invalid currency, usd is not supported"),
        ("currency", 840, "must be a string"),
        ("tx_ref", "", "tx_ref is required"),
        ("tx_ref", "x" * 101, "at most 100"),
        ("tx_ref", "has space", "may only contain"),
        ("tx_ref", "a/b", "may only contain"),
        ("customization", "title", "must be an object"),
        ("customization", {"title": "t" * 101}, "at most 100"),
        ("customization", {"description": "d" * 256}, "at most 255"),
        ("customization", {"logo": "javascript:alert(1)"}, "http or https URL"),
        ("meta", {"n": 1}, "values are strings"),
        ("meta", ["a"], "values are strings"),
        ("meta", {"k": "v" * 101}, "meta.k must be at most 100 characters"),
        ("meta", {f"k{i}": "v" for i in range(21)}, "at most 20 members"),
        ("meta", {"k" * 41: "v"}, "1 to 40 characters"),
        ("meta", {"": "v"}, "1 to 40 characters"),
        ("tx_ref", "...", "at least one letter or digit"),
        ("callback_url", "http://[::1", "http or https URL"),
    ],
)
def test_bad_fields(sandbox, field, value, fragment):
    with sandbox.client() as c:
        body = payment("BAD-1")
        body[field] = value
        r = c.post("/api/payment", json=body)
        expected_field = {"customization": None}.get(field, field)
        _failed(r, 400, expected_field, fragment)
        _nothing_created(c)


def test_every_failing_field_is_named(sandbox):
    with sandbox.client() as c:
        r = c.post("/api/payment", json={"amount": "x", "currency": "NGN", "email": "nope"})
        body = r.json()
        assert set(body["errors"]) >= {"tx_ref", "amount", "currency", "email", "first_name", "last_name"}
        assert body["message"] == "tx_ref is required"


@pytest.mark.parametrize(
    "raw,fragment",
    [
        (b"{not json", "Malformed JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'"text"', "must be a JSON object"),
        (b"", "must be a JSON object"),
        (b"null", "must be a JSON object"),
        (b"\xff\xfe", "Malformed JSON"),
    ],
)
def test_malformed_bodies(sandbox, raw, fragment):
    with sandbox.client() as c:
        r = c.post("/api/payment", content=raw, headers={"Content-Type": "application/json"})
        _failed(r, 400, None, fragment)


def test_oversized_body(sandbox):
    with sandbox.client() as c:
        r = c.post("/api/payment", json=payment("BAD-1", meta={"k": "v" * 70_000}))
        _failed(r, 413, None, "at most 64 KB")
        _nothing_created(c)


@pytest.mark.parametrize(
    "header,status,fragment",
    [
        (None, 401, "Bearer secret key is required"),
        ("Bearer", 401, "Bearer secret key is required"),
        ("Basic abc", 401, "Bearer secret key is required"),
        ("Bearer sec-test-" + "A" * 32, 401, "Invalid Secret Key"),
    ],
)
def test_missing_and_unknown_keys(sandbox, header, status, fragment):
    headers = {"Authorization": header} if header else {}
    r = httpx.post(sandbox.base_url + "/api/payment", json=payment("BAD-1"), headers=headers)
    _failed(r, status, None, fragment)
    with sandbox.client() as c:
        _nothing_created(c)


def test_public_key_on_a_server_call_is_refused(sandbox):
    with sandbox.client(kind="public") as c:
        r = c.post("/api/payment", json=payment("BAD-1"))
        _failed(r, 403, None, "public key cannot be used")
        _failed(c.get("/api/transaction/BAD-1"), 403, None, "public key cannot be used")
    with sandbox.client() as c:
        _nothing_created(c)


def test_secret_key_on_inline_checkout_is_refused(sandbox):
    body = {**payment("BAD-1"), "customer": {"email": "a@example.com", "first_name": "A", "last_name": "B"}}
    with sandbox.client() as c:
        _failed(c.post("/api/js_transfer", json=body), 403, None, "public key")
        _nothing_created(c)


def test_duplicate_tx_ref(sandbox):
    with sandbox.client() as c:
        assert c.post("/api/payment", json=payment("DUP-1")).status_code == 201
        first = c.get("/api/transaction/DUP-1").json()["data"]
        r = c.post("/api/payment", json=payment("DUP-1", amount="5"))
        _failed(r, 409, "tx_ref", "Transaction reference has been used before")
        again = c.get("/api/transaction/DUP-1").json()["data"]
        assert again == first  # unchanged: still 1,000.00


def test_fifty_concurrent_requests_with_one_tx_ref_make_one_link(sandbox):
    def create(_):
        with sandbox.client() as c:
            return c.post("/api/payment", json=payment("RACE-1")).status_code

    with ThreadPoolExecutor(max_workers=50) as pool:
        codes = list(pool.map(create, range(50)))
    assert codes.count(201) == 1
    assert codes.count(409) == 49
    with sqlite3.connect(sandbox.server.data_dir / "sandbox.sqlite3") as db:
        (count,) = db.execute("SELECT COUNT(*) FROM transactions WHERE tx_ref = 'RACE-1'").fetchone()
    assert count == 1
