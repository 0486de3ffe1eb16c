"""A profile is a merchant's connection. Profiles are saved without their keys."""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ..i18n import CUSTOMER_LANGUAGES, ENGLISH, LANGUAGES, N_
from ..service.models import DEFAULT_CARD_CURRENCIES, LOOKUP_PATHS

MODES = ("test", "live")
KINDS = ("secret", "public")
# The two deployments of SERVICE.md: with cards (GBP, USD), without (EUR, GBP, USD).
CARDS_CURRENCIES = ["GBP", "USD"]
NO_CARDS_CURRENCIES = ["EUR", "GBP", "USD"]


def address_problem(url: str) -> str | None:
    """Why keys must not be sent to ``url`` (None: they may). Keys go only over https,
    except to this computer (loopback), where the embedded sandbox and local tests live."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "Enter the service's address, starting with https://"
    if parts.scheme == "https":
        return None
    host = parts.hostname
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost" or host.endswith(".localhost")
    if loopback:
        return None
    return "Keys are sent only over https (http only to this computer): use https://"


def format_card_currencies(codes: dict[str, str]) -> str:
    """``{"12": "GBP"}`` -> ``"12=GBP"``, as the profile editor shows the map."""
    return ", ".join(f"{code}={iso}" for code, iso in sorted(codes.items()))


def parse_card_currencies(text: str) -> tuple[dict[str, str], str | None]:
    """The service's card currency codes as typed (``"11=USD, 12=GBP"``): the map, or what
    is wrong with it."""
    codes: dict[str, str] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        code, sep, iso = (x.strip() for x in item.partition("="))
        if not sep or not code or not code.isalnum() or len(code) > 8:
            return {}, f"Write each as the service's code = currency, e.g. 12=GBP (not {item!r})"
        if len(iso) != 3 or not iso.isascii() or not iso.isalpha():
            return {}, f"{iso!r} is not a three-letter currency code, e.g. GBP"
        if code in codes:
            return {}, f"The code {code} is given twice"
        codes[code] = iso.upper()
    return codes, None


# the counter's customer who gives no name, in the customer's language when that is chosen
# (ui/profile_counter.py: the profile's data, renamed at will)
WALK_IN_NAME = N_("Walk-in customer")


@dataclass
class Profile:
    id: str
    name: str
    base_url: str
    currencies: list[str] = field(default_factory=lambda: list(CARDS_CURRENCIES))
    has_cards: bool | None = None  # None: not yet found out from the service
    # where the deployment looks payments up: "api/transaction" (the document's) or
    # "api/verify-payment" (the family's servers); None: not yet found out
    lookup_path: str | None = None
    card_currencies: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_CARD_CURRENCIES))
    embedded_sandbox: bool = False
    sandbox_port: int = 0  # the embedded sandbox's own port, tried first at every start
    txref_prefix: str = "PAY"
    callback_url: str = ""
    return_url: str = ""
    merchant_name: str = ""  # the business's name as customers know it (receipts)
    # the counter's defaults (desk/counter.py): the service wants a name and an e-mail for
    # every payment; a walk-in customer who gives none is sold to under these
    walk_in_name: str = WALK_IN_NAME  # first word: first name, the rest: last name
    shop_email: str = ""  # the shop's own address; the counter cannot sell without one
    counter_logo: str = ""  # an image file shown on the customer display ("" none)
    # "Calls a minute this service allows", set by hand (None: as the service's answers say,
    # desk/budgets.py); the lower of the two is kept
    calls_a_minute: int | None = None
    # the language the customer reads: the counter display, receipts, the QR sheet, e-mails
    # (paydesk/i18n.py's CUSTOMER_LANGUAGES); the staff's is the computer's (Settings.language)
    customer_language: str = ENGLISH

    @property
    def test_cards(self) -> bool:
        """Whether the service keeps test cards apart from live ones. The family's servers
        (known by where they look payments up) do not: a card is the merchant's whichever
        key made it, paid from the live balance, and either key lists them all."""
        return self.lookup_path != LOOKUP_PATHS[1]

    @property
    def shown_name(self) -> str:
        """The name a customer sees (a receipt's merchant): the merchant's, else the profile's."""
        return self.merchant_name.strip() or self.name

    @staticmethod
    def new_id() -> str:
        return "p_" + secrets.token_hex(4)

    @classmethod
    def from_json(cls, data: dict) -> Profile:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if known.get("lookup_path") not in LOOKUP_PATHS:
            known["lookup_path"] = None  # written by another version, or edited by hand
        calls = known.get("calls_a_minute")
        if not (isinstance(calls, int) and not isinstance(calls, bool) and calls > 0):
            known["calls_a_minute"] = None
        if known.get("customer_language") not in CUSTOMER_LANGUAGES:
            known["customer_language"] = ENGLISH
        return cls(**known)


@dataclass
class Settings:
    profiles: list[Profile] = field(default_factory=list)
    active_profile: str | None = None
    active_mode: str = "test"
    installation_id: str | None = None
    # the shared ledger's address, never with its password (that is in the keyring);
    # None: this computer's own ledger (config/shared_ledger.py)
    ledger_url: str | None = None
    # this desk's name as the person set it (config/desk_name.py); None: its default name
    desk_name: str | None = None
    # the staff's language on this computer (Settings → Language; paydesk/i18n.py's
    # LANGUAGES); None: the system's. Read at start: a change takes effect at the next start
    language: str | None = None

    def profile(self, profile_id: str | None) -> Profile | None:
        return next((p for p in self.profiles if p.id == profile_id), None)

    @property
    def active(self) -> Profile | None:
        return self.profile(self.active_profile)


class SettingsFile:
    """``profiles.json`` in the data folder; written whole, atomically. Never holds a key."""

    def __init__(self, path: Path):
        self.path = path

    def load(self) -> Settings:
        if not self.path.exists():
            return Settings()
        data = json.loads(self.path.read_text("utf-8"))
        return Settings(
            profiles=[Profile.from_json(p) for p in data.get("profiles", [])],
            active_profile=data.get("active_profile"),
            active_mode=data.get("active_mode") if data.get("active_mode") in MODES else "test",
            installation_id=data.get("installation_id"),
            ledger_url=data.get("ledger_url") or None,
            desk_name=data.get("desk_name") if isinstance(data.get("desk_name"), str) else None,
            language=data.get("language") if data.get("language") in LANGUAGES else None,
        )

    @staticmethod
    def dump(settings: Settings) -> str:
        data = {
            "profiles": [asdict(p) for p in settings.profiles],
            "active_profile": settings.active_profile,
            "active_mode": settings.active_mode,
            "installation_id": settings.installation_id,
        }
        if settings.ledger_url:
            data["ledger_url"] = settings.ledger_url
        if settings.desk_name:
            data["desk_name"] = settings.desk_name
        if settings.language:
            data["language"] = settings.language
        return json.dumps(data, indent=2)

    def language(self) -> str | None:
        """The staff's language saved on this computer (None: the system's), read alone at
        start, before anything else of the file is needed."""
        try:
            value = json.loads(self.path.read_text("utf-8")).get("language")
        except (OSError, ValueError, AttributeError):
            return None
        return value if value in LANGUAGES else None

    def write(self, text: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(text, "utf-8")
        os.replace(tmp, self.path)

    def save(self, settings: Settings) -> None:
        self.write(self.dump(settings))
