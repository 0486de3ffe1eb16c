"""What every path of the OpenAPI document (``openapi.py``) shares: the failures and why
each is answered, the envelope of a success, the parameters and the key a call needs."""

from __future__ import annotations

from typing import Any

from . import openapi_schemas as s

WHY = {
    "400": "the request is not valid: `errors` names each failing field",
    "401": "no key, or a key the service does not know",
    "403": "a key of the wrong kind (a public key on a server call, or the reverse)",
    "404": "no such record (of this merchant)",
    "408": "the request body did not arrive within 20 s",
    "409": "valid, but the record's state refuses it",
    "413": "a body over 64 KB (refused on its Content-Length, before it is read)",
    "415": "a body of another content type",
    "429": "too many requests: the server's throttle (X-RateLimit-Limit requests a window per "
    "client address, with --rate-limit; the message 'Too Many Attempts.'), or a rate "
    "limit set through the sandbox control: wait Retry-After seconds",
    "500": "an internal error: the message says whether a change was saved",
    "503": "unavailable for a moment (a fault, a database held by another program, too many "
    "connections); nothing was changed",
}
DIGITS = {"type": "string", "pattern": "^[0-9]+$"}
RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": DIGITS}}
# the server's throttle (--rate-limit): the headers of its refusal (every answer of a
# throttled route carries the first two)
THROTTLED = {
    **RETRY_AFTER,
    "X-RateLimit-Limit": {"description": "requests a window per client address", "schema": DIGITS},
    "X-RateLimit-Remaining": {"description": "requests left in this window: 0", "schema": DIGITS},
    "X-RateLimit-Reset": {
        "description": "when the window ends, in seconds since the epoch "
        "(absent on a limit set through the sandbox control)",
        "schema": DIGITS,
    },
}
LOCATION = {"Location": {"required": True, "schema": {"type": "string"}}}
JSON_READ = ("401", "403", "429", "500", "503")
JSON_WRITE = ("400", "401", "403", "408", "413", "415", "429", "500", "503")
PAGE = ("500", "503")
PAGE_FORM = ("408", "413", "415", "500", "503")


def json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def failures(codes: tuple[str, ...], *, html: bool = False) -> dict[str, Any]:
    out = {}
    for code in sorted(codes):
        body = {"content": {"text/html": {"schema": s.STR}}} if html else json({"$ref": "#/components/schemas/Failed"})
        out[code] = {"description": WHY.get(code, "refused"), **body}
        if code == "429":
            out[code]["headers"] = THROTTLED
        elif code == "503":
            out[code]["headers"] = RETRY_AFTER
    return out


def ok(code: str, message: str, data: dict[str, Any], links: dict | None = None) -> dict:
    answer = {"description": message, **json(s.envelope(message, data))}
    if links:
        answer["links"] = links
    return {code: answer}


def page(what: str) -> dict[str, Any]:
    return {"description": what, "content": {"text/html": {"schema": s.STR}}}


SEE_OTHER = {"description": "on to the next page", "headers": LOCATION}
SECRET = [{"secretKey": []}]
PARAMETERS = {
    "tx_ref": {"name": "tx_ref", "in": "path", "required": True, "schema": s.TX_REF},
    "card_hash": {"name": "card_hash", "in": "path", "required": True, "schema": s.CARD_HASH},
    "reference": {
        "name": "reference",
        "in": "path",
        "required": True,
        "schema": s.REFERENCE,
        "description": "the service's own reference (the end of checkout_url)",
    },
}


def by(name: str) -> list[dict[str, Any]]:
    return [{"$ref": f"#/components/parameters/{name}"}]


def body(schema: dict[str, Any], kind: str = "application/json") -> dict[str, Any]:
    return {"required": True, "content": {kind: {"schema": schema}}}


def link_all(operations: list[str], **parameters: str) -> dict[str, Any]:
    return {op: {"operationId": op, "parameters": parameters} for op in operations}
