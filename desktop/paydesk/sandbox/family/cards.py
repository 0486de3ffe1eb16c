"""Virtual cards as the family's server keeps and answers them (SERVICE.md 1b): every success
HTTP 201 with the card issuer's own words; the card as stored, its balance in ``amount``
(no ``balance``), ``first_name`` and ``last_name``, ``paid`` and ``currency`` as numbers,
``user_id`` and ``charge`` hidden, no ``status`` on create; create requiring the
cardholder's name and a ``callback_url``; fund and withdraw answering the card, withdraw
spelling its status ``suucess``, the short-balance fund "refused as success"; block,
unblock and terminate answering ``data: null`` whatever the card's state (blocking a
blocked card succeeds); terminate refunding the balance and deleting the card; and the
framework's 500 for an action on a card that is not there.

Cards have no test mode there: a card is the merchant's whichever key made it, create,
fund, withdraw and terminate move the merchant's **live** balance, and ``all`` lists the
merchant's cards for either key. Card transactions are written only by the issuer (here,
the control API's purchase), never by create, fund or withdraw, and stay after the card is
deleted.

A card is found among the key's merchant's own cards before anything else (the family's
code finds it across merchants first: not copied).
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
WALLET = "live"  # the one balance cards draw on, whichever key


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


def _mine(sb: Sandbox, owner: KeyOwner, card_hash: str | None, *, deleted: bool = False) -> sqlite3.Row | None:
    """The merchant's card (of either mode); a deleted one only when ``deleted``."""
    row = sb.store.card(card_hash) if card_hash else None
    if row is None or row["merchant_id"] != owner.merchant_id:
        return None
    if row["deleted_at"] is not None and not deleted:
        return None
    return row


def _found(sb: Sandbox, owner: KeyOwner, card_hash: str | None) -> sqlite3.Row:
    row = _mine(sb, owner, card_hash)
    if row is None:
        raise MissingRecord(card_hash)
    return row


def _number(value: str) -> float:
    """A stored amount as PHP's encoder writes a float: 51.5, 51.0."""
    return float(Decimal(value))


def card_view(row: sqlite3.Row, *, created: bool = False) -> dict[str, Any]:
    """The card as the family stores it. ``created``: the answer to create, which has no
    ``status``."""
    pan = row["card_pan"]
    view: dict[str, Any] = {
        "id": row["id"],
        "account_id": row["account_id"],
        "card_hash": row["card_hash"],
        "card_pan": pan,
        "masked_card": pan[:6] + "*" * (len(pan) - 10) + pan[-4:],
        "cvv": row["cvv"],
        "expiration": row["expiration"],
        "card_type": "visa",
        "name_on_card": row["name_on_card"],
        "first_name": row["first_name"],
        "last_name": row["last_name"],
        "callback": row["callback"],
        "amount": row["balance"],
        "status": row["status"],
        "ref_id": row["ref_id"],
        "city": None,
        "state": None,
        "address": None,
        "zip_code": None,
        "currency": int(row["currency"]),
        "paid": _number(row["paid"]),
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "business_id": row["merchant_id"],
    }
    if created:
        del view["status"]
    return view


def _amount_and_card(body: dict) -> tuple[Decimal, str]:
    c = Checker({**body, "amount": whole_number(body.get("amount"))})
    c.amount()
    c.text("card_hash", max_len=100)
    if c.errors:
        raise validation_error(c.errors)
    return Decimal(c.clean["amount"]), c.clean["card_hash"]


def _wallet(sb: Sandbox, db: sqlite3.Connection, owner: KeyOwner, card: sqlite3.Row) -> tuple[str, Decimal]:
    currency = document._iso_of(card["currency"])
    return currency, sb.store.balance(db, owner.merchant_id, WALLET, currency, document.OPENING_BALANCE[WALLET])


def _set_balance(db: sqlite3.Connection, card: sqlite3.Row, balance: Decimal) -> None:
    db.execute(
        "UPDATE cards SET balance = ?, updated_at = ? WHERE card_hash = ?",
        (f"{balance:.2f}", now_iso(), card["card_hash"]),
    )


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
    if "callback_url" not in c.clean and "callback_url" not in c.errors:
        c.add("callback_url", "callback_url is required")
    if c.errors:
        raise validation_error(c.errors)
    now = datetime.now(UTC)
    name = f"{c.clean['first_name']} {c.clean['last_name']}".upper()
    card = document.issue(
        sb,
        owner,
        c.clean["amount"],
        c.clean["currency"],
        c.clean["callback_url"],
        name,
        f"{now.month:02d}/{(now.year + 3) % 100:02d}",
        mode=WALLET,
        names=(c.clean["first_name"], c.clean["last_name"]),
        entry=False,
    )
    return sb.envelope.ok("Card created", card_view(card, created=True))


@_records
async def fund(request: Request) -> Response:
    sb = sandbox_of(request)
    owner = authenticate(request)
    value, card_hash = _amount_and_card(await read_json(request))
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _found(sb, owner, card_hash)
        if card["status"] == document.BLOCKED:
            raise ApiError(409, "Card is blocked")
        currency, have = _wallet(sb, db, owner, card)
        if have < value:  # a refusal dressed as success; nothing changes
            return sb.envelope.ok(SHORT_BALANCE, None)
        sb.store.set_balance(db, owner.merchant_id, WALLET, currency, have - value)
        _set_balance(db, card, Decimal(card["balance"]) + value)
    return sb.envelope.ok(FUNDED, card_view(sb.store.card(card_hash)))


@_records
async def withdraw(request: Request) -> Response:
    sb = sandbox_of(request)
    owner = authenticate(request)
    value, card_hash = _amount_and_card(await read_json(request))
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _found(sb, owner, card_hash)
        document._check_spend(card, value)
        currency, have = _wallet(sb, db, owner, card)
        sb.store.set_balance(db, owner.merchant_id, WALLET, currency, have + value)
        _set_balance(db, card, Decimal(card["balance"]) - value)
    return sb.envelope.ok(WITHDRAWN, card_view(sb.store.card(card_hash)), envelope_status="suucess")


async def _set_state(request: Request, to: int, message: str) -> Response:
    """Block or unblock: whatever the card's state now, it succeeds."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _found(sb, owner, request.path_params["card_hash"])
        db.execute(
            "UPDATE cards SET status = ?, updated_at = ? WHERE card_hash = ?", (to, now_iso(), card["card_hash"])
        )
    return sb.envelope.ok(message, None)


@_records
async def block(request: Request) -> Response:
    return await _set_state(request, document.BLOCKED, BLOCKED)


@_records
async def unblock(request: Request) -> Response:
    return await _set_state(request, document.ACTIVE, UNBLOCKED)


@_records
async def terminate(request: Request) -> Response:
    """Refunds the card's balance to the merchant's and deletes the card: it leaves the
    list, any later action on it finds nothing; its transactions stay."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _found(sb, owner, request.path_params["card_hash"])
        currency, have = _wallet(sb, db, owner, card)
        sb.store.set_balance(db, owner.merchant_id, WALLET, currency, have + Decimal(card["balance"]))
        db.execute(
            "UPDATE cards SET balance = '0.00', deleted_at = ?, updated_at = ? WHERE card_hash = ?",
            (now_iso(), now_iso(), card["card_hash"]),
        )
    return sb.envelope.ok(TERMINATED, None)


async def transactions(request: Request) -> JSONResponse:
    """Read straight from the merchant's rows, a deleted card's too: an unknown card has
    none."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    card = _mine(sb, owner, request.path_params["card_hash"], deleted=True)
    rows = sb.store.card_transactions(card["card_hash"]) if card else []
    return sb.envelope.ok("Card Transactions", [document.transaction_record(r) for r in rows])


async def all_cards(request: Request) -> JSONResponse:
    """The merchant's cards, for a key of either mode."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    rows = sb.store.cards_of(owner.merchant_id, None)
    return sb.envelope.ok("All Cards", [card_view(r) for r in rows])


async def get_card(request: Request) -> JSONResponse:
    """ "Card Details"; an unknown (or deleted) card answers success with ``data`` null."""
    sb = sandbox_of(request)
    owner = authenticate(request)
    card = _mine(sb, owner, request.path_params["card_hash"])
    return sb.envelope.ok("Card Details", card_view(card) if card else None)


def purchase(sb: Sandbox, owner: KeyOwner, card_hash: str, body: dict) -> dict:
    """A card spend at a shop (the control API's): what the issuer reports, the only way a
    card transaction is written. Nothing is notified."""
    c = Checker(body)
    c.amount()
    c.text("description", max_len=255, multiline=True)
    if c.errors:
        raise validation_error(c.errors)
    value = Decimal(c.clean["amount"])
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _mine(sb, owner, card_hash)
        if card is None:
            raise ApiError(404, "Card not found")
        document._check_spend(card, value)
        _set_balance(db, card, Decimal(card["balance"]) - value)
        sb.store.add_card_transaction(db, card_hash, "Debit", value, c.clean["description"])
    return document.transaction_record(sb.store.card_transactions(card_hash)[-1])
