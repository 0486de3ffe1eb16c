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
    url = c.post("/api/payment", json=payment(tx_ref, **over)).json()["data"]["checkout_url"]
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


def test_each_event_is_one_signed_post_of_the_bare_transaction(make_sandbox, hooks):
    webhook, callback = hooks(), hooks()
    sb = make_sandbox("fw", family=True, webhook_url=webhook.url)
    secret = _webhook_secret(sb)
    assert secret.startswith("whsec-") and len(secret) == len("whsec-") + 32
    with sb.client() as c:
        reference = _pay(c, "W-1", "success", callback_url=callback.url,
                         customization={"title": "Tea", "description": "Green",
                                        "logo": "https://cdn.example/l.png"})
        until(lambda: len(webhook.received) == 1, what="the first notification")
        c.post(f"/_sandbox/transactions/{reference}/status", json={"status": "refunded"}
               ).raise_for_status()
        _pay(c, "W-2", "cancelled")
        until(lambda: len(webhook.received) == 3, what="three notifications")
    # the refund (W-1) and the cancelled payment (W-2) are sent by separate tasks: they may
    # arrive in either order, so each is picked by what it is, not by its place
    by_event = {}
    for note in webhook.received:
        sent = json.loads(note["raw"])
        by_event[(sent["tx_ref"], sent["status"])] = note
    assert sorted(by_event) == [("W-1", "refunded"), ("W-1", "success"),
                                ("W-2", "failed/cancelled")], sorted(by_event)
    first = webhook.received[0]  # waited for alone, before the others were made
    refund, cancelled = by_event[("W-1", "refunded")], by_event[("W-2", "failed/cancelled")]
    body = _verified(first, secret)
    # the bare transaction: no envelope
    assert "event" not in body and body["tx_ref"] == "W-1" and body["status"] == "success"
    assert body["customization"]["logo"] == "https://cdn.example/l.png"
    # written as PHP's encoder writes it: "/" as "\/", so only the raw bytes verify
    assert b"https:\\/\\/cdn.example\\/l.png" in first["raw"]
    reencoded = json.dumps(body, separators=(",", ":")).encode()
    assert hmac.new(secret.encode(), reencoded, hashlib.sha256).hexdigest() != \
        first["headers"]["Signature"]
    assert first["headers"]["Content-Type"] == "application/json"
    assert _verified(refund, secret)["status"] == "refunded"
    assert _verified(cancelled, secret)["status"] == "failed/cancelled"
    # never to callback_url; never signed with an API key
    assert callback.received == []
    for key in (sb.key("test", "secret"), sb.key("test", "public")):
        assert hmac.new(key.encode(), first["raw"], hashlib.sha256).hexdigest() != \
            first["headers"]["Signature"]


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


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999/hooks", "http://[::1/hooks"],
                         ids=["port-out-of-range", "invalid-url"])
def test_a_webhook_url_that_cannot_be_sent_to_is_logged_as_tried(make_sandbox, url):
    """A --webhook-url that passes the command line's check but no request can go to (a
    mistyped port, a broken address): the attempt is still a row of the notifications log,
    with its error; the sending task caught only httpx.HTTPError and ended without one."""
    sb = make_sandbox("fw6", family=True, webhook_url=url)
    with sb.client() as c:
        _pay(c, "W-BADURL", "success")
        until(lambda: c.get("/_sandbox/notifications").json()["data"], 5,
              "the notification sent")
        log = c.get("/_sandbox/notifications").json()["data"]
    assert len(log) == 1 and log[0]["status_code"] is None and log[0]["error"]
