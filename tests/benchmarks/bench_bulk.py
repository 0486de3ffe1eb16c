"""Bulk links (issue 20 §4): 10,000 rows from a CSV, 100 of them invalid in known ways,
against a sandbox in its own process that drops one answer in ten after committing the
payment (``drop_after_commit_rate`` 0.1). A runner process (a desk without windows, the
batch started through ``BulkController``) is SIGKILLed half-way; then a desk with its window
showing the batch's progress resumes it, while a 5 ms timer measures the GUI thread's
longest stall (tests/benchmarks/stall.py).

Measured, not taken on trust: the sandbox's call log (``GET _sandbox/requests``, read every
quarter second: it keeps the newest 1,000 calls) counts the creates it answered 201 and
those whose answer was dropped; the sandbox's own database says which payments exist; the
ledger says what became of each row. *Doubled*: a payment made twice for a row (the same
reference twice, a reference no row has, or more creates answered 201 than payments).
*Lost*: a valid row with no payment at the service, or a row the ledger does not know as
created, or still waiting or creating at the end.

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_bulk.py [--rows 10000])
Prints figures (the dry run's time among them), last exactly:
``bulk: rows 10000, created N, refused N, doubled 0, lost 0, rows/s N, GUI stall max N ms``.
Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gc
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import httpx

HERE = Path(__file__).resolve().parent
DROP_RATE = 0.1
INVALID = 100  # rows with problems, planted in known ways (``planted``)
FIELDS = ["amount", "currency", "email", "first_name", "last_name", "title", "description", "meta.invoice"]


# -- the file -------------------------------------------------------------------------------


def planted(rows: int, invalid: int) -> dict[int, tuple[str, str]]:
    """The file rows (spreadsheet numbers: the header is row 1) made invalid, and how: the
    field and the bad value."""
    ways = [("email", "not-an-address"), ("amount", "0"), ("amount", "12.50"), ("currency", "XXX"), ("last_name", "")]
    step = rows // invalid
    return {2 + i * step + step // 2: ways[i % len(ways)] for i in range(invalid)}


def write_file(path: Path, rows: int, bad: dict[int, tuple[str, str]]) -> None:
    with open(path, "w", encoding="utf-8-sig", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(
            ["Amount", "Currency", "E-mail", "First name", "Last name", "Title", "Description", "meta.invoice"]
        )
        for number in range(2, rows + 2):
            values = {
                "amount": str(10 + number % 990),
                "currency": "GBP",
                "email": f"parent{number}@example.com",
                "first_name": "Parent",
                "last_name": f"Number {number}",
                "title": "Autumn term fees",
                "description": "Two children, one invoice",
                "meta.invoice": f"{number:06d}",
            }
            if number in bad:
                field, value = bad[number]
                values[field] = value
            out.writerow([values[f] for f in FIELDS])


# -- the service, as its operator sees it ---------------------------------------------------


def service_payments(sandbox_dir: Path) -> list[str]:
    """Every payment the sandbox holds, by its tx_ref (test mode), read from its database."""
    with sqlite3.connect(sandbox_dir / "sandbox.sqlite3") as db:
        return [r[0] for r in db.execute("SELECT tx_ref FROM transactions WHERE mode = 'test'")]


def set_faults(base: str, key: str, **body) -> None:
    answer = httpx.put(
        base.rstrip("/") + "/_sandbox/faults", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=10
    )
    answer.raise_for_status()


# -- the desks ------------------------------------------------------------------------------


async def open_desk(data: Path, base: str, keys: dict):
    """A desk from the composition root on the benchmark's ledger, its profile saved (keys in
    memory: each process is given them, as a keyring would)."""
    from paydesk.config.paths import Paths
    from paydesk.config.profiles import Profile
    from paydesk.config.secrets import KeyStore
    from paydesk.desk.build import build_desk

    desk = build_desk(Paths(data=data / "paydesk", sandbox=data / "unused").ensure(), KeyStore(None))
    await desk.open()
    profile = desk.session.settings.profile("bench") or Profile(
        id="bench", name="Bench school", base_url=base, txref_prefix="SCH", has_cards=False, currencies=["GBP"]
    )
    await desk.session.save_profile(profile, {("test", "secret"): keys["secret"], ("test", "public"): keys["public"]})
    return desk


def controller_of(desk):
    """The desk's bulk controller (built here when the desk does not hold one)."""
    from paydesk.desk.bulk.runner import BulkController

    made = getattr(desk, "bulk", None)
    if made is not None:
        return made
    return BulkController(desk.session, desk.links, desk.batches, desk.hub)


async def dry_run(desk, path: Path):
    """The file read, mapped and checked as the window does it; (rows, seconds)."""
    from paydesk.desk.bulk.check import check_rows, known_references, references
    from paydesk.desk.bulk.mapping import guess_mapping
    from paydesk.desk.bulk.read import read_sheet

    profile = desk.session.settings.profile("bench")
    t0 = time.perf_counter()
    sheet = await asyncio.to_thread(read_sheet, path)
    t_read = time.perf_counter()
    mapping = guess_mapping(sheet.headers)
    first = await asyncio.to_thread(check_rows, sheet, mapping, profile)
    known = await known_references(desk.session.ledger, profile.id, references(first))
    rows = await asyncio.to_thread(check_rows, sheet, mapping, profile, known_refs=known) if known else first
    t_done = time.perf_counter()
    return rows, t_read - t0, t_done - t_read


async def prepare(data: Path, base: str, keys: dict, path: Path, bad: dict) -> int:
    """The dry run and the batch written to the ledger ("skip" the rows with problems)."""
    from stall import Stall

    desk = await open_desk(data, base, keys)
    try:
        idle = Stall(5).start()  # the timer with nothing running: what the machine allows
        await asyncio.sleep(1)
        idle_worst = idle.stop()
        with Stall(5) as stall:  # the GUI thread while the file is read and checked
            rows, read_s, check_s = await dry_run(desk, path)
        wrong = {r.number for r in rows if r.problems}
        print(
            f"dry run of {len(rows):,} rows: read {read_s * 1000:.0f} ms, checked "
            f"{check_s * 1000:.0f} ms, total {(read_s + check_s) * 1000:.0f} ms "
            f"({len(wrong)} rows with problems, {'exactly' if wrong == set(bad) else 'NOT'} "
            f"the planted ones); GUI stall max {stall.worst:.0f} ms meanwhile "
            f"({idle_worst:.0f} ms over 1 s with nothing running)"
        )
        batch = await desk.batches.add_batch(
            "bench",
            "test",
            "Autumn term fees",
            path.name,
            "skip",
            "bench",
            [(r.number, r.values.get("tx_ref", ""), r.values, bool(r.problems)) for r in rows],
            txref_prefix="SCH",
        )
        return batch.id
    finally:
        await desk.close()


async def runner(data: Path, base: str, keys: dict, batch_id: int) -> None:
    """The child: start the batch and say how far it got, until killed."""
    desk = await open_desk(data, base, keys)
    bulk = controller_of(desk)
    batch = await desk.batches.batch(batch_id)
    await bulk.start(batch)
    while True:
        figures = await desk.batches.figures(batch_id)
        print(json.dumps({"done": figures.done, "left": figures.left}), flush=True)
        if not bulk.running(batch_id):
            break
        await asyncio.sleep(0.1)
    print(json.dumps({"finished": True}), flush=True)
    await desk.close()


def run_and_kill(data: Path, base: str, keys: dict, batch_id: int, half: int) -> tuple[int, float, str]:
    """The runner in its own process, SIGKILLed once ``half`` rows are answered for; how many
    were, for how long it ran, and how it ended."""
    env = dict(os.environ, BENCH_KEYS=json.dumps(keys))
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--runner", str(data), base, str(batch_id)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    t0 = time.perf_counter()
    done, how = 0, "ended by itself"
    for line in child.stdout:
        if not line.startswith("{"):
            continue  # not the runner's figures
        said = json.loads(line)
        if said.get("finished"):
            break
        done = said["done"]
        if done >= half:
            os.kill(child.pid, signal.SIGKILL)
            how = "SIGKILLed"
            break
    code = child.wait(30)
    if how != "SIGKILLed":
        how += f" (exit status {code}: NOT killed half-way)"
    return done, time.perf_counter() - t0, how


class StallStacks(threading.Thread):
    """``BENCH_STALLS=1``: where the GUI thread was when the stall timer ran late by more
    than 30 ms (its stack, sampled from another thread), to say what held it."""

    def __init__(self, stall):
        super().__init__(daemon=True)
        self.stall = stall
        self.main = threading.main_thread().ident
        self.seen: dict[str, float] = {}
        self._stop = threading.Event()

    def run(self) -> None:
        import traceback

        while not self._stop.wait(0.01):
            late = time.perf_counter() - self.stall._last
            if late > 0.03:
                frame = sys._current_frames().get(self.main)
                if frame is not None:
                    where = "".join(traceback.format_stack(frame)[-14:])
                    self.seen[where] = max(self.seen.get(where, 0.0), late * 1000)

    def report(self) -> None:
        self._stop.set()
        for where, ms in sorted(self.seen.items(), key=lambda kv: -kv[1])[:4]:
            print(f"  GUI thread late {ms:.0f} ms at:\n{where}")


async def resume(data: Path, base: str, keys: dict, batch_id: int, scheduler: bool = True):
    """A desk with the Bulk links window showing the batch's progress: Resume pressed, the
    creates whose answer was lost settled by the desk's background work; the GUI thread's
    longest stall measured throughout."""
    from stall import Stall

    desk = await open_desk(data, base, keys)
    unfinished = await desk.batches.unfinished("bench", "test")
    bulk = controller_of(desk)
    batch = await desk.batches.batch(batch_id)
    window = progress_window(desk, bulk, batch)
    await asyncio.sleep(0.3)
    gc.collect()
    gc.freeze()  # as paydesk.app does once started: full collections skip what start-up made
    idle = Stall(5).start()  # the same timer with nothing running: what the machine allows
    await asyncio.sleep(3)
    idle_worst = idle.stop()
    stall = Stall(5).start()
    stacks = StallStacks(stall) if os.environ.get("BENCH_STALLS") else None
    if stacks is not None:
        stacks.start()
    t0, cpu0 = time.perf_counter(), time.process_time()
    if scheduler:  # as the app starts: the scheduler settles the creates whose answer was lost
        desk.start_background()
    if window is not None:
        await window.resume()  # what Resume does
    else:
        await bulk.start(batch)
    while bulk.running(batch_id):  # noqa: ASYNC110 (polls a state no event announces)
        await asyncio.sleep(0.1)
    ran = time.perf_counter() - t0
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        figures = await desk.batches.figures(batch_id)
        if figures.left == 0:
            break
        if not scheduler:  # --no-scheduler: the lost answers settled here, one by one
            for record in await desk.session.ledger.unsettled("bench"):
                try:
                    await desk.links.settle(record)
                except Exception:  # noqa: BLE001 - a settle that fails is tried again
                    pass
        await asyncio.sleep(0.25)
    settled = time.perf_counter() - t0
    cpu = time.process_time() - cpu0  # this process's CPU time, every thread's
    worst = stall.stop()
    if stacks is not None:
        stacks.report()
    figures = await desk.batches.figures(batch_id)
    rows = await all_rows(desk, batch_id)
    if window is not None:
        window.close()
    await desk.close()
    return {
        "offered": [b.id for b in unfinished],
        "ran": ran,
        "settled": settled,
        "stall": worst,
        "idle": idle_worst,
        "cpu": cpu,
        "figures": figures,
        "rows": rows,
        "window": window is not None,
    }


def progress_window(desk, bulk, batch):
    """The Bulk links window on its progress step for ``batch``, shown (None when this
    checkout has no such window yet)."""
    try:
        from paydesk.ui.bulk.window import PROGRESS, BulkWindow
    except ImportError:
        return None
    window = BulkWindow(desk.session, bulk)
    window.batch = window.found = batch
    window.go(PROGRESS)
    window.show()
    return window


async def all_rows(desk, batch_id: int):
    rows, after = [], None
    while True:
        page = await desk.batches.rows(batch_id, after=after, limit=1000)
        rows += page
        if len(page) < 1000:
            return rows
        after = page[-1].number


def measure(rows, payments: list[str], creates: dict) -> tuple[int, int, dict]:
    from paydesk.ledger.batch import CREATED, PAID, REFUSED, SKIPPED

    counted: dict[str, int] = {}
    for ref in payments:
        counted[ref] = counted.get(ref, 0) + 1
    refs = {r.tx_ref for r in rows}
    twice = sum(n - 1 for n in counted.values() if n > 1)
    strangers = sum(n for ref, n in counted.items() if ref not in refs)
    beyond = max(0, creates.get(201, 0) - len(counted))
    doubled = twice + strangers + beyond
    valid = [r for r in rows if r.state != SKIPPED]
    not_there = sum(1 for r in valid if r.tx_ref not in counted and r.state != REFUSED)
    unknown = sum(1 for r in valid if r.tx_ref in counted and r.state not in (CREATED, PAID))
    lost = not_there + unknown
    return (
        doubled,
        lost,
        {
            "same reference twice": twice,
            "reference of no row": strangers,
            "creates answered 201 beyond the payments": beyond,
            "valid rows with no payment": not_there,
            "payments the ledger does not show created": unknown,
        },
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--runner", nargs=3, metavar=("DATA", "BASE", "BATCH"))
    ap.add_argument(
        "--no-scheduler",
        action="store_true",
        help="settle the lost answers directly, without the desk's scheduler (which "
        "also checks every open link): what the scheduler costs the GUI thread",
    )
    args = ap.parse_args()
    if args.runner:
        data, base, batch_id = args.runner
        asyncio.run(runner(Path(data), base, json.loads(os.environ["BENCH_KEYS"]), int(batch_id)))
        return
    from call_log import CallLog
    from qt_loop import qt_loop
    from sandbox_process import sandbox_running

    from paydesk.ledger.batch import SKIPPED

    data = Path(tempfile.mkdtemp(prefix="paydesk-bench-bulk-"))
    bad = planted(args.rows, INVALID)
    path = data / "autumn-fees.csv"
    write_file(path, args.rows, bad)
    with sandbox_running(data / "sandbox") as (base, keys), qt_loop() as (_, loop):
        set_faults(base, keys["secret"], drop_after_commit_rate=DROP_RATE)
        log = CallLog(base, keys["secret"], data / "calls.json")
        batch_id = loop.run(prepare(data, base, keys, path, bad))
        killed_at, first_run, how = run_and_kill(data, base, keys, batch_id, (args.rows - INVALID) // 2)
        print(f"runner process {how} after {killed_at:,} rows answered for ({first_run:.1f} s)")
        resumed = loop.run(resume(data, base, keys, batch_id, not args.no_scheduler))
        log.stop()
        payments = service_payments(data / "sandbox")
    creates = log.creates()
    rows = resumed["rows"]
    figures = resumed["figures"]
    doubled, lost, why = measure(rows, payments, creates)
    skipped = sum(1 for r in rows if r.state == SKIPPED)
    created = figures.created + figures.paid
    seconds = first_run + resumed["settled"]
    print(
        f"resumed: batch {'offered' if batch_id in resumed['offered'] else 'NOT offered'} "
        f"to resume at start; {'Bulk links window' if resumed['window'] else 'no window'} "
        f"showing progress; rows sent in {resumed['ran']:.1f} s, every create settled "
        f"after {resumed['settled']:.1f} s"
    )
    print(
        f"ledger: {figures.rows:,} rows, created {created:,}, refused {figures.refused}, "
        f"failed {figures.failed}, skipped {skipped}, left {figures.left}"
    )
    print(
        f"service: {len(payments):,} payments; creates answered "
        + ", ".join(f"{status}: {n:,}" for status, n in sorted(creates.items(), key=str))
        + f"; {log.lookups():,} look-ups"
        + (" (the call log was read too seldom: some calls missed)" if log.missed else "")
    )
    print(
        f"GUI thread's longest stall (a 5 ms timer's lateness): {resumed['stall']:.0f} ms "
        f"while resuming, {resumed['idle']:.0f} ms over 3 s with nothing running; the "
        f"window's process used {resumed['cpu']:.1f} s of CPU in {resumed['settled']:.1f} s; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    for what, n in why.items():
        print(f"  {what}: {n}")
    print(
        f"bulk: rows {len(rows)}, created {created}, refused {figures.refused}, "
        f"doubled {doubled}, lost {lost}, rows/s {created / seconds:.0f}, "
        f"GUI stall max {resumed['stall']:.0f} ms"
    )


if __name__ == "__main__":
    main()
