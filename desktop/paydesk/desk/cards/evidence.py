"""Deciding, from what the service shows, whether a card operation whose answer was lost
happened. Qt-free and pure: the controller reads the card back and asks these.

Fund and withdraw have no idempotency key: the evidence is a credit (fund) or debit
(withdraw) of the same amount on that card, first seen by PayDesk after the operation was
written, made no earlier than a little before it started, and not already the evidence of
another operation. Once PayDesk has seen how the service words its own funds or
withdrawals (the descriptions of transactions it answered done), only a transaction with
such words counts: a card purchase of the same amount is not a withdrawal. Operations claim
transactions oldest first, so each transaction shows at most one operation and none is
counted twice. A service that writes no transaction for a fund or withdrawal (the
family's: only purchases) is read by the balance: one PayDesk read before the operation was
written that has since moved by exactly its amount shows it done.

Where it cannot tell (nothing learned yet, and a same-amount debit from elsewhere), it
leans to "done": then nothing is sent twice, and the card's balance shows the truth.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta
from decimal import Decimal

from ...ledger.cards import CardOperation, CardRecord, CardTxRecord
from ...service.models import DEFAULT_CARD_CURRENCIES, CardState, VirtualCard

# how far the service's clock may be behind ours
CLOCK_SKEW = timedelta(seconds=60)
TYPE_OF = {"fund": "credit", "withdraw": "debit"}
STATE_AFTER = {"block": CardState.BLOCKED, "unblock": CardState.ACTIVE, "terminate": CardState.INACTIVE}


def _could_show(op: CardOperation, tx: CardTxRecord, words: dict[str, set[str]] | None = None) -> bool:
    if (tx.type or "").strip().lower() != TYPE_OF.get(op.kind) or tx.amount != op.amount:
        return False
    known = (words or {}).get(op.kind)
    if known and (tx.description or "") not in known:
        return False  # worded as something else: spending, or another kind of movement
    if tx.first_seen < op.started_at - timedelta(seconds=1):
        return False  # PayDesk had seen it before this operation was written
    return tx.created_at is None or tx.created_at >= op.started_at - CLOCK_SKEW


def match_transactions(
    operations: Iterable[CardOperation],
    transactions: Sequence[CardTxRecord],
    claimed: set[str],
    words: dict[str, set[str]] | None = None,
) -> dict[int, str]:
    """For each operation (taken oldest first), the earliest unclaimed transaction that
    shows it (worded as ``words[kind]`` when known). Returns operation id -> transaction id
    for those that found one."""
    taken = set(claimed)
    ordered = sorted(transactions, key=lambda t: (t.created_at is None, t.created_at, t.tx_id))
    found: dict[int, str] = {}
    for op in sorted(operations, key=lambda o: (o.started_at, o.id)):
        for tx in ordered:
            if tx.tx_id not in taken and _could_show(op, tx, words):
                taken.add(tx.tx_id)
                found[op.id] = tx.tx_id
                break
    return found


def created_card(op: CardOperation, cards: Sequence[VirtualCard], claimed: set[str]) -> VirtualCard | None:
    """The card a lost create made, if the service lists one: same amount and currency,
    created no earlier than a little before the intent, and not the result of another
    create."""
    candidates = [
        c
        for c in cards  # (the family's card says only its balance: a new one's)
        if c.card_hash not in claimed
        and _issued(c) == op.amount
        and _same_currency(c, op.currency)
        and (c.created_at is None or c.created_at >= op.started_at - CLOCK_SKEW)
    ]
    candidates.sort(key=lambda c: (c.created_at is None, c.created_at, c.card_hash))
    return candidates[0] if candidates else None


def _issued(card: VirtualCard) -> Decimal | None:
    return card.amount if card.amount is not None else card.balance


def _same_currency(card: VirtualCard, currency: str | None) -> bool:
    """The card's currency is the one asked for. A code the profile's map does not know is
    read through the service's usual codes; if those do not know it either, it does not
    rule the card out (a second card and a second fee are the worse mistake)."""
    if card.currency:
        return card.currency == currency
    known = DEFAULT_CARD_CURRENCIES.get(card.currency_code or "")
    return known is None or known == currency


def balance_moved(
    op: CardOperation, before: CardRecord | None, card: VirtualCard, transactions: Sequence[CardTxRecord]
) -> bool:
    """A fund or withdrawal that no transaction shows (the family's card transactions come
    only from purchases): done when the card's balance, as PayDesk last read it before the
    operation was written, has moved by exactly its amount, and nothing else moved it (no
    transaction first seen since the operation was written: a purchase meanwhile leaves it
    undecided by the balance)."""
    if (
        before is None
        or before.balance is None
        or card.balance is None
        or op.amount is None
        or before.seen_at >= op.started_at
    ):
        return False  # not known from before the operation: a transaction must show it
    if any(t.first_seen >= op.started_at for t in transactions):
        return False  # something else moved it meanwhile (or before it, seen only now)
    change = op.amount if op.kind == "fund" else -op.amount
    return card.balance - before.balance == change


def state_reached(op: CardOperation, card: VirtualCard | None) -> bool:
    """Block, unblock, terminate: has the card the state the operation asked for? A card
    the service no longer knows has been terminated."""
    if card is None:
        return op.kind == "terminate"
    return card.status is STATE_AFTER[op.kind]
