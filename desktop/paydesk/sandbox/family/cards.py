"""Virtual cards as the family's server answers them: every success HTTP 201 with the card
issuer's own words, fund and withdraw answering the card, withdraw spelling its status
``suucess``, the short-balance fund "refused as success", create requiring the
cardholder's name, terminate deleting the card, ``expiration`` as ``MM/YY``, and the
framework's HTML 500 page for an action on a card that is not there.

A card is found among the key's merchant's own cards in the key's mode before anything
else (the family's code finds it across merchants first: not copied).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .. import cards as document
from ..bodies import read_json
from ..context import Sandbox, authenticate, sandbox_of
from ..envelope import ApiError, validation_error
from ..keys import KeyOwner
from ..store import now_iso
from ..validation import Checker
from .answers import MissingRecord, framework_answer
from .payments import refuse_currency, whole_number

# The issuer's words, passed on by the family's server (not the document's wording)
FUNDED = "Card has been topped up successfully"
WITHDRAWN = "Funds have been unloaded from the card successfully"
BLOCKED = "Card has been frozen successfully"
UNBLOCKED = "Card has been unfrozen successfully"
TERMINATED = "Card has been terminated successfully"
SHORT_BALANCE = "Insufficient Funds, please fund your account"


def _records(handler: Callable[[Request], Awaitable[Response]]):
    """A card the action needs is missing: the framework's 500 (``{"message": "Server
    Error"}`` to a request that expects JSON, else its HTML page)."""

    @functools.wraps(handler)
    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except MissingRecord:
            return framework_answer(request.headers, 500, "Server Error")

    return answer


def _mine(sb: Sandbox, owner: KeyOwner, card_hash: str | None) -> sqlite3.Row | None:
    row = sb.store.card(card_hash) if card_hash else None
    if row is None or row["merchant_id"] != owner.merchant_id or row["mode"] != owner.mode:
        return None
    return row


def _found(sb: Sandbox, owner: KeyOwner, card_hash: str | None) -> sqlite3.Row:
    row = _mine(sb, owner, card_hash)
    if row is None:
        raise MissingRecord(card_hash)
    return row


def _view(sb: Sandbox, row: sqlite3.Row) -> dict[str, Any]:
    return document.card_view(sb, row, with_balance=True)


def _amount_and_card(body: dict) -> tuple[Decimal, str]:
    c = Checker({**body, "amount": whole_number(body.get("amount"))})
    c.amount()
    c.text("card_hash", max_len=100)
    if c.errors:
        raise validation_error(c.errors)
    return Decimal(c.clean["amount"]), c.clean["card_hash"]


async def create(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    body = await read_json(request)
    refuse_currency(body, sb.config.currencies)
    c = Checker({**body, "amount": whole_number(body.get("amount"))})
    c.amount()
    c.currency(sb.config.currencies)
    c.text("first_name")
    c.text("last_name")
    c.url("callback_url")
    if c.errors:
        raise validation_error(c.errors)
    now = datetime.now(UTC)
    name = f"{c.clean['first_name']} {c.clean['last_name']}".upper()
    card = document.issue(sb, owner, c.clean["amount"], c.clean["currency"],
                          c.clean.get("callback_url"), name,
                          f"{now.month:02d}/{(now.year + 3) % 100:02d}")
    return sb.envelope.ok("Card created", _view(sb, card))


@_records
async def fund(request: Request) -> Response:
    sb = sandbox_of(request)
    owner = authenticate(request)
    value, card_hash = _amount_and_card(await read_json(request))
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _found(sb, owner, card_hash)
        if card["status"] == document.BLOCKED:
            raise ApiError(409, "Card is blocked")
        currency = document._iso_of(card["currency"])
        have = sb.store.balance(db, owner.merchant_id, owner.mode, currency,
                                document.OPENING_BALANCE[owner.mode])
        if have < value:  # a refusal dressed as success; nothing changes
            return sb.envelope.ok(SHORT_BALANCE, None)
        sb.store.set_balance(db, owner.merchant_id, owner.mode, currency, have - value)
        document._card_entry(sb, db, card, "Credit", value, "Card funded")
    return sb.envelope.ok(FUNDED, _view(sb, sb.store.card(card_hash)))


@_records
async def withdraw(request: Request) -> Response:
    sb = sandbox_of(request)
    owner = authenticate(request)
    value, card_hash = _amount_and_card(await read_json(request))
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _found(sb, owner, card_hash)
        document._check_spend(card, value)
        currency = document._iso_of(card["currency"])
        have = sb.store.balance(db, owner.merchant_id, owner.mode, currency,
                                document.OPENING_BALANCE[owner.mode])
        sb.store.set_balance(db, owner.merchant_id, owner.mode, currency, have + value)
        document._card_entry(sb, db, card, "Debit", value, "Withdrawal to balance")
    return sb.envelope.ok(WITHDRAWN, _view(sb, sb.store.card(card_hash)),
                          envelope_status="suucess")


async def _set_state(request: Request, to: int, allowed_from: int, refusal: str,
                     message: str) -> Response:
    sb = sandbox_of(request)
    owner = authenticate(request)
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _found(sb, owner, request.path_params["card_hash"])
        if card["status"] != allowed_from:
            raise ApiError(409, refusal)
        db.execute("UPDATE cards SET status = ?, updated_at = ? WHERE card_hash = ?",
                   (to, now_iso(), card["card_hash"]))
    return sb.envelope.ok(message, {})


@_records
async def block(request: Request) -> Response:
    return await _set_state(request, document.BLOCKED, document.ACTIVE,
                            "Card is already blocked", BLOCKED)


@_records
async def unblock(request: Request) -> Response:
    return await _set_state(request, document.ACTIVE, document.BLOCKED,
                            "Card is not blocked", UNBLOCKED)


@_records
async def terminate(request: Request) -> Response:
    """Refunds the card's balance to the merchant and deletes the card: it leaves the list,
    and any later action on it finds nothing."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _found(sb, owner, request.path_params["card_hash"])
        balance = Decimal(card["balance"])
        currency = document._iso_of(card["currency"])
        have = sb.store.balance(db, owner.merchant_id, owner.mode, currency,
                                document.OPENING_BALANCE[owner.mode])
        sb.store.set_balance(db, owner.merchant_id, owner.mode, currency, have + balance)
        if balance > 0:
            sb.store.add_card_transaction(db, card["card_hash"], "Debit", balance,
                                          "Balance refunded on termination")
        db.execute("DELETE FROM cards WHERE card_hash = ?", (card["card_hash"],))
    return sb.envelope.ok(TERMINATED, {})


async def transactions(request: Request) -> JSONResponse:
    """Read straight from the merchant's rows: an unknown card has none."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    card = _mine(sb, owner, request.path_params["card_hash"])
    rows = sb.store.card_transactions(card["card_hash"]) if card else []
    return sb.envelope.ok("Card Transactions", [document.transaction_record(r) for r in rows])


async def all_cards(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    rows = sb.store.cards_of(owner.merchant_id, owner.mode)
    return sb.envelope.ok("All Cards", [_view(sb, r) for r in rows])


async def get_card(request: Request) -> JSONResponse:
    """"Card Details"; an unknown card answers success with ``data`` null."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    card = _mine(sb, owner, request.path_params["card_hash"])
    return sb.envelope.ok("Card Details", _view(sb, card) if card else None)
