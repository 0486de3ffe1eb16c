"""Sandbox control under {base_url}/_sandbox/: what a customer or a bank would do."""

from __future__ import annotations

from decimal import Decimal

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse

from . import cards
from .bodies import read_json
from .context import authenticate, sandbox_of, wrong_mode
from .envelope import ApiError, validation_error
from .payments import settle, transaction_view
from .rules import LENGTHS
from .validation import text_problem


def _transaction(request: Request):
    """The calling merchant's transaction named in the path: by the service's reference
    (PDK-…), or by the merchant's own (its tx_ref, the reference PayDesk shows)."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    named = request.path_params["reference"]
    row = sb.store.transaction_by_reference(named)
    if row is None or row["merchant_id"] != owner.merchant_id:
        row = sb.store.transaction_by_ref(owner.merchant_id, named)
    if row is None or row["merchant_id"] != owner.merchant_id:
        raise ApiError(404, "Invalid transaction")
    if row["mode"] != owner.mode:
        raise wrong_mode(owner, row["mode"], "verify")
    return sb, row


async def pay(request: Request) -> JSONResponse:
    sb, row = _transaction(request)
    body = await read_json(request)
    outcome = body.get("outcome")
    if outcome not in ("success", "failed", "cancelled"):
        raise validation_error({"outcome": ["outcome must be success, failed or cancelled"]})
    if not await settle(sb, row["reference"], outcome):
        raise ApiError(409, f"This payment is already {row['status']} and cannot be paid again")
    row = sb.store.transaction_by_reference(row["reference"])
    base = sb.base_url(request)
    sent_to = sb.dialect.after_cancel(row, base) if outcome == "cancelled" else sb.dialect.after_payment(row, base)
    # where the hosted page would have sent the customer (a live link is paid here only)
    return sb.envelope.ok("Payment settled", {**transaction_view(row), "redirect_url": sent_to})


async def set_status(request: Request) -> JSONResponse:
    sb, row = _transaction(request)
    body = await read_json(request)
    status = body.get("status")
    if status not in ("refunded", "reversed"):
        raise validation_error({"status": ["status must be refunded or reversed"]})
    if not sb.store.set_transaction_status(row["reference"], status, only_if=("success",)):
        raise ApiError(409, f"Only a successful payment can be {status}; this one is {row['status']}")
    row = sb.store.transaction_by_reference(row["reference"])
    sb.dialect.transaction_event(sb, row, "payment.updated")
    return sb.envelope.ok("Transaction updated", transaction_view(row))


async def card_purchase(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    if not sb.config.has_cards:
        raise ApiError(404, "Not found")
    owner = authenticate(request)
    record = await sb.dialect.card_purchase(sb, owner, request.path_params["card_hash"], await read_json(request))
    return sb.envelope.ok("Card purchase recorded", record, 201)


async def balance(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    if request.method == "POST":
        body = await read_json(request)
        c = cards.Checker(body)
        c.amount()
        c.currency(sb.config.currencies)
        if c.errors:
            raise validation_error(c.errors)
        cards.top_up(sb, owner, c.clean["currency"], Decimal(c.clean["amount"]))
    return sb.envelope.ok("Balances", cards.merchant_balances(sb, owner))


async def faults(request: Request) -> JSONResponse:
    """The calling merchant's faults in the key's mode (never anyone else's)."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    mine = sb.faults.of(owner.merchant_id, owner.mode)
    if request.method == "DELETE":
        mine.reset()
    elif request.method == "PUT":
        errors = mine.configure(await read_json(request))
        if errors:
            raise validation_error(errors)
    return sb.envelope.ok("Faults", mine.view())


async def outbox(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    items = []
    for r in sb.store.emails(owner.merchant_id, owner.mode):
        path = sb.mailer.outbox / r["file"]
        items.append(
            {
                "to": r["recipient"],
                "subject": r["subject"],
                "file": r["file"],
                "created_at": r["created_at"],
                "message": path.read_text("utf-8", "replace") if path.exists() else None,
            }
        )
    return sb.envelope.ok("Outbox", items)


async def requests(request: Request) -> JSONResponse:
    """The calling merchant's own /api/ calls in this mode, oldest first (never a key)."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    return sb.envelope.ok("Requests", sb.calls.of(owner.merchant_id, owner.mode))


async def notifications(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    return sb.envelope.ok("Notifications", sb.store.notifications(owner.merchant_id, owner.mode))


def _webhook_url(body: dict) -> str:
    """The merchant's webhook URL as sent: an absolute http or https URL with a host (an
    IPv6 literal in brackets too), no user name or password; or a validation error."""
    raw = body.get("url")
    problem = None
    if not isinstance(raw, str) or not raw.strip():
        problem = "url is required: an http or https URL"
    elif len(raw) > LENGTHS["url"]:
        problem = f"url must be at most {LENGTHS['url']} characters"
    elif (bad := text_problem(raw)) is not None:
        problem = f"url {bad}"
    else:
        try:
            url = httpx.URL(raw.strip())
        except (httpx.InvalidURL, ValueError):
            url = None
        if url is None or url.scheme not in ("http", "https") or not url.host:
            problem = "url must be an http or https URL"
        elif url.userinfo:
            problem = "url must not carry a user name or password"
    if problem:
        raise validation_error({"url": [problem]})
    return raw.strip()


async def webhook(request: Request) -> JSONResponse:
    """The merchant's webhook URL (the family's dashboard setting), for both modes: PUT
    ``{"url"}`` sets it, DELETE removes it; each answers, as GET does, the URL and the
    webhook secret that signs the family's notifications. A secret key of either mode."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    if request.method == "PUT":
        sb.store.set_webhook_url(owner.merchant_id, _webhook_url(await read_json(request)))
    elif request.method == "DELETE":
        sb.store.set_webhook_url(owner.merchant_id, None)
    return sb.envelope.ok(
        "Webhook",
        {
            "url": sb.store.webhook_url(owner.merchant_id),
            "webhook_secret": sb.keys.webhook_secret_for(owner.merchant_id),
        },
    )


async def rate_limit(request: Request) -> JSONResponse:
    """The server's throttle (throttle.py): GET reads its windows, DELETE forgets them (all,
    or one client address's with ``?client=ADDRESS``). The throttle is the server's, per
    client address and across merchants, so any merchant's secret key of either mode may
    read and reset it."""
    sb = sandbox_of(request)
    authenticate(request)
    if request.method == "DELETE":
        sb.throttle.reset(request.query_params.get("client") or None)
    return sb.envelope.ok("Rate limit", sb.throttle.view())


async def settings(request: Request) -> JSONResponse:
    """The merchant's settings (settings.py: amount limits, who pays the fee, home currency),
    for both modes: GET reads, PUT sets the members given, DELETE restores the defaults.
    A secret key of either mode; --family acts on them."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    if request.method == "DELETE":
        sb.settings.reset(owner.merchant_id)
    elif request.method == "PUT":
        errors = sb.settings.update(owner.merchant_id, await read_json(request))
        if errors:
            raise validation_error(errors)
    return sb.envelope.ok("Settings", sb.settings.view(owner.merchant_id))
