"""What the ledger holds about one payment: a link PayDesk created, or a transaction it looked up.

States are one vocabulary with the service's (``TransactionState``), plus two of PayDesk's own:
``creating`` (written before the call that creates it) and ``rejected`` (the service refused
it; nothing exists there). A state the service names that PayDesk does not know is stored as
``unknown``, its words kept in ``state_raw`` and shown verbatim.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, cast

from ..service.models import PaymentRequest, TransactionState

CREATING, REJECTED = "creating", "rejected"
PENDING, UNKNOWN = TransactionState.PENDING.value, TransactionState.UNKNOWN.value
STATES = (CREATING, REJECTED) + tuple(s.value for s in TransactionState)
FINAL = (REJECTED,) + tuple(s.value for s in TransactionState if s.final)
OPEN = tuple(s for s in STATES if s not in FINAL)  # creating, pending, unknown
ORIGINS = ("link", "lookup")  # made here, or made elsewhere and looked up here
SUCCESS = TransactionState.SUCCESS.value
# A final state is where a payment stays, with one exception: a paid one can still be given
# back by the merchant (refunded) or by the bank (reversed). These come after success only.
AFTER_SUCCESS = (TransactionState.REFUNDED.value, TransactionState.REVERSED.value)


def state_of(tx_state: TransactionState) -> str:
    return tx_state.value


def is_final(state: str) -> bool:
    return state in FINAL


def may_follow(before: str, after: str) -> bool:
    """May a record in state ``before`` be moved to ``after`` by what the service now says?
    An open record may become anything; a paid one refunded or reversed; any other final
    state stays as it is (a final state is never moved back, nor sideways)."""
    if before == after or before not in FINAL:
        return True
    return before == SUCCESS and after in AFTER_SUCCESS


def left_behind(heard: str, known: str) -> bool:
    """Is ``heard`` a state that a record now in state ``known`` has already left? A word of
    ``heard`` about it is then older than what is known: a shared ledger's changes can be
    heard in another order than they were written. Creating is left once the service
    answers (never entered again); a final state, as ``may_follow`` allows."""
    if heard == known:
        return False
    return heard == CREATING or not may_follow(known, heard)


def stamp(when: datetime | None = None) -> str:
    """A time as the ledger stores it: UTC, fixed width, so text order is time order."""
    when = when or datetime.now(UTC)
    if when.tzinfo is UTC:  # the usual case, and a bulk import's: no conversion
        return when.isoformat(timespec="microseconds")[:-6] + "Z"
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    elif when.utcoffset():
        when = when.astimezone(UTC)
    return when.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def parse_stamp(text: str | None) -> datetime | None:
    if not text:
        return None
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def parse_written(text: str) -> datetime:
    """A time from a NOT NULL column the ledger always writes with ``stamp()`` (a record's
    created_at, a card's seen_at...): never empty, so never None."""
    # a cast, not a check: read exactly as parse_stamp reads it, as before
    return cast(datetime, parse_stamp(text))


@dataclass(frozen=True)
class LinkRecord:
    id: int
    profile_id: str
    mode: str
    tx_ref: str
    amount: Decimal
    currency: str
    email: str
    first_name: str
    last_name: str
    state: str
    created_at: datetime
    updated_at: datetime
    state_raw: str | None = None  # the service's own word for the state, when it said one
    fee: Decimal | None = None
    checkout_url: str | None = None
    reference: str | None = None
    customization: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    callback_url: str | None = None
    return_url: str | None = None
    origin: str = "link"
    error: str | None = None
    checked_at: datetime | None = None
    learned_by: str | None = None  # how its state was learned: "check" or "notification"
    # when a sale made at a counter was voided there (the counter book's counter_voids, read
    # with the record): None for a link that is no counter sale, or one not voided
    voided_at: datetime | None = None
    actor: str | None = None  # the person signed in who made it (None: no staff, or a lookup)
    raw_json: str | None = field(default=None, repr=False, compare=False)

    @property
    def final(self) -> bool:
        return is_final(self.state)

    @property
    def key(self) -> tuple[str, str]:
        """What identifies a record: one tx_ref per merchant profile, across both modes."""
        return (self.profile_id, self.tx_ref)

    def older_than(self, known: LinkRecord) -> bool:
        """This word on the link is older than ``known``, its link's state as last heard (a
        state it has left: ``left_behind``)."""
        return left_behind(self.state, known.state)

    @property
    def title(self) -> str:
        return self.customization.get("title") or ""

    @property
    def customer(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()

    @property
    def raw(self) -> dict[str, Any] | None:
        """The service's last answer about it, as it came (only on records read one by one)."""
        return json.loads(self.raw_json) if self.raw_json else None

    def request(self) -> PaymentRequest:
        """The intent this record holds, to send (again) with the same tx_ref."""
        c = self.customization
        return PaymentRequest(
            amount=self.amount,
            currency=self.currency,
            email=self.email,
            first_name=self.first_name,
            last_name=self.last_name,
            tx_ref=self.tx_ref,
            callback_url=self.callback_url,
            return_url=self.return_url,
            title=c.get("title"),
            description=c.get("description"),
            logo=c.get("logo"),
            meta=dict(self.meta),
        )
