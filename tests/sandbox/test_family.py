"""--family answers as the family's server code does (SERVICE.md section 1b), item by item:
payments, the lookup at verify-payment, validation, the website form and the redirects.
Cards are in test_family_cards.py, notifications in test_family_webhook.py."""

import httpx
import pytest

from paydesk.sandbox import SandboxConfig
from tests.helpers import payment


@pytest.fixture
def family(make_sandbox):
    return make_sandbox("family", family=True, base_path="/pay")


def _reference(checkout_url: str) -> str:
    return checkout_url.rsplit("/", 1)[1]


def _link(c: httpx.Client, tx_ref: str, **over) -> str:
    r = c.post("/api/payment", json=payment(tx_ref, **over))
    assert r.status_code == 201, r.text
    assert r.json()["status"] == "success" and r.json()["message"] == "Payment link created"
    return r.json()["data"]["checkout_url"]


CARD = {"expiry": "12/30", "cvc": "123"}


def test_family_and_quirks_are_two_dialects(tmp_path):
    with pytest.raises(ValueError, match="choose one"):
        SandboxConfig(data_dir=tmp_path, family=True, quirks=True)


def test_the_documented_lookup_path_is_the_frameworks_404(family):
    """The family's routes file has no /api/transaction: the framework's own 404 answers,
    not the service's envelope: JSON ``{"message"}`` in the framework's words under
    ``Accept: application/json``, its HTML page without."""
    with family.client() as c:
        _link(c, "F-DOC")
        for path in ("/api/transaction/F-DOC", "/api/transaction", "/api/no-such-route"):
            r = c.get(path)
            assert r.status_code == 404, path
            assert r.json() == {"message": f"The route {path[1:]} could not be found."}
            page = httpx.get(family.base_url + path, headers={"Authorization": c.headers["authorization"]})
            assert page.status_code == 404, path
            assert page.headers["content-type"].startswith("text/html")
            assert "Not Found" in page.text and "Payment details" not in page.text
            with pytest.raises(ValueError):
                page.json()
        # a method the route does not take: the framework's 405
        r = c.post("/api/verify-payment/F-DOC", json={})
        assert r.status_code == 405 and r.headers["Allow"] == "GET, HEAD"
        assert r.json() == {
            "message": "The POST method is not supported for route "
            "api/verify-payment/F-DOC. Supported methods: GET, HEAD."
        }
        page = httpx.post(
            family.base_url + "/api/verify-payment/F-DOC", headers={"Authorization": c.headers["Authorization"]}
        )
        assert page.status_code == 405 and page.headers["content-type"].startswith("text/html")
        assert "Method Not Allowed" in page.text
        # the sandbox's own control routes (no part of the family) keep the envelope
        r = c.get("/_sandbox/nothing-here")
        assert r.json() == {"status": "failed", "message": "Not found", "data": None}


@pytest.mark.parametrize(
    "accept,json_answer",
    [
        ("application/json", True),
        ("application/vnd.api+json", True),
        ("text/html, application/json;q=0.9", False),
        ("application/json;q=0.5, text/html", False),
        ("*/*", False),
        ("", False),
    ],
)
def test_json_when_the_request_expects_it_as_the_framework_decides(family, accept, json_answer):
    """Laravel's expectsJson: the most wanted type of Accept is JSON (or an XMLHttpRequest
    that takes anything)."""
    r = httpx.get(family.base_url + "/api/nothing", headers={"Accept": accept} if accept else {})
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/json" if json_answer else "text/html"), accept
    ajax = httpx.get(family.base_url + "/api/nothing", headers={"X-Requested-With": "XMLHttpRequest", "Accept": "*/*"})
    assert ajax.json() == {"message": "The route api/nothing could not be found."}


def test_cors_is_open_on_every_api_path(family):
    """The framework's HandleCors with its default config: every api/* path, any origin; a
    preflight is answered before any route is looked for."""
    for path in ("/api/payment", "/api/verify-payment/X", "/api/virtual_card/all", "/api/no-such-route"):
        r = httpx.options(
            family.base_url + path,
            headers={
                "Origin": "https://shop.example",
                "Access-Control-Request-Method": "post",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        assert r.status_code == 204, path
        assert r.headers["Access-Control-Allow-Origin"] == "*"
        assert r.headers["Access-Control-Allow-Methods"] == "POST"
        assert r.headers["Access-Control-Allow-Headers"] == "authorization,content-type"
        assert r.headers["Access-Control-Max-Age"] == "0"
    origin = {"Origin": "https://shop.example"}
    with family.client() as c:
        for r in (
            c.post("/api/payment", json=payment("F-CORS"), headers=origin),
            c.get("/api/verify-payment/X", headers=origin),
            c.get("/api/no-such-route", headers=origin),
        ):
            assert r.headers["Access-Control-Allow-Origin"] == "*", r.request.url
        # not the checkout pages, not the sandbox's control routes
        r = c.get("/_sandbox/requests", headers=origin)
        assert "Access-Control-Allow-Origin" not in r.headers
    r = httpx.get(family.base_url + "/payment/PDK-" + "0" * 32, headers=origin)
    assert "Access-Control-Allow-Origin" not in r.headers


def test_lookup_answers_201_with_the_transactions_state(family):
    with family.client() as c:
        paid, failed, cancelled = (_reference(_link(c, ref)) for ref in ("F-OK", "F-NO", "F-X"))
        c.post(f"/_sandbox/pay/{paid}", json={"outcome": "success"}).raise_for_status()
        c.post(f"/_sandbox/pay/{failed}", json={"outcome": "failed"}).raise_for_status()
        c.post(f"/_sandbox/pay/{cancelled}", json={"outcome": "cancelled"}).raise_for_status()
        seen = {}
        for tx_ref in ("F-OK", "F-NO", "F-X"):
            r = c.get(f"/api/verify-payment/{tx_ref}")
            assert r.status_code == 201
            body = r.json()
            assert body["message"] == "Payment details" and body["data"]["tx_ref"] == tx_ref
            assert body["data"]["status"] == body["status"]
            seen[tx_ref] = body["status"]
        # failed and cancelled are one state
        assert seen == {"F-OK": "success", "F-NO": "failed/cancelled", "F-X": "failed/cancelled"}
        for status in ("refunded",):
            c.post(f"/_sandbox/transactions/{paid}/status", json={"status": status}).raise_for_status()
            assert c.get("/api/verify-payment/F-OK").json()["status"] == status
        reversed_ = _reference(_link(c, "F-REV"))
        c.post(f"/_sandbox/pay/{reversed_}", json={"outcome": "success"}).raise_for_status()
        c.post(f"/_sandbox/transactions/{reversed_}/status", json={"status": "reversed"}).raise_for_status()
        r = c.get("/api/verify-payment/F-REV")
        assert r.status_code == 201 and r.json()["status"] == "reversed"


def test_a_link_never_submitted_and_one_waiting_for_its_code(family):
    with family.client() as c:
        url = _link(c, "F-WAIT")
        r = c.get("/api/verify-payment/F-WAIT")
        assert r.status_code == 404
        assert r.json() == {"message": "Payment not submitted", "status": "null", "data": None}
    # the customer submits the form with the 3-D Secure card: now it is pending
    assert httpx.post(url, data={"card_number": "4000000000003220", **CARD}).status_code == 303
    with family.client() as c:
        r = c.get("/api/verify-payment/F-WAIT")
        assert r.status_code == 201 and r.json()["status"] == "pending"
        assert r.json()["data"]["status"] == "pending"


def test_lookup_refusals(family):
    with family.client() as c:
        _link(c, "F-MINE")
        r = c.get("/api/verify-payment/NOPE")
        assert r.status_code == 404
        assert r.json() == {"status": "failed", "message": "Invalid transaction", "data": None}
    with family.client("live") as live:
        r = live.get("/api/verify-payment/F-MINE")
        assert r.status_code == 400 and r.json()["data"] is None
        assert r.json()["message"] == "live secret keys can't be used to verify a test transaction"
        _link(live, "F-LIVE")
    with family.client() as c:
        r = c.get("/api/verify-payment/F-LIVE")
        assert r.status_code == 400
        assert r.json()["message"] == "test secret keys can't be used to verify a live transaction"
    with httpx.Client(base_url=family.base_url, headers={"Authorization": "Bearer sec-test-" + "x" * 32}) as stranger:
        r = stranger.get("/api/verify-payment/F-MINE")
        assert r.status_code == 400
        assert r.json() == {"status": "failed", "message": "Invalid Secret Key", "data": None}
    # another merchant's key: its records are searched, never this merchant's (the family's
    # code finds the record across merchants first; that fault is not copied)
    with family.client(merchant=1) as other:
        r = other.get("/api/verify-payment/F-MINE")
        assert r.status_code == 404 and r.json()["message"] == "Invalid transaction"
        assert r.json()["data"] is None


@pytest.mark.parametrize("amount", [1000, "1000"])
def test_amounts_as_integer_or_digit_string(family, amount):
    tx_ref = f"F-AMT-{type(amount).__name__}"
    with family.client() as c:
        reference = _reference(_link(c, tx_ref, amount=amount))
        c.post(f"/_sandbox/pay/{reference}", json={"outcome": "success"}).raise_for_status()
        r = c.get(f"/api/verify-payment/{tx_ref}")
        assert r.status_code == 201 and r.json()["data"]["amount"] == "1,000.00"


def test_validation_failures_are_the_error_bag_and_the_currency_text(family):
    with family.client() as c:
        # an unsupported currency is checked first, and said as text
        r = c.post("/api/payment", json=payment("F-V1", currency="NGN", amount="x", email="no"))
        assert r.status_code == 400
        assert r.json() == {"status": "failed", "data": None, "message": "Invalid currency, NGN is not supported"}
        # then every failing field, as the framework's error bag
        r = c.post(
            "/api/payment",
            json=payment("F-V1", amount=12.5, email="no", customization={"logo": "https://x.example/l.png"}),
        )
        assert r.status_code == 400
        body = r.json()
        assert body["status"] == "failed" and body["data"] is None and "errors" not in body
        bag = body["message"]
        assert set(bag) == {"amount", "email", "customization.title", "customization.description"}
        assert all(isinstance(v, list) and all(isinstance(m, str) for m in v) for v in bag.values())
        assert bag["customization.title"] == ["customization.title is required"]
        # title and description are required, even blank is refused
        r = c.post("/api/payment", json=payment("F-V2", customization={"title": "Tea", "description": " "}))
        assert r.status_code == 400
        assert r.json()["message"] == {"customization.description": ["customization.description is required"]}
        # a duplicate: 400
        _link(c, "F-V3")
        r = c.post("/api/payment", json=payment("F-V3"))
        assert r.status_code == 400 and r.json()["data"] is None
        assert r.json()["message"] == "Transaction reference has been used before"
        # nothing of the refused ones was recorded
        for tx_ref in ("F-V1", "F-V2"):
            assert c.get(f"/api/verify-payment/{tx_ref}").json()["message"] == "Invalid transaction"


def test_after_payment_the_customer_goes_to_callback_url_with_tx_ref_only(family):
    with family.client() as c:
        url = _link(c, "F-CB", callback_url="https://shop.example/done", return_url="https://shop.example/back")
    r = httpx.post(url, data={"card_number": "4242424242424242", **CARD})
    assert r.status_code == 303
    assert r.headers["location"] == "https://shop.example/done?tx_ref=F-CB"
    # 3-D Secure, then a wrong code: the same concatenation, no status
    with family.client() as c:
        url = _link(c, "F-3DS", callback_url="https://shop.example/x?order=9")
    assert httpx.post(url, data={"card_number": "4000000000003220", **CARD}).status_code == 303
    r = httpx.post(url + "/3ds", data={"code": "654321"})
    assert r.headers["location"] == "https://shop.example/x?order=9?tx_ref=F-3DS"
    with family.client() as c:
        assert c.get("/api/verify-payment/F-3DS").json()["status"] == "failed/cancelled"


def test_cancel_goes_to_return_url_as_given(family):
    with family.client() as c:
        url = _link(
            c, "F-CANCEL", callback_url="https://shop.example/done", return_url="https://shop.example/back?basket=3"
        )
    r = httpx.post(url + "/cancel")
    assert r.status_code == 303 and r.headers["location"] == "https://shop.example/back?basket=3"
    with family.client() as c:
        assert c.get("/api/verify-payment/F-CANCEL").json()["status"] == "failed/cancelled"


def _form(key_field: str, key: str, tx_ref: str, **over) -> dict:
    fields = {
        key_field: key,
        "tx_ref": tx_ref,
        "amount": "250",
        "currency": "GBP",
        "email": "bo@example.com",
        "first_name": "Bo",
        "last_name": "Smith",
        "title": "Books",
        "description": "Two books",
        "callback_url": "https://shop.example/cb",
    }
    fields.update(over)
    return {k: v for k, v in fields.items() if v is not None}


def test_website_form_takes_the_key_in_public_key(family):
    public = family.key(kind="public")
    r = httpx.post(family.base_url + "/ext_transfer", data=_form("public_key", public, "F-W1"))
    assert r.status_code == 303 and "/payment/PDK-" in r.headers["location"]
    with family.client() as c:
        assert c.get("/api/verify-payment/F-W1").json()["message"] == "Payment not submitted"
    # a secret key has no place in a web page: refused there
    r = httpx.post(family.base_url + "/ext_transfer", data=_form("public_key", family.key(), "F-W4"))
    assert r.status_code == 403 and "text/html" in r.headers["content-type"]
    # the document's field name is not the family's: no key, no payment
    r = httpx.post(family.base_url + "/ext_transfer", data=_form("secret_key", public, "F-W2"))
    assert r.status_code == 401 and "text/html" in r.headers["content-type"]
    # title and description are required on the form too
    r = httpx.post(
        family.base_url + "/ext_transfer", data=_form("public_key", public, "F-W3", title=None, description="")
    )
    assert r.status_code == 400 and "customization.title is required" in r.text
    assert "customization.description is required" in r.text
    with family.client() as c:
        for tx_ref in ("F-W2", "F-W3", "F-W4"):
            assert c.get(f"/api/verify-payment/{tx_ref}").json()["message"] == "Invalid transaction"


def test_the_inline_script_reads_config_public_key(family):
    script = httpx.get(family.base_url + "/js/payment.js")
    assert script.status_code == 200
    assert '["public_key"]' in script.text and '"secret_key"' not in script.text


def test_successes_are_201_and_errors_400_or_404(family):
    with family.client() as c:
        ref = _reference(_link(c, "F-C1"))
        assert c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"}).status_code == 201
        assert c.get("/api/verify-payment/F-C1").status_code == 201
        refusals = [
            c.post("/api/payment", json=payment("F-C1")),
            c.post("/api/payment", json={}),
            c.get("/api/verify-payment/NOPE"),
        ]
        assert [r.status_code for r in refusals] == [400, 400, 404]
        assert all(r.json()["data"] is None for r in refusals)
    with family.client(kind="public") as pub:
        r = pub.post("/api/payment", json=payment("F-C3"))
        assert r.status_code == 400 and r.json()["data"] is None
