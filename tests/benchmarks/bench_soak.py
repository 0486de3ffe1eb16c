"""The soak: a counter's and a finance desk's work for an hour, through the real window, and
whether memory levels off.

PayDesk runs as ``paydesk`` runs it (``app.run``: the scheduler, the background checks,
``gc.freeze`` after start-up, the log file) against a sandbox in its own process. In turns:
- the counter: on the Counter tab (the customer's view open beside the amount box), a
  sale's amount typed and Enter, the customer pays it (the sandbox's control API,
  ``POST _sandbox/pay/{reference}``), both screens turn PAID, Enter sells to the next;
- the finance desk: a link from the form (Create link), a lookup in the Transactions tab
  (a form link paid meanwhile, or a counter sale), an export to CSV and a receipt as PDF
  (through the save dialog, into a temporary folder), Check all open, and the card wallet:
  create a card, fund it, withdraw from it, refresh the list.
Widgets are pressed as a person would (tests/ui/press.py). Every ``--every`` minutes it
prints resident memory (VmRSS), Python's heap, and counts of objects: gc's, Qt's widgets,
the window's QObjects, asyncio's tasks. The last line: growth after the first ten minutes
(the first two intervals in a run shorter than 20 minutes), and whether it is within 20 MB.

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_soak.py --minutes 20 --every 2)
``--trace`` adds tracemalloc (the allocation sites that grew, interval to interval and since
the warm-up) and the types of objects that grew; it slows the run and adds to RSS.
Prints figures; asserts nothing. Offscreen platform. Stops by itself (a watchdog too).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import signal
import sys
import tempfile
import time
import tracemalloc
import weakref
from collections import Counter
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import httpx  # noqa: E402
from PySide6.QtCore import QObject, qInstallMessageHandler  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit, QWidget  # noqa: E402
from qt_loop import qt_loop  # noqa: E402
from sandbox_process import sandbox_running  # noqa: E402

from paydesk import logs  # noqa: E402
from paydesk.config.paths import Paths  # noqa: E402
from paydesk.config.profiles import Profile  # noqa: E402
from paydesk.config.secrets import KeyStore  # noqa: E402
from tests.ui import press  # noqa: E402
from tests.waiting import TimedOut, until_async  # noqa: E402

PROFILE = "p_soak01"
LIMIT_MB = 20.0
WARM_MINUTES = 10.0


def quiet_platform(mode, context, message) -> None:
    """Qt's messages, but the offscreen platform's "does not support" lines (one per dialog)."""
    if not message.startswith("This plugin does not support"):
        print(message, file=sys.stderr)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def until(predicate, what: str, timeout: float = 30.0):  # noqa: ASYNC109 (a poll's deadline: fails saying what)
    """tests/waiting.py's ``until_async`` at the soak's pace (every 50 ms, 30 s unless said);
    a step whose wait times out is counted as stuck (``Desk.step``)."""
    return await until_async(predicate, timeout, what, every=0.05)


def shown_dialog(name: str) -> QWidget | None:
    return next((w for w in QApplication.topLevelWidgets()
                 if w.objectName() == name and w.isVisible()), None)


# -- what is measured -------------------------------------------------------------------


class Meter:
    """One line of figures per interval; with ``trace``, what grew since the last."""

    def __init__(self, window, trace: bool, top: int):
        self.window, self.trace, self.top = window, trace, top
        self.rows: list[tuple[float, float]] = []  # (minutes, RSS MB)
        self._snapshot = self._warm_snapshot = None
        self._types: Counter | None = None
        self._weak: Counter | None = None
        self._widgets: Counter | None = None

    def header(self) -> None:
        print(f"  {'when':>9} {'RSS MB':>7} {'heap MB':>8} {'py blocks':>10} {'gc objects':>11} "
              f"{'widgets':>8} {'QObjects':>9} {'tasks':>6}  work done", flush=True)

    def sample(self, label: str, minutes: float | None, work: str = "") -> float:
        gc.collect()  # garbage waiting for a collection is not growth
        rss = rss_mb()
        heap = tracemalloc.get_traced_memory()[0] / 2**20 if self.trace else float("nan")
        objects = len(gc.get_objects()) + gc.get_freeze_count()
        widgets = QApplication.allWidgets()
        qobjects = len(self.window.findChildren(QObject))
        tasks = len(asyncio.all_tasks())
        heap_text = f"{heap:8.1f}" if self.trace else f"{'-':>8}"
        print(f"  {label:>9} {rss:7.1f} {heap_text} {sys.getallocatedblocks():10,d} "
              f"{objects:11,d} {len(widgets):8,d} {qobjects:9,d} {tasks:6d}  {work}", flush=True)
        if minutes is not None:
            self.rows.append((minutes, rss))
        if self.trace:
            self._grown(widgets)
        return rss

    def _grown(self, widgets) -> None:
        snapshot = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)])
        objects = gc.get_objects()
        types = Counter(type(o).__name__ for o in objects)
        weak = Counter(type(o()).__name__ for o in objects if isinstance(o, weakref.ref))
        kinds = Counter(type(w).__name__ for w in widgets)
        if self._snapshot is not None:
            self._print_sites(snapshot.compare_to(self._snapshot, "lineno"), "since the last line")
            self._print_counts(types - self._types, "gc objects")
            self._print_counts(weak - self._weak, "weak references (by what they refer to)")
            self._print_counts(kinds - self._widgets, "widgets")
            self._dead_holders(objects, weak["NoneType"] - self._weak["NoneType"])
        self._snapshot, self._types, self._weak, self._widgets = snapshot, types, weak, kinds

    def warm(self) -> None:
        if self.trace:
            self._warm_snapshot = self._snapshot

    def since_warm(self) -> None:
        if self.trace and self._warm_snapshot is not None and self._snapshot is not None:
            self._print_sites(self._snapshot.compare_to(self._warm_snapshot, "traceback"),
                              "since the warm-up", frames=4)

    def _dead_holders(self, objects, grown: int) -> None:
        """Who keeps weak references whose object is gone (when more are kept than before)."""
        if grown <= 0:
            return
        dead = [o for o in objects if isinstance(o, weakref.ref) and o() is None]
        skip = {id(objects), id(dead)}
        holders = [h for h in gc.get_referrers(*dead) if id(h) not in skip]
        kinds = Counter(f"{type(h).__name__}" + (f" of {len(h)}" if hasattr(h, "__len__") else "")
                        for h in holders)
        self._print_counts(kinds, f"holders of {len(dead)} dead weak references")
        skip.add(id(holders))
        for holder in sorted(holders, key=lambda h: -len(h) if hasattr(h, "__len__") else 0)[:3]:
            up = [type(u).__name__ + (f" {getattr(u, '__qualname__', '')}" if callable(u) else "")
                  for u in gc.get_referrers(holder) if id(u) not in skip][:4]
            print(f"        {type(holder).__name__} held by: {', '.join(up)}")
        del dead, holders

    def _print_sites(self, stats, when: str, frames: int = 1) -> None:
        grown = [s for s in stats if s.size_diff > 0][:self.top]
        if not grown:
            return
        print(f"      allocation sites that grew {when}:")
        for stat in grown:  # file and line only: reading the source would fill linecache
            where = [f"{Path(f.filename).name}:{f.lineno}"
                     for f in reversed(stat.traceback)][:frames] or ["?"]
            print(f"        {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  "
                  + " < ".join(where))

    def _print_counts(self, grown: Counter, what: str) -> None:
        if grown:
            shown = ", ".join(f"{name} +{n}" for name, n in grown.most_common(self.top))
            print(f"      {what} that grew: {shown}")


# -- the work ---------------------------------------------------------------------------


class Desk:
    """A counter's and a finance desk's work, through the window's widgets."""

    def __init__(self, window, session, base: str, secret: str, folder: Path):
        self.window, self.session, self.base = window, session, base
        self.http = httpx.AsyncClient(base_url=base + "/", timeout=30,
                                      headers={"Authorization": f"Bearer {secret}",
                                               "Accept": "application/json"})
        self.folder = folder
        self.done: Counter[str] = Counter()
        self.stuck: Counter[str] = Counter()
        self.unpaid: list[str] = []  # form links the customer has not paid yet (tx_ref)
        self.paid: list[str] = []  # paid tx_refs, for lookups and receipts
        self.refreshed = 0
        window.desk.hub.cards_refreshed.connect(self._cards_refreshed)
        self.rng = random.Random(15)

    def _cards_refreshed(self, *_):
        self.refreshed += 1

    def summary(self) -> str:
        names = (("sale", "sales"), ("form link", "form links"), ("lookup", "lookups"),
                 ("csv", "CSV"), ("pdf", "PDF"), ("check all", "checks of all open"),
                 ("card create", "cards"), ("fund", "funds"), ("withdraw", "withdrawals"),
                 ("refresh", "refreshes"))
        return ", ".join(f"{self.done[key]} {words}" for key, words in names)

    def show_tab(self, tab: QWidget) -> None:
        tabs = self.window.tabs
        index = tabs.indexOf(tab)
        if tabs.currentIndex() != index:
            bar = tabs.tabBar()
            press.click(bar, pos=bar.tabRect(index).center())

    async def pay(self, reference: str) -> None:
        answer = await self.http.post(f"_sandbox/pay/{reference}", json={"outcome": "success"})
        answer.raise_for_status()

    async def setup(self) -> None:
        """The merchant's card balance, and the customer details of the form's links."""
        for currency in ("GBP", "USD"):
            (await self.http.post("_sandbox/balance", json={"amount": "10000000",
                                                            "currency": currency})).raise_for_status()
        self.show_tab(self.window.links_tab)
        form = self.window.links_tab.form
        await until(lambda: self.window.links_tab.loaded and form.tx_ref.text(), "the form")
        for field, text in ((form.email, "counter@example.com"), (form.first_name, "Walk"),
                            (form.last_name, "In"), (form.title, "Soak Coffee")):
            press.type_into(field, text)

    def put_straight(self) -> None:
        """After a step that got stuck: close whatever dialog is left open."""
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QDialog) and widget.isVisible():
                widget.reject()

    async def step(self, name: str, coro) -> None:
        try:
            await coro
        except TimedOut as why:  # the step did not happen in time: counted, the screen put
            self.stuck[name] += 1  # straight, the work goes on
            if self.stuck[name] <= 3:
                print(f"    ({name}: stuck, {why})", flush=True)
            self.put_straight()
            await asyncio.sleep(1)

    # the counter ------------------------------------------------------------------------

    async def sale(self) -> None:
        tab = self.window.counter_tab
        self.show_tab(tab)
        await until(lambda: tab.loaded, "the Counter tab")
        if not tab.place.is_open:  # the customer's view, beside the amount box
            press.click(tab.place.toggle)
        press.type_into(tab.amount, str(self.rng.randint(2, 60)))
        press.enter(tab.amount)

        def made():
            sale = tab.mirror.sale
            return sale if (sale is not None and sale.record is not None
                            and sale.record.checkout_url and sale.tx_ref not in self.paid
                            and tab.place.beside.qr.code is not None) else None

        sale = await until(made, "the sale's code on both screens")
        await asyncio.sleep(self.rng.uniform(1.0, 3.0))  # the customer scans and pays
        await self.pay(sale.record.reference)
        await until(lambda: tab.mirror.state.text() == "PAID"
                    and tab.place.beside.phase in ("paid", "thanks", "blank"), "PAID on screen",
                    20)
        self.paid.append(sale.tx_ref)
        await asyncio.sleep(1.0)
        self.done["sale"] += 1

    # the finance desk -------------------------------------------------------------------

    async def form_link(self) -> None:
        tab = self.window.links_tab
        self.show_tab(tab)
        form = tab.form
        press.type_into(form.amount, str(self.rng.randint(10, 900)))
        press.type_into(form.description, f"invoice {self.done['form link'] + 1}")
        before = tab.panel.record.key if tab.panel.record is not None else None
        await until(form.create_button.isEnabled, "Create link enabled")
        press.click(form.create_button)
        # the reference proposed, or the next free one when a counter sale took that number
        await until(lambda: tab.panel.record is not None and tab.panel.record.key != before
                    and tab.panel.record.checkout_url, "the new link on the panel")
        tx_ref = tab.panel.record.tx_ref
        self.unpaid.append(tx_ref)
        self.done["form link"] += 1

    async def _look_up(self, tx_ref: str, state: str | None = None):
        tab = self.window.transactions_tab
        self.show_tab(tab)
        press.type_into(tab.lookup_box, tx_ref)
        press.enter(tab.lookup_box)
        await until(lambda: tab.details.record is not None and tab.details.record.tx_ref == tx_ref
                    and (state is None or tab.details.record.state == state)
                    and tab.lookup_button.isEnabled(), f"the lookup of {tx_ref}")
        self.done["lookup"] += 1
        return tab.details.record

    async def lookup(self) -> None:
        """A customer says they paid a link sent earlier: the finance desk looks it up."""
        if len(self.unpaid) > 2:  # the oldest is paid; a few stay unpaid a while
            tx_ref = self.unpaid.pop(0)
            record = await self.window.session.ledger.get(PROFILE, tx_ref)
            await self.pay(record.reference)
            await self._look_up(tx_ref, "success")
            self.paid.append(tx_ref)
        elif self.paid:
            await self._look_up(self.rng.choice(self.paid[-50:]), "success")

    async def _save_as(self, path: Path) -> None:
        box = await until(lambda: shown_dialog("save-dialog"), "the save dialog")
        name = box.findChild(QLineEdit, "fileNameEdit")
        press.type_into(name, str(path))
        press.enter(name)

    async def export_csv(self) -> None:
        tab = self.window.transactions_tab
        self.show_tab(tab)
        path = self.folder / f"export-{self.done['csv'] + 1}.csv"
        press.click(tab.export_button)
        await self._save_as(path)
        await until(lambda: path.exists() and not tab.exporting, "the CSV export", 60)
        path.unlink()
        self.done["csv"] += 1

    async def receipt_pdf(self) -> None:
        if not self.paid:
            return
        await self._look_up(self.rng.choice(self.paid[-50:]), "success")
        details = self.window.transactions_tab.details
        path = self.folder / f"receipt-{self.done['pdf'] + 1}.pdf"
        press.click(details.buttons["receipt-pdf"])
        await self._save_as(path)
        await until(lambda: path.exists() and path.stat().st_size > 0, "the PDF receipt")
        await asyncio.sleep(0.2)  # written off the GUI thread: let it finish
        path.unlink()
        self.done["pdf"] += 1

    async def check_all(self) -> None:
        tab = self.window.transactions_tab
        self.show_tab(tab)
        press.click(tab.check_all)
        await until(lambda: tab.work.busy, "Check all open to start", 5)
        await until(lambda: not tab.work.busy, "Check all open", 120)
        self.done["check all"] += 1

    def _cards(self):
        tab = self.window.cards_tab
        self.show_tab(tab)
        if tab.sections.currentIndex() != 0:
            bar = tab.sections.tabBar()
            press.click(bar, pos=bar.tabRect(0).center())
        return tab

    async def _operate(self, dialog, amount: str) -> None:
        for field in dialog.findChildren(QLineEdit):
            if not (field.isVisible() and field.isEnabled()):
                continue
            name = (field.objectName() + field.accessibleName()).lower()
            if "amount" in name:
                press.type_into(field, amount)
            elif "name" in name and not field.text():  # the name on the card, where asked
                press.type_into(field, "Soak" if "first" in name else "Desk")
        press.click(dialog.action)
        await until(lambda: dialog.operation is not None and not dialog.operation.open
                    and not dialog.busy, f"the {dialog.objectName()}'s outcome", 60)
        await asyncio.sleep(0.5)  # the outcome is read
        press.click(dialog.close_button)

    async def card_create(self) -> None:
        tab = self._cards()
        press.click(tab.wallet.create_button)
        dialog = await until(lambda: tab.dialog if tab.dialog is not None
                             and tab.dialog.isVisible() else None, "the Create card dialog")
        await self._operate(dialog, str(self.rng.randint(20, 80)))
        await until(lambda: tab.dialog is None, "the dialog to close")
        if dialog.new_card is not None:
            await until(lambda: tab.page.record is not None
                        and tab.page.record.card_hash == dialog.new_card.card_hash, "the new card")
            self.done["card create"] += 1

    async def _amount(self, kind: str) -> None:
        tab = self._cards()
        page = tab.page
        if page.record is None or page.record.state != 1 or (
                kind == "withdraw" and not page.record.balance):
            return
        await until(lambda: page.buttons[kind].isEnabled(), f"{kind} enabled")
        press.click(page.buttons[kind])
        dialog = await until(lambda: tab.dialog if tab.dialog is not None
                             and tab.dialog.isVisible() else None, f"the {kind} dialog")
        most = int(page.record.balance or 0) if kind == "withdraw" else 40
        await self._operate(dialog, str(self.rng.randint(1, max(1, min(most, 40)))))
        await until(lambda: tab.dialog is None, "the dialog to close")
        self.done[kind] += 1

    async def fund(self) -> None:
        await self._amount("fund")

    async def withdraw(self) -> None:
        await self._amount("withdraw")

    async def refresh(self) -> None:
        tab = self._cards()
        before = self.refreshed
        press.click(tab.wallet.refresh_button)
        await until(lambda: self.refreshed > before and tab.wallet.refresh_button.isEnabled(),
                    "the wallet refreshed")
        self.done["refresh"] += 1

    def rota(self):
        return (("form link", self.form_link), ("lookup", self.lookup),
                ("card create", self.card_create), ("csv", self.export_csv),
                ("fund", self.fund), ("lookup", self.lookup), ("pdf", self.receipt_pdf),
                ("withdraw", self.withdraw), ("form link", self.form_link),
                ("refresh", self.refresh), ("lookup", self.lookup), ("check all", self.check_all))


# -- the run ----------------------------------------------------------------------------


def warm_minutes(minutes: float, every: float) -> float:
    return WARM_MINUTES if minutes >= 2 * WARM_MINUTES else 2 * every


async def soak(qapp, folder: Path, base: str, keys: dict, args) -> None:
    from paydesk import app
    from paydesk.desk.build import build_desk

    paths = Paths(data=folder / "paydesk", sandbox=folder / "unused").ensure()
    logs.setup(paths.logs)  # as paydesk does: the log file, written by its own thread
    store = KeyStore(None, on_secret=logs.REDACTOR.add)  # keys in memory, as with --no-keyring
    desk = build_desk(paths, store)
    first = desk.session
    await desk.open()
    await first.save_profile(Profile(id=PROFILE, name="Soak shop", base_url=base, has_cards=True,
                                     shop_email="counter@example.com"),
                             {("test", "secret"): keys["secret"], ("test", "public"): keys["public"]})
    await first.close()

    shown = {}
    arguments = argparse.Namespace(sandbox=False, profile=PROFILE, mode=None, data_dir=None,
                                   sandbox_dir=None, no_keyring=True)
    running = asyncio.ensure_future(app.run(qapp, arguments, paths, store,
                                            window_ready=lambda w, s: shown.update(w=w, s=s)))
    await until(lambda: shown or running.done(), "the window", 60)
    window, session = shown["w"], shown["s"]
    window.resize(1300, 900)
    await until(lambda: window.started, "start-up", 60)
    desk = Desk(window, session, base, keys["secret"], folder / "files")
    (folder / "files").mkdir()
    meter = Meter(window, args.trace, args.top)
    warm = warm_minutes(args.minutes, args.every)
    print(f"Soak: {args.minutes:g} min of a counter's and a finance desk's work against a sandbox "
          f"process (a line every {args.every:g} min; growth judged after {warm:g} min)", flush=True)
    meter.header()
    await asyncio.sleep(3)
    idle = meter.sample("idle", None, "(start-up over, nothing done yet)")
    try:
        await desk.setup()
        started = time.monotonic()
        end = started + args.minutes * 60
        mark = 1
        rota = desk.rota()
        turn = 0
        while time.monotonic() < end:
            await desk.step("sale", desk.sale())
            name, action = rota[turn % len(rota)]
            turn += 1
            await desk.step(name, action())
            await asyncio.sleep(desk.rng.uniform(0.5, 1.5))
            elapsed = (time.monotonic() - started) / 60
            if elapsed >= mark * args.every or time.monotonic() >= end:
                at = min(mark * args.every, args.minutes)
                meter.sample(f"{at:g} min", at, desk.summary())
                if abs(at - warm) < 1e-9:
                    meter.warm()
                mark += 1
    finally:
        await desk.http.aclose()
        window.close()
        await asyncio.wait_for(running, 60)
    meter.since_warm()
    report(meter.rows, idle, warm, desk)


def report(rows, idle: float, warm: float, desk: Desk) -> None:
    print(f"Work done: {desk.summary()}.")
    if desk.stuck:
        print("Steps that got stuck (each put straight and skipped): "
              + ", ".join(f"{name} {n}" for name, n in desk.stuck.items()))
    reference = next((rss for minutes, rss in rows if minutes >= warm - 1e-9), None)
    later = [rss for minutes, rss in rows if minutes > warm + 1e-9]
    if reference is None or not later:
        print(f"Growth after the first {warm:g} min: not measured (the run was too short)")
        return
    worst, last = max(later), later[-1]
    growth = worst - reference
    verdict = "within" if growth <= LIMIT_MB else "NOT within"
    print(f"Resident memory: {idle:.1f} MB idle after start-up, {reference:.1f} MB at {warm:g} min, "
          f"{last:.1f} MB at the end (highest after {warm:g} min: {worst:.1f} MB)")
    print(f"Growth after the first {warm:g} min: {growth:+.1f} MB, {verdict} {LIMIT_MB:g} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60, help="how long to work (default 60)")
    parser.add_argument("--every", type=float, default=5, help="minutes between lines (default 5)")
    parser.add_argument("--trace", action="store_true",
                        help="tracemalloc and object counts: what grew, interval to interval")
    parser.add_argument("--top", type=int, default=8, help="how many sites and types to show")
    args = parser.parse_args()
    signal.alarm(int(args.minutes * 60 * (3 if args.trace else 1.5)) + 600)  # never hangs on
    if args.trace:
        tracemalloc.start(8)
    folder = Path(tempfile.mkdtemp(prefix="paydesk-bench-soak-"))
    qInstallMessageHandler(quiet_platform)
    with sandbox_running(folder / "sandbox") as (base, keys), qt_loop() as (qapp, runner):
        runner.run(soak(qapp, folder, base, keys, args))


if __name__ == "__main__":
    main()
