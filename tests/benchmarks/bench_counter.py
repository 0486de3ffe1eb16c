"""The counter: (1) Enter to the code painted on the customer display, p50/p95 over
``--sales`` sales, beside a raw httpx create measured in the same run (the aim: within 15 ms
of it); (2) the payment to PAID painted on the customer display, with the notification
receiver running and polling off (nothing but a notification tells the desk).

A sandbox in its own process; a desk from the composition root on its own SQLite ledger,
its window (``MainWindow``) on the Counter tab with the customer display open full screen
(on the second of two offscreen screens); the receiver (``Receiver(desk, "127.0.0.1", 0)``) in
the desk's loop, its address the merchant's webhook URL (``PUT _sandbox/webhook``).

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_counter.py [--sales 100])
Then (3) on a shared PostgreSQL ledger (tests/postgres.py), a counter with keys (the direct
path) and a key-less counter through the real ``paydesk-receiver`` as the shop's key holder
(``--no-keyless`` skips it). Prints figures: ``counter: Enter->code p50 N p95 N ms (raw
create p50 N p95 N ms), payment->PAID p50 N p95 N ms``, then, last: ``counter-keyless:
Enter->code p95 N ms (direct p95 N ms), PAID p95 N ms, lost 0, doubled 0``. Asserts nothing
about time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # tests.postgres
from PySide6.QtCore import QEvent, QObject
from qt_loop import qt_loop
from sandbox_process import sandbox_running

from paydesk.config.profiles import Profile
from paydesk.desk.build import build_desk
from paydesk.desk.start import open_folders, open_keys

SCREENS = {
    "screens": [  # offscreen: the staff's screen, and the customer's monitor
        {"name": name, "x": x, "y": 0, "width": 1280, "height": 800, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}
        for name, x in (("Staff", 0), ("Customer", 1280))
    ]
}
PAID_WAIT = 10.0  # s: a PAID not painted by then is counted as missed


class PaintWatch(QObject):
    """The time of the first paint of the watched widget once ``ready()`` holds."""

    def __init__(self, ready=lambda: True):
        super().__init__()
        self.ready = ready
        self.painted = asyncio.get_event_loop().create_future()

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not self.painted.done() and self.ready():
            self.painted.set_result(time.perf_counter())
        return False


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


async def counter_window(desk):
    """The desk's window on the Counter tab, the customer display full screen on the
    customer's (offscreen) monitor: (window, tab, the display's view)."""
    from paydesk.ui.main_window import MainWindow

    window = MainWindow(desk)
    window.resize(1200, 900)
    window.show()
    tab = window.counter_tab
    window.tabs.setCurrentWidget(tab)
    while not tab.loaded:  # noqa: ASYNC110 (polls a state no event announces)
        await asyncio.sleep(0.05)
    place = tab.place
    place.screens.setCurrentIndex(0)  # the customer's (offscreen) monitor: full screen
    place.open_display()
    view = place.display.view
    assert place.display.screen().name() == "Customer" and place.display.isFullScreen()
    await asyncio.sleep(0.3)
    return window, tab, view


async def sell_and_pay(desk, tab, view, http, sales: int, *, raw_first: bool = False):
    """``sales`` sales at the tab, each: (a raw httpx create first, with ``raw_first``) Enter
    to the code painted on the customer display, then the payment to PAID painted there.
    Returns the times (ms) of the raw creates, Enter->code and payment->PAID, the PAIDs
    missed, and the sales' tx_refs."""
    raw, enter, paid, missed, made = [], [], [], 0, []
    for n in range(sales):
        if raw_first:
            body = {
                "amount": "7",
                "currency": "GBP",
                "email": "till@example.com",
                "first_name": "Walk-in",
                "last_name": "customer",
                "tx_ref": f"RAW-{n}",
                "customization": {"title": "Bench"},
            }
            t0 = time.perf_counter()
            answer = await http.post("api/payment", json=body)
            raw.append((time.perf_counter() - t0) * 1000)
            assert answer.status_code == 201, answer.text

        tab.amount.setText(str(5 + n % 40))
        watch = PaintWatch()
        view.qr.installEventFilter(watch)
        t0 = time.perf_counter()
        tab.enter()
        sale = await tab.selling
        at = await asyncio.wait_for(watch.painted, 5)
        view.qr.removeEventFilter(watch)
        assert sale is not None and view.qr.code.text == sale.record.checkout_url
        enter.append((at - t0) * 1000)
        made.append(sale.tx_ref)

        watch = PaintWatch(lambda: view.phase == "paid")
        view.words.installEventFilter(watch)
        t0 = time.perf_counter()
        answer = await http.post(f"_sandbox/pay/{sale.record.reference}", json={"outcome": "success"})
        answer.raise_for_status()
        try:
            at = await asyncio.wait_for(watch.painted, PAID_WAIT)
            paid.append((at - t0) * 1000)
        except TimeoutError:
            missed += 1
        view.words.removeEventFilter(watch)
        while desk.counter.payable():  # noqa: ASYNC110 (polls a state no event announces); the book's word on the payment, a moment later
            await asyncio.sleep(0.005)
    return raw, enter, paid, missed, made


async def run(args: argparse.Namespace, folder: Path, base: str, keys: dict) -> None:
    from paydesk.receiver.serve import Receiver

    secret, public = keys["secret"], keys["public"]
    bearer = {"Authorization": f"Bearer {secret}", "Accept": "application/json"}
    paths, _ = open_folders(folder / "desk", folder / "desk-sandbox")
    desk = build_desk(paths, await open_keys(use_keyring=False))
    await desk.open()
    profile = Profile(
        id=Profile.new_id(),
        name="Bench",
        base_url=base,
        has_cards=False,
        currencies=["GBP"],
        txref_prefix="CTR",
        shop_email="till@example.com",
    )
    await desk.session.save_profile(profile, {("test", "secret"): secret, ("test", "public"): public})
    receiver = Receiver(desk, "127.0.0.1", 0)  # polling off: start_background() not called
    await receiver.start()
    window, tab, view = await counter_window(desk)
    http = httpx.AsyncClient(base_url=base + "/", headers=bearer, timeout=15)
    try:
        answer = await http.put("_sandbox/webhook", json={"url": receiver.url})
        answer.raise_for_status()
        raw, enter, paid, missed, _ = await sell_and_pay(desk, tab, view, http, args.sales, raw_first=True)
    finally:
        await http.aclose()
        window.close()
        await receiver.close()
        await desk.close()

    print(f"{args.sales} sales at the counter (ms):")
    print(f"  raw httpx create:          p50 {pct(raw, 50):7.2f}   p95 {pct(raw, 95):7.2f}")
    print(f"  Enter -> code painted:     p50 {pct(enter, 50):7.2f}   p95 {pct(enter, 95):7.2f}")
    print(f"  difference at p50:         {pct(enter, 50) - pct(raw, 50):7.2f}")
    if paid:
        print(f"  payment -> PAID painted:   p50 {pct(paid, 50):7.2f}   p95 {pct(paid, 95):7.2f}   (missed {missed})")
    print(
        f"counter: Enter->code p50 {pct(enter, 50):.1f} p95 {pct(enter, 95):.1f} ms "
        f"(raw create p50 {pct(raw, 50):.1f} p95 {pct(raw, 95):.1f} ms), payment->PAID "
        + (f"p50 {pct(paid, 50):.1f} p95 {pct(paid, 95):.1f} ms" if paid else "none")
        + f", missed {missed}"
    )
    if args.keyless:
        await keyless_run(args, folder, base, keys)


async def keyless_run(args: argparse.Namespace, folder: Path, base: str, keys: dict) -> None:
    """On a shared PostgreSQL ledger (tests/postgres.py's cluster): a counter with keys sells
    (the direct path), then a key-less counter (counter.json ``"keyless": true``, no keys)
    through the real ``paydesk-receiver`` as the shop's key holder, which the sandbox also
    notifies (its webhook URL). Prints, last, the key-less line; lost and doubled: every
    sale's tx_ref is in the ledger once, with exactly one payment at the service, and every
    request was answered once, taken."""
    import psycopg
    from bench_shop import ReceiverProcess

    from tests.postgres import Cluster

    secret, public = keys["secret"], keys["public"]
    bearer = {"Authorization": f"Bearer {secret}", "Accept": "application/json"}
    with Cluster.started() as cluster:
        url = cluster.url(cluster.create_database("counter_keyless"))
        paths, _ = open_folders(folder / "direct", folder / "direct-sandbox")
        desk = build_desk(paths, await open_keys(use_keyring=False), ledger_url=url)
        await desk.open()
        profile = Profile(
            id=Profile.new_id(),
            name="Bench",
            base_url=base,
            has_cards=False,
            currencies=["GBP"],
            txref_prefix="CTR",
            shop_email="till@example.com",
        )
        await desk.session.save_profile(profile, {("test", "secret"): secret, ("test", "public"): public})
        holder = await asyncio.to_thread(ReceiverProcess, folder / "keyholder", url, base, keys)
        http = httpx.AsyncClient(base_url=base + "/", headers=bearer, timeout=15)
        try:
            desk.start_background()
            window, tab, view = await counter_window(desk)
            try:
                _, direct, direct_paid, _, _ = await sell_and_pay(desk, tab, view, http, args.sales)
            finally:
                window.close()
                await desk.close()
            paths, _ = open_folders(folder / "keyless", folder / "keyless-sandbox")
            (paths.data / "counter.json").write_text(json.dumps({"name": "Till K", "keyless": True}))
            desk = build_desk(paths, await open_keys(use_keyring=False), ledger_url=url)
            await desk.open()
            assert desk.counter.keyless is not None and not await desk.keys.get(
                desk.session.profile.id, "test", "secret"
            )
            desk.start_background()
            window, tab, view = await counter_window(desk)
            try:
                _, enter, paid, missed, made = await sell_and_pay(desk, tab, view, http, args.sales)
            finally:
                window.close()
                await desk.close()
        finally:
            await http.aclose()
            await asyncio.to_thread(holder.stop)
        with psycopg.connect(url, autocommit=True) as conn:
            links = dict(conn.execute("SELECT tx_ref, count(*) FROM links GROUP BY tx_ref").fetchall())
            answers = dict(
                conn.execute(
                    "SELECT a.outcome, count(*) FROM sale_requests r JOIN sale_request_answers a ON a.request_id = r.id"
                    " WHERE r.counter = 'Till K' GROUP BY a.outcome"
                ).fetchall()
            )
            (asked,) = conn.execute("SELECT count(*) FROM sale_requests WHERE counter = 'Till K'").fetchone()
    with sqlite3.connect(folder / "sandbox" / "sandbox.sqlite3") as db:
        payments = dict(db.execute("SELECT tx_ref, COUNT(*) FROM transactions GROUP BY tx_ref"))
    lost = sum(1 for t in made if links.get(t, 0) == 0 or payments.get(t, 0) == 0) + (asked - answers.get("taken", 0))
    doubled = sum(1 for t in made if links.get(t, 0) > 1 or payments.get(t, 0) > 1) + (len(made) - len(set(made)))
    print(f"{args.sales} sales at a counter on the shared ledger (ms):")
    print(f"  with keys, Enter -> code:  p50 {pct(direct, 50):7.2f}   p95 {pct(direct, 95):7.2f}")
    print(f"  key-less, Enter -> code:   p50 {pct(enter, 50):7.2f}   p95 {pct(enter, 95):7.2f}")
    print(f"  with keys, payment -> PAID p50 {pct(direct_paid, 50):7.2f}   p95 {pct(direct_paid, 95):7.2f}")
    print(f"  key-less, payment -> PAID  p50 {pct(paid, 50):7.2f}   p95 {pct(paid, 95):7.2f}   (missed {missed})")
    print(f"  requests {asked}, answers {answers}")
    print(
        f"counter-keyless: Enter->code p95 {pct(enter, 95):.0f} ms (direct p95 {pct(direct, 95):.0f} ms), "
        f"PAID p95 {pct(paid, 95):.0f} ms, lost {lost}, doubled {doubled}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sales", type=int, default=100)
    parser.add_argument(
        "--no-keyless", dest="keyless", action="store_false", help="skip the key-less counter (PostgreSQL)"
    )
    args = parser.parse_args()
    os.environ.setdefault("PAYDESK_LOG_LEVEL", "WARNING")
    with tempfile.TemporaryDirectory(prefix="paydesk-counter-") as tmp:
        folder = Path(tmp)
        (folder / "screens.json").write_text(json.dumps(SCREENS))
        os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={folder / 'screens.json'}"
        with sandbox_running(folder / "sandbox") as (base, keys), qt_loop() as (_, runner):
            runner.run(run(args, folder, base.rstrip("/"), keys))


if __name__ == "__main__":
    main()
