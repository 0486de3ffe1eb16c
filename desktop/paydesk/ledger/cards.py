"""The card wallet as the rest of PayDesk sees it: an async repository of cards (as last
seen from the service), their transactions, every operation (written before its call), and
an append-only audit log.

Nothing here holds a full card number or a security code: cards are stored masked
(``mask``), and the schema refuses a masked number with more than ten digits.
"""

from __future__ import annotations

import abc
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from ..service.models import CardTransaction, VirtualCard
from .card_schema import OPEN_OPERATION_STATES, OPERATION_KINDS, OPERATION_STATES
from .errors import LedgerError

__all__ = [
    "AuditDraft",
    "AuditEntry",
    "AuditQuery",
    "CardLedger",
    "CardOperation",
    "CardPage",
    "CardQuery",
    "CardRecord",
    "CardTxRecord",
    "OperationDraft",
    "OperationUnderWay",
    "OPEN_OPERATION_STATES",
    "OPERATION_KINDS",
    "OPERATION_STATES",
    "mask",
    "transaction_id",
]


class OperationUnderWay(LedgerError):
    """Another operation on this card (or another create) has not finished yet."""

    def __init__(self, what: str):
        super().__init__(f"{what} is still under way: wait for it to finish")


def mask(masked: str | None, fallback_digits: str | None = None) -> str:
    """A card number safe to keep: the service's masked form, or one made from a full number
    (first six, last four). Never more than ten digits."""
    text = (masked or "").strip()
    digits = re.sub(r"\D", "", text)
    if text and "*" in text and len(digits) <= 10:
        return text
    digits = digits or re.sub(r"\D", "", fallback_digits or "")
    if len(digits) >= 13:
        return digits[:6] + "*" * (len(digits) - 10) + digits[-4:]
    return "****" + digits[-4:] if digits else ""


def transaction_id(tx: CardTransaction) -> str:
    """The service's id of a card transaction, or one made from what it says."""
    if tx.id:
        return tx.id
    seen = f"{tx.created_at}|{tx.type}|{tx.amount}|{tx.description}"
    return "h:" + hashlib.sha256(seen.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class CardRecord:
    """A card as the service last described it (``seen_at``)."""

    profile_id: str
    mode: str
    card_hash: str
    masked: str
    name_on_card: str
    currency_code: str | None  # the service's own code; the profile's map names it
    balance: Decimal | None
    state: int | None  # the service's number: 1 active, 2 blocked, 0 terminated
    expiration: str | None  # YYYY-MM
    created_at: datetime | None
    seen_at: datetime
    amount: Decimal | None = None
    charge: Decimal | None = None
    paid: Decimal | None = None
    card_type: str | None = None
    callback: str | None = None
    listed: bool = True  # False: the service's list no longer shows it

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.profile_id, self.mode, self.card_hash)

    @property
    def last4(self) -> str:
        digits = re.sub(r"\D", "", self.masked)
        return digits[-4:]

    def expired(self, today: date) -> bool:
        try:
            year, month = (int(x) for x in (self.expiration or "").split("-")[:2])
        except ValueError:
            return False
        return (year, month) < (today.year, today.month)


@dataclass(frozen=True)
class CardTxRecord:
    tx_id: str
    type: str  # "Credit" | "Debit" as the service says it
    amount: Decimal | None
    description: str
    status: str | None
    created_at: datetime | None
    first_seen: datetime  # when PayDesk first stored it


@dataclass(frozen=True)
class CardQuery:
    """Cards of one profile and mode; ``text`` matches the masked number, the name on the
    card or the last four digits; ``states`` the service's state numbers."""

    profile_id: str
    mode: str
    text: str = ""
    states: frozenset[int] = frozenset()


@dataclass(frozen=True)
class CardPage:
    records: list[CardRecord]
    end: tuple[str, str] | None  # pass as ``after`` for the next page
    more: bool


@dataclass(frozen=True)
class OperationDraft:
    """An operation as it is about to be sent."""

    profile_id: str
    mode: str
    kind: str
    card_hash: str | None  # None for a create, until the service names the card
    masked: str = ""
    amount: Decimal | None = None
    currency: str | None = None
    callback_url: str | None = None
    actor: str | None = None  # the person signed in who sent it (None: no staff set up)


@dataclass(frozen=True)
class CardOperation:
    id: int
    profile_id: str
    mode: str
    kind: str
    card_hash: str | None
    masked: str
    amount: Decimal | None
    currency: str | None
    callback_url: str | None
    state: str
    started_at: datetime
    finished_at: datetime | None
    result: str | None  # what the service said, or what reading back found
    evidence: str | None  # the card transaction (or for a create, the card) that shows it
    settled: bool  # decided by reading back after a lost answer
    owner: str | None = None  # the PayDesk process that sent it (ledger/owner.py)
    actor: str | None = None  # the person signed in who sent it (None: no staff set up)

    @property
    def open(self) -> bool:
        return self.state in OPEN_OPERATION_STATES


@dataclass(frozen=True)
class AuditDraft:
    """One line of the audit log, before the ledger stamps it."""

    user: str
    profile_id: str
    profile_name: str
    mode: str
    action: str
    result: str
    card_hash: str | None = None
    masked: str = ""
    amount: Decimal | None = None
    currency: str | None = None
    detail: str = ""
    operation_id: int | None = None
    actor: str | None = None  # the person signed in (None: no staff, or PayDesk by itself)


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: datetime
    user: str
    profile_id: str
    profile_name: str
    mode: str
    card_hash: str | None
    masked: str
    action: str
    amount: Decimal | None
    currency: str | None
    result: str
    detail: str
    operation_id: int | None
    actor: str | None = None  # the person signed in (None: no staff, or PayDesk by itself)


@dataclass(frozen=True)
class AuditQuery:
    profile_id: str
    mode: str
    action: str | None = None
    result: str | None = None
    text: str = ""  # masked number, last four, user, person or detail


class CardLedger(abc.ABC):
    """The wallet's store. Writes are durable when they return; SQL stays behind it."""

    # -- cards as last seen -------------------------------------------------------------

    @abc.abstractmethod
    async def store_cards(self, profile_id: str, mode: str, cards: Sequence[VirtualCard]) -> list[str]:
        """The service's whole list, as of now. Cards it no longer lists are kept, marked
        unlisted; returns their hashes (those just now gone from it)."""

    @abc.abstractmethod
    async def store_card(self, profile_id: str, mode: str, card: VirtualCard) -> CardRecord:
        """One card as the service just described it."""

    @abc.abstractmethod
    async def note_state(self, profile_id: str, mode: str, card_hash: str, state: int) -> CardRecord | None:
        """The card's state is known to have changed (an operation was done)."""

    @abc.abstractmethod
    async def card(self, profile_id: str, mode: str, card_hash: str) -> CardRecord | None: ...

    @abc.abstractmethod
    async def card_page(self, query: CardQuery, after: tuple[str, str] | None = None, limit: int = 100) -> CardPage:
        """Newest first, seeking along (created, card) from ``after``."""

    @abc.abstractmethod
    async def card_count(self, query: CardQuery) -> int: ...

    @abc.abstractmethod
    async def refreshed_at(self, profile_id: str, mode: str) -> datetime | None:
        """When the service's whole list was last stored."""

    @abc.abstractmethod
    async def store_transactions(
        self, profile_id: str, mode: str, card_hash: str, transactions: Sequence[CardTransaction]
    ) -> None: ...

    @abc.abstractmethod
    async def transactions(self, profile_id: str, mode: str, card_hash: str, limit: int = 500) -> list[CardTxRecord]:
        """Newest first."""

    # -- operations: written before the call, finished after -------------------------------

    @abc.abstractmethod
    async def begin_operation(self, draft: OperationDraft, audit: AuditDraft) -> CardOperation:
        """The intent ("sending") and its audit line, in one transaction. Raises
        OperationUnderWay while another operation of that card (or another create of that
        profile and mode) is open."""

    @abc.abstractmethod
    async def finish_operation(
        self,
        operation_id: int,
        state: str,
        result: str,
        audit: AuditDraft,
        *,
        evidence: str | None = None,
        card_hash: str | None = None,
        masked: str | None = None,
        settled: bool = False,
        answered: bool = False,
    ) -> CardOperation:
        """Done or not done, with its audit line. An operation already finished stays as it
        was (and no line is added), but for one: the service's own "done" (``answered``)
        overrides an earlier "not done" that reading back had decided."""

    @abc.abstractmethod
    async def service_words(self, profile_id: str, mode: str, kind: str) -> set[str]:
        """The descriptions the service gave the card transactions of ``kind`` operations it
        answered done (how it words its own fund or withdraw), to tell them from spending."""

    @abc.abstractmethod
    async def mark_lost(self, operation_id: int, result: str, audit: AuditDraft) -> CardOperation:
        """The answer never came: "lost" until reading back settles it."""

    @abc.abstractmethod
    async def attach_evidence(self, operation_id: int, evidence: str) -> None:
        """The card transaction that shows a done operation (kept so it is never claimed twice)."""

    @abc.abstractmethod
    async def operation(self, operation_id: int) -> CardOperation | None: ...

    @abc.abstractmethod
    async def open_operations(self, profile_id: str | None = None) -> list[CardOperation]:
        """Operations whose outcome is not known yet (sending or lost), oldest first."""

    @abc.abstractmethod
    async def operations(
        self, profile_id: str, mode: str, card_hash: str | None = None, kinds: Sequence[str] = (), limit: int = 200
    ) -> list[CardOperation]:
        """Newest first; of one card when ``card_hash`` is given."""

    # -- the audit log: append-only --------------------------------------------------------

    @abc.abstractmethod
    async def append_audit(self, draft: AuditDraft) -> AuditEntry: ...

    @abc.abstractmethod
    async def audit_page(
        self, query: AuditQuery, before: int | None = None, limit: int = 200
    ) -> tuple[list[AuditEntry], bool]:
        """Newest first, older than entry ``before``; and whether more follow."""

    @abc.abstractmethod
    async def audit_count(self, query: AuditQuery) -> int: ...
