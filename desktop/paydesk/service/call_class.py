"""Whose call is this? The class of a call to the service, carried by the task that makes it.

A service throttles by client address: every call of a shop is spent from one budget
(``budget.py``), and a person waiting is served before anything in the background. A call's
class is not passed through every function down to the client: the controller or scheduler
that starts the work says it once, around its calls, and the client reads it when it takes a
permit::

    with calls_as(CallClass.PERSON_CREATE):
        await links.create(request)

It is a ``contextvars.ContextVar``: a task started inside the block inherits it; outside any
block a call is ``BACKGROUND``. ``waits_shown_by(listener)`` names, for the same calls, who
shows a person that their call waits for the budget ("Waiting for the service (3 s)"): the
listener hears the seconds left while it waits, and None when the call goes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from enum import IntEnum


class CallClass(IntEnum):
    """The lower the number, the sooner it is served; a class may wait, the ones above not."""

    PERSON_CREATE = 1  # a create a person waits for (counter Enter, Create link), a confirmed card operation
    PERSON_LOOKUP = 2  # a look-up a person asked for (the look-up box, Check now, a payment
    # opened); a notified counter sale's re-read (its customer waits at the counter for PAID)
    ON_SCREEN = 3  # codes on screen; any other notification's re-read (a batch's links)
    BULK = 4  # a batch's creates
    BACKGROUND = 5  # background checks, paid re-reads, Check all open, reconcile


WaitListener = Callable[[float | None], None]  # seconds left (None: the call goes now)


@dataclass(frozen=True)
class Caller:
    klass: CallClass = CallClass.BACKGROUND
    on_wait: WaitListener | None = None
    said: bool = False  # the class was said by calls_as (not the default)


_DEFAULT = Caller()
_CALLER: ContextVar[Caller | None] = ContextVar("paydesk_caller", default=None)


def caller() -> Caller:
    """The class (and who shows its waits) of the calls made here now."""
    return _CALLER.get() or _DEFAULT


@contextmanager
def calls_as(klass: CallClass, *, unless_said: bool = False) -> Iterator[None]:
    """The calls made inside (and by the tasks started inside) are of ``klass``.
    ``unless_said``: keep a class an outer block said (a batch's create stays BULK through
    ``LinksController.create``, which is a person's otherwise)."""
    now = caller()
    if unless_said and now.said:
        yield
        return
    token = _CALLER.set(replace(now, klass=klass, said=True))
    try:
        yield
    finally:
        _CALLER.reset(token)


@contextmanager
def waits_shown_by(listener: WaitListener) -> Iterator[None]:
    """A call made inside that waits for the budget says so to ``listener`` (the seconds
    left, each second; None when it goes): where the person acted shows it."""
    token = _CALLER.set(replace(caller(), on_wait=listener))
    try:
        yield
    finally:
        _CALLER.reset(token)
