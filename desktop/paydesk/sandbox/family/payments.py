"""Payments as the family's server takes and answers them: its creation rules, the lookup
at ``verify-payment/{tx_ref}`` and where the customer is sent afterwards."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from ..context import Sandbox, authenticate, sandbox_of, wrong_mode
from ..envelope import ApiError, validation_error
from ..keys import KeyOwner
from ..validation import check_payment, money
from .answers import transaction

_CURRENCY_MAX = 16


def whole_number(value: Any) -> Any:
    """The framework validates amounts as integers: ``1000`` and ``"1000"`` are both taken
    (given on as the digit string the shared checks read). Anything else is left as sent."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def refuse_currency(body: dict[str, Any], currencies: tuple[str, ...]) -> None:
    """The unsupported currency is checked before anything else and said as text (a missing
    one is a field of the error bag)."""
    currency = body.get("currency")
    if (
        isinstance(currency, str)
        and currency.strip()
        and len(currency) <= _CURRENCY_MAX
        and currency.isprintable()
        and currency not in currencies
    ):
        raise ApiError(400, f"Invalid currency, {currency} is not supported", plain=True)


# sent as JSON null, these are refused (its rules take them when left out, not as null)
_NOT_NULL = {"meta": "meta must be an object", "callback_url": "callback_url must be a URL"}


def payment_fields(body: dict[str, Any], currencies: tuple[str, ...], *, customer_object: bool) -> dict[str, Any]:
    """A payment request's clean fields. The unsupported currency is checked first and said
    as text; then every failing field, in the framework's error bag. Title and
    description are required; ``meta`` and ``callback_url`` may be left out, not sent as
    null. A ``meta`` left out is kept as none (``"null"`` in its column), not as ``{}``."""
    refuse_currency(body, currencies)
    checked = check_payment(
        {**body, "amount": whole_number(body.get("amount"))}, currencies, customer_object=customer_object
    )
    for name, problem in _NOT_NULL.items():
        if name in body and body[name] is None:
            checked.add(name, problem)
    custom = body.get("customization")
    for name in ("title", "description"):
        field = f"customization.{name}"
        given = custom.get(name) if isinstance(custom, dict) else None
        if field not in checked.errors and not (isinstance(given, str) and given.strip()):
            checked.add(field, f"{field} is required")
    if checked.errors:
        raise validation_error(checked.errors)
    if "meta" not in body:
        checked.clean["meta"] = None
    return checked.clean


def check_amount(sb: Sandbox, owner: KeyOwner, clean: dict[str, Any]) -> None:
    """The merchant's ``min_amount`` and ``max_amount`` for the currency (settings.py): 400
    with the limit in the message."""
    low, high = sb.settings.limits(owner.merchant_id, clean["currency"])
    amount = int(clean["amount"])
    if amount < low:
        raise ApiError(400, f"The minimum amount for {clean['currency']} is {low:,}", plain=True)
    if amount > high:
        raise ApiError(400, f"The maximum amount for {clean['currency']} is {high:,}", plain=True)


async def verify_payment(request: Request) -> JSONResponse:
    """``GET /api/verify-payment/{tx_ref}``: 201 with the transaction's own state as the
    top-level ``status``. The record is found among the key's merchant's own (never across
    merchants, as the family's code does): another merchant's reference is "Invalid
    transaction" to it, so a key learns nothing of others' records."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    tx_ref = request.path_params["tx_ref"].strip()
    row = sb.store.transaction_by_ref(owner.merchant_id, tx_ref)
    if row is None:
        raise ApiError(404, "Invalid transaction", quirk_status=404)
    if row["mode"] != owner.mode:
        raise wrong_mode(owner, row["mode"], "verify")
    if not submitted(row):
        raise ApiError(404, "Payment not submitted", quirk_status=404, quirk_envelope_status="null")
    view = transaction(row)
    if sb.settings.customer_pays_fee(owner.merchant_id):  # the amount less the charge
        view["amount"] = money(Decimal(row["amount"]) - Decimal(row["charge"]))
    return JSONResponse({"message": "Payment details", "status": view["status"], "data": view}, status_code=201)


def submitted(row: sqlite3.Row) -> bool:
    """Whether the customer submitted the payment form: a pending link whose card is
    waiting for its 3-D Secure code was submitted; one nobody paid yet was not."""
    return row["status"] != "pending" or bool(row["threeds_pending"])


def after_payment(row: sqlite3.Row, base_url: str) -> str:
    """A test payment: ``callback_url + "?tx_ref=" + tx_ref``, concatenated, as the family's
    code does (no ``status``; a callback_url with a query of its own gets a second ``?``).
    A live payment (and a test one with no callback_url): the service's receipt page."""
    if row["callback_url"] and row["mode"] == "test":
        return row["callback_url"] + "?tx_ref=" + row["tx_ref"]
    return f"{base_url}/payment/{row['reference']}/receipt"


def after_cancel(row: sqlite3.Row, base_url: str) -> str:
    """On cancel: to return_url, as given."""
    return row["return_url"] or f"{base_url}/payment/{row['reference']}/receipt"
