"""Money in the ledger: whole numbers of the currency's smallest unit, so SQL sorts and sums
them as numbers; Decimal at the edges."""

from __future__ import annotations

from decimal import Decimal

# Kept to at least two decimals whatever the currency's own minor unit: the service writes
# every amount and fee with two ("1,000.00"), in yen as in pounds. Three where ISO 4217 has
# three.
_EXPONENTS = {"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3}


def exponent(currency: str) -> int:
    return _EXPONENTS.get((currency or "").upper(), 2)


def to_minor(amount: Decimal | int, currency: str) -> int:
    """``Decimal("25")`` GBP -> ``2500``. Refuses what the currency cannot hold."""
    places = exponent(currency)
    if isinstance(amount, int) or amount == amount.to_integral_value():  # the usual case
        return int(amount) * 10**places
    scaled = Decimal(amount).scaleb(places)
    if scaled != scaled.to_integral_value():
        raise ValueError(f"{amount} has more decimals than {currency} allows")
    return int(scaled)


def from_minor(value: int, currency: str) -> Decimal:
    """``2500`` GBP -> ``Decimal("25.00")``."""
    places = exponent(currency)
    return Decimal(value).scaleb(-places).quantize(Decimal(1).scaleb(-places))


# The service writes card amounts with two decimals whatever the currency: hundredths.
_CARD_SCALE = ""


def card_minor(value: Decimal | None) -> int | None:
    """A card amount in hundredths; None stays None."""
    return None if value is None else to_minor(value, _CARD_SCALE)


def card_decimal(value: int | None) -> Decimal | None:
    """Hundredths back to a card amount; None stays None."""
    return None if value is None else from_minor(value, _CARD_SCALE)
