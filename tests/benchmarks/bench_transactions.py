"""The Transactions tab over a ledger of 200,000 records: the first rows painted, a search
keystroke, a filter change, a sort change and a jump to the end, each to its rows painted
(p50/p95); the GUI thread's longest stall while the whole table is scrolled; resident memory
beside the same window over an empty ledger (both in fresh processes); and "Check all open"
on 500 records beside the same validates made one by one with raw httpx.

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_transactions.py [--records N])
Prints figures; asserts nothing about time. Offscreen platform, sandbox in its own process.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import httpx  # noqa: E402
from PySide6.QtCore import QEvent, QObject, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from sandbox_process import start_sandbox  # noqa: E402
from stall import Stall  # noqa: E402

from paydesk.config.paths import Paths  # noqa: E402
from paydesk.config.profiles import Profile  # noqa: E402
from paydesk.config.secrets import KeyStore  # noqa: E402
from paydesk.ui.loop import EventLoop  # noqa: E402

PROFILE = "p_bench01"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values, q):
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


class Painted(QObject):
    """Resolves when the table's viewport paints after ``armed``."""

    def __init__(self, widget):
        super().__init__()
        self.widget = widget
        self.future = None
        widget.installEventFilter(self)

    def arm(self):
        self.future = asyncio.get_event_loop().create_future()
        self.widget.update()
        return self.future

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and self.future is not None and not self.future.done():
            self.future.set_result(time.perf_counter())
        return False


async def open_window(data: Path, base_url: str, keys: dict):
    from paydesk.desk.build import build_desk
    from paydesk.ui.main_window import MainWindow

    desk = build_desk(Paths(data=data, sandbox=data / "unused").ensure(), KeyStore(None))

    session = desk.session
    await desk.open()
    profile = Profile(id=PROFILE, name="Bench", base_url=base_url)
    window = MainWindow(desk)
    window.resize(1300, 900)
    window.show()
    await session.save_profile(profile, {("test", "secret"): keys["secret"], ("test", "public"): keys["public"]})
    window.tabs.setCurrentWidget(window.transactions_tab)
    tab = window.transactions_tab
    while not (tab.loaded and tab.model.query and tab.model.query.profile_id == PROFILE):  # noqa: ASYNC110 (polls a state no event announces)
        await asyncio.sleep(0.01)
    return session, window, tab


async def until_rows(tab, rows):
    rows = [r for r in rows if 0 <= r < tab.model.rowCount()]
    while any(tab.model.record_at(r) is None for r in rows):  # noqa: ASYNC110 (polls a state no event announces)
        await asyncio.sleep(0.001)


async def child(data: Path, base_url: str, keys: dict, repeat: int) -> dict:
    """One process: the window over the ledger at ``data``; prints its figures as JSON."""
    session, window, tab = await open_window(data, base_url, keys)
    gc.collect()
    gc.freeze()  # as paydesk.app does once started: collections skip what start-up made
    view = tab.table
    painted = Painted(view.viewport())
    while not tab.model.counted:  # noqa: ASYNC110 (polls a state no event announces); the first page is shown before the whole is counted
        await asyncio.sleep(0.01)
    out: dict = {"rows": tab.model.rowCount()}

    async def timed(action, ready) -> float:
        loaded = asyncio.get_event_loop().create_future()

        def done(*_):
            if not loaded.done():
                loaded.set_result(None)

        tab.model.queryLoaded.connect(done)
        started = time.perf_counter()
        action()
        if ready == "query":
            await loaded
        else:
            await ready()
        at = await painted.arm()
        tab.model.queryLoaded.disconnect(done)
        return (at - started) * 1000

    figures = {
        "first rows painted": [],
        "search keystroke": [],
        "search, two characters": [],
        "filter change": [],
        "sort change": [],
        "jump to the end": [],
    }
    for i in range(repeat):
        figures["first rows painted"].append(await timed(tab.requery, "query"))
        tab.filters.search.setText("lovelac")
        await asyncio.sleep(0.05)
        figures["search keystroke"].append(
            await timed(lambda i=i: tab.filters.search.setText("lovelace" if i % 2 else "lovelac1"), "query")
        )
        tab.filters.search.setText("")
        await asyncio.sleep(0.05)
        # a short, broad term: two characters are below the trigram index and scan
        figures["search, two characters"].append(
            await timed(lambda i=i: tab.filters.search.setText("ad" if i % 2 else "ov"), "query")
        )
        tab.filters.search.setText("")
        await asyncio.sleep(0.05)
        state = tab.filters.state
        figures["filter change"].append(
            await timed(
                lambda i=i, state=state: state.setCurrentIndex(
                    state.findText("Payment failed" if i % 2 else "Waiting for payment")
                ),
                "query",
            )
        )
        state.setCurrentIndex(0)
        await asyncio.sleep(0.05)
        figures["sort change"].append(
            await timed(
                lambda i=i: view.sortByColumn(
                    3, Qt.SortOrder.AscendingOrder if i % 2 else Qt.SortOrder.DescendingOrder
                ),
                "query",
            )
        )
        view.sortByColumn(6, Qt.SortOrder.DescendingOrder)
        await asyncio.sleep(0.05)
        while not tab.model.counted:  # noqa: ASYNC110 (polls a state no event announces); the scroll bar's true size: the end is the real end
            await asyncio.sleep(0.005)
        last = tab.model.rowCount() - 1
        figures["jump to the end"].append(await timed(view.scrollToBottom, lambda last=last: until_rows(tab, [last])))
        view.scrollToTop()
        await asyncio.sleep(0.05)
    out["figures"] = figures

    # scroll the whole table, a screenful every frame, as a dragged scroll bar does
    stall = Stall()
    bar = view.verticalScrollBar()
    stall.start()
    started = time.perf_counter()
    value = 0
    while value < bar.maximum():
        value = min(bar.maximum(), value + bar.pageStep())
        bar.setValue(value)
        await asyncio.sleep(0.016)
    out["scroll seconds"] = time.perf_counter() - started
    out["scroll stall"] = stall.stop()
    await asyncio.sleep(0.5)
    out["rss"] = rss_mb()
    window.close()
    await session.close()
    return out


async def reconcile(base_url: str, keys: dict, data: Path, count: int) -> dict:
    from paydesk.service.models import PaymentRequest

    session, window, tab = await open_window(data, base_url, keys)
    refs = []
    for i in range(count):
        record = await window.links.create(
            PaymentRequest(
                amount=5, currency="GBP", email="r@example.com", first_name="R", last_name="S", tx_ref=f"RECON-{i:04d}"
            )
        )
        refs.append(record.tx_ref)
    headers = {"Authorization": f"Bearer {keys['secret']}", "Accept": "application/json"}
    async with httpx.AsyncClient(base_url=base_url + "/", headers=headers) as http:
        started = time.perf_counter()
        for ref in refs:
            (await http.get(f"api/transaction/{ref}")).raise_for_status()
        raw = time.perf_counter() - started
    stall = Stall()
    stall.start()
    started = time.perf_counter()
    progress = await window.desk.transactions.reconcile(lambda p: None)
    ours = time.perf_counter() - started
    worst = stall.stop()
    window.close()
    await session.close()
    return {"raw": raw, "ours": ours, "checked": progress.checked, "stall": worst}


def run_child(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def prepare(path: Path, count: int) -> None:
    from bench_ledger import records

    from paydesk.ledger import SqliteLedger

    async def fill():
        ledger = SqliteLedger(path)
        await ledger.import_records(records(count))
        await ledger.close()

    asyncio.run(fill())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--reconcile", type=int, default=500)
    parser.add_argument("--child", nargs=4, metavar=("KIND", "DATA", "BASE", "KEYS"))
    args = parser.parse_args()
    if args.child:
        kind, data, base, keys = args.child
        app = QApplication([sys.argv[0]])
        app.setQuitOnLastWindowClosed(False)
        with asyncio.Runner(loop_factory=EventLoop) as runner:
            if kind == "reconcile":
                result = runner.run(reconcile(base, json.loads(keys), Path(data), args.reconcile))
            else:
                result = runner.run(child(Path(data), base, json.loads(keys), args.repeat))
        del app
        print(json.dumps(result))
        return

    folder = Path(tempfile.mkdtemp(prefix="paydesk-bench-tx-"))
    proc, base, test_keys = start_sandbox(folder / "sandbox")
    keys = json.dumps(test_keys)
    try:
        (folder / "full").mkdir()
        started = time.perf_counter()
        prepare(folder / "full" / "ledger.sqlite3", args.records)
        print(f"(a ledger of {args.records:,} records made in {time.perf_counter() - started:.1f} s)")
        empty = run_child(["--repeat", "3", "--child", "view", str(folder / "empty"), base, keys])
        full = run_child(["--repeat", str(args.repeat), "--child", "view", str(folder / "full"), base, keys])
        recon = run_child(
            ["--reconcile", str(args.reconcile), "--child", "reconcile", str(folder / "recon"), base, keys]
        )
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"Transactions tab over {full['rows']:,} records (ms, to the rows painted):")
    worst = 0.0
    for name, values in full["figures"].items():
        p95 = pct(values, 95)
        worst = max(worst, p95)
        print(f"  {name:22s} p50 {pct(values, 50):7.2f}   p95 {p95:7.2f}")
    print(
        f"  GUI thread's longest stall while scrolling all {full['rows']:,} rows in "
        f"{full['scroll seconds']:.1f} s: {full['scroll stall']:.2f} ms"
    )
    print(
        f"  resident memory: {full['rss']:.0f} MB, beside {empty['rss']:.0f} MB over an empty "
        f"ledger: +{full['rss'] - empty['rss']:.0f} MB"
    )
    print(
        f"Check all open, {recon['checked']} records: {recon['ours']:.2f} s, beside "
        f"{recon['raw']:.2f} s of raw httpx validates one by one "
        f"(ratio {recon['raw'] / recon['ours']:.2f}x); longest GUI stall {recon['stall']:.2f} ms"
    )
    print(f"worst p95: {worst:.1f} ms")


if __name__ == "__main__":
    main()
