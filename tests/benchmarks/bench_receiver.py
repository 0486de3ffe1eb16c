"""The notification receiver: PAID by notification, and what forgeries and replays change.

A sandbox in its own process on 127.0.0.1; a desk from the composition root (``build_desk``)
on its own SQLite ledger, with polling off (its background is never started, so its
scheduler never runs: nothing but a notification can tell it a link was paid); the
receiver (``Receiver(desk, "127.0.0.1", 0)``) in the desk's loop, its address given to the
sandbox as the merchant's webhook URL (``PUT _sandbox/webhook``).

1. ``--links`` links (200) made by the desk (each create call timed: the baseline), then
   paid one after another through the control API (``POST _sandbox/pay/{reference}``).
   PAID is from the payment call to the ledger's record: the hub's ``record_changed`` of
   the record in state success with ``learned_by == "notification"`` (said once the ledger
   has written it).
2. 100 forged notifications (a well-formed envelope saying a still-open link was paid,
   signed with a wrong key: a made-up secret key, or the merchant's public key), then 100
   replays of captured notifications (the raw bodies of applied ones, from the inbox, with
   their own ``Signature``). What they changed is MEASURED: the inbox's verdicts of the
   entries each phase added (once none is pending) and every record of the ledger compared
   before and after.

Prints figures and, last:
``receiver: PAID p95 N ms, max N ms, applied N, forged applied 0, replays applied 0``

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_receiver.py [--links 200])
Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import hmac
import json
import os
import secrets
import statistics
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import httpx
from sandbox_process import sandbox_running

from paydesk.config.profiles import Profile
from paydesk.desk.build import Desk, build_desk
from paydesk.desk.start import open_folders, open_keys
from paydesk.ledger import LinkRecord
from paydesk.ledger.inbox import APPLIED, PENDING, InboxEntry, InboxQuery
from paydesk.receiver.serve import Receiver
from paydesk.service.models import PaymentRequest

FORGED = 100
REPLAYS = 100
PAID_WAIT = 15.0  # s: a payment not PAID by notification by then is counted missed


def pct(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def line(name: str, values: list[float]) -> str:
    return (
        f"{name}: p50 {pct(values, 50):.1f} ms, p95 {pct(values, 95):.1f} ms, "
        f"max {max(values, default=float('nan')):.1f} ms (n={len(values)})"
    )


def sign(body: bytes, key: str) -> str:
    return hmac.new(key.encode(), body, hashlib.sha256).hexdigest()


async def entries_after(desk: Desk, mark: int) -> list[InboxEntry]:
    """Every inbox entry with an id above ``mark`` (newest first, paged)."""
    found: list[InboxEntry] = []
    before = None
    while True:
        page = await desk.inbox.page(InboxQuery(), before=before, limit=200)
        fresh = [e for e in page if e.id > mark]
        found.extend(fresh)
        if len(fresh) < len(page) or len(page) < 200:
            return found
        before = page[-1].id


async def newest_id(desk: Desk) -> int:
    page = await desk.inbox.page(InboxQuery(), limit=1)
    return page[0].id if page else 0


async def settled(desk: Desk, timeout: float = 20.0) -> None:  # noqa: ASYNC109 (a poll's deadline: fails saying what)
    """Until the receiver has decided every entry (nothing pending: re-reads are done)."""
    end = time.monotonic() + timeout
    while await desk.inbox.pending() and time.monotonic() < end:  # noqa: ASYNC110 (polls a state no event announces)
        await asyncio.sleep(0.05)


async def snapshot(desk: Desk, records: list[LinkRecord]) -> dict[str, tuple]:
    """What the ledger holds of each record (compared before and after a phase)."""
    ledger = desk.session.ledger
    out = {}
    for record in records:
        now = await ledger.get(record.profile_id, record.tx_ref)
        assert now is not None
        out[record.tx_ref] = (now.state, now.learned_by, now.updated_at, now.amount)
    return out


def changed(before: dict[str, tuple], after: dict[str, tuple]) -> int:
    return sum(1 for ref in before if before[ref] != after[ref])


async def phase(desk: Desk, records: list[LinkRecord], send) -> tuple[Counter, int, Counter]:
    """Run ``send()`` (it returns the receiver's answers); then the inbox verdicts of the
    entries it added, once decided, and how many ledger records it changed."""
    before = await snapshot(desk, records)
    mark = await newest_id(desk)
    answers = await send()
    await settled(desk)
    verdicts = Counter(e.verdict for e in await entries_after(desk, mark))
    return verdicts, changed(before, await snapshot(desk, records)), answers


async def run(args: argparse.Namespace, folder: Path, base: str, test_keys: dict) -> None:
    secret, public = test_keys["secret"], test_keys["public"]
    bearer = {"Authorization": f"Bearer {secret}", "Accept": "application/json"}
    paths, _ = open_folders(folder / "desk", folder / "desk-sandbox")  # its log file too
    desk = build_desk(paths, await open_keys(use_keyring=False))  # its own SQLite ledger
    await desk.open()
    profile = Profile(
        id=Profile.new_id(), name="Bench", base_url=base, has_cards=False, currencies=["GBP"], txref_prefix="RCV"
    )
    await desk.session.save_profile(profile, {("test", "secret"): secret, ("test", "public"): public})
    # polling off: desk.start_background() is never called, so the scheduler never runs
    receiver = Receiver(desk, "127.0.0.1", 0)
    await receiver.start()
    http = httpx.AsyncClient(timeout=15)
    waiting: dict[str, asyncio.Future[float]] = {}
    by_notification: dict[str, float] = {}

    def heard(record: LinkRecord) -> None:
        if record.state == "success" and record.learned_by == "notification":
            at = time.perf_counter()
            by_notification.setdefault(record.tx_ref, at)
            future = waiting.get(record.tx_ref)
            if future is not None and not future.done():
                future.set_result(at)

    desk.hub.record_changed.connect(heard)
    try:
        answer = await http.put(f"{base}/_sandbox/webhook", json={"url": receiver.url}, headers=bearer)
        answer.raise_for_status()
        print(f"sandbox {base}; receiver {receiver.url} (the merchant's webhook URL)")

        async def make(n: int, title: str) -> tuple[LinkRecord, float]:
            tx_ref = await desk.links.next_reference(profile)
            t0 = time.perf_counter()
            record = await desk.links.create(
                PaymentRequest(
                    amount=Decimal(10 + n % 50),
                    currency="GBP",
                    email="kim@example.com",
                    first_name="Kim",
                    last_name="Lee",
                    tx_ref=tx_ref,
                    title=title,
                )
            )
            return record, (time.perf_counter() - t0) * 1000

        made = [await make(n, f"Sale {n}") for n in range(args.links)]
        records = [r for r, _ in made]
        creates = [ms for _, ms in made]
        targets = [(await make(n, f"Open {n}"))[0] for n in range(FORGED)]  # stay open
        everything = records + targets

        # 1. paid through the control API, one after another: PAID by notification
        pays, paid, missed = [], [], []
        for record in records:
            waiting[record.tx_ref] = asyncio.get_running_loop().create_future()
            t0 = time.perf_counter()
            answer = await http.post(
                f"{base}/_sandbox/pay/{record.reference}", json={"outcome": "success"}, headers=bearer
            )
            answer.raise_for_status()
            pays.append((time.perf_counter() - t0) * 1000)
            try:
                at = await asyncio.wait_for(waiting[record.tx_ref], PAID_WAIT)
            except TimeoutError:
                missed.append(record.tx_ref)
                continue
            paid.append((at - t0) * 1000)
        await settled(desk)
        pay_verdicts = Counter()
        for entry in await entries_after(desk, 0):
            pay_verdicts[entry.verdict] += 1
        applied = pay_verdicts[APPLIED]
        in_ledger = sum(
            1
            for state, learned, _, _ in (await snapshot(desk, records)).values()
            if state == "success" and learned == "notification"
        )

        # 2. forged: a still-open link said paid, signed with a wrong key
        async def forge() -> Counter:
            answers: Counter = Counter()
            for i, record in enumerate(targets):
                body = json.dumps(
                    {
                        "event": "payment.completed",
                        "data": {
                            "tx_ref": record.tx_ref,
                            "reference": record.reference,
                            "status": "success",
                            "amount": str(record.amount),
                            "currency": record.currency,
                            "paid_at": datetime.now(UTC).isoformat(),
                        },
                    },
                    separators=(",", ":"),
                ).encode()
                key = public if i % 2 else "sk_test_" + secrets.token_hex(20)
                reply = await http.post(
                    receiver.url,
                    content=body,
                    headers={"Content-Type": "application/json", "Signature": sign(body, key)},
                )
                answers[reply.status_code] += 1
            return answers

        forged_verdicts, forged_changed, forged_answers = await phase(desk, everything, forge)
        traced = await desk.inbox.refused_page(limit=1000)  # refused: traced, never kept

        # 3. replays: captured notifications (raw body and its Signature), sent again
        captured = await desk.inbox.page(InboxQuery(verdict=APPLIED), limit=REPLAYS)

        async def replay() -> Counter:
            answers: Counter = Counter()
            for entry in captured:
                reply = await http.post(
                    receiver.url,
                    content=entry.body,
                    headers={"Content-Type": "application/json", "Signature": entry.headers.get("signature", "")},
                )
                answers[reply.status_code] += 1
            return answers

        replay_verdicts, replay_changed, replay_answers = await phase(desk, everything, replay)
        lookups = await service_lookups(http, base, bearer)
    finally:
        await http.aclose()
        await receiver.close()
        await desk.close()

    forged_applied = forged_verdicts[APPLIED] + forged_changed
    replays_applied = replay_verdicts[APPLIED] + replay_changed
    print(line("create (the desk's create call, the baseline)", creates))
    print(line("pay call (control API, answered before it notifies)", pays))
    print(line("PAID by notification (payment call -> the ledger's record)", paid))
    print(
        f"payments {len(records)}: PAID by notification {len(paid)}, missed {len(missed)}; "
        f"inbox {dict(pay_verdicts)}; ledger records success learned by notification "
        f"{in_ledger}; service lookups {lookups} (the receiver's re-reads; scheduler checks "
        f"{desk.scheduler.stats['checks']})"
    )
    print(
        f"forged {FORGED}: answers {dict(forged_answers)}, inbox {dict(forged_verdicts)}, "
        f"verified {sum(forged_verdicts.values())}, refused {sum(t.count for t in traced)} "
        f"({len(traced)} rows, {sum(len(t.head) for t in traced):,} bytes kept), "
        f"ledger records changed {forged_changed}"
    )
    print(
        f"replays {len(captured)}: answers {dict(replay_answers)}, inbox {dict(replay_verdicts)}, "
        f"still pending {replay_verdicts[PENDING]}, ledger records changed {replay_changed}"
    )
    print(
        f"receiver: PAID p95 {pct(paid, 95):.0f} ms, max {max(paid, default=float('nan')):.0f} ms, "
        f"applied {applied}, forged applied {forged_applied}, replays applied {replays_applied}"
    )


async def service_lookups(http: httpx.AsyncClient, base: str, bearer: dict) -> int:
    """The lookups the service saw from this merchant's test key (its call log)."""
    answer = await http.get(f"{base}/_sandbox/requests", headers=bearer)
    answer.raise_for_status()
    return sum(
        1
        for call in answer.json()["data"]
        if "/api/transaction" in call["path"] or "/api/verify-payment" in call["path"]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--links", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("PAYDESK_LOG_LEVEL", "WARNING")
    with tempfile.TemporaryDirectory(prefix="paydesk-receiver-") as tmp:
        folder = Path(tmp)
        with sandbox_running(folder / "sandbox") as (base, test_keys):
            asyncio.run(run(args, folder, base.rstrip("/"), test_keys))


if __name__ == "__main__":
    main()
