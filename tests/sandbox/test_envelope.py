"""Every /api/ answer is the JSON envelope: unknown routes, wrong methods, internal errors."""

import httpx
import pytest


@pytest.mark.parametrize(
    "method,path,status",
    [
        ("GET", "/api/nothing", 404),
        ("GET", "/api/", 404),
        ("GET", "/api", 404),
        ("DELETE", "/api/payment", 405),
        ("GET", "/api/payment", 405),
        ("POST", "/api/transaction/X", 405),
        ("PUT", "/api/virtual_card/all", 405),
        ("GET", "/_sandbox/nothing", 404),
    ],
)
def test_unknown_routes_and_methods(sandbox, method, path, status):
    with sandbox.client() as c:
        r = c.request(method, path)
    assert r.status_code == status
    assert r.headers["content-type"] == "application/json"
    assert r.json()["status"] == "failed" and r.json()["data"] is None


def test_internal_error_is_an_envelope(sandbox, monkeypatch):
    # A real internal failure cannot be provoked through the API (that would be a bug to
    # fix); replacing one store method with a failing one stands in for a broken disk.
    sb = sandbox.server.app.sandbox

    def broken(*args):
        raise RuntimeError("disk on fire, key sec-test-XXXXXXXX")

    monkeypatch.setattr(sb.store, "transaction_by_ref", broken)
    with sandbox.client() as c:
        r = c.get("/api/transaction/X")
    assert r.status_code == 500
    assert r.json() == {"status": "failed", "message": "Internal error; nothing was changed", "data": None}


def test_non_api_unknown_is_html(sandbox):
    r = httpx.get(sandbox.base_url + "/elsewhere")
    assert r.status_code == 404 and "text/html" in r.headers["content-type"]
