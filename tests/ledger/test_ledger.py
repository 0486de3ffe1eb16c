"""The ledger: migrations, the link life cycle, two windows at once, 100,000 records."""

import sqlite3
import threading
import time
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest

from paydesk.ledger import Ledger
from paydesk.ledger.schema import MIGRATIONS, migrate
from paydesk.service.models import PaymentLink, PaymentRequest, Transaction, TransactionState


def _request(ref, amount=25):
    return PaymentRequest(amount=Decimal(amount), currency="GBP", email="a@example.com",
                          first_name="A", last_name="B", tx_ref=ref, title="Coffee",
                          meta={"till": "2"}, callback_url="https://shop.example/cb")


def test_migrates_an_empty_file(tmp_path):
    ledger = Ledger(tmp_path / "l.sqlite3")
    assert ledger.version == len(MIGRATIONS)
    with sqlite3.connect(tmp_path / "l.sqlite3") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"links_recent", "links_state"} <= indexes


def test_migrates_from_the_first_schema_keeping_records(tmp_path):
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, target=1)
    db.execute("INSERT INTO links (profile_id, mode, tx_ref, amount, currency, email, first_name,"
               " last_name, checkout_url, state, created_at) VALUES ('p', 'test', 'OLD-1', '12',"
               " 'USD', 'o@example.com', 'O', 'L', 'http://x/payment/PDK-1', 'pending', ?)",
               (datetime(2026, 1, 2, tzinfo=timezone.utc).isoformat(),))
    db.close()
    ledger = Ledger(path)
    assert ledger.version == 2
    old = ledger.get("p", "OLD-1")
    assert old.amount == Decimal(12) and old.state == "pending" and old.updated_at == old.created_at
    assert old.customization == {} and old.origin == "link"
    assert [r.tx_ref for r in ledger.recent("p", "test")] == ["OLD-1"]


def test_refuses_a_newer_schema(tmp_path):
    path = tmp_path / "new.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(RuntimeError, match="newer PayDesk"):
        Ledger(path)


def test_link_life_cycle(tmp_path):
    ledger = Ledger(tmp_path / "l.sqlite3")
    record = ledger.begin_link("p1", "test", _request("R-1"))
    assert record.state == "creating" and record.checkout_url is None
    assert [r.tx_ref for r in ledger.unsettled()] == ["R-1"]
    with pytest.raises(sqlite3.IntegrityError):
        ledger.begin_link("p1", "live", _request("R-1"))  # one tx_ref per merchant, both modes
    done = ledger.complete_link("p1", PaymentLink("R-1", "http://h/pay/payment/PDK-abc"))
    assert done.state == "pending" and done.reference == "PDK-abc" and ledger.unsettled() == []
    assert done.request() == _request("R-1")
    tx = Transaction(tx_ref="R-1", status=TransactionState.SUCCESS, status_raw="success",
                     reference="PDK-abc", raw={"status": "success"})
    after, changed = ledger.record_lookup("p1", "test", tx)
    assert changed and after.state == "success" and after.final and after.checked_at
    again, changed = ledger.record_lookup("p1", "test", tx)
    assert not changed
    rejected = ledger.begin_link("p1", "test", _request("R-2"))
    rejected = ledger.reject_link("p1", "R-2", "Invalid currency")
    assert rejected.state == "rejected" and rejected.error == "Invalid currency" and rejected.final
    assert [r.tx_ref for r in ledger.recent("p1", "test")] == ["R-2", "R-1"]
    assert ledger.recent("p1", "live") == []


def test_a_lookup_of_an_unknown_reference_is_recorded(tmp_path):
    ledger = Ledger(tmp_path / "l.sqlite3")
    tx = Transaction(tx_ref="SEEN-1", status=TransactionState.UNKNOWN, status_raw="on-hold",
                     amount=Decimal("1000.00"), currency="USD", email="x@example.com")
    record, changed = ledger.record_lookup("p1", "test", tx)
    assert changed and record.origin == "lookup" and record.state == "on-hold" and not record.final
    assert ledger.recent("p1", "test") == []  # lookups are not links made here


def test_two_windows_on_one_ledger(tmp_path):
    first, second = Ledger(tmp_path / "l.sqlite3"), Ledger(tmp_path / "l.sqlite3")
    errors = []

    def write(ledger, prefix):
        try:
            for i in range(200):
                ledger.begin_link("p1", "test", _request(f"{prefix}-{i}"))
                ledger.next_sequence(date(2026, 11, 22))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(first, "A")),
               threading.Thread(target=write, args=(second, "B"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert first.count("p1", "test") == 400 == second.count("p1", "test")
    assert first.next_sequence(date(2026, 11, 22)) == 401  # the shared per-day sequence


def test_hundred_thousand_records_load_and_filter(tmp_path):
    path = tmp_path / "big.sqlite3"
    ledger = Ledger(path)
    states = ["pending", "success", "failed", "cancelled"]
    started = time.perf_counter()
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO links (profile_id, mode, tx_ref, amount, currency, email, first_name,"
            " last_name, state, created_at, updated_at, origin) VALUES"
            " ('p1', ?, ?, ?, 'USD', ?, 'F', 'L', ?, ?, ?, 'link')",
            [("test" if i % 5 else "live", f"BULK-{i:06d}", str(i % 900 + 1), f"c{i % 1000}@example.com",
              states[i % 4], f"2026-01-01T00:00:{i % 60:02d}.{i:06d}+00:00",
              f"2026-01-01T00:00:{i % 60:02d}.{i:06d}+00:00") for i in range(100_000)])
        db.execute("COMMIT")
    loaded = time.perf_counter()
    assert ledger.count("p1", "test") == 80_000 and ledger.count("p1", "live") == 20_000
    paid = ledger.search("p1", "test", state="success", limit=500)
    assert len(paid) == 500 and all(r.state == "success" and r.mode == "test" for r in paid)
    by_mail = ledger.search("p1", "test", text="c123@", limit=1000)
    assert by_mail and all(r.email == "c123@example.com" for r in by_mail)
    by_ref = ledger.search("p1", "test", text="BULK-09999")
    assert {r.tx_ref for r in by_ref} == {f"BULK-09999{d}" for d in range(10) if int(f"9999{d}") % 5}
    assert len(ledger.recent("p1", "test", 50)) == 50
    filtered = time.perf_counter()
    print(f"\n100,000 records: insert {loaded - started:.2f} s, filters {filtered - loaded:.3f} s")
