"""What every route needs: the sandbox's state, and who is calling."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request

from .envelope import ApiError, Envelope
from .keys import KeyOwner, KeyRing
from .store import Store
from .throttle import FAMILY_LIMIT

DEPLOYMENT_CURRENCIES = {"cards": ("GBP", "USD"), "no-cards": ("EUR", "GBP", "USD")}


@dataclass
class SandboxConfig:
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 8000
    base_path: str = "/"
    deployment: str = "cards"
    quirks: bool = False
    # answer as the family's server code does (SERVICE.md 1b); excludes ``quirks``
    family: bool = False
    # where --family POSTs its notifications (the business's webhook URL); none: not sent
    webhook_url: str | None = None
    smtp: str | None = None  # "HOST:PORT"
    # the server's throttle on /api routes per client address (throttle.py): requests a
    # window; None: the dialect's own (the family's 60 a minute; none for the document's);
    # 0: none
    rate_limit: int | None = None
    rate_limit_window: int = 60  # seconds
    notify_timeout: float = 3.0
    notify_attempts: int = 3
    notify_backoff: float = 0.5

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir)
        if self.deployment not in DEPLOYMENT_CURRENCIES:
            raise ValueError(f"unknown deployment {self.deployment!r}: cards or no-cards")
        if self.family and self.quirks:
            raise ValueError("family and quirks are two dialects: choose one")
        if self.rate_limit is not None and self.rate_limit < 0:
            raise ValueError("rate_limit is a number of requests (0: no throttle)")
        if self.rate_limit_window < 1:
            raise ValueError("rate_limit_window is at least one second")
        path = "/" + self.base_path.strip("/")
        self.base_path = "" if path == "/" else path

    @property
    def currencies(self) -> tuple[str, ...]:
        return DEPLOYMENT_CURRENCIES[self.deployment]

    @property
    def dialect_name(self) -> str:
        return "family" if self.family else "quirks" if self.quirks else "strict"

    @property
    def throttle_limit(self) -> int:
        """Requests a window per client address; 0: not throttled."""
        if self.rate_limit is not None:
            return self.rate_limit
        return FAMILY_LIMIT if self.family else 0

    @property
    def has_cards(self) -> bool:
        return self.deployment == "cards"


@dataclass
class Sandbox:
    config: SandboxConfig
    store: Store
    keys: KeyRing
    envelope: Envelope
    templates: Environment = field(
        default_factory=lambda: Environment(
            loader=PackageLoader("paydesk.sandbox", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
        )
    )
    notifier: Any = None
    mailer: Any = None
    faults: Any = None
    calls: Any = None  # every /api/ call per merchant and mode (calls.CallLog)
    dialect: Any = None  # how this deployment answers (dialect.Dialect)
    throttle: Any = None  # the server's throttle per client address (throttle.Throttle)
    settings: Any = None  # each merchant's settings (settings.Settings)

    def base_url(self, request: Request) -> str:
        """``{base_url}`` as the caller reached us, without a trailing slash."""
        return f"{request.url.scheme}://{request.url.netloc}{self.config.base_path}"


def sandbox_of(request: Request) -> Sandbox:
    return request.app.state.sandbox


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def authenticate(request: Request, kinds: tuple[str, ...] = ("secret",), key: str | None = None) -> KeyOwner:
    """The caller's merchant and mode, or 401 / 403."""
    presented = key if key is not None else bearer(request)
    if not presented:
        raise ApiError(401, "Authorization header with a Bearer secret key is required")
    owner = sandbox_of(request).keys.owner(presented)
    if owner is None:
        raise ApiError(401, "Invalid Secret Key")
    if owner.kind not in kinds:
        if "secret" in kinds:
            raise ApiError(403, "A public key cannot be used for this call; use your secret key")
        raise ApiError(403, "Use your public key here; never publish a secret key")
    return owner


def wrong_mode(owner: KeyOwner, record_mode: str, what: str) -> ApiError:
    return ApiError(
        400,
        f"{owner.mode} secret keys can't be used to {what} a {record_mode} "
        + ("transaction" if what == "verify" else "card"),
    )
