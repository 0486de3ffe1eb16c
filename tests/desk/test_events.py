"""How the desk says that something changed (desk/events.py): the Hub's receivers in order,
one failing receiver reported while the others still hear, disconnect; and the events the
session and the three controllers send, as a window or a headless desk hears them."""

import sys
from decimal import Decimal

import pytest

from paydesk.desk.events import Event, Hub
from paydesk.service.models import PaymentRequest


@pytest.fixture
def reported(monkeypatch):
    """What reaches sys.excepthook (the crash reporter, in the app)."""
    errors = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, error, tb: errors.append(error))
    return errors


def test_receivers_hear_in_the_order_they_connected(reported):
    event, heard = Event("record_changed"), []
    event.connect(lambda *args: heard.append(("first", args)))
    event.connect(lambda *args: heard.append(("second", args)))
    event.emit("SHOP-1", 2)
    assert heard == [("first", ("SHOP-1", 2)), ("second", ("SHOP-1", 2))] and reported == []


def test_a_failing_receiver_is_reported_and_the_others_still_hear(reported, caplog):
    event, heard = Event("card_changed"), []

    def broken(card):
        raise RuntimeError(f"a bug with {card}")

    event.connect(heard.append)
    event.connect(broken)
    event.connect(lambda card: heard.append(card.upper()))
    event.emit("ch_1")
    assert heard == ["ch_1", "CH_1"]
    assert [str(e) for e in reported] == ["a bug with ch_1"]
    assert "a receiver of card_changed failed" in caplog.text
    event.emit("ch_2")  # still connected: reported again, the others hear again
    assert heard == ["ch_1", "CH_1", "ch_2", "CH_2"] and len(reported) == 2


def test_connect_once_and_disconnect():
    event, heard = Event("audit_added"), []
    event.connect(heard.append)
    event.connect(heard.append)  # twice: heard once
    event.emit(1)
    event.disconnect(heard.append)
    event.disconnect(heard.append)  # not connected: nothing happens
    event.emit(2)
    assert heard == [1] and "0 receivers" in repr(event)


def test_a_receiver_may_disconnect_itself_while_the_event_is_said():
    event, heard = Event("session_changed"), []

    def once():
        heard.append("once")
        event.disconnect(once)

    event.connect(once)
    event.connect(lambda: heard.append("always"))
    event.emit()
    event.emit()
    assert heard == ["once", "always", "always"]


def test_each_desk_has_its_own_hub_of_named_events():
    first, second = Hub(), Hub()
    names = set(first.events())
    assert {
        "session_changed",
        "profile_deleted",
        "record_changed",
        "record_settled",
        "card_changed",
        "operation_changed",
        "audit_added",
        "cards_refreshed",
        "card_transactions_changed",
    } <= names
    assert all(first.events()[n].name == n for n in names)
    heard = []
    first.record_changed.connect(heard.append)
    second.record_changed.emit("other desk")
    assert heard == []


# -- what the session and the controllers say, against the sandbox -----------------------


def listen(hub, *names):
    """Every event of ``names`` heard, in order, as (name, args)."""
    heard = []
    for name in names:
        getattr(hub, name).connect(lambda *args, name=name: heard.append((name, args)))
    return heard


async def test_the_session_says_what_changed(desk, add_profile):
    heard = listen(desk.hub, "session_changed", "profile_deleted")
    first = await add_profile(name="First")
    second = await add_profile(merchant=1, name="Second")
    await desk.session.set_mode("live")
    await desk.session.switch_profile(first.id)
    await desk.session.delete_profile(second.id)
    assert heard == [("session_changed", ())] * 4 + [("profile_deleted", (second.id,)), ("session_changed", ())]


async def test_a_links_life_on_the_hub(desk, add_profile, service):
    """record_changed at every step; record_settled once, when it reaches a final state."""
    profile = await add_profile()
    heard = listen(desk.hub, "record_changed", "record_settled", "call_finished")
    record = await desk.links.create(
        PaymentRequest(
            amount=Decimal(12),
            currency="GBP",
            email="kim@example.com",
            first_name="Kim",
            last_name="Lee",
            tx_ref="HUB-1",
            title="Tea",
        )
    )
    assert [(n, a[0].state) for n, a in heard if n != "call_finished"] == [
        ("record_changed", "creating"),
        ("record_changed", "pending"),
    ]
    assert ("call_finished", ("Link HUB-1 created",)) in heard
    heard.clear()
    await desk.links.check(record)  # nothing new: said as checked, not settled
    assert [(n, a[0].state) for n, a in heard] == [("record_changed", "pending")]
    heard.clear()
    service.control(f"pay/{record.reference}", {"outcome": "success"})
    looked = await desk.transactions.check("HUB-1")  # a lookup in the Transactions tab
    assert looked.record.state == "success"
    assert [(n, a[0].tx_ref, a[0].state) for n, a in heard if n != "call_finished"] == [
        ("record_changed", "HUB-1", "success"),
        ("record_settled", "HUB-1", "success"),
    ]
    heard.clear()
    await desk.links.check(looked.record)  # final already: not settled twice
    assert [n for n, _ in heard if n != "call_finished"] == ["record_changed"]
    assert (await desk.session.ledger.get(profile.id, "HUB-1")).state == "success"


async def test_a_cards_operations_on_the_hub(desk, add_profile):
    profile = await add_profile()
    cards = desk.cards
    cards.second_look = 0.2
    heard = listen(
        desk.hub, "operation_changed", "card_changed", "card_transactions_changed", "audit_added", "cards_refreshed"
    )
    op = await cards.create(profile, "test", Decimal(30), "GBP", None)
    assert op.state == "done"
    names = [n for n, _ in heard]
    assert [a[0].state for n, a in heard if n == "operation_changed"] == ["sending", "done"]
    assert ("audit_added", (profile.id, "test")) in heard
    assert names.index("card_changed") > names.index("operation_changed")
    assert any(
        n == "card_transactions_changed" and a[0].card_hash == op.card_hash for n, a in heard
    )  # its first transactions, read after the create
    record = await desk.session.card_ledger.card(profile.id, "test", op.card_hash)
    heard.clear()
    assert (await cards.fund(record, Decimal(5))).state == "done"
    assert [a[0].kind + ":" + a[0].state for n, a in heard if n == "operation_changed"] == ["fund:sending", "fund:done"]
    changed = [a[0] for n, a in heard if n == "card_changed"]
    assert changed and changed[-1].balance == Decimal("35.00")
    heard.clear()
    await cards.refresh(profile, "test")
    assert heard[-1] == ("cards_refreshed", (profile.id, "test"))
