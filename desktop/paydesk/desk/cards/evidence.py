"""Deciding, from what the service shows, whether a card operation whose answer was lost
happened. Qt-free and pure: the controller reads the card back and asks these.

Fund and withdraw have no idempotency key: the evidence is a credit (fund) or debit
(withdraw) of the same amount on that card, first seen by PayDesk after the operation was
written, made no earlier than a little before it started, and not already the evidence of
another operation. Once PayDesk has seen how the service words its own funds or
withdrawals (the descriptions of transactions it answered done), only a transaction with
such words counts: a card purchase of the same amount is not a withdrawal. Operations claim
transactions oldest first, so each transaction shows at most one operation and none is
counted twice.

Where it cannot tell (nothing learned yet, and a same-amount debit from elsewhere), it
leans to "done": then nothing is sent twice, and the card's balance shows the truth.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta

from ...ledger.cards import CardOperation, CardTxRecord
from ...service.models import DEFAULT_CARD_CURRENCIES, CardState, VirtualCard

# how far the service's clock may be behind ours
CLOCK_SKEW = timedelta(seconds=60)
TYPE_OF = {"fund": "credit", "withdraw": "debit"}
STATE_AFTER = {"block": CardState.BLOCKED, "unblock": CardState.ACTIVE,
               "terminate": CardState.INACTIVE}


def _could_show(op: CardOperation, tx: CardTxRecord,
                words: dict[str, set[str]] | None = None) -> bool:
    if (tx.type or "").strip().lower() != TYPE_OF.get(op.kind) or tx.amount != op.amount:
        return False
    known = (words or {}).get(op.kind)
    if known and (tx.description or "") not in known:
        return False  # worded as something else: spending, or another kind of movement
    if tx.first_seen < op.started_at - timedelta(seconds=1):
        return False  # PayDesk had seen it before this operation was written
    return tx.created_at is None or tx.created_at >= op.started_at - CLOCK_SKEW


def match_transactions(operations: Iterable[CardOperation], transactions: Sequence[CardTxRecord],
                       claimed: set[str],
                       words: dict[str, set[str]] | None = None) -> dict[int, str]:
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


def created_card(op: CardOperation, cards: Sequence[VirtualCard],
                 claimed: set[str]) -> VirtualCard | None:
    """The card a lost create made, if the service lists one: same amount and currency,
    created no earlier than a little before the intent, and not the result of another
    create."""
    candidates = [c for c in cards
                  if c.card_hash not in claimed and c.amount == op.amount
                  and _same_currency(c, op.currency)
                  and (c.created_at is None or c.created_at >= op.started_at - CLOCK_SKEW)]
    candidates.sort(key=lambda c: (c.created_at is None, c.created_at, c.card_hash))
    return candidates[0] if candidates else None


def _same_currency(card: VirtualCard, currency: str | None) -> bool:
    """The card's currency is the one asked for. A code the profile's map does not know is
    read through the service's usual codes; if those do not know it either, it does not
    rule the card out (a second card and a second fee are the worse mistake)."""
    if card.currency:
        return card.currency == currency
    known = DEFAULT_CARD_CURRENCIES.get(card.currency_code or "")
    return known is None or known == currency


def state_reached(op: CardOperation, card: VirtualCard | None) -> bool:
    """Block, unblock, terminate: has the card the state the operation asked for? A card
    the service no longer knows has been terminated."""
    if card is None:
        return op.kind == "terminate"
    return card.status is STATE_AFTER[op.kind]
