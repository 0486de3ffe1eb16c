"""--family's rules from the newest reading of its server code (SERVICE.md 1b): ``meta:
null`` and ``callback_url: null`` refused, each merchant's amount limits per currency, a fee
passed to the customer, a live payment's customer sent to the receipt page, and the look-up
routes for a merchant's forms (country, state, currency_supported)."""

import httpx
import pytest

from tests.helpers import payment


@pytest.fixture
def family(make_sandbox):
    return make_sandbox("family-rules", family=True, base_path="/pay")


def _settings(c, method="GET", **body):
    r = c.request(method, "/_sandbox/settings", json=body if method == "PUT" else None)
    assert r.status_code == 201, r.text
    return r.json()["data"]


def _reference(c, tx_ref, **over):
    r = c.post("/api/payment", json=payment(tx_ref, **over))
    assert r.status_code == 201, r.text
    return r.json()["data"]["checkout_url"].rsplit("/", 1)[1]


def test_meta_and_callback_url_given_as_null_are_refused(family):
    with family.client() as c:
        for name in ("meta", "callback_url"):
            r = c.post("/api/payment", json={**payment(f"F-NULL-{name}"), name: None})
            assert r.status_code == 400 and r.json()["data"] is None
            assert list(r.json()["message"]) == [name], r.json()
        # left out, both are fine
        body = payment("F-NULL-NONE")
        body.pop("meta", None)
        body.pop("callback_url", None)
        assert c.post("/api/payment", json=body).status_code == 201
        assert c.get("/api/verify-payment/F-NULL-meta").json()["message"] == "Invalid transaction"
    # the inline checkout's config is the same request
    with family.client(kind="public") as browser:
        config = {
            "tx_ref": "F-NULL-JS",
            "amount": "10",
            "currency": "GBP",
            "meta": None,
            "customer": {"email": "a@example.com", "first_name": "A", "last_name": "B"},
            "customization": {"title": "T", "description": "D"},
        }
        r = browser.post("/api/js_transfer", json=config)
        assert r.status_code == 400 and list(r.json()["message"]) == ["meta"]
    # the website form sends no callback_url when it has none: not a null
    form = {
        "public_key": family.key(kind="public"),
        "tx_ref": "F-NULL-FORM",
        "amount": "5",
        "currency": "GBP",
        "email": "bo@example.com",
        "first_name": "Bo",
        "last_name": "S",
        "title": "Books",
        "description": "Two",
    }
    assert httpx.post(family.base_url + "/ext_transfer", data=form).status_code == 303


def test_the_default_amount_limits(family):
    with family.client() as c:
        assert c.post("/api/payment", json=payment("F-MAX", currency="GBP", amount="1000000")).status_code == 201
        r = c.post("/api/payment", json=payment("F-OVER", currency="GBP", amount="1000001"))
        assert r.status_code == 400
        assert r.json() == {"status": "failed", "data": None, "message": "The maximum amount for GBP is 1,000,000"}
        assert _settings(c)["amount_limits"]["GBP"] == {"min_amount": 1, "max_amount": 1_000_000}


def test_a_merchants_own_limits_per_currency(family):
    with family.client("live") as live:  # a merchant setting: either mode's key sets it
        seen = _settings(live, "PUT", amount_limits={"GBP": {"min_amount": 5, "max_amount": 500}})
        assert seen["amount_limits"]["GBP"] == {"min_amount": 5, "max_amount": 500}
        assert seen["amount_limits"]["USD"] == {"min_amount": 1, "max_amount": 1_000_000}
    with family.client() as c:
        r = c.post("/api/payment", json=payment("F-MIN", currency="GBP", amount="4"))
        assert r.status_code == 400 and r.json()["message"] == "The minimum amount for GBP is 5"
        r = c.post("/api/payment", json=payment("F-BIG", currency="GBP", amount="501"))
        assert r.status_code == 400 and r.json()["message"] == "The maximum amount for GBP is 500"
        assert c.post("/api/payment", json=payment("F-USD", amount="4", currency="USD")).status_code == 201
        assert c.post("/api/payment", json=payment("F-OK", currency="GBP", amount="5")).status_code == 201
        for refused in ("F-MIN", "F-BIG"):  # nothing was recorded
            assert c.get(f"/api/verify-payment/{refused}").json()["message"] == "Invalid transaction"
        # the website form is held to them too
        form = {
            "public_key": family.key(kind="public"),
            "tx_ref": "F-FORM-MIN",
            "amount": "2",
            "currency": "GBP",
            "email": "bo@example.com",
            "first_name": "Bo",
            "last_name": "S",
            "title": "Books",
            "description": "Two",
        }
        r = httpx.post(family.base_url + "/ext_transfer", data=form)
        assert r.status_code == 400 and "The minimum amount for GBP is 5" in r.text
        # another merchant keeps the defaults
    with family.client(merchant=1) as other:
        assert other.post("/api/payment", json=payment("F-MIN", currency="GBP", amount="4")).status_code == 201
    with family.client() as c:
        for bad in (
            {"GBP": {"min_amount": 9, "max_amount": 8}},
            {"NGN": {"min_amount": 1}},
            {"GBP": {"min_amount": 0}},
            {"GBP": {"max_amount": "x"}},
            ["GBP"],
        ):
            r = c.put("/_sandbox/settings", json={"amount_limits": bad})
            assert r.status_code == 400, bad
        assert c.delete("/_sandbox/settings").json()["data"]["amount_limits"]["GBP"] == {
            "min_amount": 1,
            "max_amount": 1_000_000,
        }
        assert c.post("/api/payment", json=payment("F-MIN-AGAIN", currency="GBP", amount="4")).status_code == 201


def test_a_fee_passed_to_the_customer_is_taken_off_the_lookups_amount(family):
    with family.client() as c:
        ref = _reference(c, "F-FEE", amount="1000")
        c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"}).raise_for_status()
        data = c.get("/api/verify-payment/F-FEE").json()["data"]
        assert (data["amount"], data["charge"]) == ("1,000.00", "14.20")  # 1.4% + 0.20
        assert _settings(c, "PUT", customer_pays_fee=True)["customer_pays_fee"] is True
        data = c.get("/api/verify-payment/F-FEE").json()["data"]
        assert (data["amount"], data["charge"]) == ("985.80", "14.20")
        assert c.put("/_sandbox/settings", json={"customer_pays_fee": "yes"}).status_code == 400
        _settings(c, "PUT", customer_pays_fee=False)
        assert c.get("/api/verify-payment/F-FEE").json()["data"]["amount"] == "1,000.00"


def test_a_successful_live_payment_goes_to_the_receipt_page(family):
    """Only test payments go to callback_url?tx_ref=; the control API, which pays a live
    link in the sandbox (a real customer's card), says where the customer is sent."""
    with family.client("live") as live:
        ref = _reference(live, "F-LIVE", callback_url="https://shop.example/done")
        r = live.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"})
        assert r.json()["data"]["redirect_url"] == f"{family.base_url}/payment/{ref}/receipt"
        failed = _reference(live, "F-LIVE-NO", callback_url="https://shop.example/done")
        r = live.post(f"/_sandbox/pay/{failed}", json={"outcome": "failed"})
        assert r.json()["data"]["redirect_url"] == f"{family.base_url}/payment/{failed}/receipt"
    with family.client() as c:
        ref = _reference(c, "F-TEST", callback_url="https://shop.example/done")
        r = c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"})
        assert r.json()["data"]["redirect_url"] == "https://shop.example/done?tx_ref=F-TEST"
        ref = _reference(
            c, "F-TEST-X", callback_url="https://shop.example/done", return_url="https://shop.example/back"
        )
        r = c.post(f"/_sandbox/pay/{ref}", json={"outcome": "cancelled"})
        assert r.json()["data"]["redirect_url"] == "https://shop.example/back"


def test_the_look_up_routes_for_a_merchants_forms(family):
    with httpx.Client(base_url=family.base_url, headers={"Accept": "application/json"}) as c:
        r = c.get("/api/country")
        assert r.status_code == 201 and r.json()["status"] == "success"
        countries = r.json()["data"]
        assert {"id": 4, "name": "United Kingdom", "iso2": "GB", "phone_code": "44"} in countries
        r = c.get("/api/state/4")
        assert r.status_code == 201
        states = r.json()["data"]
        assert [s["name"] for s in states] == ["England", "Northern Ireland", "Scotland", "Wales"]
        assert all(s["country_id"] == 4 and isinstance(s["id"], int) for s in states)
        assert c.get("/api/state/999").json()["data"] == []
        assert c.get("/api/state/abc").json()["data"] == []
        r = c.get("/api/currency_supported")
        assert r.status_code == 201
        assert r.json()["data"] == [
            {"id": 12, "name": "Pound Sterling", "code": "GBP", "symbol": "£"},
            {"id": 11, "name": "US Dollar", "code": "USD", "symbol": "$"},
        ]


def test_the_document_dialects_have_no_such_routes(make_sandbox):
    sb = make_sandbox("strict-lookups")
    with sb.client() as c:
        for path in ("/api/country", "/api/state/1", "/api/currency_supported"):
            assert c.get(path).status_code == 404
