"""The merchant's webhook URL (the family's dashboard setting) through the control API:
``PUT/GET/DELETE _sandbox/webhook``. The document's dialects POST payment events to the
record's callback_url and to it (each URL once, the same envelope signed with the mode's
secret key); the family's to it, else to ``--webhook-url``."""

import hashlib
import hmac
import json
import time

import httpx
import pytest

from tests.helpers import Listener, payment
from tests.waiting import until


@pytest.fixture
def hooks():
    made = []

    def make(**kw):
        made.append(Listener(**kw))
        return made[-1]

    yield make
    for hook in made:
        hook.close()


def _signed_by(received, key):
    expected = hmac.new(key.encode(), received["raw"], hashlib.sha256).hexdigest()
    return hmac.compare_digest(received["headers"]["Signature"], expected)


def _pay(c, tx_ref, outcome="success", **over):
    url = c.post("/api/payment", json=payment(tx_ref, **over)).json()["data"]["checkout_url"]
    reference = url.rsplit("/", 1)[1]
    c.post(f"/_sandbox/pay/{reference}", json={"outcome": outcome}).raise_for_status()
    return reference


def test_set_read_and_remove_per_merchant_for_both_modes(sandbox):
    secret = sandbox.webhook_secret()
    with sandbox.client() as c:
        assert c.get("/_sandbox/webhook").json()["data"] == {"url": None, "webhook_secret": secret}
        r = c.put("/_sandbox/webhook", json={"url": "https://shop.example/hooks"})
        assert r.status_code == 200
        assert r.json()["data"] == {"url": "https://shop.example/hooks", "webhook_secret": secret}
    # one URL per merchant: the live key sees (and may change) what the test key set
    with sandbox.client("live") as live:
        assert live.get("/_sandbox/webhook").json()["data"]["url"] == "https://shop.example/hooks"
        live.put("/_sandbox/webhook", json={"url": "http://[::1]:8080/n"}).raise_for_status()
    with sandbox.client(merchant=1) as other:
        assert other.get("/_sandbox/webhook").json()["data"] == {
            "url": None,
            "webhook_secret": sandbox.webhook_secret(1),
        }
    with sandbox.client() as c:
        assert c.get("/_sandbox/webhook").json()["data"]["url"] == "http://[::1]:8080/n"
        assert c.delete("/_sandbox/webhook").json()["data"] == {"url": None, "webhook_secret": secret}
        assert c.get("/_sandbox/webhook").json()["data"]["url"] is None


def test_it_survives_a_restart(make_sandbox):
    sb = make_sandbox("restart")
    with sb.client() as c:
        c.put("/_sandbox/webhook", json={"url": "https://shop.example/h"}).raise_for_status()
    sb.stop()
    again = make_sandbox("restart")
    with again.client() as c:
        assert c.get("/_sandbox/webhook").json()["data"]["url"] == "https://shop.example/h"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"url": ""},
        {"url": 5},
        {"url": "ftp://shop.example/h"},
        {"url": "shop.example/h"},
        {"url": "https://"},
        {"url": "https://ann:pw@shop.example/h"},
        {"url": "https://shop.example/h\nX-Evil: 1"},
        {"url": "https://shop.example/" + "a" * 2048},
    ],
)
def test_a_url_that_is_not_an_http_url_is_refused(sandbox, body):
    with sandbox.client() as c:
        r = c.put("/_sandbox/webhook", json=body)
        assert r.status_code == 400 and "url" in r.json()["errors"], r.text
        assert c.get("/_sandbox/webhook").json()["data"]["url"] is None


def test_only_the_merchants_secret_key(sandbox):
    url = sandbox.base_url + "/_sandbox/webhook"
    assert httpx.get(url).status_code == 401
    assert (
        httpx.put(
            url, json={"url": "https://x.example/"}, headers={"Authorization": "Bearer sec-test-nobody"}
        ).status_code
        == 401
    )
    with sandbox.client(kind="public") as public:
        assert public.put("/_sandbox/webhook", json={"url": "https://x.example/"}).status_code == 403


def test_the_document_posts_payment_events_to_callback_url_and_webhook_url(sandbox, hooks):
    callback, webhook = hooks(), hooks()
    with sandbox.client() as c:
        c.put("/_sandbox/webhook", json={"url": webhook.url}).raise_for_status()
        _pay(c, "WU-1", callback_url=callback.url)
        until(lambda: callback.received and webhook.received, what="both notifications")
    (to_callback,), (to_webhook,) = callback.received, webhook.received
    assert to_callback["raw"] == to_webhook["raw"]  # the same body, signed alike
    assert _signed_by(to_webhook, sandbox.key("test", "secret"))
    body = json.loads(to_webhook["raw"])
    assert body["event"] == "payment.completed" and body["data"]["tx_ref"] == "WU-1"
    # the live mode's payments signed with the live secret key; no callback_url: the webhook
    with sandbox.client("live") as live:
        _pay(live, "WU-L", "cancelled")
    until(lambda: len(webhook.received) == 2, what="the live notification")
    live_note = webhook.received[1]
    assert _signed_by(live_note, sandbox.key("live", "secret"))
    assert not _signed_by(live_note, sandbox.key("test", "secret"))
    assert json.loads(live_note["raw"])["event"] == "payment.cancelled"
    assert len(callback.received) == 1


def test_one_url_given_twice_is_posted_once(sandbox, hooks):
    hook = hooks()
    with sandbox.client() as c:
        c.put("/_sandbox/webhook", json={"url": hook.url}).raise_for_status()
        _pay(c, "WU-2", callback_url=hook.url)
        until(lambda: c.get("/_sandbox/notifications").json()["data"], what="the notification")
        time.sleep(0.5)  # room for a second POST, were one sent
        assert len(c.get("/_sandbox/notifications").json()["data"]) == 1
    assert len(hook.received) == 1


def test_refunds_and_card_events_do_not_go_to_the_webhook_url(sandbox, hooks):
    webhook, card_hook = hooks(), hooks()
    with sandbox.client() as c:
        c.put("/_sandbox/webhook", json={"url": webhook.url}).raise_for_status()
        reference = _pay(c, "WU-3")
        until(lambda: webhook.received, what="the payment's notification")
        c.post(f"/_sandbox/transactions/{reference}/status", json={"status": "refunded"}).raise_for_status()
        c.post(
            "/api/virtual_card/create", json={"amount": "20", "currency": "USD", "callback_url": card_hook.url}
        ).raise_for_status()
        until(lambda: card_hook.received, what="the card's notification")
        time.sleep(0.5)
    assert [json.loads(n["raw"])["event"] for n in webhook.received] == ["payment.completed"]


def test_another_merchants_webhook_url_hears_nothing(sandbox, hooks):
    mine = hooks()
    with sandbox.client(merchant=1) as other:
        other.put("/_sandbox/webhook", json={"url": mine.url}).raise_for_status()
    with sandbox.client() as c:
        _pay(c, "WU-4")
        time.sleep(0.5)
    assert mine.received == []


def test_the_family_posts_to_the_merchants_webhook_url_else_the_command_lines(make_sandbox, hooks):
    command_line, own = hooks(), hooks()
    sb = make_sandbox("fam", family=True, webhook_url=command_line.url)
    with sb.client() as c:
        c.put("/_sandbox/webhook", json={"url": own.url}).raise_for_status()
        _pay(c, "WF-1")
        until(lambda: own.received, what="the notification to the merchant's URL")
        assert command_line.received == []
        assert _signed_by(own.received[0], sb.webhook_secret())
        assert json.loads(own.received[0]["raw"])["tx_ref"] == "WF-1"  # the bare transaction
        c.delete("/_sandbox/webhook").raise_for_status()
        _pay(c, "WF-2")
        until(lambda: command_line.received, what="the notification to --webhook-url")
    assert json.loads(command_line.received[0]["raw"])["tx_ref"] == "WF-2"
    assert len(own.received) == 1


def test_the_family_without_webhook_url_posts_to_the_merchants_own(make_sandbox, hooks):
    own = hooks()
    sb = make_sandbox("fam2", family=True)
    with sb.client(merchant=1) as c:
        r = c.put("/_sandbox/webhook", json={"url": own.url})
        assert r.status_code == 201  # the family answers every success with 201
        _pay(c, "WF-3", "failed")
    until(lambda: own.received, what="the notification")
    assert _signed_by(own.received[0], sb.webhook_secret(1))
