"""Migration 11: a 429 teaches a limit only when its window began with a call of the
shop's book, on the shared ledger as in ``service/budget_book.py``: the calls the server let
through in the window its Retry-After ends are the limit when the first of them began that
window; a window begun by another program (what it spent is not known) gives only its
pause. ``paydesk_call_heard`` is migration 9's (``budget_schema.py``) with that rule; the
rest of it is unchanged.
"""

from __future__ import annotations

from . import budget_schema

VERSION = 11

_NINE = budget_schema.MIGRATION[1]
_HEARD = _NINE[_NINE.index("CREATE FUNCTION paydesk_call_heard") :]
_HEARD = _HEARD[: _HEARD.index("$$;") + 3]
_COUNT = """            SELECT count(*)::int INTO through FROM call_budget_calls c
             WHERE c.origin = p_origin AND c.expires_at > t AND c.answered_at IS NOT NULL
               AND c.sent_at >= resets - win - interval '1 second';
            IF through > 0 THEN  -- none let through teaches no limit
"""
_BEGUN = """            SELECT count(*)::int, min(c.sent_at) INTO through, first_sent
              FROM call_budget_calls c
             WHERE c.origin = p_origin AND c.expires_at > t AND c.answered_at IS NOT NULL
               AND c.sent_at >= resets - win - interval '1 second';
            -- none let through teaches no limit, nor a window another program began
            IF through > 0 AND first_sent <= resets - win + interval '1 second' THEN
"""
_THROUGH = "    through integer;\n"
if _HEARD.count(_COUNT) != 1 or _HEARD.count(_THROUGH) != 1:
    raise RuntimeError("migration 9's paydesk_call_heard is not the one migration 11 amends")

MIGRATION = (
    VERSION,
    (
        _HEARD.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
        .replace(_THROUGH, _THROUGH + "    first_sent timestamptz;\n", 1)
        .replace(_COUNT, _BEGUN, 1)
    )
    + "\n",
)
