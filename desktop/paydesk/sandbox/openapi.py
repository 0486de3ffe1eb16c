"""The OpenAPI 3.1 document of the service's public routes, written by hand.

tests/sandbox/test_openapi.py checks it against the route table both ways.
"""

from __future__ import annotations

from typing import Any

from .. import __version__

_STR = {"type": "string"}
_ENVELOPE_FAIL = {
    "type": "object",
    "required": ["status", "message", "data"],
    "properties": {
        "status": {"type": "string", "enum": ["failed"]},
        "message": {"oneOf": [_STR, {"type": "object", "additionalProperties": {"type": "array", "items": _STR}}]},
        "data": {"oneOf": [{"type": "null"}, {"const": "null"}]},
        "errors": {"type": "object", "additionalProperties": {"type": "array", "items": _STR}},
    },
}


def _ok(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["status", "message", "data"],
        "properties": {"status": _STR, "message": _STR, "data": data},
    }


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _answers(code: str, data: dict[str, Any], *errors: str) -> dict[str, Any]:
    out = {code: {"description": "success", **_json(_ok(data))}}
    for e in errors:
        out[e] = {"description": "failure", **_json({"$ref": "#/components/schemas/Failed"})}
    return out


_PAYMENT_REQUEST = {
    "type": "object",
    "required": ["amount", "currency", "email", "first_name", "last_name", "tx_ref"],
    "properties": {
        "amount": {"type": "string", "pattern": "^[0-9]+$", "description": "whole units, 1 to 10,000,000"},
        "currency": _STR, "email": {"type": "string", "format": "email"},
        "first_name": _STR, "last_name": _STR,
        "callback_url": {"type": "string", "format": "uri"},
        "return_url": {"type": "string", "format": "uri"},
        "tx_ref": {"type": "string", "minLength": 1, "maxLength": 100},
        "customization": {"type": "object", "properties": {
            "title": {"type": "string", "maxLength": 100},
            "description": {"type": "string", "maxLength": 255},
            "logo": {"type": "string", "format": "uri"}}},
        "meta": {"type": "object", "additionalProperties": _STR},
    },
}
_TRANSACTION = {"type": "object", "properties": {k: _STR for k in (
    "first_name", "last_name", "email", "currency", "amount", "charge", "mode", "type",
    "status", "reference", "tx_ref", "created_at", "updated_at")} | {
    "customization": {"type": "object"}, "meta": {"type": "object"}}}
_CARD = {"type": "object", "properties": {
    "card_hash": _STR, "masked_card": _STR, "status": {"type": "integer"},
    "currency": _STR, "amount": _STR, "balance": _STR}}
_AMOUNT_CARD = {"type": "object", "required": ["amount", "card_hash"],
                "properties": {"amount": _STR, "card_hash": _STR}}
_HASH = [{"name": "card_hash", "in": "path", "required": True, "schema": _STR}]
_REF = [{"name": "reference", "in": "path", "required": True, "schema": _STR}]
_HTML = {"description": "an HTML page", "content": {"text/html": {"schema": _STR}}}
_SEE_OTHER = {"description": "redirect", "headers": {"Location": {"schema": _STR}}}
_ERR = ("400", "401", "403", "404", "413", "415")


def document(has_cards: bool, base_path: str) -> dict[str, Any]:
    paths: dict[str, Any] = {
        "/api/payment": {"post": {
            "summary": "Initiate transaction", "security": [{"secretKey": []}],
            "requestBody": {"required": True, **_json(_PAYMENT_REQUEST)},
            "responses": _answers("201", {"type": "object", "properties": {"checkout_url": _STR}},
                                  *_ERR, "409", "429")}},
        "/api/transaction/{tx_ref}": {"get": {
            "summary": "Validate transaction", "security": [{"secretKey": []}],
            "parameters": [{"name": "tx_ref", "in": "path", "required": True, "schema": _STR}],
            "responses": _answers("200", _TRANSACTION, *_ERR, "429")}},
        "/api/transaction": {"get": {
            "summary": "Validate transaction without a reference (answers tx_ref is required)",
            "security": [{"secretKey": []}], "responses": _answers("200", _TRANSACTION, "400")}},
        "/api/js_transfer": {"post": {
            "summary": "Inline checkout start (public key only; CORS enabled)",
            "security": [{"publicKey": []}],
            "requestBody": {"required": True, **_json({"type": "object"})},
            "responses": _answers("201", {"type": "object", "properties": {"checkout_url": _STR}},
                                  *_ERR, "409")}},
        "/ext_transfer": {"post": {
            "summary": "Website form payment",
            "requestBody": {"required": True, "content": {
                "application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {
                    k: _STR for k in ("secret_key", "callback_url", "return_url", "tx_ref", "amount",
                                      "currency", "email", "first_name", "last_name", "title",
                                      "description", "logo", "meta")}}}}},
            "responses": {"303": _SEE_OTHER, "400": _HTML, "401": _HTML, "403": _HTML, "409": _HTML,
                          "413": _HTML, "415": _HTML}}},
        "/js/payment.js": {"get": {
            "summary": "Inline checkout script defining ServiceCheckout(config)",
            "responses": {"200": {"description": "script", "content": {
                "application/javascript": {"schema": _STR}}}}}},
        "/payment/{reference}": {
            "get": {"summary": "Hosted checkout page", "parameters": _REF,
                    "responses": {"200": _HTML, "303": _SEE_OTHER, "404": _HTML, "409": _HTML}},
            "post": {"summary": "Pay with a card", "parameters": _REF,
                     "responses": {"303": _SEE_OTHER, "400": _HTML, "404": _HTML, "409": _HTML}}},
        "/payment/{reference}/3ds": {
            "get": {"summary": "3-D Secure code page", "parameters": _REF,
                    "responses": {"200": _HTML, "303": _SEE_OTHER, "404": _HTML, "409": _HTML}},
            "post": {"summary": "Submit the 3-D Secure code", "parameters": _REF,
                     "responses": {"303": _SEE_OTHER, "404": _HTML, "409": _HTML}}},
        "/payment/{reference}/cancel": {"post": {
            "summary": "Cancel the payment", "parameters": _REF,
            "responses": {"303": _SEE_OTHER, "404": _HTML, "409": _HTML}}},
        "/payment/{reference}/receipt": {"get": {
            "summary": "Receipt page", "parameters": _REF,
            "responses": {"200": _HTML, "404": _HTML}}},
    }
    if has_cards:
        card_ops = {
            "/api/virtual_card/create": ("post", "Create card", {
                "type": "object", "required": ["amount", "currency"],
                "properties": {"amount": _STR, "currency": _STR, "callback_url": _STR}}, "201", _CARD),
            "/api/virtual_card/fund": ("post", "Fund card", _AMOUNT_CARD, "200", {"type": "object"}),
            "/api/virtual_card/withdraw": ("post", "Withdraw from card", _AMOUNT_CARD, "200", {"type": "object"}),
            "/api/virtual_card/block/{card_hash}": ("get", "Block card", None, "200", {"type": "object"}),
            "/api/virtual_card/unblock/{card_hash}": ("get", "Unblock card", None, "200", {"type": "object"}),
            "/api/virtual_card/terminate/{card_hash}": ("get", "Terminate card", None, "200", {"type": "object"}),
            "/api/virtual_card/transactions/{card_hash}": ("get", "Card transactions", None, "200",
                                                           {"type": "array", "items": {"type": "object"}}),
            "/api/virtual_card/all": ("get", "All cards", None, "200", {"type": "array", "items": _CARD}),
            "/api/virtual_card/card/{card_hash}": ("get", "Get a card", None, "200", _CARD),
        }
        for path, (method, summary, body, code, data) in card_ops.items():
            op: dict[str, Any] = {"summary": summary, "security": [{"secretKey": []}],
                                  "responses": _answers(code, data, *_ERR)}
            if body:
                op["requestBody"] = {"required": True, **_json(body)}
            if "{card_hash}" in path:
                op["parameters"] = _HASH
            paths[path] = {method: op}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Payment collection service (PayDesk sandbox)", "version": __version__},
        "servers": [{"url": base_path or "/"}],
        "paths": paths,
        "components": {
            "schemas": {"Failed": _ENVELOPE_FAIL},
            "securitySchemes": {
                "secretKey": {"type": "http", "scheme": "bearer", "description": "sec-test-... or sec-live-..."},
                "publicKey": {"type": "http", "scheme": "bearer", "description": "pub-test-... or pub-live-..."},
            },
        },
    }
