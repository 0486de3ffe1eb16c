"""The composition root: a whole desk is built here, with or without a window.

- (``start.py``'s ``open_folders`` and ``keys_later`` / ``open_keys`` come before: the
  folders and the log file, the key store);
- ``build_desk(paths, keys)`` makes the hub, the ledgers, the connection's health, the
  embedded sandbox (not started), the session, the controllers (links and counter;
  transactions, cards, bulk and the notification test at their first use), the scheduler,
  and on a shared ledger the other desks' feed, and wires them: nothing is attached to a
  desk after it is built; ``Desk.start_background()`` starts what runs behind the screens;
- ``open_desk`` does all of it for a process without a window.

The window (``app.py``) takes these steps in its own order (its frame painted first, the
desk built and opened after, the keyring after that) and is handed the built desk; the
Qt-free tests build theirs with ``build_desk``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .. import logs
from ..config.paths import Paths
from ..config.secrets import KeyStore
from ..config.shared_ledger import Choice
from ..ledger import SqliteLedger
from ..ledger.activity import ActivityBook
from ..ledger.batch import BatchBook
from ..ledger.counter import CounterBook
from ..ledger.inbox import Inbox
from ..ledger.sqlite.activity import SqliteActivityBook
from ..ledger.sqlite.batch import SqliteBatchBook
from ..ledger.sqlite.cards import SqliteCardLedger
from ..ledger.sqlite.counter import SqliteCounterBook
from ..ledger.sqlite.inbox import SqliteInbox
from .budgets import Budgets, BusyWatch
from .counter import CounterController
from .desk_name import DeskNaming
from .embedded import EmbeddedSandbox
from .events import Hub
from .health import ConnectionHealth
from .ledger_choice import choose_ledger
from .links import LinksController
from .notified import Notified
from .profile_store import SharedProfiles
from .scheduler import Scheduler
from .session import Session
from .sign_in import SignIn, staff_book
from .start import open_folders, open_keys
from .transports import Transports

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

    from ..ledger import Ledger
    from ..ledger.cards import CardLedger
    from ..ledger.postgres.engine import PgEngine
    from ..service.budget_book import Book
    from .bulk.runner import BulkController
    from .cards.controller import CardsController
    from .live import Live
    from .notify_test import NotificationTest
    from .transactions import TransactionsController

WATCH_DAYS = 7  # open records younger than this are watched from the start; older: Check all open


class Serving(Protocol):
    """What the desk knows of a receiver it runs (receiver/serve.py's ``Receiver``, which
    imports the desk: the desk names it by what it does)."""

    @property
    def url(self) -> str: ...

    async def close(self) -> None: ...


@dataclass
class Desk:
    paths: Paths
    keys: KeyStore
    hub: Hub
    session: Session
    links: LinksController
    scheduler: Scheduler
    inbox: Inbox  # the notifications received, beside the ledger (ledger/inbox.py)
    book: CounterBook  # the counters' sales and shifts, beside the ledger (ledger/counter.py)
    counter: CounterController  # this computer's counter (desk/counter.py)
    batches: BatchBook  # the batches of bulk links, beside the ledger (ledger/batch.py)
    naming: DeskNaming  # this desk's name (desk/desk_name.py): status bars, counter shifts
    budgets: Budgets  # one call budget per service origin (desk/budgets.py)
    busy: BusyWatch  # the status bar's words while the active profile's budget is tight
    sign_in: SignIn  # who is signed in, the lock, the staff list (desk/sign_in.py)
    started: bool = False  # start_background() has run
    live: Live | None = None  # on a shared ledger: the other desks' changes, the poller lease
    receiver: Serving | None = None  # the notification receiver this process runs (receiver/)

    # The tabs' controllers not shown first, and the notification test, are made at first use
    # (after the first paint: ARCHITECTURE.md, "Start-up order"); none listens to the hub.
    @cached_property
    def transactions(self) -> TransactionsController:
        from .transactions import TransactionsController

        return TransactionsController(self.links)

    @cached_property
    def cards(self) -> CardsController:
        from .cards.controller import CardsController

        return CardsController(self.session, self.session.card_ledger)

    @cached_property
    def bulk(self) -> BulkController:
        """Runs the batches of bulk links (desk/bulk/runner.py); never resumed silently at start."""
        from .bulk.runner import BulkController

        return BulkController(self.session, self.links, self.batches, self.hub, scheduler=self.scheduler)

    @cached_property
    def notify_test(self) -> NotificationTest:
        """Send a test notification (desk/notify_test.py)."""
        from .notify_test import NotificationTest

        return NotificationTest(self.session, self.links, self.inbox)

    async def open(self) -> None:
        """Wait for the ledger to be open and read the profiles (off the loop's thread)."""
        await self.counter.load()  # counter.json: the counter's name, whether it holds keys, the idle lock
        if self.live is not None and self.counter.settings.keyless:
            self._go_keyless(self.live)
        await self.session.ledger.opened()
        if self.live is not None:  # the feed starts here, before anything is read
            await self.live.mark_start()
        await self.session.load()
        await self.sign_in.load()  # whether the shop has staff: then nobody is signed in yet
        await self.naming.settle()  # on a shared ledger: claimed among the shop's desks
        if self.live is not None:
            self.live.bind(self.session.installation_id)

    def _go_keyless(self, live: Live) -> None:
        """This counter holds no key: its sales go through the shop's key holder."""
        from ..ledger.postgres.requests import SaleRequests
        from .counter_keyless import KeylessSeller

        live.go_keyless()
        self.session.clients.keyless = True  # it never calls the service itself
        self.counter.keyless = KeylessSeller(SaleRequests(live.engine), self.book, self.hub)
        merchants = getattr(self.session.store, "merchants", None)
        if merchants is not None:  # its role reads what a counter shows of the merchants
            merchants.counter = True
        notified = self.scheduler.notified
        if isinstance(notified, Notified):  # nor the inbox: it checks no payment either
            notified.last_received = None

    def start_background(self) -> None:
        """The scheduler, with every open record of the last ``WATCH_DAYS`` days and every
        create a previous run left unfinished, and the card operations left open. Once.
        A batch of bulk links with rows not sent is not resumed here: the window offers it
        (``bulk.unfinished()``); its rows being created are settled as every create is."""
        if self.started:
            return
        tasks = self.session.tasks
        tasks.spawn(self.scheduler.run(), "scheduler")
        tasks.spawn(self._watch_open(), "watch open records")
        if self.counter.keyless is None:  # a key-less counter has no card operations
            tasks.spawn(self.cards.settle_open(), "settle card operations")
        if self.live is not None:  # the feed, and the lease: the holder watches the open ones
            self.live.start()
        self.started = True

    async def _watch_open(self) -> None:
        if self.live is not None:  # the open records are the lease holder's (desk/poller.py)
            await self.live.poller.watch_unsettled()
            return
        ledger = self.session.ledger
        for record in await ledger.unsettled():
            self.scheduler.watch(record)
        since = datetime.now(UTC) - timedelta(days=WATCH_DAYS)
        for record in await ledger.open_records(since=since):
            self.scheduler.watch(record)

    async def close(self) -> None:
        """Every task ends, every client closes, the ledger closes, the sandbox stops (on a
        shared ledger the poller lease is given up first: another desk takes over at once)."""
        if self.receiver is not None:  # no notification is taken that could not be re-read
            await self.receiver.close()
            self.receiver = None
        if self.live is not None:
            await self.live.close()
        self.busy.close()
        await self.session.close()


def build_desk(
    paths: Paths,
    keys: KeyStore,
    *,
    choice: Choice | None = None,
    ledger_url: str | None = None,
    ledger_password: str | None = None,
    ledger_file: str | Path | None = None,
    lease_priority: int = 0,
    transports: Transports | None = None,
) -> Desk:
    """A whole desk over the data folder of ``paths``, with ``keys``; nothing started yet.
    ``transports``: how it reaches each service origin (``transports.py``): the network but
    where one is given (a sandbox this process runs, reached in process); the embedded
    sandbox adds its own while this desk serves it.
    ``choice``: the ledger this run uses as it was chosen (``ledger_choice.py``; its URL is
    the ledger's). With ``ledger_url``: on the shop's shared ledger (PostgreSQL) instead of its own file;
    ``lease_priority`` 1 (paydesk-receiver) takes the poller lease from a desk (0) holding it.
    With ``ledger_file``: on that desk's SQLite file, with that desk's profiles (the settings
    file beside it), as paydesk-receiver writes into a desk's ledger."""
    if choice is not None:
        ledger_url = choice.url
    if ledger_file is not None and not ledger_url:
        paths = Paths(data=Path(ledger_file).parent, sandbox=paths.sandbox)
    hub = Hub()
    ledger: Ledger
    card_ledger: CardLedger
    inbox: Inbox
    book: CounterBook
    batches: BatchBook
    engine: PgEngine | None = None
    if ledger_url:  # psycopg loads only for a shared ledger
        from ..ledger.postgres.activity import PostgresActivityBook
        from ..ledger.postgres.batch import PostgresBatchBook
        from ..ledger.postgres.counter import PostgresCounterBook
        from ..ledger.postgres.inbox import PostgresInbox
        from ..ledger.postgres.shared import open_shared

        engine, ledger, card_ledger = open_shared(
            ledger_url, password=ledger_password, desk="", on_reachable=hub.ledger_reachable.emit
        )
        inbox = PostgresInbox(engine)
        activity: ActivityBook = PostgresActivityBook(engine)
        book = PostgresCounterBook(engine)
        batches = PostgresBatchBook(engine)
    else:
        sqlite = SqliteLedger(Path(ledger_file or paths.data / "ledger.sqlite3"))
        sqlite.on_busy(hub.ledger_busy.emit)
        ledger, card_ledger = sqlite, SqliteCardLedger.beside(sqlite)  # the same file and threads
        inbox = SqliteInbox.beside(sqlite)
        activity = SqliteActivityBook.beside(sqlite)
        book = SqliteCounterBook.beside(sqlite)
        batches = SqliteBatchBook.beside(sqlite)
    keys.on_waiting = hub.keyring_waiting.emit
    budgets = Budgets(None if engine is None else _shop_books(engine))
    transports = transports if transports is not None else Transports()
    session = Session(
        paths,
        keys,
        hub=hub,
        ledger=ledger,
        card_ledger=card_ledger,
        health=ConnectionHealth(hub.health_changed.emit),
        embedded=EmbeddedSandbox(paths.sandbox, transports),
        profiles=None if engine is None else _merchants(engine),
        budgets=budgets,
        ledger_choice=choice,
        transports=transports,
        activity=activity,
    )
    links = LinksController(session, ledger)
    live = None
    if engine is not None:
        from .live import wire_shared

        live, scheduler = wire_shared(
            engine,
            hub=hub,
            session=session,
            links=links,
            ledger=ledger,
            card_ledger=card_ledger,
            book=book,
            lease_priority=lease_priority,
        )
        # a shared ledger out of reach refuses every write; another desk (or the receiver)
        # may hold the poller lease: the session asks the feed
        session.ledger_down = live.refuse
        session.checked_elsewhere = live.checked_elsewhere
    else:
        scheduler = Scheduler(
            links.check, links.settle, busy=lambda record: record.key in links.creating, paid=ledger.paid_since
        )  # refunds, reversals
        hub.record_changed.connect(scheduler.seen)
        hub.profile_deleted.connect(scheduler.forget)
    counter = CounterController(session, links, book, scheduler)
    desk = Desk(
        paths=paths,
        keys=keys,
        hub=hub,
        session=session,
        links=links,
        scheduler=scheduler,
        inbox=inbox,
        book=book,
        counter=counter,
        batches=batches,
        live=live,
        naming=DeskNaming(session, counter, claim=None if live is None else live.claim_name),
        budgets=budgets,
        busy=BusyWatch(budgets, hub, lambda: session.profile),
        sign_in=SignIn(session.staff, staff_book(engine, ledger), counter, paths),
    )
    notified = _notified(desk)
    scheduler.notified = notified
    scheduler.delivering = notified.delivering  # codes on screen: the notification brings PAID
    return desk


def _notified(desk: Desk) -> Notified:
    """The scheduler's question, "can a notification settle this link?" (desk/notified.py):
    a verified notification for its profile and mode came lately (not merely a receiver
    running here), and the link is past its first minutes."""
    notified = Notified(desk.inbox.last_received, desk.session.tasks.child())
    desk.hub.notification_changed.connect(notified.heard)
    desk.session.notified_lately = notified.lately  # the status bar's "PAID by notification"
    return notified


def _shop_books(engine: PgEngine) -> Callable[[str, float], Book]:
    """On a shared ledger the book of each service origin is the shop's: every desk,
    counter and the receiver spend from one (ledger/postgres/budget.py)."""
    from ..ledger.postgres.budget import PgBook

    return lambda origin, window: PgBook(engine, origin, window=window)


def _merchants(engine: PgEngine) -> SharedProfiles:
    """The profiles of a shared ledger: the shop's merchants, the same on every desk."""
    from ..ledger.postgres.merchants import PostgresMerchants

    return SharedProfiles(PostgresMerchants(engine))


async def open_desk(
    data_dir: str | Path | None = None,
    sandbox_dir: str | Path | None = None,
    *,
    use_keyring: bool = True,
    ledger_url: str | None = None,
    ledger_file: str | Path | None = None,
    keyring: KeyringBackend | None = None,
    lease_priority: int = 0,
) -> Desk:
    """A whole desk for a process without a window: folders and log file, keys (the keyring
    looked for now, or the backend ``keyring``: a key file's, the environment's), the desk
    built on its ledger (``ledger_url``, else ``ledger_file``, a desk's SQLite file, else the
    saved shared ledger, else its own) and its profiles read. ``start_background()`` and
    ``close()`` are the caller's."""
    paths, _ = open_folders(data_dir, sandbox_dir)
    if keyring is not None:
        keys = KeyStore(keyring, on_secret=logs.REDACTOR.add)
    else:
        keys = await open_keys(use_keyring, on_secret=logs.REDACTOR.add)
    if ledger_file is not None and not ledger_url:
        choice, password = Choice(None, "own"), None
    else:
        choice, password = await choose_ledger(paths, keys, ledger_url)
    desk = build_desk(
        paths, keys, choice=choice, ledger_password=password, ledger_file=ledger_file, lease_priority=lease_priority
    )
    await desk.open()
    return desk
