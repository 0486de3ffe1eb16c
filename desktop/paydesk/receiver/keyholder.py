"""The key holder's part of paydesk-receiver (``paydesk-keyholder``): it serves the sale
requests of the shop's key-less counters (desk/counter_keyless.py).

A request is served in steps, each of which can be taken up again where a stopped key holder
left it, the request's id being the anchor:

1. its counter's limits (the largest sale, the sales an hour): a request over one is
   answered "refused" with one plain sentence, which the counter shows;
2. a reference is claimed and the request answered "taken" with it (written once: a counter
   that withdrew its request first wins, and nothing is sold);
3. the sale is written in the counter's book under that reference, on the counter's open
   shift (before its link's intent, as at a counter with keys);
4. the link is created under the rule of intent before call (``LinksController.create_as``:
   the intent written, the service asked, the answer written); a link left "creating" by a
   stopped key holder is settled with the same reference (``settle``: the service ends up
   with one payment).

A request is heard by the ledger's events (``request_changed``) and found again at start and
every ``RESCAN_EVERY`` seconds (``still_open``); one older than ``STALE`` seconds and not
answered is withdrawn (its counter gave up on it). Every loop survives any exception.
"""

from __future__ import annotations

import asyncio
import logging
import math
from decimal import Decimal

from ..config.profiles import Profile
from ..desk.build import Desk
from ..desk.counter_checks import counter_payment
from ..desk.counter_keyless import ANSWER_WAIT
from ..desk.tasks import TaskSet
from ..ledger.counter import Sale, ShiftClosed
from ..ledger.errors import LedgerError
from ..ledger.postgres.requests import REFUSED, TAKEN, WITHDRAWN, SaleAsk, SaleRequests
from ..service.errors import ServiceError
from ..service.money import format_amount

log = logging.getLogger("paydesk.keyholder")
RESCAN_EVERY = 5.0  # s: the requests still open are looked for again this often
STALE = ANSWER_WAIT + 5.0  # s: an unanswered request older than this is withdrawn
AT_ONCE = 8  # requests served at a time
RETRY_PAUSES = (0.2, 0.5, 1.0, 2.0)  # s: a create whose outcome is unknown, settled again


def over_limit(ask: SaleAsk, largest: Decimal | None, per_hour: int | None, taken: int, frees_in: float) -> str:
    """Why ``ask`` is over its counter's limits, in one sentence ("" when it is not)."""
    if largest is not None and ask.amount > largest:
        most = f"{format_amount(largest)} {ask.currency}"
        return f"This counter may sell at most {most} at a time: a finance desk can make this sale."
    if per_hour is not None and taken >= per_hour:
        minutes = max(1, math.ceil(frees_in / 60))
        return (
            f"This counter has made its {per_hour} sales of the last hour: "
            f"the next can be made in {minutes} minute{'s' if minutes != 1 else ''}."
        )
    return ""


class KeyHolder:
    """Serves the sale requests on ``desk``'s shared ledger with ``desk``'s keys."""

    def __init__(self, desk: Desk, tasks: TaskSet):
        assert desk.live is not None, "sale requests are a shared ledger's"
        self.desk, self.tasks = desk, tasks
        self.requests = SaleRequests(desk.live.engine)
        self.rescan_every = RESCAN_EVERY
        self._under_way: set[int] = set()
        self._slots = asyncio.Semaphore(AT_ONCE)
        desk.hub.request_changed.connect(self.heard)

    def stop(self) -> None:
        """Serve no more requests (those under way end with the receiver's tasks)."""
        self.desk.hub.request_changed.disconnect(self.heard)

    def heard(self, request_id: int) -> None:
        """A request written or answered (the ledger's events): served unless under way."""
        if request_id not in self._under_way and not self.tasks.closed:
            self._under_way.add(request_id)
            self.tasks.spawn(self._serve_id(request_id), f"sale request {request_id}")

    async def run(self) -> None:
        """What a stopped key holder left, then every ``rescan_every`` s again."""
        while True:
            try:
                for ask in await self.requests.still_open():
                    if ask.id not in self._under_way:
                        self._under_way.add(ask.id)
                        self.tasks.spawn(self._serve(ask), f"sale request {ask.id}")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - the loop survives anything: again later
                log.warning("the open sale requests could not be read: %s", error)
            await asyncio.sleep(self.rescan_every)

    async def _serve_id(self, request_id: int) -> None:
        try:
            ask = await self.requests.get(request_id)
        except Exception as error:  # noqa: BLE001 - found again by the rescan
            self._under_way.discard(request_id)
            log.info("sale request %d could not be read: %s", request_id, error)
            return
        if ask is None or ask.outcome not in (None, TAKEN):
            self._under_way.discard(request_id)
            return
        await self._serve(ask)

    async def _serve(self, ask: SaleAsk) -> None:
        """Serve ``ask``; a link whose outcome is unknown (the service's answer lost) is
        settled again after ``RETRY_PAUSES``, then by the rescan. Never raises."""
        try:
            for pause in (*RETRY_PAUSES, None):
                try:
                    async with self._slots:
                        await self.serve(ask)
                    return
                except ServiceError as error:  # the link stays "creating": settled again
                    log.info("sale request %d: %s", ask.id, error.message)
                    if pause is None:
                        return
                    await asyncio.sleep(pause)
                    found = await self.requests.get(ask.id)
                    if found is None:
                        return
                    ask = found
        except asyncio.CancelledError:
            raise
        except Exception:  # the next rescan takes it up again
            log.exception("sale request %d could not be served", ask.id)
        finally:
            self._under_way.discard(ask.id)

    async def serve(self, ask: SaleAsk) -> None:
        """Take ``ask`` as far as it goes (module's steps). Raises what is worth trying again."""
        session = self.desk.session
        profile = session.settings.profile(ask.profile_id)
        if ask.outcome is None:
            if ask.age > STALE:
                await self.requests.answer(ask.id, WITHDRAWN, why="too old when the key holder came")
                return
            if profile is None:
                why = "The shop's key holder does not know this counter's merchant: nothing was sold."
                await self.requests.answer(ask.id, REFUSED, why=why)
                return
            if not await session.key(ask.mode, "secret", profile):
                why = f"The shop's key holder has no {ask.mode} key for {profile.shown_name}: nothing was sold."
                await self.requests.answer(ask.id, REFUSED, why=why)
                return
            why = await self._over_limit(ask)
            if why:
                await self.requests.answer(ask.id, REFUSED, why=why)
                log.info("sale request %d of %s refused: %s", ask.id, ask.counter, why)
                return
            tx_ref = await self.desk.links.claim_reference(profile)
            ask = await self.requests.answer(ask.id, TAKEN, tx_ref=tx_ref)
        if ask.outcome != TAKEN or ask.tx_ref is None or profile is None:
            return
        sale = await self._sale(ask, profile)
        record = await session.ledger.get(profile.id, ask.tx_ref)
        if record is None:
            request = counter_payment(profile, ask.amount, ask.currency, ask.email, ask.note, sale)
            await self.desk.links.create_as(profile, ask.mode, request, claimed=True, actor=ask.actor)
        elif record.state == "creating" and record.key not in self.desk.links.creating:
            await self.desk.links.settle(record)

    async def _over_limit(self, ask: SaleAsk) -> str:
        limits = await self.requests.limits(ask.counter)
        taken, frees_in = (0, 0.0)
        if limits.sales_per_hour is not None:
            taken, frees_in = await self.requests.taken_in_hour(ask.counter)
        return over_limit(ask, limits.largest_sale, limits.sales_per_hour, taken, frees_in)

    async def _sale(self, ask: SaleAsk, profile: Profile) -> Sale:
        """The request's sale in the counter's book, written now on its open shift if it is
        not there yet."""
        assert ask.tx_ref is not None
        book = self.desk.book
        sale = await book.sale(profile.id, ask.tx_ref)
        if sale is not None:
            return sale
        for _ in range(3):  # a shift closed by another desk meanwhile: the next one
            shift = await book.open_shift(ask.counter, profile.id, ask.mode, ask.made_by, actor=ask.actor)
            try:
                return await book.add_sale(shift.id, ask.tx_ref, ask.made_by, actor=ask.actor)
            except ShiftClosed:
                continue
            except LedgerError:  # written meanwhile (another key holder): that one
                sale = await book.sale(profile.id, ask.tx_ref)
                if sale is not None:
                    return sale
                raise
        raise LedgerError(f"no open shift of {ask.counter} took sale request {ask.id}")
