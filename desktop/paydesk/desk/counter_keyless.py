"""A counter without a secret key (Qt-free): its sale goes through the shop's key holder.

On a shared ledger, a counter set up key-less (``counter.json``: ``"keyless": true``) never
calls the service. Its sale is a request written to the ledger (``ledger/postgres/
requests.py``; the event's NOTIFY carries its id); the key holder (``paydesk-keyholder``,
receiver/keyholder.py) answers it, makes the sale and its link under the rule of intent
before call, and the counter shows the code when the link arrives (the ledger's events, as
every desk follows the others).

When the key holder is not there (its lease is absent), or does not answer within
``ANSWER_WAIT`` seconds, the counter says so in one sentence and sells nothing: a request
not answered in time is withdrawn (the answer row is written once: a key holder that took
it meanwhile wins, and the sale goes on). Nothing is lost or doubled when the key holder
comes back: it serves what it took and skips what was withdrawn.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ..i18n import N_, _
from ..ledger.counter import FAILED, CounterBook, Sale
from ..ledger.postgres.requests import REFUSED, TAKEN, WITHDRAWN, SaleAsk, SaleRequests
from ..service.errors import ServiceError
from .events import Hub
from .texts import ledger_words

T = TypeVar("T")
ANSWER_WAIT = 8.0  # s: a request not answered by then is withdrawn (the key holder is down)
LINK_WAIT = 20.0  # s: a taken request's link not answered by the service by then stays open
POLL = 0.5  # s: read again even when no event came (the feed's doorbell may be late)
DOWN = N_("The shop's key holder is not running, so this counter cannot sell: nothing was sold.")
SILENT = N_("The shop's key holder did not answer, so this counter cannot sell now: nothing was sold.")


class KeyHolderDown(ServiceError):
    """No key holder serves this counter's requests: one plain sentence, nothing sold."""


class SaleRefused(ServiceError):
    """The key holder refused this sale (a limit of this counter): its sentence."""


class KeylessSeller:
    """Writes a counter's sales as requests and waits for the key holder's answer."""

    def __init__(self, requests: SaleRequests, book: CounterBook, hub: Hub):
        self.requests, self.book, self.hub = requests, book, hub
        self.answer_wait, self.link_wait = ANSWER_WAIT, LINK_WAIT
        self._wake = asyncio.Event()
        hub.request_changed.connect(lambda _id: self._wake.set())
        hub.record_changed.connect(lambda _record: self._wake.set())
        hub.sale_changed.connect(lambda _sale: self._wake.set())

    async def sell(self, counter: str, profile_id: str, mode: str, **fields: object) -> Sale:
        """The sale, once the key holder made it and the service answered (or, when the
        service's answer was lost or is late, as it stands: open, "creating", settled by the
        key holder with the same reference).
        KeyHolderDown, SaleRefused, or the service's refusal (ServiceError) otherwise."""
        if not await self.requests.key_holder_present():
            raise KeyHolderDown(_(DOWN))
        request_id = await self.requests.ask(counter, profile_id, mode, **fields)
        asked = await self._until(lambda: self.requests.get(request_id), _answered, self.answer_wait)
        if asked is None or asked.outcome is None:
            asked = await self.requests.answer(request_id, WITHDRAWN)
            if asked.outcome != TAKEN:  # withdrawn: the key holder never serves it
                raise KeyHolderDown(_(SILENT))
        if asked.outcome == REFUSED:
            raise SaleRefused(asked.why)
        if asked.outcome != TAKEN or asked.tx_ref is None:
            raise KeyHolderDown(_(SILENT))
        tx_ref = asked.tx_ref
        sale = await self._until(lambda: self.book.sale(profile_id, tx_ref), _answered_link, self.link_wait)
        if sale is None:  # taken, the sale not written yet: the key holder writes it
            sale = await self._until(lambda: self.book.sale(profile_id, tx_ref), _written, self.link_wait)
        if sale is None:
            raise KeyHolderDown(_(SILENT))
        if sale.kind == FAILED and sale.record is not None and sale.record.state != "creating":
            raise ServiceError(ledger_words(sale.record.error) or _("The service refused this sale"))
        return sale

    async def _until(
        self, read: Callable[[], Awaitable[T | None]], done: Callable[[T | None], bool], wait: float
    ) -> T | None:
        """``read()`` again at every event heard (and every ``POLL`` s) until ``done`` says so
        or ``wait`` s pass; the last value read."""
        end = time.monotonic() + wait
        while True:
            self._wake.clear()
            found = await read()
            left = end - time.monotonic()
            if done(found) or left <= 0:
                return found
            try:
                await asyncio.wait_for(self._wake.wait(), min(POLL, left))
            except TimeoutError:
                pass


def _answered(asked: SaleAsk | None) -> bool:
    return asked is not None and asked.outcome is not None


def _written(sale: Sale | None) -> bool:
    return sale is not None


def _answered_link(sale: Sale | None) -> bool:
    """The service answered the key holder, or its answer was lost (an error noted on the
    link, as a direct create's): the sale is shown as it stands, and follows its link."""
    record = None if sale is None else sale.record
    return record is not None and (record.state != "creating" or bool(record.error))
