"""The notification inbox: every notification the receiver is sent, kept before it is answered.

A notification only says "look again": the receiver keeps it here (raw body, headers, time),
answers, then re-reads the transaction from the service and writes down what it decided
(``decide``). A body is believed once: the first verified arrival of a body is its
*original* (unique on the body's SHA-256), every later arrival of the same bytes is kept as
a ``duplicate`` and changes nothing. An original still ``pending`` (the receiver stopped
between answering and re-reading) is re-read at the receiver's next start.

A body whose signature matches no key is never kept: anyone may send one, as fast as they
like. It is *refused* (``refuse``) and leaves a trace of bounded size (time, peer, size,
SHA-256 and its first ``REFUSED_HEAD`` bytes); a peer leaves at most ``REFUSED_PER_MINUTE``
traces a minute, and all peers together ``REFUSED_ALL_PER_MINUTE``: the rest are counted in
one row per peer and minute (the peers past the limit of all together: in one row, peer
``OTHERS``). The traces are listed by peer (``refused_groups``) and pruned after their time
(``prune_refused``; the receiver keeps them ``REFUSED_KEPT`` by default).

``Inbox`` is the interface; ``SqliteInbox`` (beside a desk's SQLite ledger) and
``PostgresInbox`` (on a shop's shared ledger) implement it.
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

PENDING = "pending"  # verified and kept; not re-read yet
APPLIED = "applied"  # re-read: the record was written (its state changed, or it was new)
DUPLICATE = "duplicate"  # the same body was received before: nothing done
BAD_SIGNATURE = "bad signature"  # no key verifies it: refused (kept before schema 10 / 6)
UNKNOWN_REFERENCE = "unknown reference"  # no record had its reference: looked up anyway
STALE = "stale"  # re-read: the ledger already knew as much (or more); nothing moved
IGNORED = "ignored"  # verified, but not about a payment (a card's event): nothing to re-read
VERDICTS = (PENDING, APPLIED, DUPLICATE, BAD_SIGNATURE, UNKNOWN_REFERENCE, STALE, IGNORED)
LIMIT = 64 * 1024  # bytes: a larger body is refused before it is read (never kept)
NO_SIGNATURE = "no signature"  # a refusal's reason: no Signature header at all
REFUSED_HEAD = 256  # bytes of a refused body traced
REFUSED_PER_MINUTE = 10  # traces one peer leaves a minute; the rest are counted
REFUSED_ALL_PER_MINUTE = 30  # traces all peers together leave a minute
REFUSED_KEPT = timedelta(days=7)  # how long the receiver keeps them, unless told otherwise
OTHERS = "*"  # the peer of the row that counts what came past the limit of all together


def body_hash(body: bytes) -> str:
    """What makes two notifications the same: the SHA-256 of their raw bytes, hex."""
    return hashlib.sha256(body).hexdigest()


@dataclass(frozen=True)
class InboxEntry:
    id: int
    received_at: datetime
    body_hash: str
    body: bytes = field(repr=False)
    headers: dict[str, str] = field(default_factory=dict)  # names lower-cased
    remote: str = ""  # the peer's address as the receiver saw it (behind a proxy: the proxy)
    verdict: str = PENDING
    detail: str = ""  # in words: why this verdict ("the service says PAID", ...)
    profile_id: str | None = None  # decided by the key that verified, never by the body
    mode: str | None = None  # None until known (a webhook secret serves both modes)
    tx_ref: str | None = None  # what the body names (only a hint until re-read)
    event: str | None = None  # "payment.completed", ... or None for the family's bare body
    duplicate_of: int | None = None  # for a duplicate: the original's id
    decided_at: datetime | None = None

    @property
    def verified(self) -> bool:
        return self.verdict != BAD_SIGNATURE


@dataclass(frozen=True)
class Refusal:
    """A refused request's trace, or (``counted``) the row counting those of one peer in one
    minute past its limit: ``count`` of them, ``size`` bytes together, no hash nor head."""

    id: int
    received_at: datetime  # the first
    last_at: datetime  # the last (of a trace: the same)
    remote: str  # the peer (behind a proxy: the address the proxy names); OTHERS
    reason: str  # BAD_SIGNATURE or NO_SIGNATURE
    size: int  # bytes of the body (of a counter row: of all its bodies)
    count: int = 1
    body_hash: str | None = None  # SHA-256 of the whole body, hex (None: a counter row)
    head: bytes = field(default=b"", repr=False)  # its first REFUSED_HEAD bytes
    counted: bool = False  # a counter row

    @property
    def news(self) -> bool:
        """A trace, or a counter row just made: worth a log line and an event (a count that
        goes up is not)."""
        return not self.counted or self.count == 1


@dataclass(frozen=True)
class RefusedGroup:
    """The refusals of one peer since a time: how many, how many bytes, first and last."""

    remote: str
    count: int
    size: int
    first_at: datetime
    last_at: datetime


@dataclass(frozen=True)
class InboxQuery:
    """Which entries a list shows (newest first)."""

    verdict: str | None = None  # one of VERDICTS
    profile_id: str | None = None
    mode: str | None = None
    text: str = ""  # a part of the reference or the event, literally (case ignored)
    since: datetime | None = None


class Inbox(abc.ABC):
    """The inbox of one ledger (a desk's file, or a shop's shared database)."""

    @abc.abstractmethod
    async def receive(
        self,
        body: bytes,
        headers: Mapping[str, str],
        remote: str,
        *,
        profile_id: str | None = None,
        mode: str | None = None,
        tx_ref: str | None = None,
        event: str | None = None,
    ) -> tuple[InboxEntry, bool]:
        """Keep one verified notification, durably, before it is answered. Returns the entry
        and whether it is to be re-read: True only for the first arrival of its body
        (verdict ``pending``); a body seen before is kept as ``duplicate`` (with
        ``duplicate_of``), and False. (A body no key verifies goes to ``refuse``.)"""

    @abc.abstractmethod
    async def refuse(self, body: bytes, remote: str, *, reason: str = BAD_SIGNATURE) -> Refusal:
        """Trace one refused request (its body never kept whole), or count it when its peer
        (or every peer together) left enough traces this minute. Returns the trace, or the
        counter row as it now stands."""

    @abc.abstractmethod
    async def refused_page(self, before: int | None = None, limit: int = 100) -> list[Refusal]:
        """Traces and counter rows, newest first (by id), those with id < ``before``."""

    @abc.abstractmethod
    async def refused_groups(self, since: datetime, limit: int = 20) -> list[RefusedGroup]:
        """The refusals since ``since``, one group per peer, the most first."""

    @abc.abstractmethod
    async def prune_refused(self, before: datetime) -> int:
        """Forget the refusals last seen before ``before``; how many rows went."""

    @abc.abstractmethod
    async def decide(
        self,
        entry_id: int,
        verdict: str,
        detail: str,
        *,
        profile_id: str | None = None,
        mode: str | None = None,
        tx_ref: str | None = None,
    ) -> InboxEntry:
        """Write down what the re-read decided for a ``pending`` entry (and the mode or
        reference it found, when given). An entry already decided keeps its verdict."""

    @abc.abstractmethod
    async def get(self, entry_id: int) -> InboxEntry | None: ...

    @abc.abstractmethod
    async def pending(self, limit: int = 500) -> list[InboxEntry]:
        """Originals not re-read yet, oldest first (what a stopped receiver left)."""

    @abc.abstractmethod
    async def page(self, query: InboxQuery, before: int | None = None, limit: int = 100) -> list[InboxEntry]:
        """Entries matching ``query``, newest first (by id), those with id < ``before``."""

    @abc.abstractmethod
    async def count(self, query: InboxQuery) -> int: ...

    @abc.abstractmethod
    async def last_received(self, profile_id: str | None = None, mode: str | None = None) -> datetime | None:
        """When the newest verified notification (not a duplicate) arrived, if any: of
        ``profile_id`` (and ``mode``) when given, else of all."""
