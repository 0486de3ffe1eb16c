"""The async client of the service: one per profile and mode, every operation typed.

Whatever the service answers (or does not), only ServiceError subclasses leave it, their
text never holds the client's key, and no call waits without bound.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol, TypeVar
from urllib.parse import quote

import httpx

from .. import __version__
from .answers import Answer, read, read_lookup, retry_after
from .budget import Budget, Permit
from .card_calls import CardCalls
from .decoding import ACCEPTED, TooLarge, Undecodable, read_body
from .errors import (
    AnswerLostError,
    AuthenticationError,
    ClientClosedError,
    NotFoundError,
    NotTheServiceError,
    RateLimitedError,
    ServiceError,
    ServiceUnavailableError,
    UnexpectedAnswerError,
    ValidationError,
)
from .models import DEFAULT_CARD_CURRENCIES, LOOKUP_PATHS, Transaction
from .payment_calls import _DEADLINE, PaymentCalls
from .typed import typed as _typed
from .words import N_

log = logging.getLogger("paydesk.service")
T = TypeVar("T")
PARSE_ON_A_THREAD = 64 * 1024  # bytes: an answer this long is parsed off the event loop
MAX_ANSWER = 2 * 1024 * 1024  # bytes, received and decoded; a bigger answer is not the service's
Reader = Callable[[int, dict, bytes], Answer]
LIMITED_MOST = 10  # 429s one operation takes from a budgeted service before it gives up


class AddressGuard(Protocol):
    """Who may be sent the key: asked before every request (``before_send`` raises a
    ServiceError, NotTheServiceError when another program answers there, and nothing is
    sent), told of every answer that was not the service's envelope (``doubt``: ask the
    address again before the next request). The session's (desk/guard.py)."""

    async def before_send(self) -> None: ...

    def doubt(self) -> None: ...


class ServiceClient(PaymentCalls, CardCalls):
    """Talks to one service deployment with one secret key (so: one profile, one mode).

    ``async with ServiceClient(base_url, key) as client: await client.validate("REF")``.

    Waits are bounded: each exchange by ``timeout``; a 429 is waited out only when its
    Retry-After is at most ``max_retry_wait`` (else RateLimitedError at once, its
    ``retry_after`` for the caller to schedule); ``create_payment`` as a whole by
    ``create_deadline`` (then AnswerLostError: the caller settles it later).

    ``guard`` is asked before every request whether the address answers like the service
    (``AddressGuard``); a NotTheServiceError it raises ends the call at once, never retried.
    """

    def __init__(
        self,
        base_url: str,
        secret_key: str,
        *,
        timeout: float = 20.0,
        connect_timeout: float = 5.0,
        transport: httpx.AsyncBaseTransport | None = None,
        retries: int = 3,
        backoff: float = 0.3,
        max_backoff: float = 5.0,
        card_currencies: Mapping[str, str] = DEFAULT_CARD_CURRENCIES,
        create_attempts: int = 8,
        max_retry_wait: float = 5.0,
        create_deadline: float = 45.0,
        lookup_path: str | None = None,
        on_lookup_path: Callable[[str], None] | None = None,
        guard: AddressGuard | None = None,
        budget: Budget | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.budget = budget
        self._key = secret_key
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.create_attempts = create_attempts
        self.max_retry_wait = max_retry_wait
        self.create_deadline = create_deadline
        self.card_currencies = dict(card_currencies)
        # None until found out; ``on_lookup_path`` hears each change (the session keeps it
        # with the profile, so the next start asks the right path first)
        self.lookup_path = lookup_path if lookup_path in LOOKUP_PATHS else None
        self._on_lookup_path = on_lookup_path
        self._guard = guard
        self._closing = asyncio.Event()
        self._http = httpx.AsyncClient(
            base_url=self.base_url + "/",
            headers={
                "Accept": "application/json",
                "Accept-Encoding": ACCEPTED,
                "Authorization": f"Bearer {secret_key}",
                "User-Agent": f"PayDesk/{__version__}",
            },
            timeout=httpx.Timeout(timeout, connect=connect_timeout),
            transport=transport,
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"ServiceClient({self.base_url!r})"

    async def __aenter__(self) -> ServiceClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    @property
    def closed(self) -> bool:
        return self._closing.is_set()

    async def aclose(self) -> None:
        """Close the connections. Calls waiting between retries end at once with
        ClientClosedError, and so does any later call."""
        self._closing.set()
        await self._http.aclose()

    # -- one exchange ---------------------------------------------------------

    def _closed_error(self) -> ClientClosedError:
        return ClientClosedError("This connection to the service was closed")

    async def _permit(self) -> Permit | None:
        """The budget's permit for one exchange (None: no budget). Waiting for it does not
        count against the deadline of a create under way."""
        if self.budget is None:
            return None
        deadline = _DEADLINE.get()
        when = deadline.when() if deadline is not None else None
        if deadline is not None and when is not None:
            deadline.reschedule(None)
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            permit = await self.budget.take()
        finally:
            if deadline is not None and when is not None:
                deadline.reschedule(when + (loop.time() - started))
        if self.closed:  # closed while it waited
            permit.lost()
            raise self._closed_error()
        return permit

    async def _exchange(self, method: str, path: str, body: dict | None = None, reader: Reader = read) -> Answer:
        """Send once; read the answer within the overall timeout. Raises ServiceError."""
        if self.closed:
            raise self._closed_error()
        if self._guard is not None:
            await self._guard.before_send()  # raises: nothing is sent (nor counted)
        permit = await self._permit()
        try:
            async with asyncio.timeout(self.timeout):
                async with self._http.stream(method, path.lstrip("/"), json=body) as reply:
                    if permit is not None:
                        permit.answered(reply.status_code, reply.headers, retry_after(reply.headers.get("retry-after")))
                    raw = await read_body(reply.aiter_raw(), reply.headers.get("content-encoding"), MAX_ANSWER)
                    if len(raw) > PARSE_ON_A_THREAD:  # a long list: keep the event loop free
                        return await asyncio.to_thread(reader, reply.status_code, dict(reply.headers), raw)
                    return reader(reply.status_code, dict(reply.headers), raw)
        except ServiceError as error:
            # not the envelope: ask the address again before the next request; but for the
            # framework's 404 of a path that is no route there (how a deployment's look-up
            # path is found) and its error pages (5xx: the service failing, said as such)
            if not error.enveloped and error.status != 404 and (error.status or 0) < 500:
                self._doubt()
            raise
        except TooLarge:
            self._doubt()
            raise UnexpectedAnswerError("The service's answer is far too large", status=None) from None
        except Undecodable as error:
            self._doubt()
            raise UnexpectedAnswerError(f"The service's answer could not be decoded: {error}", status=None) from None
        except (httpx.HTTPError, RuntimeError, TimeoutError) as error:
            if self.closed:  # closed under this call
                raise self._closed_error() from None
            if isinstance(error, RuntimeError):
                raise
            self._doubt()  # whatever listens there next may not be the service
            raise _transport_error(error, self.timeout) from None
        finally:
            if permit is not None:
                permit.lost()  # no answer came (nothing when it was answered)

    def _doubt(self) -> None:
        if self._guard is not None:
            self._guard.doubt()

    async def _pause(self, delay: float) -> None:
        """Wait between attempts; ClientClosedError at once if the client is closed."""
        try:
            async with asyncio.timeout(delay):
                await self._closing.wait()
        except TimeoutError:
            return
        raise self._closed_error()

    def _delay(self, attempt: int, error: ServiceError | None) -> float:
        """How long to wait before the next attempt; RateLimitedError when the service
        asks for longer than this client waits. With a budget, a 429 paused it: the next
        permit waits as long as the service asked."""
        if isinstance(error, RateLimitedError) and self.budget is not None:
            return 0.0
        if isinstance(error, RateLimitedError) and error.retry_after is not None:
            if error.retry_after > self.max_retry_wait:
                raise error
            return error.retry_after
        base = min(self.max_backoff, self.backoff * (2**attempt))
        return random.uniform(base / 2, base)  # jittered

    def _limited_again(self, error: Exception, limited: int) -> bool:
        """A 429 of a budgeted service does not use up an attempt (it was not processed,
        and the budget waits its pause), up to LIMITED_MOST of them."""
        return isinstance(error, RateLimitedError) and self.budget is not None and limited < LIMITED_MOST

    async def _retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        """For reads (and card GETs): retry transport errors, 5xx and 429, bounded."""
        attempt = limited = 0
        while True:
            try:
                return await call()
            except NotTheServiceError:
                raise  # nothing more goes there
            except (ServiceUnavailableError, RateLimitedError) as error:
                if self._limited_again(error, limited):
                    limited += 1
                    continue
                if attempt >= self.retries:
                    raise
                delay = self._delay(attempt, error)
                log.info("retrying in %.2f s after %s", delay, type(error).__name__)
                attempt += 1
                await self._pause(delay)

    async def _read(self, path: str) -> Answer:
        return await self._retrying(lambda: self._exchange("GET", path))

    async def _write(self, path: str, body: dict) -> Answer:
        """Writes are not blindly retried: only when the service surely did not act
        (it could not be reached, or it said slow down)."""
        attempt = limited = 0
        while True:
            try:
                return await self._exchange("POST", path, body)
            except (RateLimitedError, ServiceUnavailableError) as error:
                never_arrived = isinstance(error, RateLimitedError) or (
                    type(error) is ServiceUnavailableError and error.status is None
                )
                if never_arrived and self._limited_again(error, limited):
                    limited += 1
                    continue
                if not never_arrived or attempt >= self.retries:
                    raise
                await self._pause(self._delay(attempt, error))
                attempt += 1

    # -- payments -------------------------------------------------------------

    @_typed
    async def validate(self, tx_ref: str) -> Transaction:
        """Look a transaction up by the merchant's reference."""
        if not tx_ref or not tx_ref.strip():
            raise ValidationError("tx_ref is required", {"tx_ref": ["tx_ref is required"]})
        return await self._lookup(tx_ref.strip())

    async def _lookup(self, tx_ref: str) -> Transaction:
        """Ask the path this deployment is known to have (the document's until found out);
        when that path is not a route there (a 404 that is not the service's envelope: the
        framework's own page), ask the other. Whichever answers with an envelope is the
        deployment's, and is remembered."""
        first = self.lookup_path or LOOKUP_PATHS[0]
        paths = [first] + [p for p in LOOKUP_PATHS if p != first]
        ref = quote(tx_ref, safe="")
        for path in paths:
            try:
                answer = await self._retrying(
                    functools.partial(self._exchange, "GET", f"{path}/{ref}", reader=read_lookup)
                )
            except UnexpectedAnswerError as error:
                if error.status == 404:
                    continue  # no such route at this deployment
                raise
            except NotFoundError as error:
                self._found_lookup_path(path)
                if "not submitted" in error.message.lower():
                    return Transaction.not_submitted(tx_ref)
                raise
            except (ValidationError, AuthenticationError):
                self._found_lookup_path(path)  # the service's envelope: its route
                raise
            self._found_lookup_path(path)
            return Transaction.parse(answer.data, answer.status)
        raise UnexpectedAnswerError(
            "Nothing at this address looks payments up (neither api/transaction nor "
            "api/verify-payment is a route): check the service's address",
            status=404,
        )

    def _found_lookup_path(self, path: str) -> None:
        if path == self.lookup_path:
            return
        log.info("this deployment looks payments up at %s", path)
        self.lookup_path = path
        if self._on_lookup_path is not None:
            try:
                self._on_lookup_path(path)
            except Exception:  # remembering it must never fail the lookup
                log.exception("could not pass on the lookup path")


def _transport_error(error: Exception, timeout: float) -> ServiceError:
    """A transport failure as the ServiceError that says whether the request may have
    arrived (PayDesk's own sentence: said in the reader's language)."""
    if isinstance(error, TimeoutError):
        return AnswerLostError(N_("No answer from the service within {seconds} s"), values={"seconds": f"{timeout:g}"})
    if isinstance(error, httpx.ConnectError):
        return ServiceUnavailableError(N_("The service cannot be reached"), values={})
    if isinstance(error, (httpx.ConnectTimeout, httpx.PoolTimeout)):
        return ServiceUnavailableError(N_("The service cannot be reached (timed out)"), values={})
    if isinstance(error, httpx.TimeoutException):
        return AnswerLostError(N_("The service stopped answering (timed out)"), values={})
    if isinstance(error, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return AnswerLostError(N_("The connection to the service was cut"), values={})
    return ServiceUnavailableError(N_("Network error ({kind})"), values={"kind": type(error).__name__})
