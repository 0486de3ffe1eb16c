"""Checks on what merchants send: every failing field is named."""

from __future__ import annotations

import json
import re
import unicodedata
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

MAX_AMOUNT = 10_000_000
_DIGITS = re.compile(r"[0-9]+")
_EMAIL = re.compile(
    r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+"
)
_TX_REF = re.compile(r"[A-Za-z0-9._~:-]{1,100}")
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
            return ("must not contain control characters" if multiline else
                    "must be one line without control characters")
    return None


class Checker:
    """Collects errors field by field, in the order the fields are checked."""

    def __init__(self, body: dict[str, Any]):
        self.body = body
        self.errors: dict[str, list[str]] = {}
        self.clean: dict[str, Any] = {}

    def add(self, field: str, message: str) -> None:
        self.errors.setdefault(field, []).append(message)

    def _string(self, field: str, value: Any, *, required: bool, max_len: int,
                multiline: bool = False) -> str | None:
        if value is None or (isinstance(value, str) and value.strip() == ""):
            if required:
                self.add(field, f"{field} is required")
            return None
        if not isinstance(value, str):
            self.add(field, f"{field} must be a string")
            return None
        problem = text_problem(value, multiline=multiline)
        if problem:
            self.add(field, f"{field} {problem}")
            return None
        if len(value) > max_len:
            self.add(field, f"{field} must be at most {max_len} characters")
            return None
        return value

    def text(self, field: str, *, required: bool = True, max_len: int = 100,
             value: Any = ..., key: str | None = None, multiline: bool = False) -> None:
        raw = self.body.get(field) if value is ... else value
        got = self._string(key or field, raw, required=required, max_len=max_len,
                           multiline=multiline)
        if got is not None:
            self.clean[key or field] = got.strip()

    def amount(self, field: str = "amount") -> None:
        raw = self.body.get(field)
        got = self._string(field, raw, required=True, max_len=64)
        if got is None:
            return
        if not _DIGITS.fullmatch(got):
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

    def email(self, field: str = "email", value: Any = ...) -> None:
        raw = self.body.get(field) if value is ... else value
        got = self._string(field, raw, required=True, max_len=254)
        if got is None:
            return
        if not _EMAIL.fullmatch(got.strip()):
            self.add(field, f"{field} must be a valid e-mail address")
            return
        self.clean[field] = got.strip()

    def url(self, field: str, value: Any = ..., key: str | None = None,
            required: bool = False) -> None:
        name = key or field
        raw = self.body.get(field) if value is ... else value
        got = self._string(name, raw, required=required, max_len=2048)
        if got is None:
            return
        parts = urlsplit(got.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            self.add(name, f"{name} must be an http or https URL")
            return
        self.clean[name] = got.strip()

    def tx_ref(self, field: str = "tx_ref") -> None:
        got = self._string(field, self.body.get(field), required=True, max_len=100)
        if got is None:
            return
        if not _TX_REF.fullmatch(got):
            self.add(field, f"{field} may only contain letters, digits and . _ ~ : -")
            return
        self.clean[field] = got

    def customization(self, raw: Any) -> None:
        if raw is None:
            self.clean["customization"] = {}
            return
        if not isinstance(raw, dict):
            self.add("customization", "customization must be an object")
            return
        self.text("title", required=False, max_len=100, value=raw.get("title"),
                  key="customization.title")
        self.text("description", required=False, max_len=255, value=raw.get("description"),
                  key="customization.description", multiline=True)
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
        if not isinstance(raw, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in raw.items()
        ):
            self.add("meta", "meta must be an object whose values are strings")
            return
        for name, value in raw.items():
            problem = text_problem(name)
            where = "a name in meta"
            if not problem:
                problem, where = text_problem(value, multiline=True), f"meta.{name}"
            if problem:
                self.add("meta", f"{where} {problem}")
                return
        if len(json.dumps(raw, separators=(",", ":")).encode()) > 4096:
            self.add("meta", "meta must be at most 4 KB when serialised")
            return
        self.clean["meta"] = raw


def check_payment(body: dict[str, Any], currencies: tuple[str, ...]) -> Checker:
    """Validate a payment request (API, inline checkout or website form)."""
    c = Checker(body)
    c.tx_ref()
    c.amount()
    c.currency(currencies)
    c.email()
    c.text("first_name")
    c.text("last_name")
    c.url("callback_url")
    c.url("return_url")
    c.customization(body.get("customization"))
    c.meta(body.get("meta"))
    return c


def fee(amount: Decimal, percent: str, fixed: str) -> Decimal:
    from decimal import ROUND_HALF_UP

    return (amount * Decimal(percent) / 100 + Decimal(fixed)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP
    )


def money(value: Decimal | int) -> str:
    """``1000`` -> ``"1,000.00"``."""
    return f"{Decimal(value):,.2f}"
