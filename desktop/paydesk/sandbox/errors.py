"""How failures are answered: the envelope on JSON routes, a page on HTML routes, and the
truth after an unexpected error (whether a change was saved), on a connection that stays
usable."""

from __future__ import annotations

import logging
import sqlite3

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from .checkout import page
from .context import Sandbox
from .envelope import ApiError
from .store import committed, watching_commits

log = logging.getLogger("paydesk.sandbox")

_HEADINGS = {
    400: "This request could not be read",
    401: "This payment could not start",
    403: "This payment could not start",
    404: "Not found",
    405: "Not allowed",
    408: "This request took too long",
    413: "This request is too large",
    415: "This request could not be read",
    503: "Busy, try again",
    500: "Something went wrong",
}
_INTERNAL = "Internal error; nothing was changed"
_INTERNAL_AFTER_COMMIT = "Internal error after the change was saved: look the record up before trying again"


def is_json_path(base_path: str, path: str) -> bool:
    rest = path[len(base_path) :] if path.startswith(base_path) else path
    return rest.startswith(("/api/", "/_sandbox/")) or rest in ("/api", "/_sandbox")


def refusal(sb: Sandbox, path: str, err: ApiError) -> Response:
    """The failed envelope on JSON routes; an HTML page, with the same status, elsewhere."""
    if is_json_path(sb.config.base_path, path):
        return sb.envelope.fail(err)
    problems = [m for msgs in (err.errors or {}).values() for m in msgs]
    response = page(
        sb,
        "message.html",
        err.status,
        heading=_HEADINGS.get(err.status, "Refused"),
        text=err.message,
        problems=problems,
        test=False,
    )
    response.headers.update(err.headers)
    return response


def handlers(sb: Sandbox) -> dict:
    async def api_error(request: Request, exc: ApiError) -> Response:
        return refusal(sb, request.url.path, exc)

    async def http_error(request: Request, exc: HTTPException) -> Response:
        own = sb.dialect.unmatched(request, exc.status_code, dict(exc.headers or {}))
        if own is not None:
            return own
        message = {404: "Not found", 405: "Method not allowed"}.get(exc.status_code, exc.detail)
        if exc.status_code == 404 and not is_json_path(sb.config.base_path, request.url.path):
            message = "There is nothing at this address."
        return refusal(sb, request.url.path, ApiError(exc.status_code, message, headers=dict(exc.headers or {})))

    async def database_error(request: Request, exc: sqlite3.OperationalError) -> Response:
        text = str(exc).lower()
        if ("locked" not in text and "busy" not in text) or committed():
            raise exc  # an internal error: answered by server_error below
        log.warning("%s %s: the database is held by another program", request.method, request.url.path)
        return refusal(
            sb,
            request.url.path,
            ApiError(503, "The service is busy; nothing was changed; try again shortly", headers={"Retry-After": "1"}),
        )

    async def server_error(request: Request, exc: Exception) -> Response:
        message = _INTERNAL_AFTER_COMMIT if committed() else _INTERNAL
        return refusal(sb, request.url.path, ApiError(500, message))

    return {
        ApiError: api_error,
        HTTPException: http_error,
        sqlite3.OperationalError: database_error,
        Exception: server_error,
    }


class RequestGuard:
    """The outer layer of every request: notes the commits made while answering it, and
    keeps an unexpected error from costing the client its connection.

    Starlette answers an unexpected error (``server_error`` above) and then raises it again
    for the server to log; the server would then drop the keep-alive connection without
    saying ``Connection: close``, so the client's next request on it is reset. The error is
    logged here, once, and the connection stays usable.
    """

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = {"started": False, "complete": False}

        async def watched(message) -> None:
            if message["type"] == "http.response.start":
                sent["started"] = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                sent["complete"] = True
            await send(message)

        with watching_commits() as commits:
            try:
                await self.app(scope, receive, watched)
            except Exception:
                log.exception(
                    "unexpected error answering %s %s%s",
                    scope["method"],
                    scope["path"],
                    " (after a change was saved)" if commits else "",
                )
                if not sent["started"]:
                    await _bare_500(send, after_commit=bool(commits))
                elif not sent["complete"]:
                    raise  # half an answer: only closing the connection can end it


async def _bare_500(send, *, after_commit: bool) -> None:
    """When even the error page failed: a minimal answer that needs nothing else to work."""
    body = (
        b'{"status":"failed","message":"'
        + (_INTERNAL_AFTER_COMMIT if after_commit else _INTERNAL).encode()
        + b'","data":null}'
    )
    await send(
        {
            "type": "http.response.start",
            "status": 500,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
