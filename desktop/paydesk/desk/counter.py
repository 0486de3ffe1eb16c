"""The counter: a sale a minute, one at a time, written in the counter's book (Qt-free).

A sale is: claim a reference (its number used up), write the sale in the book (before the
link's intent: a crash between the two leaves a sale "not sent", counted as failed), then
create the link with that reference (``LinksController.create(claimed=True)``). Its title is
the staff's note or "Sale 0042"; the customer is the profile's walk-in name and the
customer's e-mail or the shop's own. A refusal is raised; an unknown outcome is not: the sale
stays on the screens ("creating") and the scheduler settles it with the same reference.

One sale at a time: ``selling`` is set before the first await of ``sell``, and a sale whose
link can still be paid holds the counter until ``new_sale`` (which voids it: the service has
no cancel; the link is still watched, and a payment after the void waits for a decision).

The hub hears every sale and shift written here (``sale_changed``, ``shift_changed``); a
record that changed (``record_changed``: checked, settled, another desk's) is read again as
a sale in a task of the controller's own, and said as ``sale_changed`` when it is one.
"""

from __future__ import annotations

import asyncio
import getpass
import logging
from collections import OrderedDict
from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING

from ..config.counter import CounterSettings, name_problem
from ..config.profiles import Profile
from ..i18n import _
from ..ledger import LinkRecord
from ..ledger.counter import (
    OPEN,
    CounterBook,
    Figures,
    Sale,
    SalePaid,
    SaleQuery,
    Shift,
    ShiftClosed,
    with_record,
)
from ..service.errors import AuthenticationError, ServiceError, ValidationError
from ..service.models import PaymentRequest
from .counter_checks import (
    CounterSetupMissing,
    check_sale,
    checked_shop_email,
    counter_payment,
    sale_title,
    setup_missing,
)
from .day import local_midnight
from .links import LinksController
from .scheduler import Scheduler
from .session import Session
from .staff import Capability

if TYPE_CHECKING:
    from .counter_keyless import KeylessSeller

log = logging.getLogger("paydesk.counter")
VIEW = "counter"  # the scheduler's name for what the counter shows (checked often)
UNDECIDED_MOST = 100
NOT_SALES_KEPT = 20_000  # records known not to be sales (not read again when they change)


class SaleUnderWay(Exception):
    """A sale is being made, or its code can still be paid: Enter does nothing."""

    def __init__(self) -> None:
        super().__init__(_("A sale is under way: start a new sale first"))


class RenameRefused(Exception):
    """The counter cannot take this name now (the open shift has sales, or the name is not
    one); ``message`` says why, in the staff's words."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):  # no login name at all (a bare container)
        return "unknown"


class CounterController:
    def __init__(self, session: Session, links: LinksController, book: CounterBook, scheduler: Scheduler):
        self.session, self.links, self.book, self.scheduler = session, links, book, scheduler
        self.hub = session.hub
        self.settings = CounterSettings()
        self.user = _user()
        self.current: Sale | None = None  # the sale on the screens now (None: blank)
        self.selling = False  # a create under way (set before sell's first await)
        self.keyless: KeylessSeller | None = None  # a key-less counter's (desk/build.py)
        self.tasks = session.tasks.child()  # the re-reads of records as sales
        # a sale is written before its link's intent: a record found not to be a sale never
        # becomes one, and is not read again at each of its checks
        self._making: tuple[str, str] | None = None  # the sale being made: sell() says it
        self._not_sales: OrderedDict[tuple[str, str], None] = OrderedDict()
        self.hub.record_changed.connect(self._record_changed)
        self.hub.session_changed.connect(self._session_changed)

    @property
    def name(self) -> str:  # its own name, else its desk's (follows_desk)
        return self.settings.name or self.session.desk_name

    @property
    def follows_desk(self) -> bool:
        return not self.settings.name

    async def has_open_sales(self) -> bool:
        """An open shift of this counter (any profile or mode) has sales: it keeps its name."""
        for profile in list(self.session.settings.profiles):
            for mode in ("test", "live"):
                shift = await self.book.current_shift(self.name, profile.id, mode)
                if shift is not None and await self.book.sales(SaleQuery(shift_id=shift.id), limit=1):
                    return True
        return False

    async def load(self) -> None:
        """Read ``counter.json`` (Desk.open awaits it)."""
        self.settings = await CounterSettings.load(self.session.paths)

    async def set_screen(self, screen: str) -> None:
        """Keep the customer display's screen ("" = this screen) in ``counter.json``."""
        self.session.staff.require(Capability.SELL)  # the counter's own arrangement
        self.settings = replace(self.settings, screen=screen)
        await self.settings.save(self.session.paths)

    # -- the shift ------------------------------------------------------------------------

    async def shift(self) -> Shift:
        """The open shift of this counter in the active profile and mode, opened now if none."""
        return await self._shift_of(*self.session.active(), self.session.staff.actor)

    async def _shift_of(self, profile: Profile, mode: str, actor: str | None) -> Shift:
        shift = await self.book.current_shift(self.name, profile.id, mode)
        if shift is None:
            shift = await self.book.open_shift(self.name, profile.id, mode, self.user, actor=actor)
            self.hub.shift_changed.emit(shift)
        return shift

    async def close_shift(self, shift_id: int) -> Shift:
        """Freeze the figures of shift ``shift_id``, the one the staff confirmed: never the
        shift that happens to be open when the close runs (the profile or mode may have
        changed meanwhile), and no shift is opened in order to be closed. The counter's
        next sale opens a new shift. ShiftClosed when it was closed meanwhile (another
        window on the same data folder, another desk): nothing is written, its close
        stands (``book.shift(shift_id)`` holds it). A shared ledger out of reach: refused
        (its LedgerError) before anything is written."""
        self.session.staff.require(Capability.CLOSE_SHIFT)
        self.session.refuse_while_down()
        closed = await self.book.close_shift(shift_id, self.user, actor=self.session.staff.actor)
        self.hub.shift_changed.emit(closed)
        return closed

    async def rename(self, name: str) -> None:
        """Call this counter ``name`` (kept in ``counter.json``). RenameRefused when the name
        is not one, or an open shift of this counter (any profile, any mode) has sales: a
        shift is always one counter's. The till's name is the shop's record (an Admin's)."""
        self.session.staff.require(Capability.PROFILES)
        problem = name_problem(name)
        if problem:
            raise RenameRefused(problem)
        name = name.strip()
        if name == self.name:
            return
        self.session.refuse_while_down()  # the open shifts' sales cannot be read meanwhile
        if await self.has_open_sales():
            raise RenameRefused(_("The open shift has sales: close the shift first, then rename the counter"))
        self.settings = replace(self.settings, name=name)
        await self.settings.save(self.session.paths)

    # -- a sale ---------------------------------------------------------------------------

    async def next_title(self) -> str:
        """ "Sale 0042": the title this counter's next sale gets without a note (the customer's words)."""
        return sale_title(self.session.profile, await self.book.next_number(self.name))

    def payable(self) -> bool:
        """The sale on the screens can still be paid (its link is open, it is not voided)."""
        return self.current is not None and self.current.kind == OPEN

    def setup_missing(self) -> CounterSetupMissing | None:
        """What the active profile lacks for a sale to a walk-in customer who gives no
        e-mail (the shop's e-mail, the walk-in name), said before the first sale; None when
        it lacks nothing (or there is no profile)."""
        profile = self.session.profile
        return setup_missing(profile) if profile is not None else None

    async def set_shop_email(self, email: str) -> Profile:
        """The shop's e-mail, typed at the counter, checked and saved in the active profile
        (ValidationError on "shop_email" when it is not an address). A profile's setting."""
        self.session.staff.require(Capability.PROFILES)
        text = checked_shop_email(email)
        profile = self.session.profile
        if profile is None:
            raise ValidationError(_("No profile"), {})
        saved = replace(profile, shop_email=text)
        await self.session.save_profile(saved, {})
        return saved

    async def sell(self, amount: str, currency: str, note: str = "", email: str = "") -> Sale:
        """Make a sale: see the module's words. SaleUnderWay while one is being made or its
        code can be paid; BadSale (a ValidationError) or CounterSetupMissing before anything
        is written; the service's refusal raised (the sale is failed); an unknown outcome
        returned as the open sale, settled in the background."""
        self.session.staff.require(Capability.SELL)
        if self.selling or self.payable():
            raise SaleUnderWay()
        self.selling = True
        try:
            # the profile and mode are read once: a switch meanwhile does not move the sale;
            # so is the person who made it (a lock meanwhile does not unname it)
            profile, mode = self.session.active()
            actor = self.session.staff.actor
            checked = check_sale(profile, amount, currency, note, email)
            self.session.refuse_while_down()
            if self.keyless is not None:  # through the shop's key holder (counter_keyless.py)
                return self._made(
                    await self.keyless.sell(self.name, profile.id, mode, **checked.fields(self.user, actor))
                )
            async with self.session.lease(profile, mode):
                pass  # no key, or not the service: refused before anything is written
            sale = await self._add_sale(profile, mode, actor)
            self._making = sale.key
            request = counter_payment(profile, checked.amount, checked.currency, checked.email, checked.note, sale)
            return await self._create(profile, mode, sale, request, actor)
        finally:
            self.selling = False
            self._making = None

    async def _add_sale(self, profile: Profile, mode: str, actor: str | None) -> Sale:
        tx_ref = await self.links.claim_reference(profile)
        shift = await self._shift_of(profile, mode, actor)
        try:
            sale = await self.book.add_sale(shift.id, tx_ref, self.user, actor=actor)
        except ShiftClosed:  # closed by another desk between the two: a new shift
            shift = await self._shift_of(profile, mode, actor)
            sale = await self.book.add_sale(shift.id, tx_ref, self.user, actor=actor)
        self.hub.sale_changed.emit(sale)
        return sale

    async def _create(
        self, profile: Profile, mode: str, sale: Sale, request: PaymentRequest, actor: str | None
    ) -> Sale:
        try:
            record = await self.links.create_as(profile, mode, request, claimed=True, actor=actor)
        except (ValidationError, AuthenticationError):
            await self._reread_now(sale)
            self.current = None
            raise
        except ServiceError:
            made = await self._reread_now(sale)
            if made.record is None or made.kind != OPEN:  # never sent, or refused after all
                self.current = None
                raise
            self.current = made  # the answer was lost: settled with the same reference
            self.scheduler.focus(VIEW, made.record)
            return made
        return self._made(await self._reread_now(sale, record))

    def _made(self, sale: Sale) -> Sale:
        """The sale just made, on the screens (its link watched while it can be paid)."""
        self.current = sale
        self.scheduler.focus(VIEW, sale.record)
        return sale

    async def _reread_now(self, sale: Sale, record: LinkRecord | None = None) -> Sale:
        """The sale as the book has it now, said on the hub."""
        fresh = await self.book.sale(sale.profile_id, sale.tx_ref)
        if fresh is None:  # pragma: no cover - a sale is never deleted (append-only)
            fresh = replace(sale, record=record)
        self.hub.sale_changed.emit(fresh)
        return fresh

    async def new_sale(self) -> Sale | None:
        """Clear the screens for the next customer; the sale shown is voided first if its link
        can still be paid (the caller asked the staff). Returns the voided sale, else None.
        While a sale is being made, nothing happens (None). When the ledger holds the sale
        paid (the customer paid while the staff were asked; ``current`` lagged), nothing is
        voided: it stays the current sale, PAID on the screens, and None is returned."""
        self.session.staff.require(Capability.SELL)
        if self.selling:
            return None
        voided = None
        if self.current is not None and self.payable():
            try:
                voided = await self.void(self.current)
            except SalePaid as paid:  # paid meanwhile: nothing voided, PAID shown
                self._follow(paid.sale)
                return None
        self.current = None
        self.scheduler.focus(VIEW, None)
        return voided

    async def void(self, sale: Sale) -> Sale:
        self.session.staff.require_own(Capability.VOID_OWN_SALE, sale.actor)  # a Counter: their own
        self.session.refuse_while_down()
        voided = await self.book.void(sale.profile_id, sale.tx_ref, self.user, actor=self.session.staff.actor)
        self._follow(voided)
        return voided

    async def decide(self, sale: Sale, decision: str) -> Sale:
        self.session.staff.require_own(Capability.VOID_OWN_SALE, sale.actor)
        self.session.refuse_while_down()
        actor = self.session.staff.actor
        decided = await self.book.decide(sale.profile_id, sale.tx_ref, decision, self.user, actor=actor)
        self._follow(decided)
        return decided

    def _follow(self, sale: Sale) -> None:
        """A sale as just read: the screens' if it is the current one; said on the hub. Not
        a read older than the current one (changes heard late, out of order): dropped."""
        if self.current is not None and self.current.key == sale.key:
            if sale.older_than(self.current):
                return
            self.current = sale
            if sale.kind != OPEN:
                self.scheduler.focus(VIEW, None)
        self.hub.sale_changed.emit(sale)

    # -- the lists --------------------------------------------------------------------------

    def _today_query(self) -> SaleQuery:
        profile, mode = self.session.active()
        return SaleQuery(profile_id=profile.id, mode=mode, counter=self.name, since=local_midnight(date.today()))

    async def today(self, before: int | None = None, limit: int = 100) -> list[Sale]:
        """This counter's sales since local midnight in the active profile and mode, newest
        first (``before``: the page after the sale of that id)."""
        return await self.book.sales(self._today_query(), before, limit)

    async def today_figures(self) -> Figures:
        return await self.book.figures(self._today_query())

    async def undecided(self) -> list[Sale]:
        """The payments after void nobody decided yet, in this profile and mode (every counter's), newest first."""
        profile, mode = self.session.active()
        return await self.book.sales(SaleQuery(profile_id=profile.id, mode=mode, undecided=True), limit=UNDECIDED_MOST)

    # -- changes heard ---------------------------------------------------------------------

    def _session_changed(self) -> None:
        """Another profile or mode is active: a sale of the one before leaves the screens (not
        voided: it stays open in its profile's book and is still watched)."""
        profile, mode = self.session.profile, self.session.mode
        current = self.current
        if current is not None and (profile is None or (current.profile_id, current.mode) != (profile.id, mode)):
            self.current = None
            self.scheduler.focus(VIEW, None)

    def _record_changed(self, record: LinkRecord) -> None:
        if (
            record.origin != "link" or self.tasks.closed or record.key in self._not_sales or record.key == self._making
        ):  # sell() reads it once its link is written
            return
        current = self.current
        if (
            current is not None
            and current.key == record.key
            and not (fresh := with_record(current, record)).older_than(current)
        ):
            # at once, not after the book's read: a sale just paid is no longer payable (the
            # next Enter sells, and New sale never voids it); never back to an older word
            self.current = fresh
        self.tasks.replace(
            f"sale {record.profile_id} {record.tx_ref}", self._record_as_sale(record.profile_id, record.tx_ref)
        )

    async def _record_as_sale(self, profile_id: str, tx_ref: str) -> None:
        """A record that changed, read again as a sale (if it is one). Never raises."""
        try:
            sale = await self.book.sale(profile_id, tx_ref)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - the next change reads it again
            log.info("reading %s as a sale failed: %s", tx_ref, error)
            return
        if sale is not None:
            self._follow(sale)
            return
        self._not_sales[(profile_id, tx_ref)] = None
        while len(self._not_sales) > NOT_SALES_KEPT:
            self._not_sales.popitem(last=False)
