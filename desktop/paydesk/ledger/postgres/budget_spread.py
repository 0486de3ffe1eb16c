"""Migration 10: the classes below a person's spread their calls over the window, and leave
another program on the address its calls, on the shared ledger as in
``service/budget_book.py``: a batch or the background takes no more than its share of a
sixth of the window in any sixth (``spread``), the shop's calls of every class counted; and
keeps, besides its reserve, as many calls again as Remaining shows another program spent in
the window. ``paydesk_take_call`` is migration 9's (``budget_schema.py``) with those two
rules added; the rest of it is unchanged.
"""

from __future__ import annotations

from . import budget_schema

VERSION = 10

_NINE = budget_schema.MIGRATION[1]
_TAKE = _NINE[_NINE.index("CREATE FUNCTION paydesk_take_call") : _NINE.index("CREATE FUNCTION paydesk_call_heard")]
_ALLOWED = """        IF by_log > kept AND (by_rem IS NULL OR by_rem > kept) THEN
            permitted := true;
"""
_SPREAD = (
    _ALLOWED
    + """            most := paydesk_call_spread(p_class, lim);
            IF most IS NOT NULL THEN  -- the calls of the last sixth: the most-th newest
                SELECT c.sent_at INTO kth FROM call_budget_calls c
                 WHERE c.origin = p_origin AND c.sent_at > t - make_interval(secs => p_window / 6)
                 ORDER BY c.sent_at DESC OFFSET most - 1 LIMIT 1;
                IF kth IS NOT NULL THEN  -- its share taken: until that one leaves the sixth
                    permitted := false;
                    w := extract(epoch FROM kth + make_interval(secs => p_window / 6) - t);
                END IF;
            END IF;
"""
)
_KEPT = "        kept := paydesk_call_reserve(p_class, lim);\n"
_THEIRS = (
    _KEPT
    + """        IF p_class >= 4 AND fresh AND b.remaining IS NOT NULL
           AND b.call_limit IS NOT NULL THEN
            -- another program's calls this window: as many again left to it (budget_book)
            kept := kept + greatest(0, b.call_limit - b.remaining + b.since_remaining - n);
        END IF;
"""
)
_KTH = "    kth timestamptz;\n"
if _TAKE.count(_ALLOWED) != 1 or _TAKE.count(_KTH) != 1 or _TAKE.count(_KEPT) != 1:
    raise RuntimeError("migration 9's paydesk_take_call is not the one migration 10 amends")
_TAKE_SPREAD = (
    _TAKE.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)
    .replace(_KTH, _KTH + "    most integer;\n", 1)
    .replace(_ALLOWED, _SPREAD, 1)
    .replace(_KEPT, _THEIRS, 1)
)

MIGRATION = (
    VERSION,
    f"""
-- the most calls of the shop in any sixth of the window after which a class waits
-- (budget_book.spread): its share of a sixth, at least one; NULL: not spread
CREATE FUNCTION paydesk_call_spread(k integer, lim integer) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN k < 4 THEN NULL
                ELSE greatest(1, (lim - paydesk_call_reserve(k, lim)) / 6) END
$$;

{_TAKE_SPREAD}""",
)
