"""--family's notifications: one POST per event of the bare transaction object, written as
PHP writes JSON, to the business's webhook URL (--webhook-url, not callback_url), signed
with the merchant's webhook secret, one try, never retried."""

import hashlib
import hmac
import json
import time

import pytest

from tests.helpers import Listener, free_port, payment
from tests.waiting import until


def _webhook_secret(sb, merchant=0):
    """Read from merchants.json itself, as a merchant would."""
    merchants = json.loads((sb.server.data_dir / "merchants.json").read_text())
    assert merchants[merchant]["webhook_secret"] == sb.webhook_secret(merchant)
    return merchants[merchant]["webhook_secret"]


def _verified(received, secret):
    """The signature checked over the raw bytes, as a receiver must."""
    expected = hmac.new(secret.encode(), received["raw"], hashlib.sha256).hexdigest()
    assert hmac.compare_digest(received["headers"]["Signature"], expected)
    return json.loads(received["raw"])


def _pay(c, tx_ref, outcome, **over):
    return _pay_body(c, payment(tx_ref, **over), outcome)


def _pay_body(c, body, outcome):
    url = c.post("/api/payment", json=body).json()["data"]["checkout_url"]
    reference = url.rsplit("/", 1)[1]
    c.post(f"/_sandbox/pay/{reference}", json={"outcome": outcome}).raise_for_status()
    return reference


@pytest.fixture
def hooks():
    made = []

    def make(**kw):
        made.append(Listener(**kw))
        return made[-1]

    yield make
    for hook in made:
        hook.close()


def test_a_completed_payment_is_one_signed_post_of_the_bare_transaction(make_sandbox, hooks):
    webhook, callback = hooks(), hooks()
    sb = make_sandbox("fw", family=True, webhook_url=webhook.url)
    secret = _webhook_secret(sb)
    assert secret.startswith("whsec-") and len(secret) == len("whsec-") + 32
    with sb.client() as c:
        _pay(
            c,
            "W-1",
            "success",
            callback_url=callback.url,
            customization={"title": "Tea", "description": "Green", "logo": "https://cdn.example/l.png"},
        )
        until(lambda: len(webhook.received) == 1, what="the first notification")
        _pay(c, "W-2", "failed")  # a failed test payment is sent too
        until(lambda: len(webhook.received) == 2, what="the second notification")
    first, failed = webhook.received
    body = _verified(first, secret)
    # the bare transaction: no envelope
    assert "event" not in body and body["tx_ref"] == "W-1" and body["status"] == "success"
    assert body["customization"]["logo"] == "https://cdn.example/l.png"
    # written as PHP's encoder writes it: "/" as "\/", so only the raw bytes verify
    assert b"https:\\/\\/cdn.example\\/l.png" in first["raw"]
    reencoded = json.dumps(body, separators=(",", ":")).encode()
    assert hmac.new(secret.encode(), reencoded, hashlib.sha256).hexdigest() != first["headers"]["Signature"]
    assert first["headers"]["Content-Type"] == "application/json"
    assert _verified(failed, secret)["status"] == "failed/cancelled"
    # never to callback_url; never signed with an API key
    assert callback.received == []
    for key in (sb.key("test", "secret"), sb.key("test", "public")):
        assert hmac.new(key.encode(), first["raw"], hashlib.sha256).hexdigest() != first["headers"]["Signature"]


def test_nothing_is_sent_on_cancel_refund_or_a_failed_live_payment(make_sandbox, hooks):
    webhook = hooks()
    sb = make_sandbox("fw-quiet", family=True, webhook_url=webhook.url)
    with sb.client() as c:
        paid = _pay(c, "Q-PAID", "success")
        until(lambda: len(webhook.received) == 1, what="the paid one's notification")
        for status in ("refunded",):
            c.post(f"/_sandbox/transactions/{paid}/status", json={"status": status}).raise_for_status()
        reversed_ = _pay(c, "Q-REV", "success")
        until(lambda: len(webhook.received) == 2, what="the second paid one's notification")
        c.post(f"/_sandbox/transactions/{reversed_}/status", json={"status": "reversed"}).raise_for_status()
        _pay(c, "Q-CANCEL", "cancelled")
    with sb.client("live") as live:
        _pay(live, "Q-LIVE-NO", "failed")
        _pay(live, "Q-LIVE-OK", "success")  # sent: it comes after the ones that are not
        until(lambda: len(webhook.received) == 3, what="the live payment's notification")
    time.sleep(0.5)  # anything sent for the others would have come by now
    sent = [(json.loads(n["raw"])["tx_ref"], json.loads(n["raw"])["status"]) for n in webhook.received]
    assert sorted(sent) == [("Q-LIVE-OK", "success"), ("Q-PAID", "success"), ("Q-REV", "success")]
    with sb.client() as c:
        assert [n["body"]["tx_ref"] for n in c.get("/_sandbox/notifications").json()["data"]] == ["Q-PAID", "Q-REV"]


def test_the_body_is_the_stored_row(make_sandbox, hooks):
    """``meta`` its raw column, a JSON-encoded string ("null" when none was given, "[]" for
    an empty object as PHP writes an empty array), ``customization.logo`` null when none
    was given, ``currency`` the merchant's home currency, the row's timestamps."""
    webhook = hooks()
    sb = make_sandbox("fw-row", family=True, webhook_url=webhook.url)
    with sb.client() as c:
        assert c.get("/_sandbox/settings").json()["data"]["home_currency"] == "GBP"
        body = payment("R-META", currency="USD", meta={"till": "3", "back": "https://a.b/c"})
        _pay_body(c, body, "success")
        no_meta = payment("R-NONE", currency="USD")
        del no_meta["meta"]
        _pay_body(c, no_meta, "success")
        _pay_body(c, payment("R-EMPTY", meta={}), "success")
        until(lambda: len(webhook.received) == 3, what="three notifications")
        c.put("/_sandbox/settings", json={"home_currency": "USD"}).raise_for_status()
        _pay_body(c, payment("R-HOME", currency="GBP"), "success")
        until(lambda: len(webhook.received) == 4, what="the fourth notification")
        looked_up = c.get("/api/verify-payment/R-META").json()["data"]
    by_ref = {json.loads(n["raw"])["tx_ref"]: n for n in webhook.received}
    sent = json.loads(by_ref["R-META"]["raw"])
    assert isinstance(sent["meta"], str)
    assert json.loads(sent["meta"]) == {"till": "3", "back": "https://a.b/c"}
    # the string holds PHP's own escaping of "/", itself escaped in the body
    assert b'"meta":"{\\"till\\":\\"3\\",\\"back\\":\\"https:\\\\\\/' in by_ref["R-META"]["raw"]
    assert sent["customization"] == {"title": "Coffee", "description": "Two flat whites", "logo": None}
    assert sent["currency"] == "GBP"  # the merchant's home currency, not the payment's USD
    assert (sent["created_at"], sent["updated_at"]) == (looked_up["created_at"], looked_up["updated_at"])
    assert json.loads(by_ref["R-NONE"]["raw"])["meta"] == "null"
    assert json.loads(by_ref["R-EMPTY"]["raw"])["meta"] == "[]"
    assert json.loads(by_ref["R-HOME"]["raw"])["currency"] == "USD"
    # the lookup keeps meta as the object it was
    assert looked_up["meta"] == {"till": "3", "back": "https://a.b/c"}


def test_each_merchant_signs_with_its_own_webhook_secret(make_sandbox, hooks):
    webhook = hooks()
    sb = make_sandbox("fw2", family=True, webhook_url=webhook.url)
    with sb.client(merchant=1) as c:
        _pay(c, "W-OTHER", "failed")
    until(lambda: webhook.received, what="the notification")
    assert _webhook_secret(sb, 0) != _webhook_secret(sb, 1)
    assert _verified(webhook.received[0], _webhook_secret(sb, 1))["tx_ref"] == "W-OTHER"
    wrong = hmac.new(_webhook_secret(sb, 0).encode(), webhook.received[0]["raw"], hashlib.sha256)
    assert not hmac.compare_digest(wrong.hexdigest(), webhook.received[0]["headers"]["Signature"])


def test_a_failing_receiver_is_tried_once_and_never_again(make_sandbox, hooks):
    webhook = hooks(fail_first=5)
    sb = make_sandbox("fw3", family=True, webhook_url=webhook.url, notify_backoff=0.01)
    with sb.client() as c:
        _pay(c, "W-FAIL", "success")
        until(lambda: webhook.received, what="the notification")
        time.sleep(1.5)  # far longer than any retry's backoff would be
        assert len(webhook.received) == 1
        log = c.get("/_sandbox/notifications").json()["data"]
    assert [(n["attempt"], n["status_code"]) for n in log] == [(1, 500)]
    assert webhook.fail_first == 4  # one answer given, four failures never asked for


def test_an_unreachable_receiver_is_tried_once(make_sandbox):
    url = f"http://127.0.0.1:{free_port()}/hooks"  # nobody listens there
    sb = make_sandbox("fw4", family=True, webhook_url=url)
    with sb.client() as c:
        _pay(c, "W-GONE", "success")
        until(lambda: c.get("/_sandbox/notifications").json()["data"], what="the notification sent")
        time.sleep(1.0)
        log = c.get("/_sandbox/notifications").json()["data"]
    assert len(log) == 1 and log[0]["status_code"] is None and log[0]["error"]


def test_without_a_webhook_url_nothing_is_sent(make_sandbox, hooks):
    callback = hooks()
    sb = make_sandbox("fw5", family=True)
    with sb.client() as c:
        _pay(c, "W-NONE", "success", callback_url=callback.url)
        time.sleep(0.5)
        assert c.get("/_sandbox/notifications").json()["data"] == []
    assert callback.received == []


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:99999/hooks", "http://[::1/hooks"], ids=["port-out-of-range", "invalid-url"]
)
def test_a_webhook_url_that_cannot_be_sent_to_is_logged_as_tried(make_sandbox, url):
    """A --webhook-url that passes the command line's check but no request can go to (a
    mistyped port, a broken address): the attempt is still a row of the notifications log,
    with its error; the sending task caught only httpx.HTTPError and ended without one."""
    sb = make_sandbox("fw6", family=True, webhook_url=url)
    with sb.client() as c:
        _pay(c, "W-BADURL", "success")
        until(lambda: c.get("/_sandbox/notifications").json()["data"], 5, "the notification sent")
        log = c.get("/_sandbox/notifications").json()["data"]
    assert len(log) == 1 and log[0]["status_code"] is None and log[0]["error"]
