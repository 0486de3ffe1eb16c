"""Signed notifications to a local listener, retries, and e-mail receipts (outbox and SMTP)."""

import email
import hashlib
import hmac
import json

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message

from tests.helpers import Listener, free_port, payment
from tests.waiting import until


def _verify(received, secret):
    expected = hmac.new(secret.encode(), received["raw"], hashlib.sha256).hexdigest()
    assert received["headers"]["Signature"] == expected
    return json.loads(received["raw"])


def test_payment_notification_is_signed(sandbox, listener):
    with sandbox.client() as c:
        ref = (
            c.post("/api/payment", json=payment("N-1", callback_url=listener.url))
            .json()["data"]["checkout_url"]
            .rsplit("/", 1)[1]
        )
        c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"}).raise_for_status()
    until(lambda: listener.received, what="the notification")
    body = _verify(listener.received[0], sandbox.key("test", "secret"))
    assert body["event"] == "payment.completed"
    assert body["data"]["tx_ref"] == "N-1" and body["data"]["status"] == "success"
    # a signature made with another key does not match
    other = hmac.new(sandbox.key("live").encode(), listener.received[0]["raw"], hashlib.sha256)
    assert listener.received[0]["headers"]["Signature"] != other.hexdigest()


def test_live_notification_uses_live_secret(sandbox, listener):
    with sandbox.client("live") as c:
        ref = (
            c.post("/api/payment", json=payment("N-L", callback_url=listener.url))
            .json()["data"]["checkout_url"]
            .rsplit("/", 1)[1]
        )
        c.post(f"/_sandbox/pay/{ref}", json={"outcome": "cancelled"}).raise_for_status()
    until(lambda: listener.received, what="the notification")
    body = _verify(listener.received[0], sandbox.key("live", "secret"))
    assert body["event"] == "payment.cancelled" and body["data"]["mode"] == "live"


def test_notifications_retry_and_every_attempt_is_logged(sandbox):
    hook = Listener(fail_first=2)
    try:
        with sandbox.client() as c:
            ref = (
                c.post("/api/payment", json=payment("N-2", callback_url=hook.url))
                .json()["data"]["checkout_url"]
                .rsplit("/", 1)[1]
            )
            c.post(f"/_sandbox/pay/{ref}", json={"outcome": "failed"}).raise_for_status()
            until(
                lambda: len(c.get("/_sandbox/notifications").json()["data"]) == 3,
                what="three notifications in the outbox",
            )
            log = c.get("/_sandbox/notifications").json()["data"]
        assert [(n["attempt"], n["status_code"]) for n in log] == [(1, 500), (2, 500), (3, 200)]
        assert len(hook.received) == 3
        assert len({h["raw"] for h in hook.received}) == 1  # the same signed body each time
    finally:
        hook.close()


def test_unreachable_callback_gives_up_after_three(sandbox):
    dead = f"http://127.0.0.1:{free_port()}/gone"
    with sandbox.client() as c:
        ref = (
            c.post("/api/payment", json=payment("N-3", callback_url=dead))
            .json()["data"]["checkout_url"]
            .rsplit("/", 1)[1]
        )
        c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"}).raise_for_status()
        until(
            lambda: len(c.get("/_sandbox/notifications").json()["data"]) == 3, what="three notifications in the outbox"
        )
        log = c.get("/_sandbox/notifications").json()["data"]
    assert all(n["status_code"] is None and n["error"] for n in log)


def test_card_events(sandbox, listener):
    with sandbox.client() as c:
        h = c.post(
            "/api/virtual_card/create", json={"amount": "20", "currency": "USD", "callback_url": listener.url}
        ).json()["data"]["card_hash"]
        c.post("/api/virtual_card/fund", json={"amount": "5", "card_hash": h})
        c.post("/api/virtual_card/withdraw", json={"amount": "5", "card_hash": h})
        c.get(f"/api/virtual_card/block/{h}")
        c.get(f"/api/virtual_card/unblock/{h}")
        c.post(f"/_sandbox/cards/{h}/purchase", json={"amount": "3", "description": "Lunch"})
        c.get(f"/api/virtual_card/terminate/{h}")
    expected = [
        "card.created",
        "card.funded",
        "card.withdrawn",
        "card.blocked",
        "card.unblocked",
        "card.transaction",
        "card.terminated",
    ]
    until(lambda: len(listener.received) == len(expected), what="every notification")
    events = [_verify(r, sandbox.key())["event"] for r in listener.received]
    assert sorted(events) == sorted(expected)
    for r in listener.received:
        data = json.loads(r["raw"])["data"]
        assert data["card_hash"] == h and "cvv" not in data and "card_pan" not in data


def test_receipt_in_outbox(sandbox):
    with sandbox.client() as c:
        ref = c.post("/api/payment", json=payment("E-1")).json()["data"]["checkout_url"].rsplit("/", 1)[1]
        c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"}).raise_for_status()
        items = c.get("/_sandbox/outbox").json()["data"]
    assert len(items) == 1 and items[0]["to"] == "ada@example.com"
    files = list((sandbox.server.data_dir / "outbox").glob("*.eml"))
    assert len(files) == 1
    msg = email.message_from_bytes(files[0].read_bytes())
    assert msg["To"] == "ada@example.com" and msg["Message-ID"] and msg["Date"]
    assert msg["Subject"].startswith("[TEST] Receipt: USD 1,000.00")
    assert "E-1" in msg.get_payload()


class _Sink(Message):
    def __init__(self):
        super().__init__()
        self.messages = []

    def handle_message(self, message):
        self.messages.append(message)


def test_receipt_over_smtp(make_sandbox):
    sink = _Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        sb = make_sandbox(smtp=f"127.0.0.1:{port}")
        with sb.client() as c:
            ref = c.post("/api/payment", json=payment("E-2")).json()["data"]["checkout_url"].rsplit("/", 1)[1]
            c.post(f"/_sandbox/pay/{ref}", json={"outcome": "failed"}).raise_for_status()
        until(lambda: sink.messages, what="the e-mail receipt")
        msg = sink.messages[0]
        assert msg["To"] == "ada@example.com"
        assert msg["Subject"].startswith("[TEST] Payment failed")
    finally:
        controller.stop()
