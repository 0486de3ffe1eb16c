"""What a request body may be: bounded in size, JSON where JSON is due, nested no deeper
than any payment needs, and text that can be stored and shown again.

Every check here runs before any work: a refused body changes nothing.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request

from .envelope import ApiError

MAX_BODY = 64 * 1024  # bytes
MAX_DEPTH = 32  # nested arrays and objects
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class BodyTooLarge(ApiError):
    def __init__(self) -> None:
        super().__init__(413, f"Request body must be at most {MAX_BODY // 1024} KB")


def nesting(raw: bytes) -> int:
    """How deeply arrays and objects nest in a JSON text, without parsing it."""
    brackets = _STRINGS.sub(b'""', raw).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for b in brackets:
        if b in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def bad_text(value: Any, path: str = "") -> str | None:
    """The path of the first text (key or value) that is not valid Unicode, else None.

    JSON's ``\\ud800`` escapes can carry lone surrogates, which Python keeps in a str
    but no UTF-8 writer (the database, a page, an e-mail, an answer) can take.
    """
    if isinstance(value, str):
        return None if _valid(value) else (path or "body")
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if not _valid(key):
                return path or "body"
            found = bad_text(item, where)
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = bad_text(item, f"{path}[{i}]" if path else f"[{i}]")
            if found:
                return found
    return None


def _valid(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_json(raw: bytes | str, field: str | None = None) -> Any:
    """A JSON text as Python values, or a 400 ApiError naming ``field`` (or the body)."""
    what = field or "Request body"
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if nesting(data) > MAX_DEPTH:
        message = f"{what} must not nest arrays and objects more than {MAX_DEPTH} deep"
        raise ApiError(400, message, {field: [message]} if field else None)
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        message = f"{field} must be a JSON object of strings" if field else "Malformed JSON body"
        raise ApiError(400, message, {field: [message]} if field else None) from None
    where = bad_text(value)
    if where:
        name = f"{field}.{where}" if field and where != "body" else (field or where)
        message = f"{name} must be valid Unicode text"
        raise ApiError(400, message, {name: [message]})
    return value


def media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


async def read_json(request: Request) -> dict[str, Any]:
    """The body of a JSON route: application/json, an object (its size is bounded by the
    limits middleware before it is read)."""
    kind = media_type(request)
    raw = await request.body()
    if (kind or raw) and kind != "application/json":
        raise ApiError(415, "Content-Type must be application/json")
    if not raw.strip():
        raise ApiError(400, "Request body must be a JSON object")
    body = parse_json(raw)
    if not isinstance(body, dict):
        raise ApiError(400, "Request body must be a JSON object")
    return body


_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


async def read_form(request: Request) -> dict[str, str]:
    """The fields of a posted HTML form (415 for a body of another type; none when empty)."""
    kind = media_type(request)
    if kind not in _FORM_TYPES:
        if kind or await request.body():
            raise ApiError(415, "The form must be posted as application/x-www-form-urlencoded or multipart/form-data")
        return {}
    try:
        form = await request.form(max_files=0, max_fields=100)
    except HTTPException as exc:  # a malformed multipart body
        raise ApiError(400, f"The form could not be read: {exc.detail}") from None
    return {k: v for k, v in form.items() if isinstance(v, str)}
