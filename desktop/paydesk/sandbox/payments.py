"""Payments: create a link, look a transaction up, settle it."""

from __future__ import annotations

import json
import secrets
import sqlite3
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from starlette.requests import Request
from starlette.responses import JSONResponse

from .bodies import read_json
from .context import Sandbox, authenticate, sandbox_of, wrong_mode
from .envelope import ApiError, validation_error
from .keys import KeyOwner
from .store import now_iso
from .validation import fee, money

FINAL_STATES = ("success", "failed", "cancelled", "refunded", "reversed")


def new_reference() -> str:
    """The service's own reference: 128 random bits, unguessable."""
    return "PDK-" + secrets.token_hex(16)


def transaction_view(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "first_name": row["first_name"],
        "last_name": row["last_name"],
        "email": row["email"],
        "currency": row["currency"],
        "amount": money(row["amount"]),
        "charge": f"{Decimal(row['charge']):.2f}",
        "mode": row["mode"],
        "type": row["type"],
        "status": row["status"],
        "reference": row["reference"],
        "tx_ref": row["tx_ref"],
        "customization": json.loads(row["customization"]),
        "meta": json.loads(row["meta"]) or {},  # --family keeps "null" for none given
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


def create_payment(sb: Sandbox, owner: KeyOwner, body: dict[str, Any], base_url: str, kind: str) -> str:
    """Record a pending transaction; return its checkout URL. Raises ApiError."""
    c = sb.dialect.payment_fields(body, sb.config.currencies, customer_object=kind == "INLINE")
    sb.dialect.check_amount(sb, owner, c)
    stamp = now_iso()
    reference = new_reference()
    row = {
        "merchant_id": owner.merchant_id,
        "mode": owner.mode,
        "tx_ref": c["tx_ref"],
        "reference": reference,
        "amount": c["amount"],
        "currency": c["currency"],
        "charge": str(fee(Decimal(c["amount"]), "1.4", "0.20")),
        "email": c["email"],
        "first_name": c["first_name"],
        "last_name": c["last_name"],
        "callback_url": c.get("callback_url"),
        "return_url": c.get("return_url"),
        "customization": json.dumps(c["customization"]),
        "meta": json.dumps(c["meta"]),
        "type": kind,
        "status": "pending",
        "created_at": stamp,
        "updated_at": stamp,
    }
    try:
        sb.store.insert_transaction(row)
    except sqlite3.IntegrityError:
        raise ApiError(
            409,
            "Transaction reference has been used before",
            {"tx_ref": ["Transaction reference has been used before"]},
            plain=True,
        ) from None
    return f"{base_url}/payment/{reference}"


async def api_payment(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    body = await read_json(request)
    url = create_payment(sb, owner, body, sb.base_url(request), "API")
    return sb.envelope.ok("Payment link created", {"checkout_url": url}, 201)


async def api_js_transfer(request: Request) -> JSONResponse:
    """The inline checkout's call: public keys only, the config's shape."""
    sb = sandbox_of(request)
    owner = authenticate(request, kinds=("public",))
    body = await read_json(request)
    url = create_payment(sb, owner, body, sb.base_url(request), "INLINE")
    return sb.envelope.ok("Payment link created", {"checkout_url": url}, 201)


async def api_transaction(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    tx_ref = request.path_params.get("tx_ref", "").strip()
    if not tx_ref:
        raise validation_error({"tx_ref": ["tx_ref is required"]})
    row = sb.store.transaction_by_ref(owner.merchant_id, tx_ref)
    if row is None:
        raise ApiError(404, "Invalid transaction", quirk_status=404)
    if row["mode"] != owner.mode:
        raise wrong_mode(owner, row["mode"], "verify")
    if sb.config.quirks and row["status"] == "pending":
        raise ApiError(404, "Payment not submitted", quirk_status=404, quirk_envelope_status="null")
    return sb.envelope.ok("Payment details", transaction_view(row))


def merge_query(url: str, **params: str) -> str:
    """Add params to a URL's query string, keeping what it already has."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    query += list(params.items())
    return urlunsplit(parts._replace(query=urlencode(query)))


async def settle(sb: Sandbox, reference: str, outcome: str, *, from_states=("pending",)) -> bool:
    """Move a transaction to a final state (one committed UPDATE), then tell everyone:
    the notification and the e-mail go out only after the commit."""
    if not sb.store.set_transaction_status(reference, outcome, only_if=from_states):
        return False
    row = sb.store.transaction_by_reference(reference)
    sb.dialect.transaction_event(sb, row, "payment.cancelled" if outcome == "cancelled" else "payment.completed")
    if outcome in ("success", "failed"):
        await sb.mailer.receipt(row, sb.keys.name_of(row["merchant_id"]))
    return True


def redirect_after(row: sqlite3.Row, base_url: str) -> str:
    """Where the customer's browser goes once the payment is final."""
    if row["callback_url"]:
        return merge_query(row["callback_url"], tx_ref=row["tx_ref"], status=row["status"])
    if row["return_url"]:
        return merge_query(row["return_url"], tx_ref=row["tx_ref"], status=row["status"])
    return f"{base_url}/payment/{row['reference']}/receipt"
