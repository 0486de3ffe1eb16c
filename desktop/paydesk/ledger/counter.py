"""The counter's book: the sales made at a shop's counters, their voids, what was decided about
a payment that came after a void, and the shifts with their figures frozen at close.

A *sale* is a payment link made at a counter (its record is in the ledger's ``links``, by
profile and tx_ref); the book adds which counter and shift made it and its number in the
counter's sequence ("Sale 0042"). The sale is written before its link's intent, so a crash
between the two leaves a sale with no record ("not sent", counted as failed).

Everything here is append-only, by the same rule as the card audit (triggers refuse UPDATE
and DELETE, and TRUNCATE on PostgreSQL): a sale, a void, a decision after a void, a shift's
opening and its close are each one row written once. What a sale *is* now (paid, open,
voided...) is derived when read, from its link's state and the rows beside it. A closed
shift's figures are the ones frozen in its close row; they never change afterwards.

``CounterBook`` is the interface; ``SqliteCounterBook`` (beside a desk's SQLite ledger) and
``PostgresCounterBook`` (on a shop's shared ledger, where finance sees every counter)
implement it.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from typing import Any

from .errors import LedgerError
from .records import LinkRecord

# What a sale is now, derived from its link's state and its void (in this order of rules):
PAID_AFTER_VOID = "paid after void"  # voided, and its link was paid anyway (success,
#                                      refunded or reversed): shown loudly until decided
VOIDED = "voided"  # voided, and not paid
PAID = "paid"  # its link is success, refunded or reversed (it was paid at the counter)
OPEN = "open"  # its link is creating, pending or unknown (the customer may still pay)
FAILED = "failed"  # its link was refused, failed or cancelled, or never written ("not sent")
KINDS = (PAID, OPEN, FAILED, VOIDED, PAID_AFTER_VOID)
PAID_STATES = ("success", "refunded", "reversed")
OPEN_STATES = ("creating", "pending", "unknown")

# What someone decided about a payment that came after its void:
REFUND = "refund"  # the money is to be given back (through the service's dashboard)
KEEP = "keep"  # the sale stands: the customer paid for what they took
DECISIONS = (REFUND, KEEP)


class ShiftClosed(Exception):
    """The shift was closed already (by this desk or another): nothing was written."""


class SalePaid(LedgerError):
    """A void refused: the ledger holds the sale's link paid (success, refunded or
    reversed), whatever a screen showed when the staff asked. Nothing was written; ``sale``
    is the sale as the ledger holds it (PAID)."""

    def __init__(self, sale: Sale):
        super().__init__(f"{sale.tx_ref} is paid: nothing was voided")
        self.sale = sale


@dataclass(frozen=True)
class CurrencyFigures:
    """One currency's amounts in a count (Decimal, in the currency's units)."""

    paid: Decimal = Decimal(0)
    open: Decimal = Decimal(0)
    voided: Decimal = Decimal(0)
    paid_after_void: Decimal = Decimal(0)


@dataclass(frozen=True)
class Figures:
    """A count of sales (a shift's, or today's of a counter): how many of each kind, the
    amounts per currency, the first and last sale's times. ``to_json``/``from_json`` are the
    form frozen in a shift's close row (amounts as strings, times as ledger stamps)."""

    made: int = 0
    paid: int = 0
    open: int = 0
    failed: int = 0
    voided: int = 0
    paid_after_void: int = 0
    currencies: dict[str, CurrencyFigures] = field(default_factory=dict)
    first_sale: datetime | None = None
    last_sale: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        from .records import stamp

        return {
            "made": self.made,
            "paid": self.paid,
            "open": self.open,
            "failed": self.failed,
            "voided": self.voided,
            "paid_after_void": self.paid_after_void,
            "currencies": {
                c: {
                    "paid": str(f.paid),
                    "open": str(f.open),
                    "voided": str(f.voided),
                    "paid_after_void": str(f.paid_after_void),
                }
                for c, f in sorted(self.currencies.items())
            },
            "first_sale": stamp(self.first_sale) if self.first_sale else None,
            "last_sale": stamp(self.last_sale) if self.last_sale else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Figures:
        from .records import parse_stamp

        return cls(
            made=int(data.get("made", 0)),
            paid=int(data.get("paid", 0)),
            open=int(data.get("open", 0)),
            failed=int(data.get("failed", 0)),
            voided=int(data.get("voided", 0)),
            paid_after_void=int(data.get("paid_after_void", 0)),
            currencies={
                c: CurrencyFigures(*(Decimal(f.get(k, "0")) for k in ("paid", "open", "voided", "paid_after_void")))
                for c, f in (data.get("currencies") or {}).items()
            },
            first_sale=parse_stamp(data.get("first_sale")),
            last_sale=parse_stamp(data.get("last_sale")),
        )


@dataclass(frozen=True)
class Shift:
    id: int
    counter: str  # the counter's name ("Till 1"; by default the computer's name)
    profile_id: str
    mode: str
    opened_at: datetime
    opened_by: str  # the computer's user who opened it
    closed_at: datetime | None = None
    closed_by: str | None = None
    figures: Figures | None = None  # frozen at close; None while open
    # the person signed in who opened it, who closed it (None: no staff set up)
    opened_actor: str | None = None
    closed_actor: str | None = None

    @property
    def closed(self) -> bool:
        return self.closed_at is not None


@dataclass(frozen=True)
class Sale:
    id: int  # the book's own row id: newest first is id descending
    profile_id: str
    mode: str
    tx_ref: str
    counter: str
    shift_id: int
    number: int  # in the counter's sequence, all its shifts: "Sale 0042"
    made_at: datetime
    made_by: str
    kind: str  # one of KINDS, derived when read
    record: LinkRecord | None = None  # its link as the ledger holds it (None: never written)
    voided_at: datetime | None = None
    voided_by: str | None = None
    decision: str | None = None  # after a payment after void: REFUND or KEEP
    decided_at: datetime | None = None
    decided_by: str | None = None
    # the person signed in who made it, voided it, decided after the void (None: no staff)
    actor: str | None = None
    voided_actor: str | None = None
    decided_actor: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.profile_id, self.tx_ref)

    @property
    def voided(self) -> bool:
        return self.voided_at is not None

    def older_than(self, known: Sale) -> bool:
        """This word on the sale is older than ``known``, the same sale as last heard: its
        link not written yet or in a state it has left, or its void or the decision after
        it not made yet (each only ever moves forward). A shared ledger's changes can be
        heard in another order than they were written; the older word is not shown."""
        if known.record is not None and (self.record is None or self.record.older_than(known.record)):
            return True
        return (known.voided and not self.voided) or (known.decision is not None and self.decision is None)

    @property
    def needs_decision(self) -> bool:
        """Paid after its void, and nobody has decided yet: shown loudly."""
        return self.kind == PAID_AFTER_VOID and self.decision is None


def with_record(sale: Sale, record: LinkRecord) -> Sale:
    """``sale`` with its link as just stored, its kind derived by the book's rules
    (void first, then the link's state), before the book is read again."""
    paid = record.state in PAID_STATES
    if sale.voided:
        kind = PAID_AFTER_VOID if paid else VOIDED
    else:
        kind = PAID if paid else OPEN if record.state in OPEN_STATES else FAILED
    return replace(sale, record=record, kind=kind)


@dataclass(frozen=True)
class SaleQuery:
    """Which sales a list shows, newest first. Every field narrows; None: any."""

    profile_id: str | None = None
    mode: str | None = None
    counter: str | None = None
    shift_id: int | None = None
    since: datetime | None = None  # made at or after
    kinds: tuple[str, ...] = ()  # only these kinds (empty: all)
    undecided: bool = False  # only paid after void with no decision yet
    hide_decided: bool = False  # leave out the payments after void already decided (refund
    #                             or keep): finance's "still to do" list, paged in SQL


class CounterBook(abc.ABC):
    """The counters' book of one ledger (a desk's file, or a shop's shared database).
    Writes are durable when they return; every write is one transaction."""

    @abc.abstractmethod
    async def open_shift(self, counter: str, profile_id: str, mode: str, by: str, *, actor: str | None = None) -> Shift:
        """The open shift of ``counter`` in this profile and mode, opened now (by ``by``, the
        computer's user, and ``actor``, the person signed in) if it has none. At most one
        open shift per counter, profile and mode, even when two desks ask at once."""

    @abc.abstractmethod
    async def current_shift(self, counter: str, profile_id: str, mode: str) -> Shift | None:
        """The open shift, or None (nothing is written)."""

    @abc.abstractmethod
    async def shift(self, shift_id: int) -> Shift | None: ...

    @abc.abstractmethod
    async def next_number(self, counter: str) -> int:
        """The number ``counter``'s next sale would carry (1 for a new counter); nothing is
        used up (the staff's screen shows "Sale 0042" before Enter)."""

    @abc.abstractmethod
    async def add_sale(self, shift_id: int, tx_ref: str, by: str, *, actor: str | None = None) -> Sale:
        """A sale of an open shift, before its link's intent is written: the next number of
        the shift's counter (unique per counter, even with two desks). Raises ShiftClosed
        when the shift is closed. The returned sale's kind is FAILED until its link exists."""

    @abc.abstractmethod
    async def void(self, profile_id: str, tx_ref: str, by: str, *, actor: str | None = None) -> Sale:
        """Void a sale: the counter stops showing it (its link is still watched). Voiding a
        voided sale returns it as it is. Raises SalePaid, writing nothing, when its link is
        paid already (read in the void's own transaction: a payment is never booked as
        "paid after void" because a screen lagged), LedgerError when it is not a sale."""

    @abc.abstractmethod
    async def decide(self, profile_id: str, tx_ref: str, decision: str, by: str, *, actor: str | None = None) -> Sale:
        """Settle a payment after void (``decision``: REFUND or KEEP). A decision already
        written stands (the sale is returned as it is). Raises LedgerError when the sale is
        not paid after void."""

    @abc.abstractmethod
    async def sale(self, profile_id: str, tx_ref: str) -> Sale | None: ...

    @abc.abstractmethod
    async def sales(self, query: SaleQuery, before: int | None = None, limit: int = 100) -> list[Sale]:
        """Sales matching ``query``, newest first (id descending), those with id < ``before``,
        found by seeking along an index; each with its link's record."""

    @abc.abstractmethod
    async def figures(self, query: SaleQuery) -> Figures:
        """The count of the sales matching ``query``, computed in SQL."""

    @abc.abstractmethod
    async def close_shift(self, shift_id: int, by: str, *, actor: str | None = None) -> Shift:
        """Freeze the shift's figures (computed in the same transaction) and close it: the
        counter's next sale opens a new shift, at zero. Raises ShiftClosed when it was closed
        already."""

    @abc.abstractmethod
    async def shifts(
        self,
        profile_id: str | None = None,
        mode: str | None = None,
        counter: str | None = None,
        before: int | None = None,
        limit: int = 100,
    ) -> list[Shift]:
        """Shifts, newest first (id descending), of every counter unless ``counter``."""
