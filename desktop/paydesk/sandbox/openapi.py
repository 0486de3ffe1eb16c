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
from .openapi_cards import cards
from .openapi_parts import (
    JSON_READ,
    JSON_WRITE,
    LOCATION,
    PAGE,
    PAGE_FORM,
    PARAMETERS,
    SECRET,
    SEE_OTHER,
    THROTTLED,
    body,
    by,
    failures,
    json,
    link_all,
    ok,
    page,
)

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
                "security": SECRET,
                "requestBody": body(s.payment_request(currencies)),
                "responses": {
                    **ok("201", "Payment link created", link, _TO_LOOKUP),
                    **failures(JSON_WRITE + ("409",)),
                },
            }
        },
        "/api/transaction/{tx_ref}": {
            "get": {
                "operationId": "validateTransaction",
                "summary": "Validate transaction",
                "description": "Without a reference (GET /api/transaction) the answer is 400 "
                "'tx_ref is required'. A key of the other mode answers 400.",
                "security": SECRET,
                "parameters": by("tx_ref"),
                "responses": {
                    **ok(
                        "200",
                        "Payment details",
                        s.TRANSACTION,
                        link_all(_CHECKOUT, reference="$response.body#/data/reference"),
                    ),
                    **failures(JSON_READ + ("400", "404")),
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
                "security": SECRET,
                "parameters": by("tx_ref"),
                "responses": {
                    **ok(
                        "200",
                        "Payment details",
                        s.TRANSACTION,
                        link_all(_CHECKOUT, reference="$response.body#/data/reference"),
                    ),
                    **failures(JSON_READ + ("400", "404")),
                },
            }
        },
        "/api/js_transfer": {
            "post": {
                "operationId": "inlineCheckout",
                "summary": "Inline checkout start (what payment.js posts)",
                "security": [{"publicKey": []}],
                "requestBody": body(s.inline_checkout(currencies)),
                "responses": {
                    **ok("201", "Payment link created", link, _TO_LOOKUP),
                    **failures(JSON_WRITE + ("409",)),
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
                "requestBody": body(s.website_form(currencies), "application/x-www-form-urlencoded"),
                "responses": {
                    "303": {"description": "to the checkout page", "headers": LOCATION},
                    **{
                        c: page("this payment could not start: the form's problems")
                        for c in ("400", "401", "403", "409")
                    },
                    **failures(PAGE_FORM, html=True),
                },
            }
        },
        "/js/payment.js": {
            "get": {
                "operationId": "inlineCheckoutScript",
                "summary": "Inline checkout script defining ServiceCheckout(config)",
                "responses": {
                    "200": {"description": "the script", "content": {"application/javascript": {"schema": s.STR}}},
                    **failures(PAGE, html=True),
                },
            }
        },
    }


def _checkout() -> dict[str, Any]:
    ref = by("reference")
    gone, closed = page("no such payment"), page("already paid, failed or cancelled")
    return {
        "/payment/{reference}": {
            "get": {
                "operationId": "showCheckout",
                "summary": "Hosted checkout page",
                "parameters": ref,
                "responses": {
                    "200": page("the card form"),
                    "303": SEE_OTHER,
                    "404": gone,
                    "409": closed,
                    **failures(PAGE, html=True),
                },
            },
            "post": {
                "operationId": "payWithCard",
                "summary": "Pay with a test card",
                "description": "A live link refuses every card (409): in the sandbox the "
                "control API with the live secret key pays it.",
                "parameters": ref,
                "requestBody": body(s.CARD_FORM, "application/x-www-form-urlencoded"),
                "responses": {
                    "303": SEE_OTHER,
                    "400": page("the card form, with why"),
                    "404": gone,
                    "409": closed,
                    **failures(PAGE_FORM, html=True),
                },
            },
        },
        "/payment/{reference}/3ds": {
            "get": {
                "operationId": "showThreeDs",
                "summary": "3-D Secure code page",
                "parameters": ref,
                "responses": {
                    "200": page("the code form"),
                    "303": SEE_OTHER,
                    "404": gone,
                    "409": closed,
                    **failures(PAGE, html=True),
                },
            },
            "post": {
                "operationId": "submitThreeDs",
                "summary": "Submit the 3-D Secure code",
                "parameters": ref,
                "requestBody": body(s.THREE_DS_FORM, "application/x-www-form-urlencoded"),
                "responses": {
                    "303": SEE_OTHER,
                    "400": page("the code form, with why"),
                    "404": gone,
                    "409": closed,
                    **failures(PAGE_FORM, html=True),
                },
            },
        },
        "/payment/{reference}/cancel": {
            "post": {
                "operationId": "cancelPayment",
                "summary": "Cancel the payment",
                "parameters": ref,
                "responses": {"303": SEE_OTHER, "404": gone, "409": closed, **failures(PAGE, html=True)},
            }
        },
        "/payment/{reference}/receipt": {
            "get": {
                "operationId": "showReceipt",
                "summary": "Receipt page",
                "parameters": ref,
                "responses": {"200": page("the receipt"), "404": gone, **failures(PAGE, html=True)},
            }
        },
    }


def _family_lookups() -> dict[str, Any]:
    """The family's routes for a merchant's forms (the sandbox's own rows and shapes)."""

    def listed(
        operation: str, summary: str, message: str, row: dict[str, Any], parameters: list | None = None
    ) -> dict[str, Any]:
        rows = {"type": "array", "items": {"type": "object", "required": list(row), "properties": row}}
        framework = json({"type": "object", "required": ["message"], "properties": {"message": s.STR}})
        op = {
            "operationId": operation,
            "summary": summary,
            "responses": {
                **ok("201", message, rows),
                "429": {
                    "description": "the throttle: 'Too Many Attempts.' (JSON under Accept: "
                    "application/json, else the framework's page)",
                    "headers": THROTTLED,
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
    paths = {**_payments(currencies), **_checkout(), **(cards(currencies) if has_cards else {})}
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
            "parameters": PARAMETERS,
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
