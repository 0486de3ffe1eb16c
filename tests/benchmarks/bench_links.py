"""Payment links: (1) pressing Create to the QR painted, p50/p99 over 200 links, beside a raw
httpx create in the same run; (2) the GUI thread's longest stall (a 5 ms timer's lateness)
while 50 links are watched at once, beside the same timer with nothing watched.

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_links.py [--links 200])
Prints figures; asserts nothing about time. Offscreen platform, sandbox in its own process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import httpx
from PySide6.QtCore import QEvent, QObject, QTimer
from qt_loop import qt_loop
from sandbox_process import sandbox_running

from paydesk.config.paths import Paths
from paydesk.config.profiles import Profile
from paydesk.config.secrets import KeyStore

PROFILE = None
if os.environ.get("BENCH_PROFILE"):
    import cProfile

    PROFILE = cProfile.Profile()


class PaintWatch(QObject):
    def __init__(self):
        super().__init__()
        self.painted = asyncio.get_event_loop().create_future()

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not self.painted.done():
            self.painted.set_result(time.perf_counter())
        return False


async def stall(seconds: float) -> float:
    """The longest lateness of a 5 ms repeating timer over ``seconds``, in ms."""
    worst = 0.0
    last = time.perf_counter()
    timer = QTimer()
    timer.setInterval(5)

    def tick():
        nonlocal worst, last
        now = time.perf_counter()
        worst = max(worst, (now - last) * 1000 - 5)
        last = now

    timer.timeout.connect(tick)
    timer.start()
    await asyncio.sleep(seconds)
    timer.stop()
    return worst


async def run(base: str, keys: dict, data: Path, links: int) -> None:
    from paydesk.desk.build import build_desk
    from paydesk.desk.pacing import Pacing
    from paydesk.desk.scheduler import Scheduler
    from paydesk.ui.main_window import MainWindow

    store = KeyStore(None)
    desk = build_desk(Paths(data=data / "paydesk", sandbox=data / "unused").ensure(), store)
    session = desk.session
    await desk.open()
    profile = Profile(id="bench", name="Bench", base_url=base)
    await session.save_profile(profile, {("test", "secret"): keys["secret"], ("test", "public"): keys["public"]})
    window = MainWindow(desk)
    window.resize(1200, 900)
    window.show()
    tab = window.links_tab
    form = tab.form
    for name, text in dict(amount="25", email="b@example.com", first_name="B", last_name="C", title="Bench").items():
        getattr(form, name).setText(text)
    await asyncio.sleep(0.3)

    headers = {"Authorization": f"Bearer {keys['secret']}", "Accept": "application/json"}
    raw_times, ui_times = [], []
    async with httpx.AsyncClient(base_url=base + "/", headers=headers) as http:
        for i in range(links):
            body = {
                "amount": "25",
                "currency": "GBP",
                "email": "b@example.com",
                "first_name": "B",
                "last_name": "C",
                "tx_ref": f"RAW-{i}",
                "customization": {"title": "Bench"},
            }
            t0 = time.perf_counter()
            r = await http.post("api/payment", json=body)
            raw_times.append(time.perf_counter() - t0)
            assert r.status_code == 201

            watch = PaintWatch()
            tab.panel.qr.installEventFilter(watch)
            t0 = time.perf_counter()
            if PROFILE is not None:
                PROFILE.enable()
            record = await tab.create_from_form()
            if PROFILE is not None:
                PROFILE.disable()
            painted = await asyncio.wait_for(watch.painted, 5)
            tab.panel.qr.removeEventFilter(watch)
            assert record is not None and tab.panel.qr.code.text == record.checkout_url
            ui_times.append(painted - t0)

    def pct(values, q):
        return statistics.quantiles(values, n=100)[q - 1] * 1000

    print(f"Create pressed -> QR painted, {links} links (ms):")
    print(f"  raw httpx create:   p50 {pct(raw_times, 50):6.2f}   p99 {pct(raw_times, 99):6.2f}")
    print(f"  PayDesk to QR:      p50 {pct(ui_times, 50):6.2f}   p99 {pct(ui_times, 99):6.2f}")
    print(f"  difference at p50:  {pct(ui_times, 50) - pct(raw_times, 50):6.2f} ms")

    # the scheduler: 50 links watched at once, checked as often as it allows
    idle = await stall(4.0)  # the scheduler is not running yet: nothing is checked
    scheduler = Scheduler(window.links.check, window.links.settle, pacing=Pacing(first_every=0.2, focused_every=0.2))
    open_links = await session.ledger.open_records("bench", "test", limit=50)
    for record in open_links:
        scheduler.watch(record)
    for record in open_links[:2]:
        scheduler.focus(f"view-{record.tx_ref}", record)
    running = asyncio.ensure_future(scheduler.run())
    busy = await stall(8.0)
    checks = scheduler.stats["checks"]
    running.cancel()
    print("GUI thread's longest stall (5 ms timer lateness), over 4 s idle and 8 s watching:")
    print(f"  nothing watched:    {idle:6.2f} ms")
    print(f"  {len(open_links)} watched:         {busy:6.2f} ms   ({checks} validate calls in 8 s)")
    window.close()
    await session.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--links", type=int, default=200)
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="paydesk-bench-"))
    with sandbox_running(data / "sandbox") as (base, keys), qt_loop() as (_, runner):
        runner.run(run(base, keys, data, args.links))
    if PROFILE is not None:
        import pstats

        pstats.Stats(PROFILE).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
