"""Checks on what merchants send: every failing field is named.

The rules themselves are in ``rules.py``, shared with the OpenAPI document; this module
says, field by field, which rule failed.
"""

from __future__ import annotations

import unicodedata
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from . import rules
from .rules import MAX_AMOUNT

_CODE_OF_CURRENCY = {"NGN": "10", "USD": "11", "GBP": "12", "EUR": "13"}
CURRENCY_OF_CODE = {v: k for k, v in _CODE_OF_CURRENCY.items()}


def currency_code(iso: str) -> str:
    return _CODE_OF_CURRENCY[iso]


_LINE_BREAKS_AND_TABS = frozenset("\n\r\t")


def text_problem(value: str, *, multiline: bool = False) -> str | None:
    """What is wrong with a piece of text for a field, or None.

    Every field holds valid Unicode (no lone surrogates, which no UTF-8 writer can take).
    One-line fields (names, e-mail, title, tx_ref, URLs) hold no control characters at
    all (NUL, BEL, ESC, CR, LF, tab, DEL, C1) nor line or paragraph separators: they end
    up in e-mail headers, pages and logs. Multi-line fields (descriptions) keep line
    breaks and tabs, and refuse the other control characters.
    """
    for ch in value:
        kind = unicodedata.category(ch)
        if kind == "Cs":
            return "must be valid Unicode text"
        if multiline and ch in _LINE_BREAKS_AND_TABS:
            continue
        if kind == "Cc" or (not multiline and kind in ("Zl", "Zp")):
            return "must not contain control characters" if multiline else "must be one line without control characters"
    return None


class Checker:
    """Collects errors field by field, in the order the fields are checked."""

    def __init__(self, body: dict[str, Any]):
        self.body = body
        self.errors: dict[str, list[str]] = {}
        self.clean: dict[str, Any] = {}

    def add(self, field: str, message: str) -> None:
        self.errors.setdefault(field, []).append(message)

    def _string(self, field: str, value: Any, *, required: bool, max_len: int, multiline: bool = False) -> str | None:
        if value is not None and not isinstance(value, str):
            self.add(field, f"{field} must be a string")
            return None
        problem = text_problem(value, multiline=multiline) if value else None
        if problem:  # before the blank check: "\t" is not a blank name but a control
            self.add(field, f"{field} {problem}")
            return None
        if value is None or value.strip() == "":
            if required:
                self.add(field, f"{field} is required")
            return None
        if len(value) > max_len:
            self.add(field, f"{field} must be at most {max_len} characters")
            return None
        return value

    def text(
        self,
        field: str,
        *,
        required: bool = True,
        max_len: int = rules.LENGTHS["name"],
        value: Any = ...,
        key: str | None = None,
        multiline: bool = False,
    ) -> None:
        raw = self.body.get(field) if value is ... else value
        got = self._string(key or field, raw, required=required, max_len=max_len, multiline=multiline)
        if got is not None:
            self.clean[key or field] = got.strip()

    def amount(self, field: str = "amount") -> None:
        raw = self.body.get(field)
        got = self._string(field, raw, required=True, max_len=rules.LENGTHS["amount"])
        if got is None:
            return
        if not got.isascii() or not got.isdigit():
            self.add(field, f"{field} must be a whole number written with the digits 0-9 only")
            return
        value = int(got)
        if not 1 <= value <= MAX_AMOUNT:
            self.add(field, f"{field} must be between 1 and {MAX_AMOUNT:,}")
            return
        self.clean[field] = value

    def currency(self, allowed: tuple[str, ...], field: str = "currency") -> None:
        got = self._string(field, self.body.get(field), required=True, max_len=16)
        if got is None:
            return
        if got not in allowed:
            self.add(field, f"Invalid currency, {got} is not supported")
            return
        self.clean[field] = got

    def email(self, field: str = "email", value: Any = ..., key: str | None = None) -> None:
        name = key or field
        raw = self.body.get(field) if value is ... else value
        got = self._string(name, raw, required=True, max_len=rules.LENGTHS["email"])
        if got is None:
            return
        if not rules.matches(rules.EMAIL, got):
            self.add(name, f"{name} must be a valid e-mail address")
            return
        self.clean[name] = got.strip()

    def url(self, field: str, value: Any = ..., key: str | None = None) -> None:
        """An optional http or https URL (blank is none)."""
        name = key or field
        raw = self.body.get(field) if value is ... else value
        got = self._string(name, raw, required=False, max_len=rules.LENGTHS["url"])
        if got is None:
            return
        if not rules.matches(rules.URL, got):
            self.add(name, f"{name} must be an http or https URL")
            return
        self.clean[name] = got.strip()

    def tx_ref(self, field: str = "tx_ref") -> None:
        got = self._string(field, self.body.get(field), required=True, max_len=rules.LENGTHS["tx_ref"])
        if got is None:
            return
        if not rules.matches(rules.TX_REF, got):
            self.add(
                field, f"{field} may only contain letters, digits and . _ ~ : -, with at least one letter or digit"
            )
            return
        self.clean[field] = got

    def customization(self, raw: Any) -> None:
        if raw is None:
            self.clean["customization"] = {}
            return
        if not isinstance(raw, dict):
            self.add("customization", "customization must be an object")
            return
        self.text("title", required=False, max_len=100, value=raw.get("title"), key="customization.title")
        self.text(
            "description",
            required=False,
            max_len=255,
            value=raw.get("description"),
            key="customization.description",
            multiline=True,
        )
        self.url("logo", value=raw.get("logo"), key="customization.logo")
        out = {}
        for name in ("title", "description", "logo"):
            if f"customization.{name}" in self.clean:
                out[name] = self.clean.pop(f"customization.{name}")
        self.clean["customization"] = out

    def meta(self, raw: Any) -> None:
        if raw is None:
            self.clean["meta"] = {}
            return
        if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
            self.add("meta", "meta must be an object whose values are strings")
            return
        if len(raw) > rules.META_MEMBERS:
            self.add("meta", f"meta must have at most {rules.META_MEMBERS} members")
            return
        for name, value in raw.items():
            problem = text_problem(name) or (
                None if 1 <= len(name) <= rules.META_NAME else f"must be 1 to {rules.META_NAME} characters long"
            )
            where = "a name in meta"
            if not problem:
                problem, where = text_problem(value, multiline=True), f"meta.{name}"
            if not problem and len(value) > rules.META_VALUE:
                problem = f"must be at most {rules.META_VALUE} characters"
            if problem:
                self.add("meta", f"{where} {problem}")
                return
        self.clean["meta"] = raw


def check_payment(body: dict[str, Any], currencies: tuple[str, ...], *, customer_object: bool = False) -> Checker:
    """Validate a payment request (API, website form, or with ``customer_object`` the
    inline checkout's config, whose customer's details are in ``customer``)."""
    c = Checker(body)
    c.tx_ref()
    c.amount()
    c.currency(currencies)
    if customer_object:
        customer = body.get("customer")
        if not isinstance(customer, dict):
            c.add("customer", "customer is required" if customer is None else "customer must be an object")
        else:
            c.email(value=customer.get("email"), key="customer.email")
            c.text("first_name", value=customer.get("first_name"), key="customer.first_name")
            c.text("last_name", value=customer.get("last_name"), key="customer.last_name")
            for name in ("email", "first_name", "last_name"):
                if f"customer.{name}" in c.clean:
                    c.clean[name] = c.clean.pop(f"customer.{name}")
    else:
        c.email()
        c.text("first_name")
        c.text("last_name")
    c.url("callback_url")
    c.url("return_url")
    c.customization(body.get("customization"))
    c.meta(body.get("meta"))
    return c


def fee(amount: Decimal, percent: str, fixed: str) -> Decimal:
    return (amount * Decimal(percent) / 100 + Decimal(fixed)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def money(value: Decimal | int) -> str:
    """``1000`` -> ``"1,000.00"``."""
    return f"{Decimal(value):,.2f}"
