"""The card wallet with 500 cards in the sandbox: (1) the wallet's first paint from the ledger's
cache, (2) Refresh (F5) to the list repainted, beside the raw list call (httpx, the same
request) measured in the same run, (3) the GUI thread's longest stall (a 5 ms timer's
lateness) while it loads and refreshes, beside the same timer idle.

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_cards.py [--cards 500])
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
from PySide6.QtCore import QEvent, QObject
from qt_loop import qt_loop
from sandbox_process import sandbox_running
from stall import Stall

from paydesk.config.paths import Paths
from paydesk.config.profiles import Profile
from paydesk.config.secrets import KeyStore


class PaintWatch(QObject):
    """The first paint of a widget after ``arm()``."""

    def __init__(self, widget):
        super().__init__()
        self.widget = widget
        self.painted: asyncio.Future | None = None
        widget.installEventFilter(self)

    def arm(self) -> asyncio.Future:
        self.painted = asyncio.get_event_loop().create_future()
        return self.painted

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and self.painted and not self.painted.done():
            self.painted.set_result(time.perf_counter())
        return False


def ms(values, q=50):
    if len(values) == 1:
        return values[0] * 1000
    return statistics.quantiles(values, n=100)[q - 1] * 1000


async def make_cards(base: str, secret: str, count: int) -> None:
    headers = {"Authorization": f"Bearer {secret}", "Accept": "application/json"}
    async with httpx.AsyncClient(base_url=base + "/", headers=headers, timeout=30) as http:
        sem = asyncio.Semaphore(8)

        async def one(n):
            async with sem:
                r = await http.post("api/virtual_card/create", json={"amount": str(10 + n % 50), "currency": "GBP"})
                assert r.status_code == 201, r.text

        await asyncio.gather(*(one(n) for n in range(count)))


async def run(base: str, keys: dict, data: Path, count: int, rounds: int) -> None:
    from paydesk.desk.build import build_desk
    from paydesk.ui.main_window import MainWindow

    await make_cards(base, keys["secret"], count)
    headers = {"Authorization": f"Bearer {keys['secret']}", "Accept": "application/json"}
    raw = []
    async with httpx.AsyncClient(base_url=base + "/", headers=headers) as http:
        for _ in range(rounds):
            t0 = time.perf_counter()
            r = await http.get("api/virtual_card/all")
            r.json()
            raw.append(time.perf_counter() - t0)
    assert len(r.json()["data"]) == count

    paths = Paths(data=data / "paydesk", sandbox=data / "unused").ensure()
    profile = Profile(id="bench", name="Bench", base_url=base, has_cards=True)

    # a first run fills the ledger's cache, as an earlier day at the desk would
    desk = build_desk(paths, KeyStore(None))
    session = desk.session
    await desk.open()
    await session.save_profile(profile, {("test", "secret"): keys["secret"]})
    window = MainWindow(desk)
    await window.desk.cards.refresh(profile, "test")
    window.close()
    await session.close()

    desk = build_desk(paths, KeyStore(None))

    session = desk.session
    await desk.open()
    await session.save_profile(profile, {("test", "secret"): keys["secret"]})
    with Stall(5) as idle:
        await asyncio.sleep(2.0)
    window = MainWindow(desk)
    window.resize(1300, 900)
    window.show()
    await window.build_tabs()  # as app.run() does after the first paint
    await asyncio.sleep(0.5)
    tab = window.cards_tab
    viewport = tab.wallet.table.viewport()
    watch = PaintWatch(viewport)
    refreshed: list[float] = []
    window.desk.hub.cards_refreshed.connect(lambda *_: refreshed.append(time.perf_counter()))

    with Stall(5) as loading:
        painted = watch.arm()
        t0 = time.perf_counter()
        window.tabs.setCurrentWidget(tab)  # shows the cache; reads the service behind it
        while tab.wallet.model.rowCount() == 0:  # noqa: ASYNC110 (polls a state no event announces)
            await asyncio.sleep(0)
        first_rows = time.perf_counter() - t0
        await asyncio.wait_for(painted, 5)
        first_paint = painted.result() - t0
        while not tab.wallet.as_of.text().startswith("Up to date"):  # noqa: ASYNC110 (polls a state no event announces)
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.2)
    with Stall(5) as refreshing:
        ui = []
        for _ in range(rounds):
            painted = watch.arm()
            loaded = asyncio.get_event_loop().create_future()

            def on_loaded(loaded=loaded):
                if not loaded.done():
                    loaded.set_result(time.perf_counter())

            tab.wallet.model.loaded.connect(on_loaded)
            t0 = time.perf_counter()
            tab.request_refresh()
            await asyncio.wait_for(loaded, 30)
            tab.wallet.model.loaded.disconnect(on_loaded)
            viewport.update()
            await asyncio.wait_for(painted, 5)
            ui.append(painted.result() - t0)
            await asyncio.sleep(0.05)
    assert tab.wallet.count.text() == f"{count} cards", tab.wallet.count.text()
    with Stall(5) as client_only:  # the service client's own share: the call, nothing stored
        for _ in range(rounds):
            async with session.lease(profile, "test") as client:
                await client.cards()
            await asyncio.sleep(0.05)

    print(f"Card wallet, {count} cards in the sandbox ({rounds} rounds):")
    print(
        f"  first paint from the ledger's cache: {first_paint * 1000:7.2f} ms"
        f"   (rows in the model after {first_rows * 1000:.2f} ms)"
    )
    print(f"  raw list call (httpx GET all):       p50 {ms(raw):7.2f} ms   p95 {ms(raw, 95):7.2f} ms")
    print(f"  Refresh to the list repainted:       p50 {ms(ui):7.2f} ms   p95 {ms(ui, 95):7.2f} ms")
    print(f"  Refresh beyond the raw call at p50:  {ms(ui) - ms(raw):7.2f} ms   (ratio {ms(ui) / ms(raw):4.2f}x)")
    print("GUI thread's longest stall (5 ms timer lateness):")
    print(f"  idle, before the window:             {idle.worst:7.2f} ms")
    print(f"  showing the tab (first paint, then its first refresh): {loading.worst:7.2f} ms")
    print(f"  {rounds} refreshes of {count} cards:      {refreshing.worst:7.2f} ms")
    print(
        f"  {rounds} bare client.cards() calls:       {client_only.worst:7.2f} ms"
        "   (reading and parsing the answer on the loop)"
    )
    window.close()
    await session.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="paydesk-bench-cards-"))
    with sandbox_running(data / "sandbox") as (base, keys), qt_loop() as (_, runner):
        runner.run(run(base, keys, data, args.cards, args.rounds))


if __name__ == "__main__":
    main()
