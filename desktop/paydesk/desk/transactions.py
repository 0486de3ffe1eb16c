"""Looking payments up, reconciling, the day's figures: async methods, no widgets.

Lookups go through the links controller's ledger and events, so every view showing a
record (links tab, counter display, this tab) learns of a change at once, and a transaction
made elsewhere is watched like a link from then on.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

from ..i18n import _, customer, ngettext, staff
from ..ledger import CREATING, DaySummary, LedgerError, LinkQuery, LinkRecord
from ..service.call_class import CallClass, calls_as
from ..service.errors import (
    AuthenticationError,
    ModeMismatchError,
    NotFoundError,
    NotTheServiceError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
)
from ..service.models import Transaction
from . import activity
from .export import EXPORT_WORDS, writer_for
from .formats import number_in, time_in
from .leases import NoKeyError
from .links import LinksController
from .lookup import read
from .receipt import lines
from .reconcile import Progress, Reconciler
from .staff import Capability, NotAllowed
from .states import state_words

log = logging.getLogger("paydesk.transactions")
EXPORT_PAGE = 2000
RECHECK_PAGE = 200
PAID_DAYS = 30  # a paid record is read again this long: a refund or reversal can still come


@dataclass(frozen=True)
class Lookup:
    record: LinkRecord | None  # what the ledger holds now (None: nothing to show)
    message: str = ""  # what the user should know, in plain words ("" when all is clear)
    asked: bool = False  # the service was asked (False: refused before any call)
    refused: LedgerError | None = None  # the ledger's refusal, when it is what message says


class TransactionsController:
    def __init__(self, links: LinksController):
        self.links = links
        self.session = links.session
        self.ledger = links.ledger

    def _prefixes(self) -> frozenset[str]:
        return frozenset(p.txref_prefix.upper() for p in self.session.settings.profiles)

    async def lookup(self, typed: str) -> Lookup:
        """What the service says about what was typed, pasted or scanned. A shared ledger
        out of reach: its sentence, nothing asked (what was learned could not be kept).
        A person who may not look transactions up: its sentence, nothing asked."""
        try:
            self.session.staff.require(Capability.TRANSACTIONS)
        except NotAllowed as refused:
            return Lookup(None, refused.message)
        profile = self.session.profile
        if profile is None:
            return Lookup(None, _("Add a profile first"))
        what = read(typed, self._prefixes())
        if what.problem:
            return Lookup(None, what.problem)
        tx_ref = what.tx_ref
        if tx_ref is None:  # a checkout URL: the service's reference; the ledger knows whose
            # (read() gives the service's reference whenever it gives no tx_ref nor problem)
            try:
                self.session.refuse_while_down()
                known = await self.ledger.by_reference(profile.id, what.reference or "")
            except LedgerError as refused:
                return Lookup(None, str(refused), refused=refused)
            if known is None:
                return Lookup(
                    None, _("PayDesk has not seen this checkout link: type its merchant reference (tx_ref) instead")
                )
            tx_ref = known.tx_ref
        return await self.check(tx_ref)

    async def check(self, tx_ref: str) -> Lookup:
        """Ask the service about ``tx_ref`` now, in this profile and mode (a shared ledger out
        of reach, or a person who may not: its sentence, nothing asked)."""
        try:
            self.session.staff.require(Capability.TRANSACTIONS)
        except NotAllowed as refused:
            return Lookup(None, refused.message)
        profile, mode = self.session.active()
        try:
            self.session.refuse_while_down()
            known = await self.ledger.get(profile.id, tx_ref)
        except LedgerError as refused:
            return Lookup(None, str(refused), refused=refused)
        try:
            async with self.session.lease(profile, mode) as client:
                with calls_as(CallClass.PERSON_LOOKUP):  # a person asked: served first
                    tx = await client.validate(tx_ref)
        except NoKeyError as error:
            return Lookup(known, str(error))
        except ModeMismatchError as error:
            other = "live" if re.search(r"\blive (transaction|card)", error.message) else "test"
            if other == mode:
                other = "live" if mode == "test" else "test"
            elsewhere = (
                _("This is a LIVE transaction: switch to live mode to see it")
                if other == "live"
                else _("This is a TEST transaction: switch to test mode to see it")
            )
            return Lookup(known, elsewhere, asked=True)
        except AuthenticationError as error:
            broken = (
                _("The live key no longer works ({why}): check it with Edit profile (Ctrl+,)")
                if mode == "live"
                else _("The test key no longer works ({why}): check it with Edit profile (Ctrl+,)")
            )
            return Lookup(known, broken.format(why=error.message), asked=True)
        except NotFoundError:
            return Lookup(None, self._not_found(mode, known), asked=True)
        except NotTheServiceError as error:  # another program answers there: said as such
            return Lookup(known, f"{error.message}. {self._last_known(known)}", asked=True)
        except (ServiceUnavailableError, RateLimitedError) as error:
            return Lookup(known, self._unreachable(error, known), asked=True)
        except ServiceError as error:
            return Lookup(
                known,
                _("The service's answer could not be read ({why}). {last_known}").format(
                    why=str(error), last_known=self._last_known(known)
                ),
                asked=True,
            )
        try:
            return await self._store(profile.id, mode, tx, known)
        except LedgerError as lost:  # gone meanwhile: what the service said is not kept
            return Lookup(known, str(lost), asked=True, refused=lost)

    async def _store(self, profile_id: str, mode: str, tx: Transaction, known: LinkRecord | None) -> Lookup:
        record, changed = await self.ledger.record_lookup(profile_id, mode, tx)
        self.links.announce(record, changed and known is not None)
        message = ""
        if record.state == "pending":
            message = (
                _("Created, but not paid yet (the service says: Payment not submitted, and shows no details)")
                if tx.amount is None  # the family's "Payment not submitted": no details yet
                else _("Created, but not paid yet")
            )
        if known is None:
            made = _(
                "Made elsewhere (website form or inline checkout): now in PayDesk's ledger and watched "
                "until it settles."
            )
            message = f"{made} {message}".strip()  # two sentences
        return Lookup(record, message, asked=True)

    @staticmethod
    def _as(known: LinkRecord) -> str:
        return _("{state}, as of {when}").format(
            state=state_words(known).words, when=time_in(known.checked_at or known.updated_at, staff())
        )

    def _not_found(self, mode: str, known: LinkRecord | None) -> str:
        """Nothing with that reference in ``mode``, and what the ledger has, if anything."""
        if known is None:
            if mode == "live":
                return _("No payment with this reference in live mode")
            return _("No payment with this reference in test mode")
        if mode == "live":
            said = _("No payment with this reference in live mode (PayDesk's ledger has it as {state})")
        else:
            said = _("No payment with this reference in test mode (PayDesk's ledger has it as {state})")
        return said.format(state=self._as(known))

    def _last_known(self, known: LinkRecord | None) -> str:
        if known is None:
            return _("It is not in PayDesk's ledger.")
        return _("Last known: {state} (from PayDesk's ledger).").format(state=self._as(known))

    def _unreachable(self, error: ServiceError, known: LinkRecord | None) -> str:
        """Why the service did not answer, said once ("The service cannot be reached
        (timed out)", never "… cannot be reached (The service cannot be reached)"), in the
        staff's words: the client's own sentence is read for its reason only."""
        if error.words is not None:  # the client's own sentence, in the staff's language
            return f"{str(error).rstrip('.')}. {self._last_known(known)}"
        said = error.message.strip().rstrip(".")
        # the client's own sentence ("The service cannot be reached (timed out)"): its reason
        own = re.match(r"the service cannot be reached\b[\s:(]*(.*?)\)?$", said, re.IGNORECASE)
        if own:
            said = own.group(1)
        text = (
            _("The service cannot be reached ({why})").format(why=said) if said else _("The service cannot be reached")
        )
        return f"{text}. {self._last_known(known)}"  # two sentences

    # -- reconcile ------------------------------------------------------------------------

    async def reconcile(self, on_progress: Callable[[Progress], None] | None) -> Progress:
        """Check every open record of this profile and mode, settle interrupted creates, and
        read again every one paid in the last ``PAID_DAYS`` days (refunded or reversed
        since?). The paid ones come from the ledger a page at a time. A shared ledger out of
        reach: refused (its LedgerError) before any call."""
        self.session.staff.require(Capability.CHECK_ALL_OPEN)
        self.session.refuse_while_down()
        profile, mode = self.session.active()
        creating = [r for r in await self.ledger.unsettled(profile.id) if r.mode == mode]
        records = creating + await self.ledger.open_records(profile.id, mode, limit=None)
        since = datetime.now(UTC) - timedelta(days=PAID_DAYS)
        paid = await self.ledger.count_paid_since(since, profile.id, mode)

        async def pages() -> AsyncIterator[list[LinkRecord]]:
            yield records
            checked = {r.tx_ref for r in records}  # one paid meanwhile is not read twice
            after = None
            while True:
                page = await self.ledger.paid_since(since, profile.id, mode, after=after, limit=RECHECK_PAGE)
                yield [r for r in page.records if r.tx_ref not in checked]
                if not page.more:
                    return
                after = page.end

        with calls_as(CallClass.BACKGROUND):  # every open record: after people's calls
            progress = await self._reconciler(on_progress).run(pages(), len(records) + paid)
        words = staff()
        self.session.report(
            _("Checked the open links ({open}) and the payments of the last {days} days ({paid}): {report}").format(
                open=number_in(len(records), words),
                days=PAID_DAYS,
                paid=number_in(paid, words),
                report=progress.report(),
            )
        )
        return progress

    def _reconciler(self, on_progress: Callable[[Progress], None] | None = None) -> Reconciler:
        async def note(record: LinkRecord, message: str) -> None:
            if record.state != CREATING:
                await self.ledger.note_error(record.profile_id, record.tx_ref, message)

        return Reconciler(self.links.check, self.links.settle, note, on_progress=on_progress)

    async def recheck_day(self, day: date, on_progress: Callable[[Progress], None] | None = None) -> Progress:
        """Read again, with the service, every payment of ``day`` (local time) that PayDesk
        has as paid, before the day is counted: a refund or reversal since is counted as
        such. A page at a time. A shared ledger out of reach: refused before any call."""
        self.session.staff.require(Capability.END_OF_DAY)
        self.session.refuse_while_down()
        start = datetime.combine(day, time.min).astimezone()
        end = datetime.combine(day + timedelta(days=1), time.min).astimezone()
        profile, mode = self.session.active()
        query = LinkQuery(
            profile.id,
            mode,
            states=frozenset({"success"}),
            created_from=start,
            created_to=end,
            sort="created",
            descending=False,
        )
        total = await self.ledger.count(query)

        async def pages() -> AsyncIterator[list[LinkRecord]]:
            after = None
            while True:
                page = await self.ledger.page(query, after=after, limit=RECHECK_PAGE)
                yield page.records
                if not page.more:
                    return
                after = page.end

        with calls_as(CallClass.BACKGROUND):
            return await self._reconciler(on_progress).run(pages(), total)

    # -- export ---------------------------------------------------------------------------

    async def export(
        self,
        query: LinkQuery,
        path: Path,
        on_progress: Callable[[int], None] = lambda n: None,
        *,
        report: bool = True,
        file_name: str | None = None,
    ) -> int:
        """Write every record of ``query`` to ``path`` (.csv or .xlsx), a page at a time, off
        the loop's thread. A cancelled or failed export leaves no half-written file.
        ``report``: say it in the status bar (False when ``path`` is only a part of a file
        the caller completes, and names, itself: ``file_name``). A shared ledger out of
        reach: refused (its LedgerError) before the file is begun. The export is noted in
        the activity book with the person who asked for it."""
        self.session.staff.require(Capability.EXPORT)
        self.session.refuse_while_down()
        actor = self.session.staff.actor
        writer = await asyncio.to_thread(writer_for, path)
        written, after, finished = 0, None, False
        try:
            while True:
                page = await self.ledger.page(query, after=after, limit=EXPORT_PAGE)
                await asyncio.to_thread(writer.write, page.records)
                written += len(page.records)
                on_progress(written)
                if not page.more:
                    break
                after = page.end
            finished = True
        finally:  # complete: in place; cancelled or failed: the previous file stays
            await asyncio.to_thread(writer.close, finished)
        await activity.note(
            self.session.activity,
            activity.EXPORT,
            actor,
            profile_id=query.profile_id,
            mode=query.mode,
            detail=EXPORT_WORDS.ngettext(  # the activity book's words: English, as the ledger keeps them
                "Transactions: {n} record to {file}", "Transactions: {n} records to {file}", written
            ).format(n=written, file=file_name or path.name),
        )
        if report:
            self.session.report(
                ngettext("Exported {n} record to {file}", "Exported {n} records to {file}", written).format(
                    n=number_in(written, staff()), file=path.name
                )
            )
        return written

    def receipt(self, record: LinkRecord, merchant: str, language: str | None = None) -> list[tuple[str, str]]:
        """The lines of a paid record's receipt (``receipt.lines``) in the customer's
        ``language``, for printing or a PDF: refused (NotAllowed) unless the person may give
        receipts."""
        self.session.staff.require(Capability.RECEIPTS)
        return lines(record, merchant, customer(language))

    # -- the day's figures ----------------------------------------------------------------

    async def day_summary(self, day: date) -> DaySummary:
        """The figures of ``day`` in local time, for this profile and mode."""
        self.session.staff.require(Capability.END_OF_DAY)
        start = datetime.combine(day, time.min).astimezone()
        end = datetime.combine(day + timedelta(days=1), time.min).astimezone()
        profile, mode = self.session.active()
        return await self.ledger.day_summary(profile.id, mode, start, end)
