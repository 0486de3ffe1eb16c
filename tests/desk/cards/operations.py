"""Helpers of the cards controller's tests: a card to work on, how often the service was
asked to act, and an operation whose answer the service drops after committing it."""

import asyncio
from decimal import Decimal


async def a_card(controller, session, profile, amount=10, currency="USD"):
    op = await controller.create(profile, "test", Decimal(amount), currency, None)
    return op, await session.card_ledger.card(profile.id, "test", op.card_hash)


def sends(service, action):
    """How many times the service was asked to ``action`` a card (its own call log): block,
    unblock and terminate name the card in the path (``.../block/<hash>``), fund and
    withdraw in the body (``.../fund``)."""
    return sum(
        1 for path in service.calls() if f"/virtual_card/{action}/" in path or path.endswith(f"/virtual_card/{action}")
    )


async def lose_the_answer(controller, service, until, kind, start, **fault):
    """Set ``fault``, start the operation, wait until it is marked lost, clear the fault.
    Returns its task, the operations seen and how many sends of ``kind`` the service had
    had by then (every later call can only be PayDesk reading the card back)."""
    seen = []
    controller.hub.operation_changed.connect(lambda op: op.kind == kind and seen.append(op))
    service.faults(**(fault or {"drop_after_commit_rate": 1.0}))
    try:
        task = asyncio.ensure_future(start())
        await until(lambda: any(o.state == "lost" for o in seen), timeout=60, message=f"the {kind} marked lost")
    finally:
        service.faults()
    return task, seen, sends(service, kind)
