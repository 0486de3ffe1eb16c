"""The soak: a counter's and a finance desk's day for an hour, through the real window, and
whether memory levels off.

PayDesk runs as ``paydesk`` runs it (``app.run``: the scheduler, the background checks,
``gc.freeze`` after start-up, the log file) against a sandbox in its own process, on a
counter with two monitors (the staff's and the customer's). In turns:
- the counter: on the Counter tab (the customer's view open beside the amount box), a
  sale's amount typed and Enter, the customer pays it (the sandbox's control API,
  ``POST _sandbox/pay/{reference}``), both screens turn PAID, Enter sells to the next;
- the finance desk: a link from the form (Create link), a lookup in the Transactions tab
  (a form link paid meanwhile, or a counter sale), an export to CSV and a receipt as PDF
  (through the save dialog, into a temporary folder), Check all open, and the card wallet:
  create a card, fund it, withdraw from it, refresh the list;
- the rest of the day (soak_day.py): the customer display moved to the other monitor, a
  sale there, closed and back; Bulk links with a small batch from the downloaded template;
  the batch's QR sheet and results file from the Batches window; the Notifications window;
  the profile editor with Check keys.
Widgets are pressed as a person would (tests/ui/press.py). Every ``--every`` minutes it
prints resident memory (VmRSS, its anonymous and shared-memory parts), malloc's bytes in
use and held free, Python's blocks, and counts of objects: gc's, Qt's widgets and windows,
the window's QObjects, asyncio's tasks (soak_meter.py). The last line: growth after the
first ten minutes (the first two intervals in a run shorter than 20 minutes), and whether
it is within 20 MB.

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_soak.py --minutes 20 --every 2)
``--platform xcb`` runs it on a real X server of its own (Xvfb, two screens; started on a
free display and stopped at the end) instead of the offscreen platform (two screens too).
``--trace`` adds tracemalloc (the allocation sites that grew, interval to interval and since
the warm-up) and the types of objects that grew; it slows the run and adds to RSS.
Prints figures; asserts nothing. Stops by itself (a watchdog too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback
import tracemalloc
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import httpx  # noqa: E402
from PySide6.QtCore import qInstallMessageHandler  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog, QLineEdit, QWidget  # noqa: E402
from qt_loop import qt_loop  # noqa: E402
from sandbox_process import sandbox_running  # noqa: E402
from soak_day import DayMix, save_as, until  # noqa: E402
from soak_meter import Meter  # noqa: E402
from xvfb import xvfb_display  # noqa: E402

from paydesk import logs  # noqa: E402
from paydesk.config.paths import Paths  # noqa: E402
from paydesk.config.profiles import Profile  # noqa: E402
from paydesk.config.secrets import KeyStore  # noqa: E402
from tests.ui import press  # noqa: E402
from tests.waiting import TimedOut  # noqa: E402

PROFILE = "p_soak01"
LIMIT_MB = 20.0
WARM_MINUTES = 10.0


SAID: Counter[str] = Counter()  # Qt's messages, each printed the first time only


def quiet_platform(mode, context, message) -> None:
    """Qt's messages, each once, but the offscreen platform's "does not support" lines (one
    per dialog)."""
    if not message.startswith("This plugin does not support"):
        SAID[message] += 1
        if SAID[message] == 1:
            print(f"(Qt says: {message.strip()})", file=sys.stderr, flush=True)


# -- the work ---------------------------------------------------------------------------


class Desk(DayMix):
    """A counter's and a finance desk's work, through the window's widgets."""

    def __init__(self, window, session, base: str, secret: str, folder: Path):
        self.window, self.session, self.base = window, session, base
        # an idle connection is let go before the sandbox closes it (after 5 s): a request
        # sent on one it was closing just then failed with a ReadError (a 60-minute run lost)
        self.http = httpx.AsyncClient(
            base_url=base + "/",
            timeout=30,
            limits=httpx.Limits(keepalive_expiry=2),
            headers={"Authorization": f"Bearer {secret}", "Accept": "application/json"},
        )
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
        names = (
            ("sale", "sales"),
            ("form link", "form links"),
            ("lookup", "lookups"),
            ("csv", "CSV"),
            ("pdf", "PDF"),
            ("check all", "checks of all open"),
            ("card create", "cards"),
            ("fund", "funds"),
            ("withdraw", "withdrawals"),
            ("refresh", "refreshes"),
            ("display", "displays on the other monitor"),
            ("bulk", "batches"),
            ("qr sheet", "QR sheets"),
            ("results", "results files"),
            ("notifications", "Notifications windows"),
            ("profile", "profile checks"),
        )
        return ", ".join(f"{self.done[key]} {words}" for key, words in names)

    def show_tab(self, tab: QWidget) -> None:
        tabs = self.window.tabs
        index = tabs.indexOf(tab)
        if tabs.currentIndex() != index:
            bar = tabs.tabBar()
            press.click(bar, pos=bar.tabRect(index).center())

    async def pay(self, reference: str) -> bool:
        """The customer pays; False when the link could not be paid any more (409: paid or
        closed already)."""
        answer = await self.http.post(f"_sandbox/pay/{reference}", json={"outcome": "success"})
        if answer.status_code == 409:
            self.done["not payable"] += 1
            return False
        answer.raise_for_status()
        return True

    async def setup(self) -> None:
        """The merchant's card balance, and the customer details of the form's links."""
        for currency in ("GBP", "USD"):
            (
                await self.http.post("_sandbox/balance", json={"amount": "10000000", "currency": currency})
            ).raise_for_status()
        self.show_tab(self.window.links_tab)
        form = self.window.links_tab.form
        await until(lambda: self.window.links_tab.loaded and form.tx_ref.text(), "the form")
        for field, text in (
            (form.email, "counter@example.com"),
            (form.first_name, "Walk"),
            (form.last_name, "In"),
            (form.title, "Soak Coffee"),
        ):
            press.type_into(field, text)

    def put_straight(self) -> None:
        """After a step that got stuck: close whatever dialog is left open."""
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QDialog) and widget.isVisible():
                widget.reject()
        self.put_straight_windows()

    async def step(self, name: str, coro) -> None:
        """A step of the day; one that did not happen in time, whose widget could not be
        pressed, or whose call to the sandbox's control API failed is counted as stuck, the
        screen put straight, and the work goes on (an hour's run is not lost to one)."""
        try:
            await coro
        except (TimedOut, AssertionError, httpx.HTTPError) as why:
            self.stuck[name] += 1
            if self.stuck[name] <= 3:
                print(f"    ({name}: stuck, {why})", flush=True)
            self.put_straight()
            await asyncio.sleep(1)

    # the counter ------------------------------------------------------------------------

    async def sale(self) -> None:
        tab = self.window.counter_tab
        self.show_tab(tab)
        await until(lambda: tab.loaded, "the Counter tab")
        place = tab.place
        if not place.is_open:  # the customer's view (beside the amount box, unless moved)
            press.click(place.toggle)
        view = await until(lambda: next((v for v in place.views if v.isVisible()), None), "the customer's view")
        press.type_into(tab.amount, str(self.rng.randint(2, 60)))
        press.enter(tab.amount)

        def made():
            sale = tab.mirror.sale
            return (
                sale
                if (
                    sale is not None
                    and sale.record is not None
                    and sale.record.checkout_url
                    and sale.tx_ref not in self.paid
                    and view.qr.code is not None
                )
                else None
            )

        sale = await until(made, "the sale's code on both screens")
        await asyncio.sleep(self.rng.uniform(1.0, 3.0))  # the customer scans and pays
        if not await self.pay(sale.record.reference):
            raise AssertionError(f"the sale {sale.tx_ref} could not be paid")
        self.paid.append(sale.tx_ref)
        await until(
            lambda: tab.mirror.state.text() == "PAID" and view.phase in ("paid", "thanks", "blank"),
            "PAID on screen",
            20,
        )
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
        await until(
            lambda: tab.panel.record is not None and tab.panel.record.key != before and tab.panel.record.checkout_url,
            "the new link on the panel",
        )
        tx_ref = tab.panel.record.tx_ref
        self.unpaid.append(tx_ref)
        self.done["form link"] += 1

    async def _look_up(self, tx_ref: str, state: str | None = None):
        tab = self.window.transactions_tab
        self.show_tab(tab)
        press.type_into(tab.lookup_box, tx_ref)
        press.enter(tab.lookup_box)
        await until(
            lambda: (
                tab.details.record is not None
                and tab.details.record.tx_ref == tx_ref
                and (state is None or tab.details.record.state == state)
                and tab.lookup_button.isEnabled()
            ),
            f"the lookup of {tx_ref}",
        )
        self.done["lookup"] += 1
        return tab.details.record

    async def lookup(self) -> None:
        """A customer says they paid a link sent earlier: the finance desk looks it up."""
        if len(self.unpaid) > 2:  # the oldest is paid; a few stay unpaid a while
            tx_ref = self.unpaid.pop(0)
            record = await self.window.session.ledger.get(PROFILE, tx_ref)
            if await self.pay(record.reference):
                await self._look_up(tx_ref, "success")
                self.paid.append(tx_ref)
            else:
                await self._look_up(tx_ref)
        elif self.paid:
            await self._look_up(self.rng.choice(self.paid[-50:]), "success")

    async def export_csv(self) -> None:
        tab = self.window.transactions_tab
        self.show_tab(tab)
        path = self.new_file("export", ".csv")
        press.click(tab.export_button)
        await save_as(path)
        await until(lambda: path.exists() and not tab.exporting, "the CSV export", 60)
        path.unlink()
        self.done["csv"] += 1

    async def receipt_pdf(self) -> None:
        if not self.paid:
            return
        await self._look_up(self.rng.choice(self.paid[-50:]), "success")
        details = self.window.transactions_tab.details
        path = self.new_file("receipt", ".pdf")
        press.click(details.buttons["receipt-pdf"])
        await save_as(path)
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
        await until(
            lambda: dialog.operation is not None and not dialog.operation.open and not dialog.busy,
            f"the {dialog.objectName()}'s outcome",
            60,
        )
        await asyncio.sleep(0.5)  # the outcome is read
        press.click(dialog.close_button)

    async def card_create(self) -> None:
        tab = self._cards()
        press.click(tab.wallet.create_button)
        dialog = await until(
            lambda: tab.dialog if tab.dialog is not None and tab.dialog.isVisible() else None, "the Create card dialog"
        )
        await self._operate(dialog, str(self.rng.randint(20, 80)))
        await until(lambda: tab.dialog is None, "the dialog to close")
        if dialog.new_card is not None:
            await until(
                lambda: tab.page.record is not None and tab.page.record.card_hash == dialog.new_card.card_hash,
                "the new card",
            )
            self.done["card create"] += 1

    async def _amount(self, kind: str) -> None:
        tab = self._cards()
        page = tab.page
        if page.record is None or page.record.state != 1 or (kind == "withdraw" and not page.record.balance):
            return
        await until(lambda: page.buttons[kind].isEnabled(), f"{kind} enabled")
        press.click(page.buttons[kind])
        dialog = await until(
            lambda: tab.dialog if tab.dialog is not None and tab.dialog.isVisible() else None, f"the {kind} dialog"
        )
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
        await until(lambda: self.refreshed > before and tab.wallet.refresh_button.isEnabled(), "the wallet refreshed")
        self.done["refresh"] += 1

    def rota(self):
        return (
            ("form link", self.form_link),
            ("lookup", self.lookup),
            ("display", self.display),
            ("card create", self.card_create),
            ("csv", self.export_csv),
            ("bulk", self.bulk),
            ("fund", self.fund),
            ("notifications", self.notifications),
            ("lookup", self.lookup),
            ("pdf", self.receipt_pdf),
            ("batch outputs", self.batch_outputs),
            ("withdraw", self.withdraw),
            ("profile", self.profile_editor),
            ("form link", self.form_link),
            ("refresh", self.refresh),
            ("display", self.display),
            ("lookup", self.lookup),
            ("check all", self.check_all),
        )


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
    await first.save_profile(
        Profile(id=PROFILE, name="Soak shop", base_url=base, has_cards=True, shop_email="counter@example.com"),
        {("test", "secret"): keys["secret"], ("test", "public"): keys["public"]},
    )
    await first.close()

    shown = {}
    arguments = argparse.Namespace(
        sandbox=False, profile=PROFILE, mode=None, data_dir=None, sandbox_dir=None, no_keyring=True
    )
    running = asyncio.ensure_future(
        app.run(qapp, arguments, paths, store, window_ready=lambda w, s: shown.update(w=w, s=s))
    )
    await until(lambda: shown or running.done(), "the window", 60)
    window, session = shown["w"], shown["s"]
    window.resize(1300, 900)
    await until(lambda: window.started, "start-up", 60)
    desk = Desk(window, session, base, keys["secret"], folder / "files")
    (folder / "files").mkdir()
    meter = Meter(window, args.trace, args.top, maps=args.maps)
    warm = warm_minutes(args.minutes, args.every)
    screens = ", ".join(f"{s.size().width()}x{s.size().height()}" for s in qapp.screens())
    print(
        f"Soak: {args.minutes:g} min of a counter's and a finance desk's work against a sandbox "
        f"process, on Qt's {qapp.platformName()} platform (screens {screens}); a line every "
        f"{args.every:g} min; growth judged after {warm:g} min",
        flush=True,
    )
    meter.header()
    await asyncio.sleep(3)
    idle = meter.sample("idle", None, "(start-up over, nothing done yet)")
    try:
        await desk.setup()
        started = time.monotonic()
        end = started + args.minutes * 60
        mark = 1
        rota = [(n, a) for n, a in desk.rota() if not args.only or n in args.only]
        turn = 0
        while time.monotonic() < end:
            if not args.only or "sale" in args.only:
                await desk.step("sale", desk.sale())
            if rota:
                name, action = rota[turn % len(rota)]
                turn += 1
                await desk.step(name, action())
            await asyncio.sleep(desk.rng.uniform(0.5, 1.5))
            elapsed = (time.monotonic() - started) / 60
            if elapsed >= mark * args.every or time.monotonic() >= end:
                mark = max(mark, int(elapsed // args.every))  # a mark a long step ran past:
                at = min(mark * args.every, args.minutes)  # the line says the later one
                meter.sample(f"{at:g} min", at, desk.summary())
                if args.trim:
                    meter.trimmed()
                if abs(at - warm) < 1e-9:
                    meter.warm()
                mark += 1
    except BaseException:
        traceback.print_exc()  # said now: closing may take a while
        raise
    finally:
        await desk.http.aclose()
        window.close()
        await asyncio.wait_for(running, 60)
        await tasks_left()
    meter.since_warm()
    report(meter.rows, idle, warm, desk)


async def tasks_left() -> None:
    """The tasks still there once PayDesk has quit (none should be): named, then cancelled."""
    left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    if not left:
        return
    print(f"Tasks left after quitting: {len(left)}")
    for task in left:
        where = [f"{Path(f.f_code.co_filename).name}:{f.f_lineno}" for f in task.get_stack()]
        print(f"    {task.get_name()}: {task.get_coro().__qualname__} at {', '.join(where)}")
        task.cancel()
    done, pending = await asyncio.wait(left, timeout=10)
    if pending:  # a step of theirs was lost: they can never run again; the loop closes without
        print(f"    {len(pending)} of them did not end when cancelled")  # waiting for them
        for task in pending:
            asyncio.tasks._unregister_task(task)


def report(rows, idle: float, warm: float, desk: Desk) -> None:
    print(f"Work done: {desk.summary()}.")
    for message, times in SAID.items():
        if times > 1:
            print(f"(Qt said {times} times: {message.strip()})")
    if desk.stuck:
        print(
            "Steps that got stuck (each put straight and skipped): "
            + ", ".join(f"{name} {n}" for name, n in desk.stuck.items())
        )
    reference = next((rss for minutes, rss in rows if minutes >= warm - 1e-9), None)
    later = [rss for minutes, rss in rows if minutes > warm + 1e-9]
    if reference is None or not later:
        print(f"Growth after the first {warm:g} min: not measured (the run was too short)")
        return
    worst, last = max(later), later[-1]
    growth = worst - reference
    verdict = "within" if growth <= LIMIT_MB else "NOT within"
    print(
        f"Resident memory: {idle:.1f} MB idle after start-up, {reference:.1f} MB at {warm:g} min, "
        f"{last:.1f} MB at the end (highest after {warm:g} min: {worst:.1f} MB)"
    )
    print(f"Growth after the first {warm:g} min: {growth:+.1f} MB, {verdict} {LIMIT_MB:g} MB")


OFFSCREEN_SCREENS = {
    "screens": [  # the offscreen platform's two monitors, as Xvfb's
        {
            "name": name,
            "x": x,
            "y": 0,
            "width": width,
            "height": height,
            "logicalDpi": 96,
            "logicalBaseDpi": 96,
            "dpr": 1,
        }
        for name, x, width, height in (("Staff", 0, 1400, 900), ("Customer", 1400, 1280, 1024))
    ]
}


def on_platform(platform: str, folder: Path, stack: ExitStack) -> None:
    """Qt's platform for the run (read when the QApplication is made): offscreen, or xcb on
    an X server of our own, each with two screens."""
    if platform == "xcb":
        os.environ["DISPLAY"] = stack.enter_context(xvfb_display())
        os.environ["QT_QPA_PLATFORM"] = "xcb"
    else:
        config = folder / "screens.json"
        config.write_text(json.dumps(OFFSCREEN_SCREENS))
        os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60, help="how long to work (default 60)")
    parser.add_argument("--every", type=float, default=5, help="minutes between lines (default 5)")
    parser.add_argument(
        "--platform",
        choices=("offscreen", "xcb"),
        default="offscreen",
        help="Qt's platform: offscreen (default), or xcb on an X server of the "
        "benchmark's own (Xvfb, started on a free display, stopped at the end)",
    )
    parser.add_argument("--xcb", dest="platform", action="store_const", const="xcb", help="the same as --platform xcb")
    parser.add_argument(
        "--trace", action="store_true", help="tracemalloc and object counts: what grew, interval to interval"
    )
    parser.add_argument(
        "--maps",
        action="store_true",
        help="the resident memory that grew, by mapping (malloc's main arena, "
        "other anonymous memory, shared memory, each library and font)",
    )
    parser.add_argument(
        "--trim",
        action="store_true",
        help="after each line, malloc_trim(0) and RSS again (fragmentation or "
        "a leak?); the figures after it start lower",
    )
    parser.add_argument(
        "--only",
        type=lambda text: set(text.split(",")),
        default=set(),
        metavar="NAMES",
        help="only these steps, e.g. sale,display,bulk (to find which one grows; default: the whole rota)",
    )
    parser.add_argument("--top", type=int, default=8, help="how many sites and types to show")
    args = parser.parse_args()
    signal.alarm(int(args.minutes * 60 * (3 if args.trace else 1.5)) + 600)  # never hangs on
    if args.trace:
        tracemalloc.start(8)
    folder = Path(tempfile.mkdtemp(prefix="paydesk-bench-soak-"))
    qInstallMessageHandler(quiet_platform)
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, folder, ignore_errors=True)
        on_platform(args.platform, folder, stack)
        base, keys = stack.enter_context(sandbox_running(folder / "sandbox"))
        qapp, runner = stack.enter_context(qt_loop())
        runner.run(soak(qapp, folder, base, keys, args))


if __name__ == "__main__":
    main()
