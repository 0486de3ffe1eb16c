"""A shop behind one address, at the family's 60 calls a minute (issue 30, section 5).

A real ``paydesk-sandbox --family`` process on 127.0.0.1 (its throttle counts by client
address: the shop's every call, and another program's), one PostgreSQL (tests/postgres.py)
holding the shop's shared ledger, for ``--minutes`` (6):

- two counters ("Till 1", "Till 2"), each selling every 15 s; the customer pays 5-20 s after
  the code is shown (through the sandbox's control API), one sale in ten is never paid (the
  next sale voids it, as *New sale* does);
- a finance desk ("Finance") running a batch of ``--rows`` (300) bulk links, and looking a
  payment up every minute (what the Transactions tab's look-up box does);
- the real ``paydesk-receiver`` on the shop's ledger, the merchant's webhook URL (it holds the
  poller lease: PAID comes by notification);
- another program on the shop's address spending 10 calls a minute (another merchant's key).

The three desks are built as the app builds them (``build_desk`` from the composition root,
each with its own data folder, all in this process) and driven through the Qt-free desk layer:
``counter.sell`` is what Enter at the counter does, ``transactions.lookup`` the look-up box,
``bulk.start`` the batch's Start. No window is drawn: what is measured is the service's
budget, not painting (bench_counter.py measures Enter to the code painted). Each desk has its
budget over the shop's book in PostgreSQL (migration 9), the receiver's too.

Figures: calls in a minute as the sandbox counted them (its control API's window, read every
0.2 s, and the most in any 60 s of its call log), 429s (the call logs), counter Enter->code
(``sell`` to the sale with its code), a person's waits (the time a person's calls, classes 1
and 2, waited for the budget, every desk), bulk rows created in the run against what was
possible (the limit times the minutes, less the calls of the counters' sales, the look-ups and
the other program), PAID (the payment call to the counter's desk hearing it paid), lost and
doubled (the sandbox's database and its call log against the ledger).

Run: .venv/bin/python tests/benchmarks/bench_budget.py [--minutes 6] [--rows 300]
Prints figures; asserts nothing about time. Needs PostgreSQL 15 (Debian) like the tests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psycopg  # noqa: E402
from budget_shop import Foreign, ReceiverProcess, WindowWatch, control_headers, load_batch, open_desk, webhook_secret  # noqa: E402
from sandbox_process import start_sandbox  # noqa: E402

from tests.postgres import Cluster  # noqa: E402

SELL_EVERY = 15.0  # s: each counter
PAID_AFTER = (5.0, 20.0)  # s: the customer pays this long after the code
NEVER_PAID = 0.1
LOOKUP_EVERY = 60.0  # s: the finance desk looks a payment up
FOREIGN_A_MINUTE = 10


def p95(values: list[float]) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def line(name: str, values: list[float]) -> str:
    if not values:
        return f"  {name:<34} (none)"
    return (
        f"  {name:<34} p50 {statistics.median(values):8.1f}  p95 {p95(values):8.1f}  "
        f"max {max(values):8.1f} ms  (n={len(values)})"
    )


class Shop:
    """What the run saw."""

    def __init__(self, base: str, key: str):
        self.base, self.key = base.rstrip("/"), key
        self.enter: list[float] = []  # ms: sell() to the sale with its code
        self.refused_sales: list[str] = []
        self.sold: dict[str, str] = {}  # tx_ref -> counter
        self.paid_at: dict[str, float] = {}  # tx_ref -> monotonic of the payment call
        self.paid_wall: dict[str, float] = {}  # tx_ref -> time.time() of the payment call
        self.seen_paid: dict[str, float] = {}  # tx_ref -> monotonic the counter's desk heard it
        self.lookups: list[float] = []  # ms: the finance desk's look-ups
        self.lookup_refs: set[str] = set()
        self.payments: set[asyncio.Task] = set()

    async def pay(self, reference: str, tx_ref: str, after: float) -> None:
        await asyncio.sleep(after)
        async with httpx.AsyncClient(timeout=10) as client:
            self.paid_at[tx_ref], self.paid_wall[tx_ref] = time.monotonic(), time.time()
            answer = await client.post(
                f"{self.base}/_sandbox/pay/{reference}", json={"outcome": "success"}, headers=control_headers(self.key)
            )
            answer.raise_for_status()


async def counter(shop: Shop, desk, name: str, stop: asyncio.Event, offset: float, rng: random.Random) -> None:
    """Sell every SELL_EVERY s; before the next sale, the last one paid (waited for) or, never
    paid, voided by New sale."""
    paid_events: dict[str, asyncio.Event] = {}

    def heard(record) -> None:
        if record.state == "success" and record.tx_ref in shop.sold:
            shop.seen_paid.setdefault(record.tx_ref, time.monotonic())
            if record.tx_ref in paid_events:
                paid_events[record.tx_ref].set()

    desk.hub.record_changed.connect(heard)
    due = time.monotonic() + offset
    last: str | None = None
    n = 0
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), max(0.0, due - time.monotonic()))
            break
        except TimeoutError:
            pass
        if last is not None and last in paid_events:  # the customer is paying: wait for it
            try:
                await asyncio.wait_for(paid_events[last].wait(), 60)
            except TimeoutError:
                print(f"{name}: {last} not heard paid within 60 s of the sale's slot")
        await desk.counter.new_sale()
        n += 1
        started = time.perf_counter()
        try:
            sale = await desk.counter.sell(str(5 + n % 20), "GBP", f"Coffee {n}")
        except Exception as error:  # noqa: BLE001 - a sale not made, whatever why: counted
            shop.refused_sales.append(f"{name}: {type(error).__name__}: {error}")
            due += SELL_EVERY
            last = None
            continue
        shop.enter.append((time.perf_counter() - started) * 1000)
        tx_ref = sale.tx_ref
        shop.sold[tx_ref] = name
        last = tx_ref
        if sale.record is not None and sale.record.reference and rng.random() >= NEVER_PAID:
            paid_events[tx_ref] = asyncio.Event()
            task = asyncio.create_task(shop.pay(sale.record.reference, tx_ref, rng.uniform(*PAID_AFTER)))
            shop.payments.add(task)
        due = max(due + SELL_EVERY, time.monotonic())


async def look_ups(shop: Shop, desk, stop: asyncio.Event, rng: random.Random) -> None:
    """A payment looked up every minute (a counter's sale, as finance checks one)."""
    while True:
        try:
            await asyncio.wait_for(stop.wait(), LOOKUP_EVERY / 2 if not shop.lookups else LOOKUP_EVERY)
            return
        except TimeoutError:
            pass
        if not shop.sold:
            continue
        tx_ref = rng.choice(sorted(shop.sold))
        shop.lookup_refs.add(tx_ref)
        started = time.perf_counter()
        found = await desk.transactions.lookup(tx_ref)
        shop.lookups.append((time.perf_counter() - started) * 1000)
        if found.record is None:
            print(f"look-up of {tx_ref}: {found.message}")


def call_log(base: str, key: str) -> list[dict]:
    answer = httpx.get(base.rstrip("/") + "/_sandbox/requests", headers=control_headers(key), timeout=30)
    answer.raise_for_status()
    calls = answer.json()["data"]
    for call in calls:
        call["t"] = datetime.fromisoformat(call["at"].replace("Z", "+00:00")).timestamp()
    return calls


def most_in(times: list[float], seconds: float = 60.0) -> int:
    times = sorted(times)
    most = first = 0
    for last, at in enumerate(times):
        while at - times[first] >= seconds:
            first += 1
        most = max(most, last - first + 1)
    return most


async def run(args, folder: Path, url: str, base: str, keys: dict, other_key: str) -> dict:
    shop = Shop(base, keys["secret"])
    rng = random.Random(30)
    till_1, profile = await open_desk(folder, "Till 1", url, base, keys, None)
    till_2, _ = await open_desk(folder, "Till 2", url, base, keys, profile)
    finance, _ = await open_desk(folder, "Finance", url, base, keys, profile)
    desks = [till_1, till_2, finance]
    with psycopg.connect(url, autocommit=True) as conn:
        (merchant,) = [row[0] for row in conn.execute("SELECT id FROM merchants")]
    receiver = ReceiverProcess(folder / "receiver", url, merchant, base, keys)
    try:
        for _ in range(600):  # the receiver holds the lease: it checks, and PAID comes to it
            with psycopg.connect(url, autocommit=True) as conn:
                row = conn.execute("SELECT priority FROM poller_lease WHERE expires_at > now()").fetchone()
            if row and row[0] == 1:
                break
            await asyncio.sleep(0.1)
        else:
            print("the receiver did not take the poller lease within 60 s")
        batch = await load_batch(finance, folder / "terms.csv", args.rows)
        stop, watch_stop = asyncio.Event(), asyncio.Event()
        watch = WindowWatch(base, keys["secret"])
        other = Foreign(base, other_key, FOREIGN_A_MINUTE)
        watching = asyncio.create_task(watch.run(watch_stop))
        started_wall, started = time.time(), time.monotonic()
        print(f"run: {args.minutes:g} minutes from {datetime.now():%H:%M:%S}; batch of {args.rows} rows", flush=True)
        actors = [
            asyncio.create_task(counter(shop, till_1, "Till 1", stop, 0.0, rng)),
            asyncio.create_task(counter(shop, till_2, "Till 2", stop, 7.5, rng)),
            asyncio.create_task(look_ups(shop, finance, stop, rng)),
            asyncio.create_task(other.run(stop)),
        ]
        await finance.bulk.start(batch)
        end = started + args.minutes * 60
        while time.monotonic() < end:
            await asyncio.sleep(min(30.0, end - time.monotonic()))
            figures = await finance.batches.figures(batch.id)
            print(
                f"  {time.monotonic() - started:5.0f} s: sales {len(shop.sold)}, bulk "
                f"created {figures.created}, windows {sorted(watch.windows.values())}",
                flush=True,
            )
        stop.set()
        ended_wall = time.time()
        await finance.bulk.cancel(batch.id)
        made = await finance.batches.figures(batch.id)
        await asyncio.gather(*actors)
        if shop.payments:  # the payments under way, and PAID heard
            await asyncio.wait(list(shop.payments), timeout=60)
        deadline = time.monotonic() + 60
        while (set(shop.paid_at) - set(shop.seen_paid)) and time.monotonic() < deadline:  # noqa: ASYNC110 (polls a state no event announces)
            await asyncio.sleep(0.5)
        await asyncio.sleep(2)
        watch_stop.set()
        await watching
        bulk_refs = {r.tx_ref for r in await finance.batches.rows(batch.id, limit=100_000)}
        waits: dict[int, list[float]] = {k: [] for k in range(1, 6)}
        classes: dict[int, int] = {}
        for desk in desks:
            for budget in desk.budgets.all().values():
                for klass, kept in budget.figures.waits.items():
                    waits.setdefault(klass, []).extend(w * 1000 for w in kept)
                for klass, n in budget.figures.calls.items():
                    classes[klass] = classes.get(klass, 0) + n
    finally:
        code = receiver.stop()
        for desk in desks:
            await desk.close()
    return dict(
        shop=shop,
        made=made,
        bulk_refs=bulk_refs,
        waits=waits,
        classes=classes,
        watch=watch,
        other=other,
        started=started_wall,
        ended=ended_wall,
        receiver_exit=code,
    )


def report(args, seen: dict, folder: Path, url: str, base: str, keys: dict, other_key: str) -> None:
    shop: Shop = seen["shop"]
    since, until = seen["started"], seen["ended"]
    ours = call_log(base, keys["secret"])
    theirs = call_log(base, other_key)
    counted = [c for c in ours + theirs if c["status"] != 429]
    in_run = [c for c in ours if since <= c["t"] < until and c["status"] != 429]
    refusals = sum(1 for c in ours + theirs if c["status"] == 429)
    limit = seen["watch"].limit or 0
    most_fixed = seen["watch"].most(since, until)
    most_sliding = most_in([c["t"] for c in counted])
    bulk_refs, sold = seen["bulk_refs"], set(shop.sold)
    creates = [c for c in in_run if c["method"] == "POST" and c["path"].endswith("/api/payment")]
    looked = [c for c in in_run if c["method"] == "GET"]
    bulk_looks = sum(1 for c in looked if c["path"].rsplit("/", 1)[-1] in bulk_refs)
    with sqlite3.connect(folder / "sandbox" / "sandbox.sqlite3") as db:
        service = db.execute("SELECT tx_ref, status, created_at FROM transactions").fetchall()
    counter_creates = sum(1 for t, _, _ in service if t in sold)
    bulk_creates = len(creates) - counter_creates
    others = len(in_run) - bulk_creates - bulk_looks + seen["other"].counted
    windows = args.minutes
    possible = max(0, min(args.rows, int(limit * windows) - others))
    with psycopg.connect(url, autocommit=True) as conn:
        ledger = conn.execute("SELECT tx_ref, state FROM links").fetchall()
    ledger_state = dict(ledger)
    at_service: dict[str, int] = {}
    for tx_ref, _, _ in service:
        at_service[tx_ref] = at_service.get(tx_ref, 0) + 1
    paid_at_service = {t for t, status, _ in service if status.lower() in ("successful", "success", "completed")}
    lost = (
        len(set(at_service) - set(ledger_state))
        + len(sold - set(ledger_state))
        + sum(1 for t in paid_at_service if ledger_state.get(t) != "success")
    )
    doubled = (len(ledger) - len(ledger_state)) + sum(1 for n in at_service.values() if n > 1)
    paid = [(shop.seen_paid[t] - at) * 1000 for t, at in shop.paid_at.items() if t in shop.seen_paid]
    reread = []  # the payment call to the first look-up of it at the service after it
    for tx_ref, at in shop.paid_wall.items():
        after = [
            c["t"] for c in ours if c["method"] == "GET" and c["t"] >= at and c["path"].rsplit("/", 1)[-1] == tx_ref
        ]
        if after:
            reread.append((min(after) - at) * 1000)
    person = seen["waits"][1] + seen["waits"][2]
    made = seen["made"]
    print(
        f"sandbox: limit {limit}/min; its windows for 127.0.0.1 (most counted in each): "
        f"{[seen['watch'].windows[k] for k in sorted(seen['watch'].windows)]}; the most in "
        f"any 60 s of its call logs {most_sliding}"
    )
    print(
        f"calls in the run (the server counted, PayDesk's): {len(in_run)}: creates "
        f"{len(creates)} (counters {counter_creates}, bulk {bulk_creates}), look-ups "
        f"{len(looked)} (of bulk rows {bulk_looks}); the other program {seen['other'].counted}"
        f" (refused {seen['other'].refused}); 429s to PayDesk "
        f"{sum(1 for c in ours if c['status'] == 429)}"
    )
    print(
        f"PayDesk's calls by class (the desks here; the receiver's are its own): "
        f"{dict(sorted(seen['classes'].items()))}"
    )
    print(
        f"sales {len(sold)}, refused {len(shop.refused_sales)} {shop.refused_sales[:3]}; "
        f"paid {len(shop.paid_at)}, heard paid {len(paid)}"
    )
    print(line("counter Enter -> code", shop.enter))
    for klass, what in (
        (1, "a person's create"),
        (2, "a person's look-up"),
        (3, "a code on screen"),
        (4, "a bulk create"),
        (5, "a background call"),
    ):
        print(line(f"{what} waited", seen["waits"][klass]))
    print(line("finance look-up (whole)", shop.lookups))
    print(line("payment -> re-read at the service", reread))
    print(line("PAID (payment -> the till heard)", paid))
    print(
        f"bulk: created {made.created} of {args.rows} (creating {made.creating}, failed "
        f"{made.failed}, refused {made.refused}); possible {possible} = {limit} x {windows} "
        f"minutes less {others} calls of the counters, look-ups and the other program"
    )
    print(
        f"ledger {len(ledger)} links; service {len(service)} payments, paid "
        f"{len(paid_at_service)}; receiver exit {seen['receiver_exit']}"
    )
    print(
        f"budget: minutes {args.minutes:g}, limit {limit}/min, max calls in a minute "
        f"{most_fixed}, 429s {refusals}, counter Enter->code p95 {p95(shop.enter):.0f} ms, "
        f"person waits p95 {p95(person):.0f} ms, bulk rows {made.created} of {possible} "
        f"possible, PAID p95 {p95(paid):.0f} ms, lost {lost}, doubled {doubled}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=6)
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--limit", type=int, default=60)
    args = parser.parse_args()
    os.environ.setdefault("PAYDESK_LOG_LEVEL", "WARNING")
    with tempfile.TemporaryDirectory(prefix="paydesk-budget-") as tmp, Cluster.started() as cluster:
        folder = Path(tmp)
        proc, base, test_keys = start_sandbox(folder / "sandbox", "--family", "--rate-limit", f"{args.limit}/min")
        try:
            merchants = json.loads((folder / "sandbox" / "merchants.json").read_text())
            other_key = merchants[1]["keys"]["test"]["secret"]
            keys = {
                "secret": test_keys["secret"],
                "public": test_keys["public"],
                "webhook": webhook_secret(base, test_keys["secret"]),
            }
            url = cluster.url(cluster.create_database("shop"))
            print(
                f"sandbox {base} --family --rate-limit {args.limit}/min; PostgreSQL on port {cluster.port}", flush=True
            )
            seen = asyncio.run(run(args, folder, url, base, keys, other_key))
            report(args, seen, folder, url, base, keys, other_key)
        finally:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
