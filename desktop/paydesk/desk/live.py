"""A desk on a shared ledger: what the other desks change shows here, live.

The event feed (``ledger/postgres/listen.py``) hands over every event row; this desk's own
are skipped (its controllers announced them already). An event is only a pointer: the
record it names is read again and that is what the views are told (believe the record, not
the doorbell): "link" -> ``record_changed`` (and ``record_settled`` when it just became
final), the card kinds -> ``card_changed``, ``cards_refreshed``, ``card_transactions_changed``,
``operation_changed``, ``audit_added``; "merchant" -> the profiles read again; "lease" -> the
lease read again; "import" -> the views read again (``session_changed``) and the poller
watches the open records again; "inbox" -> ``notification_changed`` (a notification another
desk or the receiver kept or decided); "refused" -> ``refused_changed`` (a refused request
the receiver traced); "sale" -> ``sale_changed`` and "shift" ->
``shift_changed`` (another counter's sale or shift, read from the counter's book); "batch" ->
``batch_changed`` (a batch of bulk links another desk added, corrected or e-mailed). An event that
cannot be followed now (the ledger out of reach) is kept and followed when it is back.

The lease keeper (``ledger/postgres/lease.py``) decides whether this desk checks payments
(``poller.py``). ``hub.shared_status`` carries the status bar's words: which desk checks
payments, or since when the shared ledger is out of reach.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from ..config.desk_name import computer_name
from ..i18n import _
from ..ledger import Ledger, LinkRecord
from ..ledger.cards import CardLedger
from ..ledger.counter import CounterBook
from ..ledger.postgres.desks import NameTaken, claim_name
from ..ledger.postgres.engine import LedgerUnreachable, PgEngine, SchemaTooNew
from ..ledger.postgres.inbox import PostgresInbox
from ..ledger.postgres.lease import DESK, LeaseKeeper, LeaseState
from ..ledger.postgres.listen import EventFeed, LedgerEvent, newest_event
from .desk_name import DeskNameRefused
from .events import Hub
from .links import LinksController
from .poller import Poller
from .scheduler import Scheduler
from .session import Session
from .tasks import TaskSet

log = logging.getLogger("paydesk.live")
Key = tuple[str, str, str, str]  # (kind, profile_id, mode, key)
REMEMBERED = 20_000  # records whose last state this desk knows (to tell "just settled")
JUST_SETTLED = 120.0  # s: a final record first heard of, settled this recently, just settled
ABANDONED_EVERY = 60.0  # s: how often the lease holder looks for creates left unfinished
LEASE_TTL, LEASE_RENEW = 10.0, 3.0  # s: a holder that stops renewing is replaced within ~13 s


def unreachable_text(since: datetime | None) -> str:
    """ "Shared ledger unreachable since 14:02, retrying" (local time)."""
    return str(LedgerUnreachable(since or datetime.now(UTC)))


def poller_text(state: LeaseState) -> str:
    if state.holder is None:
        return _("Payments checked by no desk at the moment")
    where = state.holder_name or state.holder
    if state.priority > DESK:  # only a notification receiver takes the lease at a higher one
        return _("Payments checked by the notification receiver on {desk}").format(desk=where)
    return _("Payments checked by {desk}").format(desk=where)


class Live:
    """Follows the other desks' changes and keeps the poller lease, for one desk."""

    def __init__(
        self,
        engine: PgEngine,
        *,
        hub: Hub,
        session: Session,
        ledger: Ledger,
        card_ledger: CardLedger,
        poller: Poller,
        keeper: LeaseKeeper,
        book: CounterBook | None = None,
    ):
        self.engine, self.hub, self.session = engine, hub, session
        self.ledger, self.card_ledger, self.poller = ledger, card_ledger, poller
        self.keeper = keeper
        keeper.on_change = self._lease_changed
        self.feed = EventFeed(engine, self._deliver)
        self.inbox = PostgresInbox(engine)  # what an "inbox" event names is read here
        self.tasks = TaskSet()
        self.book = book  # the counters' book: another desk's sales and shifts read there
        self.keyless = False  # a key-less counter's: no lease, one pooled connection
        self.status = ""
        self._holding: tuple[str | None, int, bool] = (None, 0, False)  # the lease as last seen
        self.events_followed = 0
        self._pending: OrderedDict[Key, LedgerEvent] = OrderedDict()
        self._wake = asyncio.Event()
        self._back = asyncio.Event()  # set when the ledger is heard reachable again
        self._states: OrderedDict[tuple[str, str], str] = OrderedDict()
        # "merchant": the profiles read again
        self.merchant_changed: Callable[[str], Awaitable[None]] = self._reload_profiles
        hub.ledger_reachable.connect(self._reachable)
        hub.record_changed.connect(self._remember)

    # -- start and stop -----------------------------------------------------------------

    def bind(self, installation_id: str) -> None:
        """This desk's id, ``"<installation id>:<8 hex digits>"``, new for each running
        PayDesk (two on one data folder are two desks: neither skips the other's events, one
        holds the lease): the ``desk`` of every event it writes and the lease's holder. The
        references it draws carry the installation id alone (``Poller._made_here``)."""
        self.engine.desk = f"{installation_id}:{secrets.token_hex(4)}"

    async def mark_start(self) -> None:
        """Before the profiles and views first read: the feed will hand over every event
        after the newest one now (what other desks commit meanwhile is not missed)."""
        self.feed.last = await self.engine.read(newest_event)

    def go_keyless(self) -> None:
        """A key-less counter (desk/counter_keyless.py), before the ledger opens: it checks no
        payment (it has no key), so it never takes the poller lease, and its jobs share one
        pooled connection: two connections in all, with the feed's."""
        self.keyless = True
        self.keeper.watch_only = True  # who holds it: the key holder, or nobody
        self.engine.most = 1

    def start(self) -> None:
        """The feed and the lease keeper, as tasks of this desk's session."""
        self.tasks = self.session.tasks.child()
        self.tasks.spawn(self._follow(), "shared ledger events")
        if not self.engine.read_only or self.keyless:  # a newer PayDesk's schema: it writes nothing
            self.tasks.spawn(self.keeper.run(), "poller lease")
        if not self.keyless:
            self.tasks.spawn(self._abandoned(), "abandoned creates")

    async def close(self) -> None:
        """Give the lease up (another desk takes over at once) and stop the feed."""
        await self.tasks.cancel_all()
        await self.keeper.release()  # (a key-less counter's: never held, nothing written)
        await self.feed.close()

    def refuse(self) -> Exception | None:
        """While the ledger is out of reach: the error that refuses a create or card
        operation (nothing is sent that was not written first)."""
        if self.engine.read_only:
            return SchemaTooNew()
        if self.engine.reachable:
            return None
        return LedgerUnreachable(self.engine.down_since or datetime.now(UTC))

    # -- status -------------------------------------------------------------------------

    def checked_elsewhere(self) -> bool:
        """Another desk, or the shop's notification receiver, checks payments now."""
        state = self.keeper.state
        return state.holder is not None and not state.mine

    def _say(self) -> None:
        text = (
            str(SchemaTooNew())
            if self.engine.read_only
            else self._poller_text()
            if self.engine.reachable
            else unreachable_text(self.engine.down_since)
        )
        if text != self.status:
            self.status = text
            self.hub.shared_status.emit(text)

    def _poller_text(self) -> str:
        state = self.keeper.state
        if self.keyless and (state.holder is None or state.priority == DESK):  # it sells nothing
            return _("The shop's key holder is not running: this counter cannot sell")
        return poller_text(state)

    def _reachable(self, up: bool) -> None:
        self._say()
        if up:
            self._back.set()
            self.keeper.poke()
            self._wake.set()  # events kept while it was out of reach

    def _lease_changed(self, state: LeaseState) -> None:
        self._say()  # a new holder, or the holder's new name
        holding = (state.holder, state.epoch, state.mine)
        if holding != self._holding:
            self._holding = holding
            self.tasks.spawn(self.poller.lease_changed(state.mine), "poller lease changed")

    async def claim_name(self, installation: str, computer: str, wanted: str | None) -> str:
        """This desk's name on the shop's ledger (``desk_name.py``), which the lease says to
        the other desks from its next renewal (asked for now). DeskNameRefused when another
        desk goes by ``wanted``. A key-less counter claims none (its role may not write the
        shop's desks): it goes by the name wanted, or its computer's."""
        if self.keyless:
            return wanted or computer
        try:
            name = await self.engine.write(lambda conn: claim_name(conn, installation, computer, wanted))
        except NameTaken as error:
            raise DeskNameRefused(str(error)) from None
        self.keeper.name = name
        self.keeper.poke()
        return name

    # -- the events -----------------------------------------------------------------------

    def _deliver(self, events: list[LedgerEvent]) -> None:
        """On the loop: the feed's rows. The other desks' are followed, each once."""
        for event in events:
            if event.desk == self.engine.desk:
                continue
            key = (event.kind, event.profile_id, event.mode, event.key)
            self._pending.pop(key, None)  # followed once, after the newest
            self._pending[key] = event
        if self._pending:
            self._wake.set()

    async def _follow(self) -> None:
        try:
            await self.feed.start()
            self._say()
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._pending:
                    _, event = self._pending.popitem(last=False)
                    try:
                        await self._follow_one(event)
                        self.events_followed += 1
                    except asyncio.CancelledError:
                        raise
                    except LedgerUnreachable as error:  # again once it is back
                        key = (event.kind, event.profile_id, event.mode, event.key)
                        self._pending.setdefault(key, event)
                        self._pending.move_to_end(key, last=False)
                        log.info("following a change of another desk waits: %s", error)
                        await self._until_back()
                    except Exception:  # one event's fault is not the feed's
                        log.exception("following %s %s failed", event.kind, event.key)
        finally:
            await self.feed.close()

    async def _until_back(self) -> None:
        """Wait, once, until the ledger is reachable again (the feed's reconnection or the
        lease keeper's renewal says so), not re-reading the same event every second."""
        if not self.engine.reachable:
            self._back.clear()
            await self._back.wait()

    async def _abandoned(self) -> None:
        """Every ``ABANDONED_EVERY`` s, the lease holder settles creates another desk left
        unfinished (it went away before their answer). Never ends on an error."""
        while True:
            await asyncio.sleep(ABANDONED_EVERY)
            try:
                await self.poller.watch_abandoned()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - the next round tries again
                log.info("looking for abandoned creates failed: %s", error)

    async def _follow_one(self, event: LedgerEvent) -> None:
        kind, profile_id, mode, key = event.kind, event.profile_id, event.mode, event.key
        hub, cards = self.hub, self.card_ledger
        if kind == "link":
            record = await self.ledger.get(profile_id, key)
            if record is not None:
                self._announce(record)
        elif kind in ("card", "card_tx"):
            card = await cards.card(profile_id, mode, key)
            if card is not None:
                (hub.card_changed if kind == "card" else hub.card_transactions_changed).emit(card)
        elif kind == "cards":
            hub.cards_refreshed.emit(profile_id, mode)
        elif kind == "operation":
            operation = await cards.operation(int(key))
            if operation is not None:
                hub.operation_changed.emit(operation)
        elif kind == "audit":
            hub.audit_added.emit(profile_id, mode)
        elif kind == "merchant":
            await self.merchant_changed(key)
        elif kind == "lease":
            self.keeper.poke()
        elif kind == "import":  # a desk's old ledger imported: the views read again, and
            hub.session_changed.emit()  # the lease holder watches its open records
            await self.poller.watch_all()
        elif kind == "inbox":
            entry = await self.inbox.get(int(key))
            if entry is not None:
                hub.notification_changed.emit(entry)
        elif kind == "refused":
            hub.refused_changed.emit(key)
        elif kind == "sale" and self.book is not None:
            sale = await self.book.sale(profile_id, key)
            if sale is not None:
                hub.sale_changed.emit(sale)
        elif kind == "shift" and self.book is not None:
            shift = await self.book.shift(int(key))
            if shift is not None:
                hub.shift_changed.emit(shift)
        elif kind == "batch":
            hub.batch_changed.emit(int(key))
        elif kind == "request":  # a key-less counter's sale request, written or answered
            hub.request_changed.emit(int(key))

    def _announce(self, record: LinkRecord) -> None:
        before = self._states.get(record.key)
        settled = record.final and (
            (before is not None and before != record.state)
            or (before is None and (datetime.now(UTC) - record.updated_at < timedelta(seconds=JUST_SETTLED)))
        )
        with self.poller.foreign():
            self.hub.record_changed.emit(record)
            if settled:
                self.hub.record_settled.emit(record)

    def _remember(self, record: LinkRecord) -> None:
        self._states.pop(record.key, None)
        self._states[record.key] = record.state
        while len(self._states) > REMEMBERED:
            self._states.popitem(last=False)

    async def _reload_profiles(self, merchant_id: str) -> None:
        await self.session.reload_profiles()  # says session_changed (and profile_deleted)


def wire_shared(
    engine: PgEngine,
    *,
    hub: Hub,
    session: Session,
    links: LinksController,
    ledger: Ledger,
    card_ledger: CardLedger,
    book: CounterBook | None = None,
    name: str | None = None,
    ttl: float = LEASE_TTL,
    renew_every: float = LEASE_RENEW,
    lease_priority: int = DESK,
) -> tuple[Live, Scheduler]:
    """A desk's scheduler and live parts on a shared ledger (``build_desk`` with a URL): the
    scheduler checks as the lease holder only (``Poller``), hears ``record_changed`` through
    the poller, and a create or card operation is refused while the ledger is out of reach.
    ``name``: how the other desks' status bars name this one until its name is claimed
    (``Live.claim_name``, at open).
    ``lease_priority``: ``DESK``, or ``RECEIVER`` for paydesk-receiver, which takes the
    lease from a desk holding it (one process watches the shop's open links and receives
    its notifications)."""
    keeper = LeaseKeeper(engine, name or computer_name(), ttl=ttl, renew_every=renew_every, priority=lease_priority)
    poller = Poller(links, ledger, lambda: keeper.fence)
    scheduler = Scheduler(
        poller.check, links.settle, busy=lambda record: record.key in links.creating, paid=poller.paid
    )  # refunds, reversals: the lease holder's too
    poller.scheduler = scheduler
    hub.record_changed.connect(poller.seen)
    hub.profile_deleted.connect(scheduler.forget)
    live = Live(
        engine,
        hub=hub,
        session=session,
        ledger=ledger,
        card_ledger=card_ledger,
        poller=poller,
        keeper=keeper,
        book=book,
    )
    return live, scheduler
