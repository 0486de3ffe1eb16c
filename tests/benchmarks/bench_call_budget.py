"""What a call's permit costs: the shop's call budget on the shared ledger (PostgreSQL 15, a
throwaway cluster started for the run by tests/postgres.py, reached over TCP on 127.0.0.1 as
a desk reaches its shop's server), beside a plain ``SELECT 1`` on the same engine thread in
the same run, and the in-memory budget of a single desk.

- take: ``paydesk_take_call`` (the permit, one round trip under the origin's advisory lock);
- heard: ``paydesk_call_heard`` (the answer told, one round trip the call does not wait for);
- three desks taking at once (three engines on one origin): permits a second, each waiting
  for the others' advisory lock;
- memory: ``MemoryBook`` take and heard (a single desk without a shared ledger).

Run: .venv/bin/python tests/benchmarks/bench_call_budget.py [--permits 2000]
Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests.postgres

from paydesk.service.budget_book import Heard, MemoryBook
from paydesk.service.call_class import CallClass

ORIGIN = "https://pay.example.com:443"
ANSWER = Heard(201, limit=1_000_000, remaining=999_999)  # a limit far off: nobody waits


def pct(values: list[float], q: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))] * 1000


def line(name: str, values: list[float]) -> str:
    return (
        f"  {name:<34} p50 {pct(values, 50):7.3f} ms   p95 {pct(values, 95):7.3f} ms   "
        f"mean {statistics.fmean(values) * 1000:7.3f} ms"
    )


async def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        await fn()
        out.append(time.perf_counter() - started)
    return out


async def shared(url: str, permits: int) -> None:
    from paydesk.ledger.postgres.budget import PgBook
    from paydesk.ledger.postgres.engine import PgEngine

    engines = [PgEngine(url, desk=f"desk-{n}") for n in range(3)]
    for engine in engines:
        await engine.opened()
    try:
        engine = engines[0]
        book = PgBook(engine, ORIGIN)
        first = await book.take(CallClass.BULK, None)
        await book.heard(first.call_id, ANSWER)
        await timed(lambda: engine.quick(lambda c: c.execute("SELECT 1").fetchone()), 200)
        select = await timed(lambda: engine.quick(lambda c: c.execute("SELECT 1").fetchone()), permits)
        ids: list[int] = []

        async def take() -> None:
            got = await book.take(CallClass.BULK, None)
            assert got.call_id is not None, got
            ids.append(got.call_id)

        takes = await timed(take, permits)
        told = iter(ids)
        heards = await timed(lambda: book.heard(next(told), ANSWER), permits)
        books = [PgBook(e, ORIGIN) for e in engines]
        started = time.perf_counter()

        async def desk(b: PgBook) -> None:
            for _ in range(permits // 3):
                got = await b.take(CallClass.BULK, None)
                await b.heard(got.call_id, ANSWER)

        await asyncio.gather(*(desk(b) for b in books))
        elapsed = time.perf_counter() - started
        rows = await engine.read(lambda c: c.execute("SELECT count(*) AS n FROM call_budget_calls").fetchone())
    finally:
        for e in engines:
            await e.close()
    print(f"The shop's call budget on PostgreSQL ({permits} permits, one desk, in turn):")
    print(line("SELECT 1 (the same engine thread)", select))
    print(line("take (paydesk_take_call)", takes))
    print(line("heard (paydesk_call_heard)", heards))
    print(f"  take beyond a SELECT 1 at p50:     {pct(takes, 50) - pct(select, 50):7.3f} ms")
    print(
        f"  three desks at once: {3 * (permits // 3) / elapsed:,.0f} permits a second "
        f"(take and heard each), {rows['n']:,} calls in the log"
    )
    print(
        f"budget: permit p50 {pct(takes, 50):.3f} ms (SELECT 1 p50 {pct(select, 50):.3f} ms), "
        f"heard p50 {pct(heards, 50):.3f} ms"
    )


def memory(permits: int) -> None:
    book = MemoryBook()
    first = book.take_now(CallClass.BULK, None)
    book.heard_now(first.call_id, ANSWER)
    takes, heards = [], []
    for _ in range(permits):
        started = time.perf_counter()
        got = book.take_now(CallClass.BULK, None)
        takes.append(time.perf_counter() - started)
        started = time.perf_counter()
        book.heard_now(got.call_id, ANSWER)
        heards.append(time.perf_counter() - started)
    print(f"A single desk's budget in memory ({permits} permits):")
    print(line("take", takes))
    print(line("heard", heards))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--permits", type=int, default=2000)
    args = parser.parse_args()
    memory(args.permits)
    from tests import postgres

    why = postgres.missing()
    if why:
        print(f"The shop's call budget on PostgreSQL: not measured ({why})")
        return
    with postgres.Cluster.started() as cluster:
        cluster.make_template()
        asyncio.run(shared(cluster.url(cluster.fresh_database()), args.permits))


if __name__ == "__main__":
    main()
