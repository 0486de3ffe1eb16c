"""The family dialect object: what the shared routes ask of ``sb.dialect``, answered as the
family's server code does."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..context import Sandbox, SandboxConfig
from ..cors import ApiCors
from ..keys import KeyOwner
from ..outbound import listens_on_loopback
from ..routes import public_routes
from ..throttle import TOO_MANY
from . import cards, payments, reference, webhook
from .answers import FamilyEnvelope, framework_answer
from .webhook import Webhook

_METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

# the only lookup route the family's routes file has
LOOKUPS = (("/api/verify-payment/{tx_ref}", payments.verify_payment),)


class FamilyDialect:
    name = "family"
    # the website form looks the business up by its public key only
    form_key_kinds: tuple[str, ...] = ("public",)
    # the inline script of each brand reads ``config.public_key``
    script_key_fields: Sequence[str] = ("public_key",)

    def __init__(self, config: SandboxConfig):
        self.config = config
        self.envelope = FamilyEnvelope()
        self.webhook: Webhook | None = None  # made with the sandbox's store and keys

    def start(self, sb: Sandbox) -> None:
        self.webhook = Webhook(
            sb.store, sb.keys, timeout=self.config.notify_timeout, allow_loopback=listens_on_loopback(self.config.host)
        )

    def routes(self, has_cards: bool) -> list[Route]:
        return public_routes(has_cards, lookups=LOOKUPS, card_ops=cards) + [
            Route("/api/country", reference.countries, methods=["GET"]),
            Route("/api/state/{country_id}", reference.states, methods=["GET"]),
            Route("/api/currency_supported", reference.currencies, methods=["GET"]),
        ]

    def payment_fields(
        self, body: dict[str, Any], currencies: tuple[str, ...], *, customer_object: bool
    ) -> dict[str, Any]:
        return payments.payment_fields(body, currencies, customer_object=customer_object)

    def check_amount(self, sb: Sandbox, owner: KeyOwner, clean: dict[str, Any]) -> None:
        payments.check_amount(sb, owner, clean)

    async def card_purchase(self, sb: Sandbox, owner: KeyOwner, card_hash: str, body: dict[str, Any]) -> dict[str, Any]:
        """A card spend: the issuer's transaction, the only kind a card has."""
        return cards.purchase(sb, owner, card_hash, body)

    def form_key(self, fields: dict[str, str]) -> str:
        """The website form's key is in ``public_key`` (only)."""
        return fields.get("public_key") or ""

    def after_payment(self, row: sqlite3.Row, base_url: str) -> str:
        return payments.after_payment(row, base_url)

    def after_cancel(self, row: sqlite3.Row, base_url: str) -> str:
        return payments.after_cancel(row, base_url)

    def transaction_event(self, sb: Sandbox, row: sqlite3.Row, event: str) -> None:
        """A completed payment is one POST to the business's webhook URL: the merchant's
        own (``PUT _sandbox/webhook``), else ``--webhook-url``. Nothing is sent on cancel,
        on a refund or reversal, nor for a failed live payment."""
        if self.webhook is None or event != "payment.completed":
            return
        if row["status"] != "success" and row["mode"] == "live":
            return
        url = sb.store.webhook_url(row["merchant_id"]) or self.config.webhook_url
        self.webhook.send(
            row["merchant_id"],
            row["mode"],
            url,
            event,
            webhook.notification(row, sb.settings.home_currency(row["merchant_id"])),
        )

    async def drain(self) -> None:
        if self.webhook is not None:
            await self.webhook.drain()

    def unmatched(self, request: Request, status: int, headers: dict[str, str]) -> Response | None:
        """A path or method the family's routes file does not have: the framework's own
        answer, not the envelope (the sandbox's control routes keep theirs): JSON
        ``{"message"}`` in its words when the request expects JSON, else its HTML page."""
        rest = request.url.path[len(self.config.base_path) :]
        if status not in (404, 405) or rest.startswith("/_sandbox"):
            return None
        path = rest.strip("/") or "/"  # Laravel's $request->path()
        if status == 404:
            return framework_answer(request.headers, 404, f"The route {path} could not be found.")
        allowed = [m.strip() for m in headers.get("Allow", "").split(",") if m.strip()]
        allowed.sort(key=lambda m: _METHOD_ORDER.index(m) if m in _METHOD_ORDER else 99)
        return framework_answer(
            request.headers,
            405,
            f"The {request.method} method is not supported for route {path}. Supported methods: {', '.join(allowed)}.",
            {"Allow": ", ".join(allowed)},
        )

    def cors(self, app, base_path: str):
        """CORS open on every ``api/*`` path."""
        return ApiCors(app, f"{base_path}/api/")

    def throttled(self, scope, headers: dict[str, str]) -> Response:
        """The framework's own 429: ``{"message": "Too Many Attempts."}`` to a request that
        expects JSON, else its HTML page; the throttle's headers either way."""
        return framework_answer(Headers(scope=scope), 429, TOO_MANY, headers)
