"""Check all open: 500 open records against a service that errs, limits and drops answers;
every record ends settled or still open with its last error, none lost or made twice;
Cancel stops within a second; the window keeps painting (its longest stall is printed)."""

import asyncio
import sqlite3
import time
from contextlib import closing

import pytest

from paydesk.service.models import PaymentRequest
from tests.benchmarks.stall import Stall
from tests.ui import press


def service_db(shop):
    """The sandbox's database, read as an auditor would; closed at the end of the block (a
    connection's own ``with`` only commits: the connection was left to the collector)."""
    return closing(sqlite3.connect(shop.sandbox.server.data_dir / "sandbox.sqlite3"))


def service_rows(shop):
    with service_db(shop) as db:
        return dict(db.execute("SELECT tx_ref, status FROM transactions WHERE mode = 'test'"))


def service_count(shop):
    with service_db(shop) as db:
        return db.execute("SELECT tx_ref, COUNT(*) FROM transactions GROUP BY tx_ref HAVING COUNT(*) > 1").fetchall()


class CallWatch:
    """Reads the sandbox's call log over and over while the work runs, off the GUI thread:
    the log keeps only the newest 1,000 calls, and a reconcile of 500 records under faults
    makes more, so the 429s and 503s of its first seconds would be gone by its end."""

    def __init__(self, shop, every: float = 0.2) -> None:
        import threading

        self.shop, self.every = shop, every
        self.seen: dict[tuple, int | None] = {}  # (method, path, at) -> the status answered
        self.errors: list[Exception] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="call-watch", daemon=True)

    def _read(self) -> None:
        for call in self.shop.call_log():
            key = (call["method"], call["path"], call["at"])
            if call["status"] is not None or key not in self.seen:
                self.seen[key] = call["status"]

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self._read()
            except Exception as error:  # noqa: BLE001 - said by the test, in stop()
                self.errors.append(error)

    def start(self) -> "CallWatch":
        self._thread.start()
        return self

    def stop(self) -> list:
        """Every status seen answered, once the work is over (the log read a last time)."""
        self._stop.set()
        self._thread.join(10)
        self._read()
        assert not self.errors, self.errors
        return list(self.seen.values())


def make_open(shop, n):
    async def make():
        made = []
        for i in range(n):
            made.append(
                await shop.window.links.create(
                    PaymentRequest(
                        amount=5 + i % 7,
                        currency="GBP",
                        email=f"c{i}@example.com",
                        first_name="C",
                        last_name=f"N{i}",
                        tx_ref=f"REC-{i:04d}",
                    )
                )
            )
        return made

    return shop.loop.run(make(), timeout=300)


@pytest.mark.slow  # about two minutes (500 links, 15 calls a second): ./dev test starts it first
def test_check_all_open_under_faults(strict_shop):
    shop = strict_shop
    made = make_open(shop, 500)
    outcomes = {}
    for i, record in enumerate(made[:300]):  # customers pay, fail or give up meanwhile
        outcome = ("success", "failed", "cancelled")[i % 3]
        shop.control(f"pay/{record.reference}", {"outcome": outcome})
        outcomes[record.tx_ref] = outcome
    # two creates a crash left unsettled: one that reached the service, one that did not
    ledger = shop.session.ledger
    for ref in ("CRASH-SENT", "CRASH-UNSENT"):
        shop.loop.run(
            ledger.begin_link(
                shop.profile.id,
                "test",
                PaymentRequest(
                    amount=9, currency="GBP", email="k@example.com", first_name="K", last_name="L", tx_ref=ref
                ),
            )
        )
    import httpx

    httpx.post(
        f"{shop.sandbox.base_url}/api/payment",
        json={
            "amount": "9",
            "currency": "GBP",
            "email": "k@example.com",
            "first_name": "K",
            "last_name": "L",
            "tx_ref": "CRASH-SENT",
        },
        headers={"Authorization": f"Bearer {shop.sandbox.key()}"},
    ).raise_for_status()
    # a limit well under what a reconcile asks for, on any machine: 429s are certain
    shop.faults(error_rate=0.2, drop_after_commit_rate=0.1, rate_limit_per_s=15, seed=7)
    calls = CallWatch(shop).start()
    stall = Stall(5).start()
    started = time.perf_counter()
    press.click(shop.tab.check_all)
    task = shop.tab.work._task
    shop.loop.until(task.done, timeout=240, message="the reconcile")
    took = time.perf_counter() - started
    stall.stop()
    statuses = calls.stop()
    shop.faults()
    progress = task.result()
    print(f"\nreconcile of 502 open records under faults: {took:.1f} s, longest GUI stall {stall.worst:.1f} ms")
    # the scheduler, running all along, may have settled some before the click
    assert 202 <= progress.total <= 502 and progress.checked + progress.failed == progress.total
    assert service_count(shop) == []  # nothing made twice
    service = service_rows(shop)
    records = {}
    for ref in [r.tx_ref for r in made] + ["CRASH-SENT", "CRASH-UNSENT"]:
        records[ref] = shop.loop.run(ledger.get(shop.profile.id, ref))
    assert all(records.values())  # none lost
    for ref in ("CRASH-SENT", "CRASH-UNSENT"):  # settled: on the service once, or said why not
        crashed = records[ref]
        assert (crashed.state == "pending" and ref in service and crashed.reference) or (
            crashed.state == "creating" and crashed.error
        ), (ref, crashed)
    assert service.keys() >= {"CRASH-SENT"}
    assert 429 in statuses and 503 in statuses  # the service did limit and err meanwhile
    # settled in the ledger as the customers left them, bar the few that could not be checked
    assert sum(records[r].state == outcomes[r] for r in outcomes) >= 280
    for ref, record in records.items():
        expected = outcomes.get(ref, "pending")
        if record.state == expected:
            continue
        assert record.state in ("pending", "creating") and record.error, (ref, record)
    assert progress.endings["paid"] <= 100 and progress.changed <= 302
    report = shop.tab.work.report.text()
    assert report == progress.report() and "paid" in report
    press.click(shop.tab.work.show_these)
    shop.loop.until(
        lambda: shop.tab.model.query.tx_refs == frozenset(progress.changed_refs),
        message="the filter to exactly those rows",
    )
    # the first block shows at once, the count of the rest follows it
    shop.loop.until(
        lambda: shop.tab.model.counted and shop.tab.model.rowCount() == len(progress.changed_refs),
        message="every changed row counted in the list",
    )
    assert shop.tab.work.show_these.text() == "Show all"
    press.click(shop.tab.work.show_these)  # and back to everything
    shop.loop.until(lambda: not shop.tab.model.query.tx_refs, message="everything again")


def test_cancel_stops_within_a_second(strict_shop):
    shop = strict_shop
    make_open(shop, 60)
    shop.faults(latency_ms=700)
    press.click(shop.tab.check_all)
    task = shop.tab.work._task
    shop.loop.run(asyncio.sleep(0.5))
    assert not task.done() and shop.tab.work.cancel.isVisible()
    asked = time.perf_counter()
    press.click(shop.tab.work.cancel)
    shop.loop.until(task.done, timeout=5, message="the cancel")
    assert time.perf_counter() - asked < 1.0
    assert shop.tab.work.report.text().startswith("Cancelled after checking ")
    assert shop.tab.work.report.text().split(" of ")[1].startswith("60")
    assert not shop.tab.work.cancel.isVisible()
    shop.faults()
