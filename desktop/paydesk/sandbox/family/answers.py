"""How the family's server answers: its JSON envelope, the framework's own error answers
where no route or no record is found (JSON under ``Accept: application/json``, else its
HTML pages), and PHP's JSON encoding of what it sends out."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from starlette.datastructures import Headers
from starlette.responses import HTMLResponse, JSONResponse, Response

from ..envelope import ApiError, Envelope
from ..payments import transaction_view

# failed and cancelled are one state there
STATES = {"failed": "failed/cancelled", "cancelled": "failed/cancelled"}


def state(status: str) -> str:
    return STATES.get(status, status)


def transaction(row: sqlite3.Row) -> dict[str, Any]:
    """The transaction as the family's server shows it: the document's fields, with its
    own state words."""
    view = transaction_view(row)
    view["status"] = state(view["status"])
    return view


class FamilyEnvelope(Envelope):
    """Successes are HTTP 201; errors 400 (404 for a lookup's "Invalid transaction" and
    "Payment not submitted"), ``data`` JSON null, ``message`` the framework's error bag
    (field -> list of strings) on a validation failure, else text."""

    def __init__(self) -> None:
        super().__init__(quirks=True)

    def ok(
        self,
        message: str,
        data: Any,
        status: int = 201,
        *,
        envelope_status: str = "success",
        headers: dict[str, str] | None = None,
    ) -> JSONResponse:
        body = {"status": envelope_status, "message": message, "data": data}
        return JSONResponse(body, status_code=201, headers=headers)

    def fail(self, err: ApiError) -> JSONResponse:
        message: Any = err.message if err.plain or not err.errors else err.errors
        body = {"status": err.quirk_envelope_status, "message": err.quirk_message or message, "data": None}
        status = err.quirk_status or (err.status if err.status == 429 else 400)
        return JSONResponse(body, status_code=status, headers=err.headers)


class MissingRecord(Exception):
    """A record the family's controller looks up with ``firstOrFail``-like code is not
    there: the framework answers its HTML 500 page."""


_TITLES = {404: "Not Found", 405: "Method Not Allowed", 429: "Too Many Requests", 500: "Server Error"}

# the framework's minimal error view, as a Laravel deployment serves it
_PAGE = """<!DOCTYPE html>
<html lang="en">
    <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{title}</title>
        <style>
            body {{ font-family: ui-sans-serif, system-ui, sans-serif; color: #6b7280;
                   display: flex; align-items: center; justify-content: center;
                   min-height: 100vh; margin: 0; background: #f7fafc; }}
            .code {{ font-size: 1.125rem; padding: 0 1rem; border-right: 1px solid #a0aec0; }}
            .message {{ font-size: 1.125rem; padding: 0 1rem; text-transform: uppercase; }}
        </style>
    </head>
    <body>
        <div class="code">{code}</div>
        <div class="message">{title}</div>
    </body>
</html>
"""


def framework_page(code: int, headers: dict[str, str] | None = None) -> HTMLResponse:
    """The framework's own error page (not the service's envelope): what a real deployment
    answers for a route it does not have (404, 405) or a record its code assumed (500)."""
    title = _TITLES.get(code, "Error")
    return HTMLResponse(
        _PAGE.format(code=code, title=title),
        status_code=code,
        headers={"Cache-Control": "no-cache, private", **(headers or {})},
    )


def _acceptable(accept: str) -> list[str]:
    """The Accept header's types, most wanted first (by ``q``, then as written), as
    Symfony's ``getAcceptableContentTypes`` orders them."""
    kinds = []
    for place, part in enumerate(accept.split(",")):
        kind, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if kind and q > 0:
            kinds.append((-q, place, kind.lower()))
    return [kind for _q, _place, kind in sorted(kinds)]


def expects_json(headers: Headers) -> bool:
    """Laravel's ``$request->expectsJson()``: the most wanted type is JSON (``wantsJson``),
    or an XMLHttpRequest that takes anything."""
    acceptable = _acceptable(headers.get("accept", ""))
    if acceptable and ("/json" in acceptable[0] or "+json" in acceptable[0]):
        return True
    ajax = headers.get("x-requested-with", "") == "XMLHttpRequest"
    return ajax and (not acceptable or acceptable[0] in ("*/*", "*"))


def framework_answer(headers: Headers, code: int, message: str, extra: dict[str, str] | None = None) -> Response:
    """An exception the framework renders itself (a missing route or method, too many
    attempts, an error in the code): ``{"message": ...}`` with the status when the request
    expects JSON, else the framework's HTML page."""
    if expects_json(headers):
        return JSONResponse(
            {"message": message}, status_code=code, headers={"Cache-Control": "no-cache, private", **(extra or {})}
        )
    return framework_page(code, extra)


def php_json(value: Any) -> bytes:
    """JSON as PHP's ``json_encode`` writes it by default: compact, non-ASCII as ``\\uXXXX``,
    and ``/`` escaped as ``\\/`` (so only the raw bytes verify a signature)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    return text.replace("/", "\\/").encode("ascii")
