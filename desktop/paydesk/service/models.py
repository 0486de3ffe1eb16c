"""Typed results: what the service's answers mean, read tolerantly."""

from __future__ import annotations

import enum
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal, overload

from .errors import UnexpectedAnswerError, brief
from .money import MoneyError, parse_amount

_INTEGER = re.compile(r"[+-]?[0-9]{1,30}")
# Where a deployment looks a payment up: the document's path, and the family's (its servers
# have only ``verify-payment``). A profile remembers which one its deployment has.
LOOKUP_PATHS = ("api/transaction", "api/verify-payment")
# A card's expiry as the document writes it (YYYY-MM) and as the family's server does (MM/YY)
_EXPIRY_ISO = re.compile(r"([0-9]{4})-(0?[1-9]|1[0-2])(?:-[0-9]{1,2})?")
_EXPIRY_CARD = re.compile(r"(0?[1-9]|1[0-2])\s*/\s*([0-9]{2}|[0-9]{4})")
# The service's internal currency codes (SERVICE.md section 1); a profile may override.
DEFAULT_CARD_CURRENCIES = {"10": "NGN", "11": "USD", "12": "GBP", "13": "EUR"}


def read_expiry(text: str | None) -> str | None:
    """A card's expiry as ``YYYY-MM`` (how PayDesk keeps it), from ``YYYY-MM`` or ``MM/YY``
    (``MM/YYYY``); any other text is kept verbatim (shown as the service wrote it)."""
    if text is None:
        return None
    raw = text.strip()
    if match := _EXPIRY_ISO.fullmatch(raw):
        return f"{match[1]}-{int(match[2]):02d}"
    if match := _EXPIRY_CARD.fullmatch(raw):
        year = int(match[2]) + (2000 if len(match[2]) == 2 else 0)
        return f"{year:04d}-{int(match[1]):02d}"
    return raw or None


class TransactionState(enum.Enum):
    PENDING = "pending"
    SUCCESS = "success"
    FAILED = "failed"
    CANCELLED = "cancelled"
    REFUNDED = "refunded"
    REVERSED = "reversed"
    UNKNOWN = "unknown"  # any other string: shown verbatim, never taken as success

    @classmethod
    def read(cls, raw: str | None) -> TransactionState:
        text = (raw or "").strip().lower()
        if text in ("failed/cancelled",):
            return cls.FAILED
        for member in cls:
            if member.value == text and member is not cls.UNKNOWN:
                return member
        return cls.UNKNOWN

    @property
    def final(self) -> bool:
        return self not in (TransactionState.PENDING, TransactionState.UNKNOWN)


class CardState(enum.Enum):
    INACTIVE = 0  # terminated or emptied
    ACTIVE = 1
    BLOCKED = 2
    UNKNOWN = -1

    @classmethod
    def read(cls, raw: Any) -> CardState:
        try:
            value = int(raw)
        except (TypeError, ValueError, OverflowError):
            return cls.UNKNOWN
        for member in cls:
            if member.value == value and member is not cls.UNKNOWN:
                return member
        return cls.UNKNOWN


class Fields:
    """Reads one JSON object's members; a wrong type is an UnexpectedAnswerError."""

    def __init__(self, data: Any, what: str, status: int | None):
        if not isinstance(data, Mapping):
            raise UnexpectedAnswerError(f"{what} is not an object", status=status, snippet=brief(data))
        self.data, self.what, self.status = data, what, status

    def _bad(self, name: str, expected: str) -> UnexpectedAnswerError:
        return UnexpectedAnswerError(
            f"{self.what}.{name} is not {expected}", status=self.status, snippet=brief(self.data.get(name))
        )

    @overload
    def text(self, name: str, *, required: Literal[True]) -> str: ...

    @overload
    def text(self, name: str, *, required: bool = False) -> str | None: ...

    def text(self, name: str, *, required: bool = False) -> str | None:
        value = self.data.get(name)
        if value is None:
            if required:
                raise self._bad(name, "present")
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise self._bad(name, "text")
        return str(value)

    def amount(self, name: str, *, required: bool = False) -> Decimal | None:
        value = self.data.get(name)
        if value is None:
            if required:
                raise self._bad(name, "present")
            return None
        try:
            return parse_amount(value if not isinstance(value, float) else repr(value))
        except MoneyError:
            raise self._bad(name, "an amount") from None

    def integer(self, name: str) -> int | None:
        """An integer, or an integral number or digit string (never Infinity, 1e309)."""
        value = self.data.get(name)
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return int(value)
        if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
            return int(value.strip())
        raise self._bad(name, "an integer")

    def when(self, name: str) -> datetime | None:
        value = self.data.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self._bad(name, "a timestamp")
        try:
            stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if stamp.tzinfo is None:
                stamp = stamp.replace(tzinfo=UTC)
            return stamp.astimezone(UTC)
        except (ValueError, OverflowError):  # 9999-12-31T23:59:59-14:00 is past year 9999 in UTC
            raise self._bad(name, "a timestamp") from None

    def mapping(self, name: str) -> dict[str, Any]:
        """An object; also one written as JSON text (the family's notification carries
        ``meta`` as its raw column: ``"{\\"till\\":\\"3\\"}"``, ``"null"``, ``"[]"``)."""
        value = self.data.get(name)
        if isinstance(value, str) and value.strip()[:1] in ("{", "["):
            try:
                value = json.loads(value)
            except (ValueError, RecursionError):
                raise self._bad(name, "an object") from None
        if value in (None, "null", "", []):
            return {}
        if not isinstance(value, Mapping):
            raise self._bad(name, "an object")
        return dict(value)


@dataclass(frozen=True)
class PaymentRequest:
    amount: Decimal
    currency: str
    email: str
    first_name: str
    last_name: str
    tx_ref: str
    callback_url: str | None = None
    return_url: str | None = None
    title: str | None = None
    description: str | None = None
    logo: str | None = None
    meta: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        from .money import to_wire

        body: dict[str, Any] = {
            "amount": to_wire(self.amount),
            "currency": self.currency,
            "email": self.email,
            "first_name": self.first_name,
            "last_name": self.last_name,
            "tx_ref": self.tx_ref,
        }
        if self.callback_url:
            body["callback_url"] = self.callback_url
        if self.return_url:
            body["return_url"] = self.return_url
        custom = {k: v for k, v in (("title", self.title), ("description", self.description), ("logo", self.logo)) if v}
        if custom:
            body["customization"] = custom
        if self.meta:
            body["meta"] = dict(self.meta)
        return body


@dataclass(frozen=True)
class PaymentLink:
    tx_ref: str
    checkout_url: str | None
    recovered: bool = False  # True when found by lookup after a lost answer


@dataclass(frozen=True)
class Transaction:
    tx_ref: str
    status: TransactionState
    status_raw: str
    amount: Decimal | None = None
    currency: str | None = None
    charge: Decimal | None = None
    email: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    mode: str | None = None
    type: str | None = None
    reference: str | None = None
    customization: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def parse(cls, data: Any, status: int | None) -> Transaction:
        f = Fields(data, "transaction", status)
        raw_status = f.text("status", required=True)
        return cls(
            tx_ref=f.text("tx_ref", required=True),
            status=TransactionState.read(raw_status),
            status_raw=raw_status,
            amount=f.amount("amount"),
            currency=f.text("currency"),
            charge=f.amount("charge"),
            email=f.text("email"),
            first_name=f.text("first_name"),
            last_name=f.text("last_name"),
            mode=f.text("mode"),
            type=f.text("type"),
            reference=f.text("reference"),
            customization=f.mapping("customization"),
            meta=f.mapping("meta"),
            created_at=f.when("created_at"),
            updated_at=f.when("updated_at"),
            raw=dict(data),
        )

    def same_amount(self, amount: Decimal) -> bool:
        """Whether this is a payment of ``amount``: its amount is, or (the family's, when
        the merchant passes the fee to the customer) its amount is ``amount`` less the
        charge."""
        if self.amount is None:
            return False
        return self.amount == amount or (
            self.charge is not None and self.charge > 0 and self.amount + self.charge == amount
        )

    @classmethod
    def not_submitted(cls, tx_ref: str) -> Transaction:
        """The family's answer for an unpaid link: it exists, nothing more is known."""
        return cls(tx_ref=tx_ref, status=TransactionState.PENDING, status_raw="pending")


@dataclass(frozen=True)
class VirtualCard:
    card_hash: str
    status: CardState
    status_raw: Any
    masked_card: str | None = None
    card_pan: str | None = field(default=None, repr=False)
    cvv: str | None = field(default=None, repr=False)
    expiration: str | None = None
    name_on_card: str | None = None
    currency: str | None = None  # ISO code, through the profile's map
    currency_code: str | None = None  # the service's own code
    # what it was issued with: in the document's card beside its ``balance``; the family's
    # card keeps its balance in ``amount``, so there only the create's answer says it
    amount: Decimal | None = None
    charge: Decimal | None = None
    paid: Decimal | None = None
    balance: Decimal | None = None
    card_type: str | None = None
    callback: str | None = None
    id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def parse(
        cls, data: Any, status: int | None, currencies: Mapping[str, str] = DEFAULT_CARD_CURRENCIES
    ) -> VirtualCard:
        f = Fields(data, "card", status)
        separate = "balance" in f.data  # the balance beside the amount it was issued with
        code = f.text("currency")
        raw_status = f.integer("status")
        return cls(
            card_hash=f.text("card_hash", required=True),
            status=CardState.read(raw_status),
            status_raw=raw_status,
            masked_card=f.text("masked_card"),
            card_pan=f.text("card_pan"),
            cvv=f.text("cvv"),
            expiration=read_expiry(f.text("expiration")),
            name_on_card=f.text("name_on_card"),
            currency=currencies.get(code or "", code if code and code.isalpha() else None),
            # the family's card keeps its balance in ``amount`` and has no ``balance``: then
            # what it was issued with is not in the card (``issued``: the create's answer)
            currency_code=code,
            amount=f.amount("amount") if separate else None,
            charge=f.amount("charge"),
            paid=f.amount("paid"),
            balance=f.amount("balance" if separate else "amount"),
            card_type=f.text("card_type"),
            callback=f.text("callback"),
            id=f.text("id"),
            created_at=f.when("created_at"),
            updated_at=f.when("updated_at"),
        )


@dataclass(frozen=True)
class CardTransaction:
    id: str | None
    card_hash: str | None
    type: str | None  # "Credit" | "Debit"
    amount: Decimal | None
    description: str | None
    status: str | None
    created_at: datetime | None

    @classmethod
    def parse(cls, data: Any, status: int | None) -> CardTransaction:
        f = Fields(data, "card transaction", status)
        return cls(
            id=f.text("id"),
            card_hash=f.text("card_hash"),
            type=f.text("type"),
            amount=f.amount("amount"),
            description=f.text("description"),
            status=f.text("status"),
            created_at=f.when("created_at"),
        )


def items_of(data: Any, status: int | None, *keys: str) -> list[Any]:
    """A list from ``data``: a list itself, or an object holding one under a known key."""
    if data in (None, "null", ""):
        return []
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping):
        for key in keys:
            if isinstance(data.get(key), list):
                return data[key]
        if not data:
            return []
    raise UnexpectedAnswerError("expected a list", status=status, snippet=brief(data))
