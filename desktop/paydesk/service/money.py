"""Money as Decimal from parse to display: the service's strings in, its strings out."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

_SERVICE_AMOUNT = re.compile(r"-?[0-9]{1,3}(?:,[0-9]{3})*(?:\.[0-9]+)?|-?[0-9]+(?:\.[0-9]+)?")
CENT = Decimal("0.01")


class MoneyError(ValueError):
    pass


def parse_amount(text: str | int | Decimal) -> Decimal:
    """``"1,000.00"`` -> ``Decimal("1000.00")``; also plain ``"1000"`` and integers."""
    if isinstance(text, bool):
        raise MoneyError("an amount cannot be a boolean")
    if isinstance(text, int):
        return Decimal(text)
    if isinstance(text, Decimal):
        if not text.is_finite():
            raise MoneyError("an amount must be finite")
        return text
    if not isinstance(text, str):
        raise MoneyError(f"an amount must be text, not {type(text).__name__}")
    stripped = text.strip()
    if not _SERVICE_AMOUNT.fullmatch(stripped):
        raise MoneyError(f"not an amount: {text[:40]!r}")
    try:
        return Decimal(stripped.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the pattern already excludes it
        raise MoneyError(f"not an amount: {text[:40]!r}") from None


def format_amount(value: Decimal | int) -> str:
    """``Decimal("1000")`` -> ``"1,000.00"``, as the service writes amounts."""
    return f"{Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP):,.2f}"


def to_wire(value: Decimal | int | str) -> str:
    """A whole amount of the major unit as the service takes it: a string of digits."""
    amount = parse_amount(value) if isinstance(value, str) else Decimal(value)
    if amount != amount.to_integral_value():
        raise MoneyError("the service takes whole amounts of the currency's major unit")
    if amount < 1:
        raise MoneyError("an amount must be at least 1")
    return str(int(amount))
