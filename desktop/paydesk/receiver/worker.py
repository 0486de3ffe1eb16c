"""The re-read: a kept notification only says "look again". Each original is looked up at
the service with its profile's secret key, through the same path as a window's lookup
(``LinksController.look_up``: the ledger's ``record_lookup`` with learned_by
"notification", then the hub, so the views, the scheduler and, on a shared ledger, every
desk hear of it; a final state never moves back). Then the inbox says what was decided.
A counter sale's re-read is a person's look-up for the call budget (its customer waits at
the counter); any other's goes with the codes on screen.

At its start the worker re-reads every original a stopped receiver left ``pending``; then
what the server hands it. A re-read that fails (the service out of reach, the ledger busy)
is tried again with a growing pause; one that keeps failing stays pending, and is taken up
again by the rescan of every pending original (every ``RESCAN_EVERY`` s), or at once when
the same notification is sent again (the server hands the still pending original back). An
original is never re-read twice at a time (queued or under way). Nothing ends the loops but
cancellation.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from ..config.profiles import MODES, Profile
from ..desk.build import Desk
from ..desk.leases import NoKeyError
from ..desk.states import state_words
from ..desk.tasks import TaskSet
from ..ledger.inbox import (
    APPLIED,
    IGNORED,
    PENDING,
    STALE,
    UNKNOWN_REFERENCE,
    InboxEntry,
)
from ..ledger.records import LinkRecord
from ..service.call_class import CallClass, calls_as
from ..service.errors import ModeMismatchError, NotFoundError

log = logging.getLogger("paydesk.receiver")
ATTEMPTS = 8  # re-reads of one notification before it is left for the next start
FIRST_PAUSE = 0.5  # s, doubled after each failure
LONGEST_PAUSE = 30.0
AT_ONCE = 8  # re-reads under way at a time
RESCAN_EVERY = 60.0  # s: how often the originals still pending are looked for


@dataclass(frozen=True)
class Decision:
    verdict: str
    detail: str
    mode: str | None = None
    record: LinkRecord | None = None


class Worker:
    def __init__(self, desk: Desk, tasks: TaskSet):
        self.desk = desk
        self.tasks = tasks
        self.inbox = desk.inbox
        self._queue: asyncio.Queue[InboxEntry] = asyncio.Queue()
        self._under_way: set[int] = set()  # queued or being re-read: never twice at a time
        self._slots = asyncio.Semaphore(AT_ONCE)
        self.attempts = ATTEMPTS
        self.rescan_every = RESCAN_EVERY

    def put(self, entry: InboxEntry) -> None:
        """Re-read ``entry`` (an original still pending) soon, unless it is queued or under
        way already; the server calls this after answering."""
        if entry.id in self._under_way:
            return
        self._under_way.add(entry.id)
        self._queue.put_nowait(entry)

    async def run(self) -> None:
        """The backlog a stopped receiver left, then each notification as it comes, and
        every ``rescan_every`` s the originals still pending (a re-read that gave up)."""
        await self._rescan("left pending by an earlier run")
        self.tasks.spawn(self._rescans(), "look for notifications still pending")
        while True:
            entry = await self._queue.get()
            await self._start(entry)

    async def _rescans(self) -> None:
        while True:
            await asyncio.sleep(self.rescan_every)
            try:
                await self._rescan("still pending")
            except asyncio.CancelledError:
                raise
            except Exception:  # the loop survives anything: said, then again
                log.exception("looking for notifications still pending failed; again in %gs", self.rescan_every)

    async def _rescan(self, why: str) -> None:
        pause = FIRST_PAUSE
        while True:
            try:
                left = await self.inbox.pending()
                break
            except Exception:  # the loop survives anything: said, paused, again
                log.exception("the notifications left pending could not be read; again in %gs", pause)
                await asyncio.sleep(pause)
                pause = min(pause * 2, LONGEST_PAUSE)
        left = [entry for entry in left if entry.id not in self._under_way]
        if left:
            log.info("%d notification(s) %s: looking them up", len(left), why)
        for entry in left:
            if entry.id not in self._under_way:  # (handed over meanwhile by the server)
                self._under_way.add(entry.id)
                await self._start(entry)

    async def _start(self, entry: InboxEntry) -> None:
        """Re-read ``entry`` (already counted in ``_under_way``) once a slot is free."""
        try:
            await self._slots.acquire()  # a bounded number at a time; the queue waits
        except BaseException:
            self._under_way.discard(entry.id)
            raise
        self.tasks.spawn(self._handle(entry), f"re-read notification {entry.id}")

    async def _handle(self, entry: InboxEntry) -> None:
        pause = FIRST_PAUSE
        try:
            attempts = self.attempts
            for attempt in range(1, attempts + 1):
                try:
                    decision = await self.reread(entry)
                    decided = await self.inbox.decide(entry.id, decision.verdict, decision.detail, mode=decision.mode)
                except Exception as error:  # noqa: BLE001 - said, paused, tried again
                    if attempt == attempts:
                        log.warning(
                            "notification %d (%s): not looked up after %d tries (%s); "
                            "it stays pending, tried again within %gs",
                            entry.id,
                            entry.tx_ref,
                            attempt,
                            type(error).__name__,
                            self.rescan_every,
                        )
                        return
                    log.info(
                        "notification %d (%s): look-up failed (%s: %s); again in %gs",
                        entry.id,
                        entry.tx_ref,
                        type(error).__name__,
                        error,
                        pause,
                    )
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, LONGEST_PAUSE)
                    continue
                log.info("notification %d (%s): %s, %s", entry.id, entry.tx_ref, decided.verdict, decided.detail)
                self.desk.hub.notification_changed.emit(decided)
                return
        finally:
            self._under_way.discard(entry.id)
            self._slots.release()

    async def reread(self, entry: InboxEntry) -> Decision:
        """Look the payment up again and say what that decided (nothing is decided here on
        the body's word). Raises what is worth trying again (the service out of reach...)."""
        if entry.verdict != PENDING:
            return Decision(entry.verdict, entry.detail, entry.mode)
        profile = self.desk.session.settings.profile(entry.profile_id or "")
        if profile is None:
            return Decision(IGNORED, "Its profile is no longer in PayDesk: nothing looked up", entry.mode)
        if entry.tx_ref is None:
            return Decision(IGNORED, "The notification names no payment reference", entry.mode)
        if entry.event is not None and not entry.event.startswith("payment."):
            return Decision(IGNORED, f"Not about a payment ({entry.event}): nothing to look up", entry.mode)
        known = await self.desk.session.ledger.get(profile.id, entry.tx_ref)
        if known is not None and entry.mode not in (None, known.mode):
            known = None  # the ledger's record is of the other mode: this one is not it
        modes: tuple[str, ...]
        if entry.mode is not None:  # the secret key of that mode verified it
            modes = (entry.mode,)
        elif known is not None:  # a webhook secret: the record says the mode
            modes = (known.mode,)
        else:  # a webhook secret, a reference the ledger lacks: the mode whose key finds it
            modes = MODES
        return await self._look_up(
            profile, entry.tx_ref, modes, known, await self._class_of(profile, entry.tx_ref, known)
        )

    async def _class_of(self, profile: Profile, tx_ref: str, known: LinkRecord | None) -> CallClass:
        """A counter's sale: its customer waits at the counter for PAID, a person waiting,
        so its re-read is a person's look-up (served before codes on screen and a batch,
        which then hold off at every desk). Any other link's (a batch's, paid all at once,
        can send hundreds): after people's calls, with the codes on screen."""
        if known is not None and await self.desk.book.sale(profile.id, tx_ref) is not None:
            return CallClass.PERSON_LOOKUP
        return CallClass.ON_SCREEN

    async def _look_up(
        self, profile: Profile, tx_ref: str, modes: tuple[str, ...], known: LinkRecord | None, klass: CallClass
    ) -> Decision:
        nowhere: list[str] = []
        for mode in modes:
            try:
                with calls_as(klass):  # what makes PAID reach a waiting person's screen
                    record, changed = await self.desk.links.look_up(profile, mode, tx_ref, learned_by="notification")
            except (NotFoundError, ModeMismatchError):
                nowhere.append(f"not in {mode} mode")
                continue
            except NoKeyError:
                nowhere.append(f"no {mode} secret key to look it up")
                continue
            said = state_words(record).words
            if known is None:
                return Decision(
                    UNKNOWN_REFERENCE,
                    f"No record had this reference: looked up, the service says {said}; now in the ledger",
                    mode,
                    record,
                )
            if changed:
                return Decision(APPLIED, f"The service says {said}", mode, record)
            return Decision(STALE, f"The ledger already knew: {said}", mode, record)
        why = "; ".join(nowhere)
        if known is not None:
            return Decision(
                STALE,
                f"The service did not find it ({why}): the ledger keeps {state_words(known).words}",
                known.mode,
                known,
            )
        return Decision(
            UNKNOWN_REFERENCE,
            f"No record had this reference, and the service does not know it ({why}): nothing recorded",
            modes[0] if len(modes) == 1 else None,
        )
