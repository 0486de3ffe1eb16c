"""The schemas of the OpenAPI document: what requests must be (from ``rules.py``, the rules
the sandbox checks by) and what the strict sandbox answers."""

from __future__ import annotations

from typing import Any

from . import rules
from .rules import LENGTHS, string
from .validation import currency_code

STR = {"type": "string"}
MONEY = {
    "type": "string",
    "pattern": "^[0-9]{1,3}(?:,[0-9]{3})*\\.[0-9]{2}$",
    "description": "thousands separators and two decimals: 1,000.00",
}
DECIMAL = {"type": "string", "pattern": "^[0-9]+\\.[0-9]{2}$"}
TIMESTAMP = {
    "type": "string",
    "format": "date-time",
    "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$",
}
EMPTY = {"type": "object", "maxProperties": 0}

NAME = string(rules.FILLED_ONE_LINE, LENGTHS["name"], description="one line, not blank; surrounding spaces are trimmed")
EMAIL = string(rules.EMAIL, LENGTHS["email"], description="an e-mail address")
AMOUNT = string(
    rules.AMOUNT,
    LENGTHS["amount"],
    examples=["25"],
    description="whole units of the currency, digits only, 1 to 10,000,000",
)
TX_REF = string(
    rules.TX_REF,
    LENGTHS["tx_ref"],
    examples=["SHOP-261122-K7QM4X-0042R9"],
    description="the merchant's reference: unique per merchant across modes; letters, "
    "digits and . _ ~ : -, with at least one letter or digit",
)
URL = string(rules.URL, LENGTHS["url"], nullable=True, description="an http or https URL; blank or null: none")
CARD_HASH = {"type": "string", "pattern": rules.CARD_HASH}
REFERENCE = {"type": "string", "pattern": rules.REFERENCE}

CUSTOMIZATION = {
    "type": ["object", "null"],
    "properties": {
        "title": string(rules.ONE_LINE, LENGTHS["title"], nullable=True),
        "description": string(
            rules.MULTI_LINE,
            LENGTHS["description"],
            nullable=True,
            description="may span lines (tab, LF and CR are kept)",
        ),
        "logo": URL,
    },
}

FAILED = {
    "type": "object",
    "required": ["status", "message", "data"],
    "properties": {
        "status": {"const": "failed"},
        "message": STR,
        "data": {"type": "null"},
        "errors": {
            "type": "object",
            "description": "field -> its problems",
            "additionalProperties": {"type": "array", "items": STR},
        },
    },
    "additionalProperties": False,
}


def envelope(message: str, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["status", "message", "data"],
        "properties": {"status": {"const": "success"}, "message": {"const": message}, "data": data},
        "additionalProperties": False,
    }


def payment_request(currencies: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["amount", "currency", "email", "first_name", "last_name", "tx_ref"],
        "properties": {
            "amount": AMOUNT,
            "currency": rules.currencies(currencies),
            "email": EMAIL,
            "first_name": NAME,
            "last_name": NAME,
            "callback_url": URL,
            "return_url": URL,
            "tx_ref": TX_REF,
            "customization": CUSTOMIZATION,
            "meta": rules.META,
        },
        "examples": [
            {
                "amount": "25",
                "currency": currencies[0],
                "email": "ada@example.com",
                "first_name": "Ada",
                "last_name": "Lovelace",
                "tx_ref": "SHOP-261122-K7QM4X-0042R9",
                "customization": {"title": "Coffee"},
                "meta": {"till": "3"},
            }
        ],
    }


def inline_checkout(currencies: tuple[str, ...]) -> dict[str, Any]:
    """ServiceCheckout's config, as payment.js posts it: the customer in ``customer``."""
    plain = payment_request(currencies)
    properties = {k: v for k, v in plain["properties"].items() if k not in ("email", "first_name", "last_name")}
    properties["customer"] = {
        "type": "object",
        "required": ["email", "first_name", "last_name"],
        "properties": {"email": EMAIL, "first_name": NAME, "last_name": NAME},
    }
    properties["secret_key"] = {"type": "string", "description": "ignored: the key is the Authorization header's"}
    return {"type": "object", "required": ["amount", "currency", "tx_ref", "customer"], "properties": properties}


def website_form(currencies: tuple[str, ...]) -> dict[str, Any]:
    """The seed's hidden inputs: text only (no nulls), meta as JSON text."""
    flat = payment_request(currencies)["properties"]
    fields = {k: flat[k] for k in ("amount", "currency", "email", "first_name", "last_name", "tx_ref")}
    url = {**URL, "type": "string"}
    fields.update(
        callback_url=url,
        return_url=url,
        logo=url,
        title={**CUSTOMIZATION["properties"]["title"], "type": "string"},
        description={**CUSTOMIZATION["properties"]["description"], "type": "string"},
    )
    fields["secret_key"] = {
        "type": "string",
        "description": "the merchant's public key (a secret key works too, but must never be published)",
    }
    fields["public_key"] = {
        "type": "string",
        "description": "the family's name for the same field: when given "
        "and not blank, the key is taken from it (with "
        "--family, only from it)",
    }
    fields["meta"] = {
        "type": "string",
        "pattern": rules.META_JSON,
        "description": "a JSON object of strings, as text: the rules of meta",
    }
    return {
        "type": "object",
        "required": ["secret_key", "amount", "currency", "email", "first_name", "last_name", "tx_ref"],
        "properties": fields,
    }


TRANSACTION = {
    "type": "object",
    "required": [
        "first_name",
        "last_name",
        "email",
        "currency",
        "amount",
        "charge",
        "mode",
        "type",
        "status",
        "reference",
        "tx_ref",
        "customization",
        "meta",
        "created_at",
        "updated_at",
    ],
    "properties": {
        "first_name": STR,
        "last_name": STR,
        "email": STR,
        "currency": STR,
        "amount": MONEY,
        "charge": DECIMAL,
        "mode": {"enum": ["test", "live"]},
        "type": {
            "enum": ["API", "INLINE", "FORM"],
            "description": "how it started: the API, the inline checkout or the form",
        },
        "status": {"enum": ["pending", "success", "failed", "cancelled", "refunded", "reversed"]},
        "reference": REFERENCE,
        "tx_ref": STR,
        "customization": {"type": "object", "additionalProperties": STR},
        "meta": {"type": "object", "additionalProperties": STR},
        "created_at": TIMESTAMP,
        "updated_at": TIMESTAMP,
    },
}


def card(currencies: tuple[str, ...], *, with_balance: bool) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "id": STR,
        "user_id": STR,
        "account_id": {"type": "integer"},
        "card_hash": CARD_HASH,
        "card_pan": {"type": "string", "pattern": "^[0-9]{16}$"},
        "masked_card": {"type": "string", "pattern": "^[0-9]{6}\\*{6}[0-9]{4}$"},
        "cvv": {"type": "string", "pattern": "^[0-9]{3}$"},
        "expiration": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}$"},
        "card_type": {"const": "visa"},
        "name_on_card": STR,
        "callback": {"type": ["string", "null"]},
        "amount": {"type": "string", "pattern": "^[0-9]+$"},
        "charge": DECIMAL,
        "status": {"enum": [0, 1, 2], "description": "1 active, 2 blocked, 0 terminated"},
        "ref_id": STR,
        "city": {"type": "null"},
        "state": {"type": "null"},
        "address": {"type": "null"},
        "zip_code": {"type": "null"},
        "currency": {
            "enum": [currency_code(c) for c in currencies],
            "description": "the service's own code: 11 USD, 12 GBP, 13 EUR",
        },
        "paid": DECIMAL,
        "created_at": TIMESTAMP,
        "updated_at": TIMESTAMP,
        "business_id": STR,
    }
    if with_balance:
        properties["balance"] = DECIMAL
    return {"type": "object", "required": list(properties), "properties": properties}


CARD_TRANSACTION = {
    "type": "object",
    "required": ["id", "card_hash", "type", "amount", "description", "status", "created_at"],
    "properties": {
        "id": {"type": "integer"},
        "card_hash": CARD_HASH,
        "type": {"enum": ["Credit", "Debit"]},
        "amount": DECIMAL,
        "description": STR,
        "status": STR,
        "created_at": TIMESTAMP,
    },
}


def card_create(currencies: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["amount", "currency"],
        "properties": {
            "amount": AMOUNT,
            "currency": rules.currencies(currencies),
            "callback_url": URL,
            # the cardholder's name, printed upper-case on the card; the
            # merchant's name when neither is sent
            "first_name": NAME,
            "last_name": NAME,
        },
        "examples": [{"amount": "100", "currency": currencies[-1]}],
    }


AMOUNT_AND_CARD = {
    "type": "object",
    "required": ["amount", "card_hash"],
    "properties": {"amount": AMOUNT, "card_hash": CARD_HASH},
}

CARD_FORM = {
    "type": "object",
    "required": ["card_number", "expiry", "cvc"],
    "properties": {
        "card_number": {
            "type": "string",
            "pattern": rules.TEST_CARD,
            "description": "a test card: " + "; ".join(f"{n} {what}" for n, what in rules.TEST_CARDS.items()),
        },
        "expiry": {"type": "string", "pattern": rules.EXPIRY, "description": "MM/YY"},
        "cvc": {"type": "string", "pattern": rules.CVC},
    },
    "examples": [{"card_number": "4242 4242 4242 4242", "expiry": "12/30", "cvc": "123"}],
}

THREE_DS_FORM = {
    "type": "object",
    "required": ["code"],
    "properties": {
        "code": {
            "type": "string",
            "pattern": rules.THREE_DS_CODE,
            "description": "123456 passes; any other six digits fail",
        }
    },
}
