"""How a deployment answers. Three dialects share one sandbox:

- strict (the default): the interface document, exactly;
- quirks (``--quirks``): the document's samples, the way the family's answers look;
- family (``--family``): the family's server code (SERVICE.md section 1b), in ``family/``.

Shared routes ask ``sb.dialect`` wherever the dialects differ, so no route carries
``if family`` branches; each dialect's own answers live with it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import cards
from .context import Sandbox, SandboxConfig
from .cors import JsTransferCors
from .envelope import ApiError, Envelope, validation_error
from .keys import KeyOwner
from .payments import merge_query, redirect_after, transaction_view
from .routes import public_routes
from .throttle import TOO_MANY
from .validation import check_payment


class DocumentDialect:
    """The document's dialect, strict or (with ``config.quirks``) as its samples answer."""

    # the website form takes the public key (and, as the seed shows, a secret key too)
    form_key_kinds: tuple[str, ...] = ("public", "secret")
    # the inline script's config members that may carry the key, in the order tried
    script_key_fields: Sequence[str] = ("public_key", "secret_key")

    def __init__(self, config: SandboxConfig):
        self.config = config
        self.name = config.dialect_name
        self.envelope = Envelope(config.quirks)

    def start(self, sb: Sandbox) -> None:
        """The sandbox is assembled (its store, keys and notifier are there)."""

    def routes(self, has_cards: bool) -> list[Route]:
        return public_routes(has_cards)

    def payment_fields(
        self, body: dict[str, Any], currencies: tuple[str, ...], *, customer_object: bool
    ) -> dict[str, Any]:
        """A payment request's clean fields, or a validation ApiError naming every field."""
        checked = check_payment(body, currencies, customer_object=customer_object)
        if checked.errors:
            raise validation_error(checked.errors)
        return checked.clean

    def check_amount(self, sb: Sandbox, owner: KeyOwner, clean: dict[str, Any]) -> None:
        """The merchant's own amount rules: none in the document (its 1 to 10,000,000 is a
        field rule)."""

    async def card_purchase(self, sb: Sandbox, owner: KeyOwner, card_hash: str, body: dict[str, Any]) -> dict[str, Any]:
        """A card spend (the control API's), notified to the card's callback URL."""
        return await cards.purchase(sb, owner, card_hash, body)

    def form_key(self, fields: dict[str, str]) -> str:
        """The website form's key: the family's ``public_key`` field, or the document's
        ``secret_key`` (which takes the public key too)."""
        return fields.get("public_key") or fields.get("secret_key") or ""

    def after_payment(self, row: sqlite3.Row, base_url: str) -> str:
        return redirect_after(row, base_url)

    def after_cancel(self, row: sqlite3.Row, base_url: str) -> str:
        if row["return_url"]:
            return merge_query(row["return_url"], tx_ref=row["tx_ref"], status="cancelled")
        return f"{base_url}/payment/{row['reference']}/receipt"

    def transaction_event(self, sb: Sandbox, row: sqlite3.Row, event: str) -> None:
        """A payment reached a final state (``payment.completed`` or ``.cancelled``), or
        was refunded or reversed (``payment.updated``): the document notifies the record's
        callback_url and the merchant's webhook URL (``PUT _sandbox/webhook``) of the first
        two, each URL once, the same body signed with the mode's secret key, retried."""
        if event == "payment.updated":
            return
        urls = [u for u in (row["callback_url"], sb.store.webhook_url(row["merchant_id"])) if u]
        if urls:
            sb.notifier.send(row["merchant_id"], row["mode"], urls, event, transaction_view(row))

    async def drain(self) -> None:
        """Wait for what the dialect still sends (on shutdown); the document's notifier is
        the sandbox's own and drained by it."""

    def unmatched(self, request: Request, status: int, headers: dict[str, str]) -> Response | None:
        """The answer to a path or method no route takes; None: the sandbox's own."""
        return None

    def cors(self, app, base_path: str):
        """Browsers may call the inline checkout's route only."""
        return JsTransferCors(app, f"{base_path}/api/js_transfer")

    def throttled(self, scope, headers: dict[str, str]) -> Response:
        """The server's throttle refused a request: the dialect's failed envelope, 429, with
        the framework's words."""
        return self.envelope.fail(ApiError(429, TOO_MANY, headers=headers))


def dialect_for(config: SandboxConfig) -> Any:
    if config.family:
        from .family import FamilyDialect

        return FamilyDialect(config)
    return DocumentDialect(config)
