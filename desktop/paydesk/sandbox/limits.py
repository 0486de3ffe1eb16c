"""Request bodies, bounded before they cost anything: refused on their Content-Length at
once, never read past the limit when chunked, and given up on when they trickle."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from starlette.responses import Response

from .bodies import MAX_BODY, BodyTooLarge
from .envelope import ApiError

BODY_TIMEOUT = 20.0  # seconds for a whole request body (at most 64 KB) to arrive


class BodyTimeout(ApiError):
    def __init__(self) -> None:
        super().__init__(408, f"The request body did not arrive within {BODY_TIMEOUT:g} s")


class RequestLimits:
    """ASGI middleware over the whole application.

    ``refuse(path, error)`` renders a refusal (the envelope or a page). When a refusal
    leaves part of the body unread, the answer says ``Connection: close`` and the server
    stops reading it.
    """

    def __init__(
        self,
        app,
        refuse: Callable[[str, ApiError], Response],
        max_body: int = MAX_BODY,
        body_timeout: float = BODY_TIMEOUT,
    ):
        self.app = app
        self.refuse = refuse
        self.max_body = max_body
        self.body_timeout = body_timeout

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length", b"").strip()
        refused = {"closing": False}

        async def closing_send(message) -> None:
            if message["type"] == "http.response.start" and refused["closing"]:
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
                message = {**message, "headers": kept + [(b"connection", b"close")]}
            await send(message)

        if length and (not length.isdigit() or int(length) > self.max_body):
            refused["closing"] = True
            response = self.refuse(
                scope["path"], BodyTooLarge() if length.isdigit() else ApiError(400, "Content-Length is not a number")
            )
            await response(scope, receive, closing_send)
            return

        received = 0
        deadline: float | None = None
        finished = False

        async def limited_receive():
            nonlocal received, deadline, finished
            if finished:
                return await receive()
            loop = asyncio.get_running_loop()
            if deadline is None:
                deadline = loop.time() + self.body_timeout
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                refused["closing"] = True
                raise BodyTimeout() from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    refused["closing"] = True
                    raise BodyTooLarge()
                finished = not message.get("more_body", False)
            else:
                finished = True
            return message

        await self.app(scope, limited_receive, closing_send)
