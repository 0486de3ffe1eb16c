"""The client's promise on every public call: only ServiceErrors leave it, and none holds
the client's own key."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

from .errors import ServiceError, UnexpectedAnswerError

log = logging.getLogger("paydesk.service")
P = ParamSpec("P")
R = TypeVar("R")


def typed(method: Callable[Concatenate[Any, P], Awaitable[R]]) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """Every public call: only ServiceErrors out, none holding the client's own key."""

    @functools.wraps(method)
    async def call(self: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(self, *args, **kwargs)
        except ServiceError as error:
            raise error.scrubbed(self._key) from None
        except Exception as error:  # the promise: nothing untyped leaves
            log.warning("%s: an answer PayDesk could not read (%s)", method.__name__, type(error).__name__)
            log.debug("the failure in full", exc_info=True)
            raise UnexpectedAnswerError(
                "PayDesk could not read the service's answer", status=None, snippet=f"{type(error).__name__}"
            ).scrubbed(self._key) from None

    return call
