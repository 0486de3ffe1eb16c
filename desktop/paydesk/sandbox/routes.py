"""The route table, in one place, for the server and for the OpenAPI document."""

from __future__ import annotations

from typing import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import cards, checkout, control, payments, website


def _by_method(**endpoints: Callable[[Request], Awaitable[Response]]):
    async def endpoint(request: Request) -> Response:
        method = "get" if request.method == "HEAD" else request.method.lower()
        return await endpoints[method](request)

    return endpoint


def public_routes(has_cards: bool) -> list[Route]:
    routes = [
        Route("/api/payment", payments.api_payment, methods=["POST"]),
        Route("/api/transaction/{tx_ref:path}", payments.api_transaction, methods=["GET"]),
        Route("/api/transaction", payments.api_transaction, methods=["GET"]),
        Route("/api/js_transfer", payments.api_js_transfer, methods=["POST"]),
        Route("/ext_transfer", website.ext_transfer, methods=["POST"]),
        Route("/js/payment.js", website.payment_js, methods=["GET"]),
        # one route per path, so that a 405's Allow names every method the path takes
        Route("/payment/{reference}", _by_method(get=checkout.show, post=checkout.submit_card),
              methods=["GET", "POST"]),
        Route("/payment/{reference}/3ds", _by_method(get=checkout.show_3ds,
                                                     post=checkout.submit_3ds),
              methods=["GET", "POST"]),
        Route("/payment/{reference}/cancel", checkout.cancel, methods=["POST"]),
        Route("/payment/{reference}/receipt", checkout.receipt, methods=["GET"]),
    ]
    if has_cards:
        routes += [
            Route("/api/virtual_card/create", cards.create, methods=["POST"]),
            Route("/api/virtual_card/fund", cards.fund, methods=["POST"]),
            Route("/api/virtual_card/withdraw", cards.withdraw, methods=["POST"]),
            Route("/api/virtual_card/block/{card_hash}", cards.block, methods=["GET"]),
            Route("/api/virtual_card/unblock/{card_hash}", cards.unblock, methods=["GET"]),
            Route("/api/virtual_card/terminate/{card_hash}", cards.terminate, methods=["GET"]),
            Route("/api/virtual_card/transactions/{card_hash}", cards.transactions, methods=["GET"]),
            Route("/api/virtual_card/all", cards.all_cards, methods=["GET"]),
            Route("/api/virtual_card/card/{card_hash}", cards.get_card, methods=["GET"]),
        ]
    return routes


def control_routes() -> list[Route]:
    return [
        Route("/_sandbox/pay/{reference}", control.pay, methods=["POST"]),
        Route("/_sandbox/transactions/{reference}/status", control.set_status, methods=["POST"]),
        Route("/_sandbox/cards/{card_hash}/purchase", control.card_purchase, methods=["POST"]),
        Route("/_sandbox/balance", control.balance, methods=["GET", "POST"]),
        Route("/_sandbox/faults", control.faults, methods=["GET", "PUT", "DELETE"]),
        Route("/_sandbox/outbox", control.outbox, methods=["GET"]),
        Route("/_sandbox/notifications", control.notifications, methods=["GET"]),
        Route("/_sandbox/requests", control.requests, methods=["GET"]),
    ]
