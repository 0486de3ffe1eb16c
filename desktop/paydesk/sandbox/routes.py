"""The route table, in one place, for the server and for the OpenAPI document.

Each dialect serves the same table with its own lookup routes and card operations
(``--family``'s come from ``family/``); everything else is shared.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from types import ModuleType

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import cards, checkout, control, payments, website

Endpoint = Callable[[Request], Awaitable[Response]]

# The document's lookup, and the path every client of the family calls, answering alike
DOCUMENT_LOOKUPS: tuple[tuple[str, Endpoint], ...] = (
    ("/api/transaction/{tx_ref:path}", payments.api_transaction),
    ("/api/transaction", payments.api_transaction),
    ("/api/verify-payment/{tx_ref:path}", payments.api_transaction),
)


def _by_method(**endpoints: Endpoint):
    async def endpoint(request: Request) -> Response:
        method = "get" if request.method == "HEAD" else request.method.lower()
        return await endpoints[method](request)

    return endpoint


def public_routes(
    has_cards: bool, *, lookups: Sequence[tuple[str, Endpoint]] = DOCUMENT_LOOKUPS, card_ops: ModuleType = cards
) -> list[Route]:
    routes = [Route("/api/payment", payments.api_payment, methods=["POST"])]
    routes += [Route(path, endpoint, methods=["GET"]) for path, endpoint in lookups]
    routes += [
        Route("/api/js_transfer", payments.api_js_transfer, methods=["POST"]),
        Route("/ext_transfer", website.ext_transfer, methods=["POST"]),
        Route("/js/payment.js", website.payment_js, methods=["GET"]),
        # one route per path, so that a 405's Allow names every method the path takes
        Route(
            "/payment/{reference}", _by_method(get=checkout.show, post=checkout.submit_card), methods=["GET", "POST"]
        ),
        Route(
            "/payment/{reference}/3ds",
            _by_method(get=checkout.show_3ds, post=checkout.submit_3ds),
            methods=["GET", "POST"],
        ),
        Route("/payment/{reference}/cancel", checkout.cancel, methods=["POST"]),
        Route("/payment/{reference}/receipt", checkout.receipt, methods=["GET"]),
    ]
    if has_cards:
        ops = card_ops
        routes += [
            Route("/api/virtual_card/create", ops.create, methods=["POST"]),
            Route("/api/virtual_card/fund", ops.fund, methods=["POST"]),
            Route("/api/virtual_card/withdraw", ops.withdraw, methods=["POST"]),
            Route("/api/virtual_card/block/{card_hash}", ops.block, methods=["GET"]),
            Route("/api/virtual_card/unblock/{card_hash}", ops.unblock, methods=["GET"]),
            Route("/api/virtual_card/terminate/{card_hash}", ops.terminate, methods=["GET"]),
            Route("/api/virtual_card/transactions/{card_hash}", ops.transactions, methods=["GET"]),
            Route("/api/virtual_card/all", ops.all_cards, methods=["GET"]),
            Route("/api/virtual_card/card/{card_hash}", ops.get_card, methods=["GET"]),
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
        Route("/_sandbox/webhook", control.webhook, methods=["GET", "PUT", "DELETE"]),
        Route("/_sandbox/requests", control.requests, methods=["GET"]),
        Route("/_sandbox/rate-limit", control.rate_limit, methods=["GET", "DELETE"]),
        Route("/_sandbox/settings", control.settings, methods=["GET", "PUT", "DELETE"]),
    ]
