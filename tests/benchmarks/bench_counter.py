"""The counter: (1) Enter to the code painted on the customer display, p50/p95 over
``--sales`` sales, beside a raw httpx create measured in the same run (the aim: within 15 ms
of it); (2) the payment to PAID painted on the customer display, with the notification
receiver running and polling off (nothing but a notification tells the desk).

A sandbox in its own process; a desk from the composition root on its own SQLite ledger,
its window (``MainWindow``) on the Counter tab with the customer display open full screen
(on the second of two offscreen screens); the receiver (``Receiver(desk, "127.0.0.1", 0)``) in
the desk's loop, its address the merchant's webhook URL (``PUT _sandbox/webhook``).

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_counter.py [--sales 100])
Prints figures, last: ``counter: Enter->code p50 N p95 N ms (raw create p50 N p95 N ms),
payment->PAID p50 N p95 N ms``. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from PySide6.QtCore import QEvent, QObject
from qt_loop import qt_loop
from sandbox_process import sandbox_running

from paydesk.config.profiles import Profile
from paydesk.desk.build import build_desk, open_folders, open_keys

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


async def run(args: argparse.Namespace, folder: Path, base: str, keys: dict) -> None:
    from paydesk.receiver.serve import Receiver
    from paydesk.ui.main_window import MainWindow

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

    http = httpx.AsyncClient(base_url=base + "/", headers=bearer, timeout=15)
    raw, enter, paid, missed = [], [], [], 0
    try:
        answer = await http.put("_sandbox/webhook", json={"url": receiver.url})
        answer.raise_for_status()
        for n in range(args.sales):
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sales", type=int, default=100)
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
