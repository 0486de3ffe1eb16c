"""How notifications read on screen: the status bar's words and an entry in full."""

from datetime import UTC, datetime, timedelta

from paydesk.desk.inbox_words import NONE_SINCE_START, ago, entry_text, last_notification
from paydesk.ledger.inbox import APPLIED, InboxEntry, body_hash

NOW = datetime(2026, 11, 23, 22, 0, tzinfo=UTC)


def test_ago_reads_as_a_person_says_it():
    assert ago(NOW, NOW) == "just now"
    assert ago(NOW - timedelta(seconds=40), NOW) == "40 s ago"
    assert ago(NOW - timedelta(minutes=2, seconds=10), NOW) == "2 min ago"
    assert ago(NOW - timedelta(hours=3), NOW) == "3 h ago"
    assert ago(NOW - timedelta(days=2), NOW).startswith("on ")
    assert ago(NOW + timedelta(seconds=3), NOW) == "just now"  # a clock a little ahead


def test_ago_reads_in_the_staffs_language():
    from paydesk.i18n import ENGLISH, set_language

    set_language("fr")
    try:
        assert ago(NOW - timedelta(seconds=40), NOW) == "il y a 40\u00a0s"
        assert ago(NOW - timedelta(hours=3), NOW) == "il y a 3\u00a0h"
        assert ago(NOW - timedelta(days=2), NOW).startswith("le 21 nov. 2026 ")
    finally:
        set_language(ENGLISH)


def test_the_status_words():
    two_min = NOW - timedelta(minutes=2)
    assert (
        last_notification(two_min, arrived_since_start=True, paid_since_start=True, now=NOW)
        == "Last notification 2 min ago"
    )
    # from an earlier run, nothing paid since: when it was
    assert (
        last_notification(two_min, arrived_since_start=False, paid_since_start=False, now=NOW)
        == "Last notification 2 min ago"
    )
    # paid since the start while none arrived: that is what matters
    assert (
        last_notification(two_min, arrived_since_start=False, paid_since_start=True, now=NOW)
        == NONE_SINCE_START
        == "No notification since start"
    )
    assert last_notification(None, arrived_since_start=False, paid_since_start=True, now=NOW) == NONE_SINCE_START
    assert last_notification(None, arrived_since_start=False, paid_since_start=False, now=NOW) == ""


def test_an_entry_in_full_has_its_headers_and_raw_body():
    body = b'{"event":"payment.completed","data":{"tx_ref":"SHOP-1"}}'
    entry = InboxEntry(
        id=7,
        received_at=NOW,
        body_hash=body_hash(body),
        body=body,
        headers={"content-type": "application/json", "signature": "ab12"},
        remote="127.0.0.1",
        verdict=APPLIED,
        detail="the service says PAID",
        profile_id="p_1",
        mode="test",
        tx_ref="SHOP-1",
        event="payment.completed",
    )
    text = entry_text(entry)
    assert "Verdict: Applied" in text and "Detail: the service says PAID" in text
    assert "content-type: application/json" in text and "signature: ab12" in text
    assert text.endswith(body.decode())
    assert "From: 127.0.0.1" in text and body_hash(body) in text
    # bytes that are not UTF-8 are shown, not refused
    odd = InboxEntry(id=8, received_at=NOW, body_hash="x", body=b"\xff{}")
    assert entry_text(odd).endswith("\ufffd{}")
