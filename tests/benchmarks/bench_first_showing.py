"""The first showing of each tab: the GUI thread's longest stall (a 1 ms timer's lateness)
from pressing the tab until it has painted and settled, for Transactions, Cards, Counter and then
Payment links again, in a window started by the real ``app.run()`` (a profile of a sandbox in
its own process, with links in the ledger and cards in the wallet's cache from an earlier
run), beside the same timer idle.

Run: .venv/bin/python tests/benchmarks/bench_first_showing.py [--cards 200] [--links 50]
Prints figures; asserts nothing about time. Offscreen platform.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_cards import make_cards  # noqa: E402
from PySide6.QtCore import QEvent, QObject  # noqa: E402
from qt_loop import qt_loop  # noqa: E402
from sandbox_process import sandbox_running  # noqa: E402
from stall import Stall  # noqa: E402

from paydesk.config.paths import Paths  # noqa: E402
from paydesk.config.profiles import Profile  # noqa: E402
from paydesk.config.secrets import KeyStore  # noqa: E402
from paydesk.service.models import PaymentRequest  # noqa: E402

SETTLE = 0.3  # s after the tab's paint (and, for Cards, its first refresh) still counted


class Painted(QObject):
    def __init__(self, widget):
        super().__init__()
        self.done = asyncio.get_event_loop().create_future()
        self.widget = widget
        widget.installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not self.done.done():
            self.done.set_result(time.perf_counter())
        return False


async def prepare(paths: Paths, store: KeyStore, base: str, keys: dict, cards: int, links: int) -> Profile:
    """An earlier day at the desk: the profile saved, links created, the wallet read once."""
    from paydesk.desk.build import build_desk

    await make_cards(base, keys["secret"], cards)
    profile = Profile(id="bench", name="Bench", base_url=base, has_cards=True)
    desk = build_desk(paths, store)
    await desk.open()
    await desk.session.save_profile(profile, {("test", "secret"): keys["secret"], ("test", "public"): keys["public"]})
    for i in range(links):
        await desk.links.create(
            PaymentRequest(
                amount=Decimal("25"),
                currency="GBP",
                email="b@example.com",
                first_name="B",
                last_name="C",
                tx_ref=f"BENCH-{i}",
                title=f"Bench {i}",
            )
        )
    await desk.cards.refresh(profile, "test")
    await desk.close()
    return profile


async def run(app, paths: Paths, store: KeyStore) -> None:
    from paydesk import app as paydesk_app

    shown: list = []
    args = argparse.Namespace(
        sandbox=False, profile="Bench", mode=None, data_dir=None, sandbox_dir=None, no_keyring=True
    )
    task = asyncio.ensure_future(paydesk_app.run(app, args, paths, store, window_ready=lambda w, s: shown.append(w)))
    while not shown or not shown[0].started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    window = shown[0]
    await asyncio.sleep(1.0)
    with Stall() as idle:
        await asyncio.sleep(1.0)
    print("GUI thread's longest stall (1 ms timer lateness), first showing of each tab:")
    print(f"  idle, window shown:      {idle.worst:6.2f} ms")
    for index in (1, 2, 3, 0):
        title = window.tabs.tabText(index)
        with Stall() as showing:
            t0 = time.perf_counter()
            window.tabs.setCurrentIndex(index)  # what Ctrl+1..4 and a click on the tab do
            tab = window.tabs.currentWidget()
            painted = Painted(tab)
            tab.update()
            at = await asyncio.wait_for(painted.done, 5)
            to_paint = showing.worst
            if tab is window.cards_tab:
                deadline = time.perf_counter() + 10
                while not tab.wallet.as_of.text().startswith("Up to date"):
                    if time.perf_counter() > deadline:
                        raise SystemExit(f"the wallet says {tab.wallet.as_of.text()!r}")
                    await asyncio.sleep(0.001)
            await asyncio.sleep(SETTLE)
        print(
            f"  {title + ':':24} {showing.worst:6.2f} ms   (painted after "
            f"{(at - t0) * 1000:.1f} ms; longest stall until then {to_paint:.2f} ms)"
        )
    window.close()
    await task


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, default=200)
    ap.add_argument("--links", type=int, default=50)
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="paydesk-bench-showing-"))
    paths = Paths(data=data / "paydesk", sandbox=data / "unused").ensure()
    with sandbox_running(data / "sandbox") as (base, keys), qt_loop() as (app, runner):
        store = KeyStore(None)  # memory: the keys of this run, as --no-keyring keeps them
        runner.run(prepare(paths, store, base, keys, args.cards, args.links))
        runner.run(run(app, paths, store))


if __name__ == "__main__":
    main()
