"""Links a notification can settle: the scheduler checks them at most every
``notified_every`` seconds and never stops (polling stays the safety net), except while one
is on screen, and "check now" stays immediate. ``desk/notified.py``'s predicate answers from
its cache: the inbox is asked once per profile and refresh, never per check.

The scheduler's own tests stand a scripted ``Service`` in for the controller (as
test_scheduler.py does): what is measured here is when the scheduler asks, not the service."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from paydesk.desk.build import build_desk
from paydesk.desk.notified import Notified
from paydesk.desk.pacing import Pacing
from paydesk.desk.scheduler import Scheduler
from paydesk.desk.tasks import TaskSet
from paydesk.ledger.inbox import BAD_SIGNATURE, DUPLICATE, PENDING, InboxEntry
from paydesk.service.errors import ServiceUnavailableError
from tests.scheduler.test_scheduler import Service, record
from tests.waiting import until_async


@pytest.fixture
async def running():
    """``running(service, **options)``: a scheduler running over ``service``, with
    test_scheduler.py's quick paces; cancelled after."""
    started = []

    def start(service, **options):
        options = {
            "first_every": 0.05,
            "settle_first": 0.05,
            "focused_every": 0.05,
            "slowest": 0.8,
            "focused_slowest": 0.2,
            "retry_first": 0.05,
            **options,
        }
        pace = {k: options.pop(k) for k in list(options) if k in Pacing.__dataclass_fields__}
        scheduler = Scheduler(service.check, service.settle, pacing=Pacing(**pace), **options)
        started.append(asyncio.create_task(scheduler.run()))
        return scheduler

    yield start
    for task in started:
        task.cancel()
    await asyncio.gather(*started, return_exceptions=True)


def only(profile_id):
    return lambda rec: rec.profile_id == profile_id


async def test_a_link_a_notification_can_settle_is_checked_seldom_but_never_stops(running):
    service = Service()
    scheduler = running(service, notified=only("p1"), notified_every=0.5)
    scheduler.watch(record("NOTIFIED", profile="p1"))
    scheduler.watch(record("POLLED", profile="p2"))
    await asyncio.sleep(1.8)
    assert 2 <= service.count("NOTIFIED") <= 4  # every 0.5 s: kept checked, at a distance
    assert service.count("POLLED") >= 6  # every 0.05 s growing to 0.8 s: as before
    times = [t for _, ref, t in service.calls if ref == "NOTIFIED"]
    assert all(b - a >= 0.45 for a, b in zip(times, times[1:]))
    assert record("NOTIFIED", profile="p1").key in {r.key for r in scheduler.watched()}
    assert scheduler.stats["spaced for notifications"] >= 2


async def test_a_notified_link_on_screen_keeps_its_on_screen_pace(running):
    """The link a person waits for at the counter: a lost notification must not make them
    wait minutes, and the on-screen lane holds only what views show."""
    service = Service()
    scheduler = running(service, notified=only("p1"), notified_every=5.0)
    scheduler.focus("counter", record("SHOWN", profile="p1"))
    await asyncio.sleep(0.5)
    assert service.count("SHOWN") >= 4  # every 0.05 s
    scheduler.focus("counter", None)
    seen = service.count("SHOWN")
    await asyncio.sleep(0.5)
    assert service.count("SHOWN") <= seen + 1  # off screen: spaced again


async def test_check_now_is_immediate_for_a_notified_link(running):
    service = Service()
    scheduler = running(service, notified=only("p1"), notified_every=60.0)
    scheduler.watch(record("ASKED", profile="p1"))
    await asyncio.sleep(0.3)
    assert service.count("ASKED") == 0  # spaced: first check in a minute
    scheduler.check_now(record("ASKED", profile="p1"))
    await until_async(lambda: service.count("ASKED") == 1, 2, "the check asked for")


async def test_a_failed_check_of_a_notified_link_is_retried_at_its_spacing(running):
    service = Service()
    service.script["DOWN"] = [ServiceUnavailableError("down")] * 50
    scheduler = running(service, notified=only("p1"), notified_every=0.5)
    scheduler.check_now(record("DOWN", profile="p1"))
    await asyncio.sleep(1.3)
    assert 2 <= service.count("DOWN") <= 4  # not every 0.05 s: a retry waits its turn too
    assert scheduler.stats["failures"] == service.count("DOWN")


async def test_a_create_is_settled_at_its_own_pace_notified_or_not(running):
    service = Service()
    service.script["LOST"] = ["creating", "creating", "pending"]
    scheduler = running(service, notified=lambda rec: True, notified_every=30.0)
    scheduler.watch(record("LOST", state="creating", profile="p1"))
    await until_async(lambda: service.count("LOST", "settle") >= 2, 3, "settled as before")


async def test_a_predicate_that_fails_leaves_the_checks_as_they_were(running, caplog):
    service = Service()

    def broken(rec):
        raise RuntimeError("a bug in the predicate")

    scheduler = running(service, notified=broken, notified_every=30.0)
    scheduler.watch(record("STILL", profile="p1"))
    await until_async(lambda: service.count("STILL") >= 3, 3, "checked as before")
    assert scheduler.stats["scheduler errors"] >= 1
    assert "a bug in the predicate" in caplog.text


# -- the predicate: desk/notified.py ------------------------------------------------------


def entry(profile_id, verdict=PENDING, ago=timedelta(0), mode="test"):
    return InboxEntry(
        id=1,
        received_at=datetime.now(UTC) - ago,
        body_hash="h",
        body=b"{}",
        verdict=verdict,
        profile_id=profile_id,
        mode=mode,
    )


class Inbox:
    """``last_received`` of an inbox, counted (how often the predicate asks the ledger)."""

    def __init__(self, last=None):
        self.last, self.asked = last or {}, []

    async def last_received(self, profile_id=None, mode=None):
        self.asked.append((profile_id, mode))
        return self.last.get(profile_id)


async def test_a_notification_counts_for_its_profile_and_mode_alone():
    """A test-mode notification says nothing of the same merchant's live links (another
    key, perhaps another address), nor of another merchant's."""
    notified = Notified(None, TaskSet())
    notified.heard(entry("p1", mode="test"))
    assert notified(record("A", profile="p1", mode="test"))
    assert not notified(record("B", profile="p1", mode="live"))
    assert not notified(record("C", profile="p2", mode="test"))


async def test_a_link_in_its_first_two_minutes_keeps_its_own_pace():
    """A link is most often paid in its first minutes, perhaps at a counter whose screen the
    lease holder cannot see: a lost notification must not make that customer wait."""
    notified = Notified(None, TaskSet())
    notified.heard(entry("p1"))
    fresh = record("NEW", profile="p1")
    now = datetime.now(UTC)
    assert not notified(replace(fresh, created_at=now - timedelta(seconds=5)))
    assert not notified(replace(fresh, created_at=now - timedelta(seconds=110)))
    assert notified(replace(fresh, created_at=now - timedelta(seconds=130)))


async def test_a_notification_of_the_last_half_hour_counts_the_inbox_is_asked_once():
    inbox = Inbox({"p1": datetime.now(UTC) - timedelta(minutes=5), "p2": datetime.now(UTC) - timedelta(minutes=31)})
    tasks = TaskSet()
    notified = Notified(inbox.last_received, tasks, refresh=60.0)
    assert not notified(record("A", profile="p1"))  # not known yet: asked in the background
    await until_async(lambda: notified(record("A", profile="p1")), 2, "the inbox's answer")
    for _ in range(1000):  # the scheduler asks at every check: the cache answers
        notified(record("A", profile="p1"))
        notified(record("B", profile="p2"))
    await asyncio.sleep(0.05)
    assert sorted(inbox.asked) == [("p1", "test"), ("p2", "test")]  # once each per refresh
    assert not notified(record("B", profile="p2"))  # 31 minutes ago: too long
    await tasks.cancel_all()


async def test_a_notification_heard_counts_at_once_a_duplicate_or_forgery_never():
    notified = Notified(None, TaskSet())
    notified.heard(entry("p1", BAD_SIGNATURE))
    notified.heard(entry("p1", DUPLICATE))
    notified.heard(entry("p2", ago=timedelta(minutes=40)))
    assert not notified(record("A", profile="p1")) and not notified(record("B", profile="p2"))
    notified.heard(entry("p1"))
    assert notified(record("A", profile="p1"))


async def test_an_inbox_that_fails_is_asked_again_later_and_checks_go_on():
    class Failing:
        asked = 0

        async def last_received(self, profile_id=None, mode=None):
            self.asked += 1
            raise OSError("the ledger is busy")

    inbox, tasks = Failing(), TaskSet()
    notified = Notified(inbox.last_received, tasks, refresh=0.1)
    assert not notified(record("A", profile="p1"))
    await asyncio.sleep(0.15)
    assert not notified(record("A", profile="p1"))
    await until_async(lambda: inbox.asked == 2, 2, "asked again after the refresh")
    await tasks.cancel_all()


async def test_the_desks_scheduler_asks_its_receiver_inbox_and_hub(paths, memory_keyring):
    """build_desk gives its scheduler the predicate: the desk's own inbox (a notification
    kept there, read in the background) and the hub's notification_changed count; a
    receiver this process runs (as paydesk-receiver runs its desk) does not, by itself."""
    from paydesk.config.secrets import KeyStore
    from paydesk.receiver.serve import Receiver

    desk = build_desk(paths, KeyStore(memory_keyring))
    try:
        await desk.open()
        notified = desk.scheduler.notified
        assert isinstance(notified, Notified)
        assert not notified(record("A", profile="p1"))
        desk.hub.notification_changed.emit(entry("p1"))  # heard: counts at once
        assert notified(record("A", profile="p1"))

        await desk.inbox.receive(b'{"event":"payment.completed"}', {}, "127.0.0.1", profile_id="p2", mode="test")
        assert not notified(record("B", profile="p2"))  # asks the inbox in the background
        await until_async(lambda: notified(record("B", profile="p2")), 5, "the inbox read")

        assert not notified(record("C", profile="p3"))
        desk.receiver = Receiver(desk, "127.0.0.1", 0)  # as paydesk-receiver runs its desk
        await desk.receiver.start()
        await asyncio.sleep(0.2)  # the inbox asked about p3: nothing came
        assert not notified(record("C", profile="p3"))  # it may never be told of p3
    finally:
        await desk.close()


class ClassedService(Service):
    """Also notes the class each check was made in (``service/call_class.py``)."""

    def __init__(self):
        super().__init__()
        self.classes: list[tuple[str, int]] = []

    async def check(self, rec):
        from paydesk.service.call_class import caller

        self.classes.append((rec.tx_ref, int(caller().klass)))
        return await super().check(rec)


async def test_while_notifications_come_a_code_on_screen_is_not_looked_up_every_2_s(running):
    """Issue 30: a code on a counter's screen was looked up every 2 s even while a receiver
    delivered its payment's notification: 30 calls a minute of the shop's 60. While
    notifications come for its profile and mode, the code on screen is checked at the
    safety net's pace, however young; no look-up is made the moment it is shown."""
    service = Service()
    scheduler = running(service, delivering=only("p1"), focused_notified_every=0.6)
    scheduler.focus("counter", record("SALE", profile="p1"))
    scheduler.focus("panel", record("ELSEWHERE", profile="p2"))  # none come for p2
    await asyncio.sleep(1.5)
    assert 1 <= service.count("SALE") <= 3  # every 0.6 s, not every 0.05 s
    times = [t for _, ref, t in service.calls if ref == "SALE"]
    assert all(b - a >= 0.55 for a, b in zip(times, times[1:]))
    assert service.count("ELSEWHERE") >= 10  # no notification for it: the on-screen pace


async def test_a_delivered_link_on_screen_checked_now_when_asked(running):
    service = Service()
    scheduler = running(service, delivering=only("p1"), focused_notified_every=60.0)
    shown = record("SHOWN", profile="p1")
    scheduler.focus("panel", shown)
    await asyncio.sleep(0.2)
    assert service.count("SHOWN") == 0
    scheduler.check_now(shown)
    await until_async(lambda: service.count("SHOWN") == 1, 2, "the check asked for")


async def test_each_check_is_made_in_its_class(running):
    from paydesk.service.call_class import CallClass

    service = ClassedService()
    scheduler = running(service, first_every=0.05, focused_every=0.05)
    scheduler.watch(record("BACK"))
    scheduler.focus("panel", record("OPENED"))
    await until_async(lambda: service.count("OPENED") >= 3 and service.count("BACK") >= 2, 3, "checks of both")
    opened = [k for ref, k in service.classes if ref == "OPENED"]
    assert opened[0] == CallClass.PERSON_LOOKUP  # opened: a person's look-up
    assert set(opened[1:]) == {CallClass.ON_SCREEN}  # then a code on screen
    assert {k for ref, k in service.classes if ref == "BACK"} == {CallClass.BACKGROUND}
