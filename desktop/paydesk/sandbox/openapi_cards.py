"""The card paths of the OpenAPI document (``openapi.py``; a deployment with cards): issue,
fund, withdraw, block, unblock, terminate, read a card and its transactions, list them all."""

from __future__ import annotations

from typing import Any

from . import openapi_schemas as s
from .openapi_parts import JSON_READ, JSON_WRITE, SECRET, body, by, failures, link_all, ok

_CARD_OPS = ["blockCard", "unblockCard", "terminateCard", "cardTransactions", "getCard"]


def cards(currencies: tuple[str, ...]) -> dict[str, Any]:
    made = {
        **link_all(_CARD_OPS, card_hash="$response.body#/data/card_hash"),
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
                "security": SECRET,
                "requestBody": body(s.card_create(currencies)),
                "responses": {
                    **ok("201", "Payment link created", s.card(currencies, with_balance=False), made),
                    **failures(JSON_WRITE + ("409",)),
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
                "security": SECRET,
                "requestBody": body(s.AMOUNT_AND_CARD),
                "responses": {**ok("200", message, s.EMPTY), **failures(JSON_WRITE + ("404", "409"))},
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
                "security": SECRET,
                "parameters": by("card_hash"),
                "responses": {**ok("200", message, s.EMPTY), **failures(JSON_READ + ("400", "404", "409"))},
            }
        }
    listed = s.card(currencies, with_balance=True)
    paths["/api/virtual_card/transactions/{card_hash}"] = {
        "get": {
            "operationId": "cardTransactions",
            "summary": "Card transactions",
            "security": SECRET,
            "parameters": by("card_hash"),
            "responses": {
                **ok("200", "Card Transactions", {"type": "array", "items": s.CARD_TRANSACTION}),
                **failures(JSON_READ + ("400", "404")),
            },
        }
    }
    paths["/api/virtual_card/all"] = {
        "get": {
            "operationId": "allCards",
            "summary": "All cards",
            "security": SECRET,
            "responses": {**ok("200", "All Cards", {"type": "array", "items": listed}), **failures(JSON_READ)},
        }
    }
    paths["/api/virtual_card/card/{card_hash}"] = {
        "get": {
            "operationId": "getCard",
            "summary": "Get a card",
            "security": SECRET,
            "parameters": by("card_hash"),
            "responses": {**ok("200", "All Cards", listed), **failures(JSON_READ + ("400", "404"))},
        }
    }
    return paths
