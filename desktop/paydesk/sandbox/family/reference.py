"""The family's look-up routes for a merchant's forms: ``GET /api/country``, ``GET
/api/state/{id}`` and ``GET /api/currency_supported``. Its routes file has them, its
answers' shapes are not written down anywhere PayDesk has read: these shapes and rows are
the sandbox's own choice, in the family's manner (HTTP 201, its envelope, rows read
straight from a table: ``id`` and the columns, an unknown country's states an empty list).
They take no key, like the forms they fill.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from ..context import sandbox_of
from ..validation import currency_code

# id, name, ISO 3166 alpha-2, telephone code
COUNTRIES = (
    (1, "Nigeria", "NG", "234"),
    (2, "Ghana", "GH", "233"),
    (3, "Kenya", "KE", "254"),
    (4, "United Kingdom", "GB", "44"),
    (5, "United States", "US", "1"),
    (6, "Ireland", "IE", "353"),
    (7, "France", "FR", "33"),
    (8, "Germany", "DE", "49"),
)
STATES = {
    1: ("Abuja FCT", "Kano", "Lagos", "Oyo", "Rivers"),
    2: ("Ashanti", "Greater Accra", "Northern", "Volta"),
    3: ("Mombasa", "Nairobi", "Nakuru"),
    4: ("England", "Northern Ireland", "Scotland", "Wales"),
    5: ("California", "Illinois", "New York", "Texas"),
    6: ("Connacht", "Leinster", "Munster", "Ulster"),
    7: ("Bretagne", "Île-de-France", "Occitanie", "Provence-Alpes-Côte d'Azur"),
    8: ("Bayern", "Berlin", "Hamburg", "Nordrhein-Westfalen"),
}
CURRENCIES = {"EUR": ("Euro", "€"), "GBP": ("Pound Sterling", "£"), "USD": ("US Dollar", "$")}


def _state_rows() -> dict[int, list[dict]]:
    rows: dict[int, list[dict]] = {}
    next_id = 1
    for country, names in STATES.items():
        for name in names:
            rows.setdefault(country, []).append({"id": next_id, "country_id": country, "name": name})
            next_id += 1
    return rows


_STATES = _state_rows()


async def countries(request: Request) -> JSONResponse:
    rows = [{"id": i, "name": name, "iso2": iso2, "phone_code": phone} for i, name, iso2, phone in COUNTRIES]
    return sandbox_of(request).envelope.ok("Country List", rows)


async def states(request: Request) -> JSONResponse:
    """The states of the country ``{id}``; an unknown one (or not a number) has none."""
    raw = request.path_params["country_id"]
    country = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 10 else None
    return sandbox_of(request).envelope.ok("State List", _STATES.get(country or 0, []))


async def currencies(request: Request) -> JSONResponse:
    """The deployment's currencies, each with the service's internal code as its id (the
    code a card's ``currency`` holds)."""
    sb = sandbox_of(request)
    rows = [
        {"id": int(currency_code(code)), "name": CURRENCIES[code][0], "code": code, "symbol": CURRENCIES[code][1]}
        for code in sb.config.currencies
    ]
    return sb.envelope.ok("Supported Currencies", rows)
