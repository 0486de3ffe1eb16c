"""Virtual cards: the nine operations, the merchant's balances, the states and their rules."""

from __future__ import annotations

import secrets
import sqlite3
import uuid
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from .bodies import read_json
from .context import Sandbox, authenticate, sandbox_of, wrong_mode
from .envelope import ApiError, validation_error
from .keys import KeyOwner
from .store import now_iso
from .validation import CURRENCY_OF_CODE, Checker, currency_code, fee

ACTIVE, BLOCKED, TERMINATED = 1, 2, 0
# A request that is valid but that the card's or the balance's state refuses (blocked,
# terminated, not enough money) is a 409 conflict; 400 is for requests that are not valid.
OPENING_BALANCE = {"test": Decimal("100000.00"), "live": Decimal("0.00")}


def _luhn_complete(partial: str) -> str:
    total = 0
    for i, ch in enumerate(reversed(partial)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return partial + str((10 - total % 10) % 10)


def _two(value: Decimal) -> str:
    return f"{value:.2f}"


def card_view(sb: Sandbox, row: sqlite3.Row, *, with_balance: bool = False) -> dict[str, Any]:
    pan = row["card_pan"]
    view = {
        "id": row["id"],
        "user_id": "u_" + row["merchant_id"],
        "account_id": row["account_id"],
        "card_hash": row["card_hash"],
        "card_pan": pan,
        "masked_card": pan[:6] + "*" * (len(pan) - 10) + pan[-4:],
        "cvv": row["cvv"],
        "expiration": row["expiration"],
        "card_type": "visa",
        "name_on_card": row["name_on_card"],
        "callback": row["callback"],
        "amount": row["amount"],
        "charge": row["charge"],
        "status": row["status"],
        "ref_id": row["ref_id"],
        "city": None,
        "state": None,
        "address": None,
        "zip_code": None,
        "currency": row["currency"],
        "paid": row["paid"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "business_id": row["merchant_id"],
    }
    if with_balance:
        view["balance"] = row["balance"]
    return view


def event_view(row: sqlite3.Row) -> dict[str, Any]:
    """What a notification carries: no full number, no security code."""
    pan = row["card_pan"]
    return {
        "card_hash": row["card_hash"],
        "masked_card": pan[:6] + "******" + pan[-4:],
        "status": row["status"],
        "balance": row["balance"],
        "currency": row["currency"],
    }


def _notify(sb: Sandbox, row: sqlite3.Row, event: str, extra: dict | None = None) -> None:
    if row["callback"]:
        sb.notifier.send(row["merchant_id"], row["mode"], row["callback"], event, {**event_view(row), **(extra or {})})


def _owned_card(sb: Sandbox, owner: KeyOwner, card_hash: str, *, usable: bool = True) -> sqlite3.Row:
    """The caller's card. Every change reads it inside its write transaction (the store's
    one connection, under BEGIN IMMEDIATE), so two processes on one data folder cannot
    lose each other's update."""
    row = sb.store.card(card_hash) if card_hash else None
    if row is None or row["merchant_id"] != owner.merchant_id:
        raise ApiError(404, "Card not found")
    if row["mode"] != owner.mode:
        raise wrong_mode(owner, row["mode"], "use")
    if usable and row["status"] == TERMINATED:
        raise ApiError(409, "Card is terminated")
    return row


def _amount_and_card(body: dict) -> tuple[int, str]:
    c = Checker(body)
    c.amount()
    c.text("card_hash", max_len=100)
    if c.errors:
        raise validation_error(c.errors)
    return c.clean["amount"], c.clean["card_hash"]


def _iso_of(code: str) -> str:
    return CURRENCY_OF_CODE[code]


def _name_on_card(sb: Sandbox, owner: KeyOwner, clean: dict) -> str:
    """The cardholder's name as issuers print it ("GRACE HOPPER"), from first_name and
    last_name when sent; the merchant's own name when neither is."""
    given = " ".join(n for n in (clean.get("first_name"), clean.get("last_name")) if n)
    return (given or sb.keys.name_of(owner.merchant_id)).upper()


async def create(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    body = await read_json(request)
    c = Checker(body)
    c.amount()
    c.currency(sb.config.currencies)
    c.url("callback_url")
    for name in ("first_name", "last_name"):  # optional; when sent, a name (not blank)
        c.text(name, required=name in body)
    if c.errors:
        raise validation_error(c.errors)
    now = datetime.now(UTC)
    card = issue(
        sb,
        owner,
        c.clean["amount"],
        c.clean["currency"],
        c.clean.get("callback_url"),
        _name_on_card(sb, owner, c.clean),
        f"{now.year + 3:04d}-{now.month:02d}",
        names=(c.clean.get("first_name"), c.clean.get("last_name")),
    )
    _notify(sb, card, "card.created")
    return sb.envelope.ok("Payment link created", card_view(sb, card), 201)


def issue(
    sb: Sandbox,
    owner: KeyOwner,
    amount: int,
    currency: str,
    callback: str | None,
    name_on_card: str,
    expiration: str,
    *,
    mode: str | None = None,
    names: tuple[str | None, str | None] = (None, None),
    entry: bool = True,
) -> sqlite3.Row:
    """A new active card holding ``amount``, paid for (amount plus fee) from the merchant's
    balance of ``mode`` (the key's by default) in one transaction; 409 when the balance is
    short. ``names``: the cardholder's first and last names as sent; ``entry``: the card's
    first transaction, a credit of ``amount``, is written."""
    mode = mode or owner.mode
    value = Decimal(amount)
    charge = fee(value, "1", "1.00")
    stamp = now_iso()
    row = {
        "id": str(uuid.uuid4()),
        "merchant_id": owner.merchant_id,
        "mode": mode,
        "card_hash": "ch_" + secrets.token_hex(16),
        "account_id": secrets.randbelow(900_000) + 100_000,
        "card_pan": _luhn_complete("4" + "".join(str(secrets.randbelow(10)) for _ in range(14))),
        "cvv": f"{secrets.randbelow(1000):03d}",
        "expiration": expiration,
        "name_on_card": name_on_card,
        "callback": callback,
        "amount": str(amount),
        "charge": _two(charge),
        "paid": _two(value + charge),
        "balance": _two(value),
        "currency": currency_code(currency),
        "status": ACTIVE,
        "ref_id": secrets.token_hex(8),
        "created_at": stamp,
        "updated_at": stamp,
        "first_name": names[0],
        "last_name": names[1],
    }
    with sb.store.transaction() as db:
        have = sb.store.balance(db, owner.merchant_id, mode, currency, OPENING_BALANCE[mode])
        if have < value + charge:
            raise ApiError(409, "Insufficient Funds, please fund your account")
        sb.store.set_balance(db, owner.merchant_id, mode, currency, have - value - charge)
        cols = ", ".join(row)
        db.execute(f"INSERT INTO cards ({cols}) VALUES ({', '.join('?' for _ in row)})", tuple(row.values()))
        if entry:
            sb.store.add_card_transaction(db, row["card_hash"], "Credit", value, "Card created")
    return sb.store.card(row["card_hash"])


def _check_spend(card: sqlite3.Row, value: Decimal) -> None:
    """Refuses taking ``value`` off a blocked card, or more than its balance."""
    if card["status"] == BLOCKED:
        raise ApiError(409, "Card is blocked")
    if value > Decimal(card["balance"]):
        raise ApiError(409, "Insufficient card balance")


def _card_entry(
    sb: Sandbox, db: sqlite3.Connection, card: sqlite3.Row, kind: str, value: Decimal, description: str
) -> None:
    """A credit or debit of ``value`` on ``card``: its balance and its transaction, in the
    caller's transaction (the card read in it)."""
    change = value if kind == "Credit" else -value
    db.execute(
        "UPDATE cards SET balance = ?, updated_at = ? WHERE card_hash = ?",
        (_two(Decimal(card["balance"]) + change), now_iso(), card["card_hash"]),
    )
    sb.store.add_card_transaction(db, card["card_hash"], kind, value, description)


async def fund(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    amount, card_hash = _amount_and_card(await read_json(request))
    value = Decimal(amount)
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _owned_card(sb, owner, card_hash)
        if card["status"] == BLOCKED:
            raise ApiError(409, "Card is blocked")
        currency = _iso_of(card["currency"])
        have = sb.store.balance(db, owner.merchant_id, owner.mode, currency, OPENING_BALANCE[owner.mode])
        if have < value:
            raise ApiError(409, "Insufficient Funds, please fund your account")
        sb.store.set_balance(db, owner.merchant_id, owner.mode, currency, have - value)
        _card_entry(sb, db, card, "Credit", value, "Card funded")
    _notify(sb, sb.store.card(card_hash), "card.funded", {"amount": _two(value)})
    return sb.envelope.ok("Card Funding successful", {})


async def withdraw(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    amount, card_hash = _amount_and_card(await read_json(request))
    value = Decimal(amount)
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _owned_card(sb, owner, card_hash)
        _check_spend(card, value)
        currency = _iso_of(card["currency"])
        have = sb.store.balance(db, owner.merchant_id, owner.mode, currency, OPENING_BALANCE[owner.mode])
        sb.store.set_balance(db, owner.merchant_id, owner.mode, currency, have + value)
        _card_entry(sb, db, card, "Debit", value, "Withdrawal to balance")
    _notify(sb, sb.store.card(card_hash), "card.withdrawn", {"amount": _two(value)})
    status = "suucess" if sb.config.quirks else "success"
    return sb.envelope.ok("Card Withdrawal successful", {}, envelope_status=status)


async def _set_state(
    request: Request, to: int, allowed_from: int, refusal: str, message: str, event: str
) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _owned_card(sb, owner, request.path_params["card_hash"])
        if card["status"] != allowed_from:
            raise ApiError(409, refusal)
        db.execute(
            "UPDATE cards SET status = ?, updated_at = ? WHERE card_hash = ?", (to, now_iso(), card["card_hash"])
        )
    _notify(sb, sb.store.card(card["card_hash"]), event)
    return sb.envelope.ok(message, {})


async def block(request: Request) -> JSONResponse:
    return await _set_state(request, BLOCKED, ACTIVE, "Card is already blocked", "Card Blocked", "card.blocked")


async def unblock(request: Request) -> JSONResponse:
    return await _set_state(request, ACTIVE, BLOCKED, "Card is not blocked", "Card Unblocked", "card.unblocked")


async def terminate(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _owned_card(sb, owner, request.path_params["card_hash"])
        balance = Decimal(card["balance"])
        currency = _iso_of(card["currency"])
        have = sb.store.balance(db, owner.merchant_id, owner.mode, currency, OPENING_BALANCE[owner.mode])
        sb.store.set_balance(db, owner.merchant_id, owner.mode, currency, have + balance)
        db.execute(
            "UPDATE cards SET status = ?, balance = '0.00', updated_at = ? WHERE card_hash = ?",
            (TERMINATED, now_iso(), card["card_hash"]),
        )
        if balance > 0:
            sb.store.add_card_transaction(db, card["card_hash"], "Debit", balance, "Balance refunded on termination")
    _notify(sb, sb.store.card(card["card_hash"]), "card.terminated")
    return sb.envelope.ok("Card Terminated", {})


def transaction_record(row: sqlite3.Row) -> dict[str, Any]:
    return {k: row[k] for k in ("id", "card_hash", "type", "amount", "description", "status", "created_at")}


async def transactions(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    card = _owned_card(sb, owner, request.path_params["card_hash"], usable=False)
    records = [transaction_record(r) for r in sb.store.card_transactions(card["card_hash"])]
    return sb.envelope.ok("Card Transactions", records)


async def all_cards(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    rows = sb.store.cards_of(owner.merchant_id, owner.mode)
    if sb.config.quirks:
        rows = [r for r in rows if r["status"] != TERMINATED]
    return sb.envelope.ok("All Cards", [card_view(sb, r, with_balance=True) for r in rows])


async def get_card(request: Request) -> JSONResponse:
    sb = sandbox_of(request)
    owner = authenticate(request)
    card = _owned_card(sb, owner, request.path_params["card_hash"], usable=False)
    return sb.envelope.ok("All Cards", card_view(sb, card, with_balance=True))


async def purchase(sb: Sandbox, owner: KeyOwner, card_hash: str, body: dict) -> dict:
    """A card spend, as a shop would make it (sandbox control)."""
    c = Checker(body)
    c.amount()
    c.text("description", max_len=255, multiline=True)
    if c.errors:
        raise validation_error(c.errors)
    value = Decimal(c.clean["amount"])
    with sb.store.transaction() as db:  # read and write the card in one transaction
        card = _owned_card(sb, owner, card_hash)
        _check_spend(card, value)
        _card_entry(sb, db, card, "Debit", value, c.clean["description"])
    record = transaction_record(sb.store.card_transactions(card_hash)[-1])
    _notify(sb, sb.store.card(card_hash), "card.transaction", {"transaction": record})
    return record


def merchant_balances(sb: Sandbox, owner: KeyOwner) -> dict[str, str]:
    with sb.store.transaction() as db:
        return {
            cur: _two(sb.store.balance(db, owner.merchant_id, owner.mode, cur, OPENING_BALANCE[owner.mode]))
            for cur in sb.config.currencies
        }


def top_up(sb: Sandbox, owner: KeyOwner, currency: str, amount: Decimal) -> None:
    with sb.store.transaction() as db:
        have = sb.store.balance(db, owner.merchant_id, owner.mode, currency, OPENING_BALANCE[owner.mode])
        sb.store.set_balance(db, owner.merchant_id, owner.mode, currency, have + amount)
