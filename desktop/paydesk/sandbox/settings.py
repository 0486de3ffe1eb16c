"""A merchant's settings on the family's dashboard, for both modes, that ``--family`` acts on
(the document's dialects keep them but have no such rules):

- ``amount_limits``: per currency, ``min_amount`` and ``max_amount`` (whole units) a payment
  may ask for; outside them creation is refused, 400, with the limit in the message. The
  sandbox's defaults: 1 and 1,000,000 in every currency.
- ``customer_pays_fee``: the fee passed to the customer; the lookup then reports the
  amount less the charge, as the family's code does. Default false.
- ``home_currency``: the merchant's own currency, which the family's notifications name
  whatever the payment's. Default: the deployment's first (GBP with cards, EUR without).

Read and set through the control API (``GET``/``PUT``/``DELETE _sandbox/settings``).
"""

from __future__ import annotations

from typing import Any

from .rules import MAX_AMOUNT
from .store import Store

DEFAULT_MIN, DEFAULT_MAX = 1, 1_000_000
NAMES = ("amount_limits", "customer_pays_fee", "home_currency")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_AMOUNT


class Settings:
    def __init__(self, store: Store, currencies: tuple[str, ...]):
        self.store = store
        self.currencies = currencies

    def limits(self, merchant_id: str, currency: str) -> tuple[int, int]:
        own = (self.store.setting(merchant_id, "amount_limits") or {}).get(currency, {})
        return own.get("min_amount", DEFAULT_MIN), own.get("max_amount", DEFAULT_MAX)

    def customer_pays_fee(self, merchant_id: str) -> bool:
        return bool(self.store.setting(merchant_id, "customer_pays_fee"))

    def home_currency(self, merchant_id: str) -> str:
        return self.store.setting(merchant_id, "home_currency") or self.currencies[0]

    def view(self, merchant_id: str) -> dict[str, Any]:
        limits = {}
        for currency in self.currencies:
            low, high = self.limits(merchant_id, currency)
            limits[currency] = {"min_amount": low, "max_amount": high}
        return {
            "amount_limits": limits,
            "customer_pays_fee": self.customer_pays_fee(merchant_id),
            "home_currency": self.home_currency(merchant_id),
        }

    def update(self, merchant_id: str, body: dict[str, Any]) -> dict[str, list[str]]:
        """Apply the members given (limits merged per currency); errors per field, and
        nothing applied, when any is wrong."""
        errors: dict[str, list[str]] = {}
        for name in sorted(set(body) - set(NAMES)):
            errors[name] = [f"unknown setting {name}; known: {', '.join(NAMES)}"]
        values: dict[str, Any] = {}
        if "customer_pays_fee" in body:
            if isinstance(body["customer_pays_fee"], bool):
                values["customer_pays_fee"] = body["customer_pays_fee"]
            else:
                errors["customer_pays_fee"] = ["customer_pays_fee is true or false"]
        if "home_currency" in body:
            if body["home_currency"] in self.currencies:
                values["home_currency"] = body["home_currency"]
            else:
                errors["home_currency"] = [f"home_currency is one of {', '.join(self.currencies)}"]
        if "amount_limits" in body:
            merged, problem = self._limits(merchant_id, body["amount_limits"])
            if problem:
                errors["amount_limits"] = [problem]
            else:
                values["amount_limits"] = merged
        if not errors:
            self.store.set_settings(merchant_id, values)
        return errors

    def _limits(self, merchant_id: str, given: Any) -> tuple[dict, str | None]:
        merged = dict(self.store.setting(merchant_id, "amount_limits") or {})
        if not isinstance(given, dict):
            return merged, "amount_limits is an object: currency -> {min_amount, max_amount}"
        for currency, limits in given.items():
            if currency not in self.currencies:
                return merged, f"{currency} is not one of {', '.join(self.currencies)}"
            if not isinstance(limits, dict) or not set(limits) <= {"min_amount", "max_amount"}:
                return merged, f"amount_limits.{currency} takes min_amount and max_amount"
            if not all(_whole(v) for v in limits.values()):
                return merged, (f"amount_limits.{currency}: whole numbers from 1 to {MAX_AMOUNT:,}")
            low, high = self.limits(merchant_id, currency)
            low, high = limits.get("min_amount", low), limits.get("max_amount", high)
            if low > high:
                return merged, f"amount_limits.{currency}: min_amount is above max_amount"
            merged[currency] = {"min_amount": low, "max_amount": high}
        return merged, None

    def reset(self, merchant_id: str) -> None:
        self.store.clear_settings(merchant_id)
