"""The hosted checkout page, driven over HTTP as a browser would post its forms."""

import re
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.helpers import payment


def _link(sb, tx_ref, **over):
    with sb.client() as c:
        r = c.post("/api/payment", json=payment(tx_ref, **over))
        assert r.status_code == 201, r.text
        return r.json()["data"]["checkout_url"]


def _status(sb, tx_ref):
    with sb.client() as c:
        return c.get(f"/api/transaction/{tx_ref}").json()["data"]["status"]


CARD = {"expiry": "12/30", "cvc": "123"}


def test_checkout_page_shows_the_payment(sandbox):
    url = _link(
        sandbox,
        "C-1",
        customization={"title": "Flat white", "description": "Large", "logo": "https://cdn.example/logo.png"},
    )
    r = httpx.get(url)
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert "Flat white" in r.text and "Large" in r.text and "USD 1,000.00" in r.text
    assert 'src="https://cdn.example/logo.png"' in r.text
    assert "TEST MODE" in r.text


def test_live_checkout_has_no_test_banner(sandbox):
    with sandbox.client("live") as c:
        url = c.post("/api/payment", json=payment("L-1")).json()["data"]["checkout_url"]
    assert "TEST MODE" not in httpx.get(url).text


@pytest.mark.parametrize(
    "card", ["4242 4242 4242 4242", "4000 0000 0000 0002", "4000 0000 0000 3220", "5555 5555 5555 4444"]
)
def test_a_test_card_never_settles_a_live_link(sandbox, card):
    """Item 1: 4242... paid a live link on its hosted page, and the live lookup then said
    success with no money. Every card is refused there, with a clear message; the live
    secret key through the control API is what pays a live link in the sandbox."""
    with sandbox.client("live") as c:
        url = c.post("/api/payment", json=payment("LIVE-1")).json()["data"]["checkout_url"]
    page = httpx.get(url)
    assert page.status_code == 200 and "test cards cannot pay it" in page.text
    r = httpx.post(url, data={"card_number": card, **CARD})
    assert r.status_code == 409 and "This is a live payment: test cards cannot pay it." in r.text
    assert httpx.post(url + "/3ds", data={"code": "123456"}).status_code in (303, 409)
    with sandbox.client("live") as c:
        assert c.get("/api/transaction/LIVE-1").json()["data"]["status"] == "pending"
        ref = url.rsplit("/", 1)[1]
        paid = c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"})
        assert paid.status_code == 200
        assert c.get("/api/transaction/LIVE-1").json()["data"]["status"] == "success"


@pytest.mark.parametrize(
    "card,expected",
    [
        ("4242 4242 4242 4242", "success"),
        ("4000 0000 0000 0002", "failed"),
    ],
)
def test_pay_with_test_cards_redirects_to_callback(sandbox, card, expected):
    url = _link(sandbox, "C-2", callback_url="https://shop.example/done?order=9&status=old")
    r = httpx.post(url, data={"card_number": card, **CARD})
    assert r.status_code == 303
    target = urlsplit(r.headers["location"])
    assert target.netloc == "shop.example" and target.path == "/done"
    assert parse_qs(target.query) == {"order": ["9"], "status": [expected], "tx_ref": ["C-2"]}
    assert _status(sandbox, "C-2") == expected
    # a paid or failed link cannot be paid again
    again = httpx.post(url, data={"card_number": "4242424242424242", **CARD})
    assert again.status_code == 409 and "cannot be paid again" in again.text
    assert _status(sandbox, "C-2") == expected


@pytest.mark.parametrize("code,expected", [("123456", "success"), ("000000", "failed")])
def test_three_d_secure(sandbox, code, expected):
    url = _link(sandbox, "C-3", return_url="https://shop.example/back")
    r = httpx.post(url, data={"card_number": "4000000000003220", **CARD})
    assert r.status_code == 303 and r.headers["location"].endswith("/3ds")
    assert _status(sandbox, "C-3") == "pending"
    page = httpx.get(r.headers["location"])
    assert "Confirm your payment" in page.text
    # the checkout page now leads to the code page
    assert httpx.get(url).headers["location"].endswith("/3ds")
    r = httpx.post(url + "/3ds", data={"code": code})
    assert r.status_code == 303
    target = urlsplit(r.headers["location"])
    assert target.netloc == "shop.example"  # no callback_url: return_url
    assert parse_qs(target.query)["status"] == [expected]
    assert _status(sandbox, "C-3") == expected


def test_three_d_secure_page_needs_the_card_step(sandbox):
    url = _link(sandbox, "C-3b")
    assert httpx.get(url + "/3ds").status_code == 303
    assert httpx.post(url + "/3ds", data={"code": "123456"}).status_code == 303
    assert _status(sandbox, "C-3b") == "pending"


@pytest.mark.parametrize("code", ["", "12", "1234567", "12345a", "000000*"])
def test_a_three_d_secure_code_that_is_not_six_digits_is_refused(sandbox, code):
    """Item 16: the code form takes six digits (as the document says); anything else is
    refused with the page and a reason, before the card step is even looked at, and the
    payment stays pending."""
    url = _link(sandbox, "C-3c")
    for _ in range(2):  # without, then after, the card that asks for a code
        r = httpx.post(url + "/3ds", data={"code": code})
        assert r.status_code == 400 and "Enter the 6-digit code" in r.text
        httpx.post(url, data={"card_number": "4000 0000 0000 3220", **CARD})
    assert _status(sandbox, "C-3c") == "pending"


def test_unknown_card_and_bad_expiry_change_nothing(sandbox):
    url = _link(sandbox, "C-4")
    r = httpx.post(url, data={"card_number": "5555555555554444", **CARD})
    assert r.status_code == 400 and "only takes its test cards" in r.text
    r = httpx.post(url, data={"card_number": "4242424242424242", "expiry": "13/99", "cvc": "1"})
    assert r.status_code == 400 and "MM/YY" in r.text
    assert _status(sandbox, "C-4") == "pending"


def test_cancel_goes_to_return_url(sandbox):
    url = _link(sandbox, "C-5", return_url="https://shop.example/back")
    r = httpx.post(url + "/cancel")
    assert r.status_code == 303 and r.headers["location"].startswith("https://shop.example/back?")
    assert "status=cancelled" in r.headers["location"]
    assert _status(sandbox, "C-5") == "cancelled"


def test_no_urls_land_on_receipt_page(sandbox):
    url = _link(sandbox, "C-6")
    r = httpx.post(url, data={"card_number": "4242424242424242", **CARD})
    assert r.headers["location"] == url + "/receipt"
    page = httpx.get(r.headers["location"])
    assert page.status_code == 200 and "success" in page.text and "C-6" in page.text


def test_unknown_link_is_404_page(sandbox):
    r = httpx.get(sandbox.base_url + "/payment/PDK-" + "0" * 32)
    assert r.status_code == 404 and "Payment not found" in r.text


def test_merchant_strings_are_escaped_and_no_secret_shows(sandbox):
    evil = "<script>alert(1)</script>"
    url = _link(
        sandbox, "C-7", first_name=evil, customization={"title": evil, "description": '"><img src=x onerror=alert(1)>'}
    )
    html = httpx.get(url).text
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html
    for merchant in sandbox.merchants:
        for mode in merchant["keys"].values():
            assert mode["secret"] not in html and mode["public"] not in html
    assert "Content-Security-Policy" in httpx.get(url).headers


def test_website_form_post(sandbox):
    fields = {
        "secret_key": sandbox.key(kind="public"),
        "tx_ref": "W-1",
        "amount": "250",
        "currency": "GBP",
        "email": "bob@example.com",
        "first_name": "Bob",
        "last_name": "Smith",
        "title": "Books",
        "description": "Two books",
        "logo": "https://cdn.example/l.png",
        "meta": '{"basket": "42"}',
        "callback_url": "https://shop.example/cb",
        "return_url": "https://shop.example/r",
    }
    r = httpx.post(sandbox.base_url + "/ext_transfer", data=fields)
    assert r.status_code == 303 and "/payment/PDK-" in r.headers["location"]
    with sandbox.client() as c:
        tx = c.get("/api/transaction/W-1").json()["data"]
    assert tx["type"] == "FORM" and tx["amount"] == "250.00" and tx["currency"] == "GBP"
    assert tx["meta"] == {"basket": "42"} and tx["customization"]["title"] == "Books"


def test_website_form_errors_are_an_html_page(sandbox):
    r = httpx.post(
        sandbox.base_url + "/ext_transfer",
        data={
            "secret_key": sandbox.key(kind="public"),
            "tx_ref": "W-2",
            "amount": "-5",
            "currency": "NGN",
            "email": "x",
            "first_name": "<b>x</b>",
            "last_name": "y",
            "meta": "{nope",
        },
    )
    assert r.status_code == 400 and "text/html" in r.headers["content-type"]
    assert "meta must be a JSON object" in r.text
    r = httpx.post(
        sandbox.base_url + "/ext_transfer",
        data={
            "secret_key": sandbox.key(kind="public"),
            "tx_ref": "W-2",
            "amount": "-5",
            "currency": "NGN",
            "email": "x",
            "first_name": "<b>x</b>",
            "last_name": "y",
        },
    )
    problems = re.findall(r"<li>(.*?)</li>", r.text)
    assert "Invalid currency, NGN is not supported" in problems
    assert any("amount" in p for p in problems) and any("e-mail" in p for p in problems)
    r = httpx.post(sandbox.base_url + "/ext_transfer", data={"secret_key": "pub-test-nope"})
    assert r.status_code == 401 and "Invalid Secret Key" in r.text
    with sandbox.client() as c:
        assert c.get("/api/transaction/W-2").status_code == 404


def test_inline_checkout_call_and_cors(sandbox):
    r = httpx.options(
        sandbox.base_url + "/api/js_transfer",
        headers={
            "Origin": "http://127.0.0.2:9999",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert r.status_code == 204
    assert r.headers["access-control-allow-origin"] == "*"
    assert "Authorization" in r.headers["access-control-allow-headers"]
    body = {
        "tx_ref": "J-1",
        "amount": "15",
        "currency": "USD",
        "customer": {"email": "c@example.com", "first_name": "C", "last_name": "D"},
        "customization": {"title": "Tea"},
    }
    with sandbox.client(kind="public") as c:
        r = c.post("/api/js_transfer", json=body)
        assert r.status_code == 201 and r.headers["access-control-allow-origin"] == "*"
        bad = c.post("/api/js_transfer", json={**body, "tx_ref": "J-2", "amount": "0"})
        assert bad.status_code == 400 and bad.headers["access-control-allow-origin"] == "*"
    # CORS is for the inline checkout only
    assert "access-control-allow-origin" not in httpx.options(sandbox.base_url + "/api/payment").headers
    script = httpx.get(sandbox.base_url + "/js/payment.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "window.ServiceCheckout" in script.text and "/api/js_transfer" in script.text


def test_the_script_reads_the_key_from_the_dialects_members_only(make_sandbox):
    """The served script's key list is the dialect's (the document's: public_key then
    secret_key; the family's: public_key), written between markers rather than by replacing
    one exact JavaScript literal, which a reformatted script silently stopped matching."""
    import json

    from paydesk.sandbox import website

    def served_fields(sb):
        text = httpx.get(sb.base_url + "/js/payment.js").text
        found = re.search(r"var keyFields = (\[[^\]]*\]);", text)
        assert found and "KEY_FIELDS" not in text, text[:200]
        return json.loads(found.group(1))

    assert served_fields(make_sandbox("doc")) == ["public_key", "secret_key"]
    assert served_fields(make_sandbox("fam", family=True)) == ["public_key"]
    # the script as it might be reformatted: still one list between the markers
    spaced = 'var keyFields = /*KEY_FIELDS*/[\n  "public_key",\n  "secret_key"\n]/*END_KEY_FIELDS*/;'
    assert website.with_key_fields(spaced, ["public_key"]) == 'var keyFields = ["public_key"];'
    with pytest.raises(ValueError):  # markers lost: an error, never the wrong members
        website.with_key_fields('["public_key", "secret_key"].forEach(read);', ["public_key"])
