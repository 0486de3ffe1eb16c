"""The OpenAPI 3.1 document of the service's public routes, exact: every rule the sandbox
enforces on a request, every status it answers, and links from what creates a payment or a
card to the operations that take its tx_ref, reference and card_hash.

tests/sandbox/test_openapi.py checks it against the route table both ways, and runs
schemathesis (every check, every phase) against a fresh sandbox with it.
"""

from __future__ import annotations

from typing import Any

from .. import __version__
from . import openapi_schemas as s
from .context import DEPLOYMENT_CURRENCIES

_WHY = {
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
_DIGITS = {"type": "string", "pattern": "^[0-9]+$"}
_RETRY_AFTER = {"Retry-After": {"description": "seconds to wait", "schema": _DIGITS}}
# the server's throttle (--rate-limit): the headers of its refusal (every answer of a
# throttled route carries the first two)
_THROTTLED = {
    **_RETRY_AFTER,
    "X-RateLimit-Limit": {"description": "requests a window per client address", "schema": _DIGITS},
    "X-RateLimit-Remaining": {"description": "requests left in this window: 0", "schema": _DIGITS},
    "X-RateLimit-Reset": {
        "description": "when the window ends, in seconds since the epoch "
        "(absent on a limit set through the sandbox control)",
        "schema": _DIGITS,
    },
}
_LOCATION = {"Location": {"required": True, "schema": {"type": "string"}}}
JSON_READ = ("401", "403", "429", "500", "503")
JSON_WRITE = ("400", "401", "403", "408", "413", "415", "429", "500", "503")
PAGE = ("500", "503")
PAGE_FORM = ("408", "413", "415", "500", "503")


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _failures(codes: tuple[str, ...], *, html: bool = False) -> dict[str, Any]:
    out = {}
    for code in sorted(codes):
        body = {"content": {"text/html": {"schema": s.STR}}} if html else _json({"$ref": "#/components/schemas/Failed"})
        out[code] = {"description": _WHY.get(code, "refused"), **body}
        if code == "429":
            out[code]["headers"] = _THROTTLED
        elif code == "503":
            out[code]["headers"] = _RETRY_AFTER
    return out


def _ok(code: str, message: str, data: dict[str, Any], links: dict | None = None) -> dict:
    answer = {"description": message, **_json(s.envelope(message, data))}
    if links:
        answer["links"] = links
    return {code: answer}


def _page(what: str) -> dict[str, Any]:
    return {"description": what, "content": {"text/html": {"schema": s.STR}}}


_SEE_OTHER = {"description": "on to the next page", "headers": _LOCATION}
_SECRET = [{"secretKey": []}]
_PARAMETERS = {
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


def _by(name: str) -> list[dict[str, Any]]:
    return [{"$ref": f"#/components/parameters/{name}"}]


def _body(schema: dict[str, Any], kind: str = "application/json") -> dict[str, Any]:
    return {"required": True, "content": {kind: {"schema": schema}}}


def _link_all(operations: list[str], **parameters: str) -> dict[str, Any]:
    return {op: {"operationId": op, "parameters": parameters} for op in operations}


_CHECKOUT = ["showCheckout", "payWithCard", "showThreeDs", "submitThreeDs", "cancelPayment", "showReceipt"]
_TO_LOOKUP = {
    op: {"operationId": op, "parameters": {"tx_ref": "$request.body#/tx_ref"}}
    for op in ("validateTransaction", "verifyPayment")
}


def _payments(currencies: tuple[str, ...]) -> dict[str, Any]:
    link = {
        "type": "object",
        "required": ["checkout_url"],
        "properties": {"checkout_url": {"type": "string", "format": "uri"}},
        "additionalProperties": False,
    }
    return {
        "/api/payment": {
            "post": {
                "operationId": "createPayment",
                "summary": "Initiate transaction",
                "security": _SECRET,
                "requestBody": _body(s.payment_request(currencies)),
                "responses": {
                    **_ok("201", "Payment link created", link, _TO_LOOKUP),
                    **_failures(JSON_WRITE + ("409",)),
                },
            }
        },
        "/api/transaction/{tx_ref}": {
            "get": {
                "operationId": "validateTransaction",
                "summary": "Validate transaction",
                "description": "Without a reference (GET /api/transaction) the answer is 400 "
                "'tx_ref is required'. A key of the other mode answers 400.",
                "security": _SECRET,
                "parameters": _by("tx_ref"),
                "responses": {
                    **_ok(
                        "200",
                        "Payment details",
                        s.TRANSACTION,
                        _link_all(_CHECKOUT, reference="$response.body#/data/reference"),
                    ),
                    **_failures(JSON_READ + ("400", "404")),
                },
            }
        },
        "/api/verify-payment/{tx_ref}": {
            "get": {
                "operationId": "verifyPayment",
                "summary": "Verify payment",
                "description": "The path every client of the family calls (its routes file has "
                "no /api/transaction): the same lookup, answered exactly as "
                "GET /api/transaction/{tx_ref} is.",
                "security": _SECRET,
                "parameters": _by("tx_ref"),
                "responses": {
                    **_ok(
                        "200",
                        "Payment details",
                        s.TRANSACTION,
                        _link_all(_CHECKOUT, reference="$response.body#/data/reference"),
                    ),
                    **_failures(JSON_READ + ("400", "404")),
                },
            }
        },
        "/api/js_transfer": {
            "post": {
                "operationId": "inlineCheckout",
                "summary": "Inline checkout start (what payment.js posts)",
                "security": [{"publicKey": []}],
                "requestBody": _body(s.inline_checkout(currencies)),
                "responses": {
                    **_ok("201", "Payment link created", link, _TO_LOOKUP),
                    **_failures(JSON_WRITE + ("409",)),
                },
            },
            "options": {
                "operationId": "inlineCheckoutPreflight",
                "summary": "CORS preflight",
                "responses": {
                    "204": {
                        "description": "browsers may post from any origin",
                        "headers": {"Allow": {"required": True, "schema": s.STR}},
                    }
                },
            },
        },
        "/ext_transfer": {
            "post": {
                "operationId": "websiteForm",
                "summary": "Website form payment",
                "requestBody": _body(s.website_form(currencies), "application/x-www-form-urlencoded"),
                "responses": {
                    "303": {"description": "to the checkout page", "headers": _LOCATION},
                    **{
                        c: _page("this payment could not start: the form's problems")
                        for c in ("400", "401", "403", "409")
                    },
                    **_failures(PAGE_FORM, html=True),
                },
            }
        },
        "/js/payment.js": {
            "get": {
                "operationId": "inlineCheckoutScript",
                "summary": "Inline checkout script defining ServiceCheckout(config)",
                "responses": {
                    "200": {"description": "the script", "content": {"application/javascript": {"schema": s.STR}}},
                    **_failures(PAGE, html=True),
                },
            }
        },
    }


def _checkout() -> dict[str, Any]:
    ref = _by("reference")
    gone, closed = _page("no such payment"), _page("already paid, failed or cancelled")
    return {
        "/payment/{reference}": {
            "get": {
                "operationId": "showCheckout",
                "summary": "Hosted checkout page",
                "parameters": ref,
                "responses": {
                    "200": _page("the card form"),
                    "303": _SEE_OTHER,
                    "404": gone,
                    "409": closed,
                    **_failures(PAGE, html=True),
                },
            },
            "post": {
                "operationId": "payWithCard",
                "summary": "Pay with a test card",
                "description": "A live link refuses every card (409): in the sandbox the "
                "control API with the live secret key pays it.",
                "parameters": ref,
                "requestBody": _body(s.CARD_FORM, "application/x-www-form-urlencoded"),
                "responses": {
                    "303": _SEE_OTHER,
                    "400": _page("the card form, with why"),
                    "404": gone,
                    "409": closed,
                    **_failures(PAGE_FORM, html=True),
                },
            },
        },
        "/payment/{reference}/3ds": {
            "get": {
                "operationId": "showThreeDs",
                "summary": "3-D Secure code page",
                "parameters": ref,
                "responses": {
                    "200": _page("the code form"),
                    "303": _SEE_OTHER,
                    "404": gone,
                    "409": closed,
                    **_failures(PAGE, html=True),
                },
            },
            "post": {
                "operationId": "submitThreeDs",
                "summary": "Submit the 3-D Secure code",
                "parameters": ref,
                "requestBody": _body(s.THREE_DS_FORM, "application/x-www-form-urlencoded"),
                "responses": {
                    "303": _SEE_OTHER,
                    "400": _page("the code form, with why"),
                    "404": gone,
                    "409": closed,
                    **_failures(PAGE_FORM, html=True),
                },
            },
        },
        "/payment/{reference}/cancel": {
            "post": {
                "operationId": "cancelPayment",
                "summary": "Cancel the payment",
                "parameters": ref,
                "responses": {"303": _SEE_OTHER, "404": gone, "409": closed, **_failures(PAGE, html=True)},
            }
        },
        "/payment/{reference}/receipt": {
            "get": {
                "operationId": "showReceipt",
                "summary": "Receipt page",
                "parameters": ref,
                "responses": {"200": _page("the receipt"), "404": gone, **_failures(PAGE, html=True)},
            }
        },
    }


_CARD_OPS = ["blockCard", "unblockCard", "terminateCard", "cardTransactions", "getCard"]


def _cards(currencies: tuple[str, ...]) -> dict[str, Any]:
    made = {
        **_link_all(_CARD_OPS, card_hash="$response.body#/data/card_hash"),
        **{
            op: {"operationId": op, "requestBody": {"card_hash": "$response.body#/data/card_hash"}}
            for op in ("fundCard", "withdrawFromCard")
        },
    }
    paths: dict[str, Any] = {
        "/api/virtual_card/create": {
            "post": {
                "operationId": "createCard",
                "summary": "Create card",
                "security": _SECRET,
                "requestBody": _body(s.card_create(currencies)),
                "responses": {
                    **_ok("201", "Payment link created", s.card(currencies, with_balance=False), made),
                    **_failures(JSON_WRITE + ("409",)),
                },
            }
        },
    }
    for path, op_id, summary, message in (
        ("fund", "fundCard", "Fund card", "Card Funding successful"),
        ("withdraw", "withdrawFromCard", "Withdraw from card", "Card Withdrawal successful"),
    ):
        paths[f"/api/virtual_card/{path}"] = {
            "post": {
                "operationId": op_id,
                "summary": summary,
                "security": _SECRET,
                "requestBody": _body(s.AMOUNT_AND_CARD),
                "responses": {**_ok("200", message, s.EMPTY), **_failures(JSON_WRITE + ("404", "409"))},
            }
        }
    for action, op_id, message in (
        ("block", "blockCard", "Card Blocked"),
        ("unblock", "unblockCard", "Card Unblocked"),
        ("terminate", "terminateCard", "Card Terminated"),
    ):
        paths[f"/api/virtual_card/{action}/{{card_hash}}"] = {
            "get": {
                "operationId": op_id,
                "summary": f"{action.capitalize()} card",
                "security": _SECRET,
                "parameters": _by("card_hash"),
                "responses": {**_ok("200", message, s.EMPTY), **_failures(JSON_READ + ("400", "404", "409"))},
            }
        }
    listed = s.card(currencies, with_balance=True)
    paths["/api/virtual_card/transactions/{card_hash}"] = {
        "get": {
            "operationId": "cardTransactions",
            "summary": "Card transactions",
            "security": _SECRET,
            "parameters": _by("card_hash"),
            "responses": {
                **_ok("200", "Card Transactions", {"type": "array", "items": s.CARD_TRANSACTION}),
                **_failures(JSON_READ + ("400", "404")),
            },
        }
    }
    paths["/api/virtual_card/all"] = {
        "get": {
            "operationId": "allCards",
            "summary": "All cards",
            "security": _SECRET,
            "responses": {**_ok("200", "All Cards", {"type": "array", "items": listed}), **_failures(JSON_READ)},
        }
    }
    paths["/api/virtual_card/card/{card_hash}"] = {
        "get": {
            "operationId": "getCard",
            "summary": "Get a card",
            "security": _SECRET,
            "parameters": _by("card_hash"),
            "responses": {**_ok("200", "All Cards", listed), **_failures(JSON_READ + ("400", "404"))},
        }
    }
    return paths


def _family_lookups() -> dict[str, Any]:
    """The family's routes for a merchant's forms (the sandbox's own rows and shapes)."""

    def listed(
        operation: str, summary: str, message: str, row: dict[str, Any], parameters: list | None = None
    ) -> dict[str, Any]:
        rows = {"type": "array", "items": {"type": "object", "required": list(row), "properties": row}}
        framework = _json({"type": "object", "required": ["message"], "properties": {"message": s.STR}})
        op = {
            "operationId": operation,
            "summary": summary,
            "responses": {
                **_ok("201", message, rows),
                "429": {
                    "description": "the throttle: 'Too Many Attempts.' (JSON under Accept: "
                    "application/json, else the framework's page)",
                    "headers": _THROTTLED,
                    **framework,
                },
                "500": {"description": "an error in its code: 'Server Error'", **framework},
            },
        }
        if parameters:
            op["parameters"] = parameters
        return {"get": op}

    number = {"type": "integer"}
    return {
        "/api/country": listed(
            "countries", "Countries", "Country List", {"id": number, "name": s.STR, "iso2": s.STR, "phone_code": s.STR}
        ),
        "/api/state/{country_id}": listed(
            "states",
            "A country's states (none for an unknown country)",
            "State List",
            {"id": number, "country_id": number, "name": s.STR},
            [{"name": "country_id", "in": "path", "required": True, "schema": s.STR}],
        ),
        "/api/currency_supported": listed(
            "supportedCurrencies",
            "The deployment's currencies",
            "Supported Currencies",
            {"id": number, "name": s.STR, "code": s.STR, "symbol": s.STR},
        ),
    }


_DIALECTS = {
    "strict": "The strict dialect: this document describes its answers exactly.",
    "quirks": "Served with --quirks: the sandbox answers the way the document's samples do "
    "(400 for every error, 201 for successes, other shapes); this document "
    "describes the strict dialect's answers, not those.",
    "family": "Served with --family: the sandbox answers as the family's server code does "
    "(lookup only at verify-payment, answered 201 with the transaction's state as "
    "status; errors 400 or 404 with data null; the framework's own 404, 405, 429 "
    'and 500 answers, {"message"} under Accept: application/json, else its '
    "pages; 60 requests a minute per client address unless --rate-limit says "
    "otherwise); this document states the requests and the strict dialect's "
    "answers.",
}


def document(has_cards: bool, base_path: str, dialect: str = "strict") -> dict[str, Any]:
    currencies = DEPLOYMENT_CURRENCIES["cards" if has_cards else "no-cards"]
    paths = {**_payments(currencies), **_checkout(), **(_cards(currencies) if has_cards else {})}
    if dialect == "family":  # its routes file has no such path
        del paths["/api/transaction/{tx_ref}"]
        paths.update(_family_lookups())
        for creating in (paths["/api/payment"]["post"], paths["/api/js_transfer"]["post"]):
            created = creating["responses"]["201"]
            created["links"] = {
                k: v for k, v in created["links"].items() if k != "validateTransaction"
            }  # a new dict: links are shared
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Payment collection service (PayDesk sandbox)",
            "version": __version__,
            "description": _DIALECTS[dialect],
        },
        "servers": [{"url": base_path or "/"}],
        "paths": paths,
        "components": {
            "schemas": {"Failed": s.FAILED},
            "parameters": _PARAMETERS,
            "securitySchemes": {
                "secretKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "the merchant's secret key of the mode: sec-test-... or sec-live-...",
                },
                "publicKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "the merchant's public key of the mode: pub-test-... or pub-live-...",
                },
            },
        },
    }
