"""The default and --quirks sandboxes also serve GET /api/verify-payment/{tx_ref} (the path
every client of the family calls), answering exactly as /api/transaction/{tx_ref} does in
their dialect, and take the website form's key in ``public_key`` (the family's field)."""

import httpx
import pytest

from tests.helpers import payment

DIALECTS = [pytest.param({}, id="strict"), pytest.param({"quirks": True}, id="quirks")]


def _both(c, tx_ref):
    documented = c.get(f"/api/transaction/{tx_ref}")
    family_path = c.get(f"/api/verify-payment/{tx_ref}")
    assert (family_path.status_code, family_path.json()) == (documented.status_code, documented.json()), tx_ref
    return family_path


@pytest.mark.parametrize("options", DIALECTS)
def test_verify_payment_answers_as_the_documented_lookup(make_sandbox, options):
    sb = make_sandbox("vp", base_path="/pay", **options)
    with sb.client() as c:
        url = c.post("/api/payment", json=payment("VP-1")).json()["data"]["checkout_url"]
        unpaid = _both(c, "VP-1")
        assert unpaid.status_code == (404 if options else 200)
        c.post(f"/_sandbox/pay/{url.rsplit('/', 1)[1]}", json={"outcome": "success"}).raise_for_status()
        paid = _both(c, "VP-1")
        assert paid.json()["data"]["status"] == "success"
        assert paid.json()["message"] == "Payment details"
        assert _both(c, "NOPE").json()["message"] == "Invalid transaction"
    with sb.client("live") as live:
        refused = _both(live, "VP-1")
        assert refused.status_code == 400
        assert refused.json()["message"] == "live secret keys can't be used to verify a test transaction"
    with sb.client(kind="public") as pub:
        _both(pub, "VP-1")


@pytest.mark.parametrize("options", DIALECTS)
def test_website_form_takes_public_key_besides_secret_key(make_sandbox, options):
    sb = make_sandbox("pk", **options)
    fields = {
        "tx_ref": "PK-1",
        "amount": "250",
        "currency": "GBP",
        "email": "bo@example.com",
        "first_name": "Bo",
        "last_name": "Smith",
        "title": "Books",
    }
    r = httpx.post(sb.base_url + "/ext_transfer", data={"public_key": sb.key(kind="public"), **fields})
    assert r.status_code == 303 and "/payment/PDK-" in r.headers["location"]
    r = httpx.post(
        sb.base_url + "/ext_transfer", data={"secret_key": sb.key(kind="public"), **fields, "tx_ref": "PK-2"}
    )
    assert r.status_code == 303
    r = httpx.post(
        sb.base_url + "/ext_transfer", data={"public_key": "pub-test-" + "x" * 32, **fields, "tx_ref": "PK-3"}
    )
    assert r.status_code == 401 and "Invalid Secret Key" in r.text
    with sb.client() as c:
        for tx_ref, known in (("PK-1", True), ("PK-2", True), ("PK-3", False)):
            r = c.get(f"/api/verify-payment/{tx_ref}")
            assert (r.json()["message"] != "Invalid transaction") == known, tx_ref
            if known and not options:
                assert r.json()["data"]["type"] == "FORM"


def test_the_inline_script_reads_public_key_or_secret_key(sandbox):
    script = httpx.get(sandbox.base_url + "/js/payment.js").text
    assert '["public_key", "secret_key"]' in script
