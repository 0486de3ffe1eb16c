"""The shop's call budget on the shared ledger: migration 9 (``budget.py`` uses it).

Every desk, counter and the notification receiver of a shop call the service from one
client address, so they share one book of calls per service origin. Two tables and two
functions, each function one round trip, its rules those of ``service/budget_book.py``
(``MemoryBook``) line by line:

- ``call_budgets``: per origin, what the answers taught (the limit, whether the service
  sends the headers at all, the last ``Remaining`` and the calls since, until when its
  window surely lasts), a 429's pause for the whole shop, and which class of a person's call
  waits at some desk (the classes below it hold off until it has gone, at most 2 s);
- ``call_budget_calls``: the sliding log, a row per call from its taking until ``window``
  after its answer (pruned by each take);
- ``paydesk_take_call(origin, desk, class, window, hand)``: under the origin's transaction
  advisory lock (two desks never both take the last call), the verdict, the call's row when
  it may go, and the budget as it is now;
- ``paydesk_call_heard(origin, call, window, status, limit, remaining, retry_after)``: an
  answer (or, with every value NULL, a call lost) told; the budget as it is now.
"""

from __future__ import annotations

VERSION = 9
LOCK_SPACE = 0x7064_6362  # the first key of the origins' advisory locks ("pdcb")

_STATE = """
    -- the budget as it is at t, for the desk's words and figures
    SELECT q.lim, q.lft, q.paused, q.used, q.others, b.refusals
      FROM (SELECT
              paydesk_call_limit(b.call_limit, p_hand) AS lim,
              CASE WHEN paydesk_call_limit(b.call_limit, p_hand) IS NULL THEN NULL
                   ELSE least(paydesk_call_limit(b.call_limit, p_hand) - s.n,
                              CASE WHEN b.remaining IS NOT NULL AND t < b.remaining_until
                                   THEN b.remaining - b.since_remaining END) END AS lft,
              greatest(0, extract(epoch FROM coalesce(b.paused_until, t) - t))::float8 AS paused,
              s.used,
              CASE WHEN b.remaining IS NOT NULL AND t < b.remaining_until
                        AND b.limit_from = 'header'
                   THEN greatest(0, b.call_limit - b.remaining - s.n) ELSE 0 END AS others
            FROM (SELECT count(*)::int AS n,
                         ARRAY[count(*) FILTER (WHERE class = 1), count(*) FILTER (WHERE class = 2),
                               count(*) FILTER (WHERE class = 3), count(*) FILTER (WHERE class = 4),
                               count(*) FILTER (WHERE class = 5)]::int[] AS used
                    FROM call_budget_calls WHERE origin = p_origin AND expires_at > t) s) q
"""

MIGRATION = (
    VERSION,
    f"""
CREATE TABLE call_budgets (
    origin text COLLATE "C" PRIMARY KEY,
    call_limit integer CHECK (call_limit > 0),
    limit_from text CHECK (limit_from IN ('header', 'refusal')),
    headers_seen boolean,               -- NULL: nothing heard yet
    remaining integer,
    since_remaining integer NOT NULL DEFAULT 0,
    remaining_until timestamptz,        -- the window of the last Remaining surely ends by then
    paused_until timestamptz,
    wanted_class smallint,
    wanted_until timestamptz,
    refusals bigint NOT NULL DEFAULT 0
);

CREATE TABLE call_budget_calls (
    id bigserial PRIMARY KEY,
    origin text COLLATE "C" NOT NULL,
    desk text NOT NULL,
    class smallint NOT NULL CHECK (class BETWEEN 1 AND 5),
    sent_at timestamptz NOT NULL,
    answered_at timestamptz,
    expires_at timestamptz NOT NULL
);
CREATE INDEX call_budget_calls_live ON call_budget_calls (origin, expires_at);

-- the limit kept: the service's, or the profile's by hand, the lower of the two
CREATE FUNCTION paydesk_call_limit(learned integer, hand integer) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN hand IS NULL THEN learned
                WHEN learned IS NULL THEN greatest(1, hand)
                ELSE least(learned, greatest(1, hand)) END
$$;

-- the calls of a window a class leaves to the classes above it (budget_book.reserve)
CREATE FUNCTION paydesk_call_reserve(k integer, lim integer) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
    SELECT greatest(0, least(lim - 1, CASE
        WHEN k <= 1 THEN 0
        WHEN k = 2 THEN CASE WHEN lim >= 10 THEN 1 ELSE 0 END
        ELSE ceil(lim / 20.0)::int
             + CASE WHEN k >= 4 THEN ceil(lim / 30.0)::int ELSE 0 END
             + CASE WHEN k >= 5 THEN ceil(lim / 6.0)::int ELSE 0 END END))
$$;

CREATE FUNCTION paydesk_take_call(p_origin text, p_desk text, p_class integer,
                                  p_window float8, p_hand integer)
RETURNS TABLE (call_id bigint, wait float8, lim integer, lft integer, paused float8,
               used integer[], others integer, refusals bigint)
LANGUAGE plpgsql AS $$
DECLARE
    t timestamptz := clock_timestamp();
    b call_budgets%ROWTYPE;
    n integer;
    flying integer;
    kept integer;
    by_log integer;
    by_rem integer;
    fresh boolean;
    w float8;
    kth timestamptz;
    made bigint;
    permitted boolean := false;
BEGIN
    PERFORM pg_advisory_xact_lock({LOCK_SPACE}, hashtext(p_origin));
    INSERT INTO call_budgets (origin) VALUES (p_origin) ON CONFLICT DO NOTHING;
    SELECT * INTO b FROM call_budgets WHERE origin = p_origin;
    DELETE FROM call_budget_calls WHERE origin = p_origin AND expires_at <= t;
    SELECT count(*)::int,
           (count(*) FILTER (WHERE answered_at IS NULL AND sent_at > t - interval '30 seconds'))::int
      INTO n, flying FROM call_budget_calls WHERE origin = p_origin;
    lim := paydesk_call_limit(b.call_limit, p_hand);
    fresh := b.remaining_until IS NOT NULL AND t < b.remaining_until;
    IF b.paused_until IS NOT NULL AND t < b.paused_until THEN
        w := extract(epoch FROM b.paused_until - t);
    ELSIF b.headers_seen IS NULL AND flying > 0 THEN
        w := 0.05;  -- nothing heard yet: one call at a time until an answer tells
    ELSIF lim IS NULL THEN
        permitted := true;  -- not throttled
    ELSIF b.headers_seen AND NOT fresh AND flying > 0 THEN
        w := 0.05;  -- the last Remaining is from a window that ended: one at a time
    ELSE
        kept := paydesk_call_reserve(p_class, lim);
        by_log := lim - n;
        by_rem := CASE WHEN fresh AND b.remaining IS NOT NULL
                       THEN b.remaining - b.since_remaining END;
        IF by_log > kept AND (by_rem IS NULL OR by_rem > kept) THEN
            permitted := true;
        ELSE
            w := 0;
            IF by_log <= kept THEN  -- the (kept - by_log + 1)th call to leave the log frees one
                SELECT c.expires_at INTO kth FROM call_budget_calls c
                 WHERE c.origin = p_origin ORDER BY c.expires_at OFFSET kept - by_log LIMIT 1;
                w := greatest(w, coalesce(extract(epoch FROM kth - t), 0.05));
            END IF;
            IF by_rem IS NOT NULL AND by_rem <= kept THEN
                w := greatest(w, extract(epoch FROM b.remaining_until - t));
            END IF;
        END IF;
    END IF;
    -- a person's call waits at another desk: the classes below it hold off
    IF permitted AND b.wanted_until IS NOT NULL AND t < b.wanted_until
       AND p_class > b.wanted_class THEN
        permitted := false;
        w := 0.05;
    END IF;
    IF permitted THEN
        INSERT INTO call_budget_calls (origin, desk, class, sent_at, expires_at)
        VALUES (p_origin, p_desk, p_class, t,
                t + make_interval(secs => p_window) + interval '30 seconds')
        RETURNING id INTO made;
        UPDATE call_budgets c SET
            since_remaining = c.since_remaining + CASE WHEN fresh THEN 1 ELSE 0 END,
            wanted_class = CASE WHEN p_class <= c.wanted_class THEN NULL ELSE c.wanted_class END,
            wanted_until = CASE WHEN p_class <= c.wanted_class THEN NULL ELSE c.wanted_until END
         WHERE c.origin = p_origin;
    ELSE
        w := greatest(w, 0.05);
        IF p_class <= 2 THEN
            UPDATE call_budgets c SET
                wanted_class = CASE WHEN c.wanted_until > t THEN least(c.wanted_class, p_class)
                                    ELSE p_class END,
                wanted_until = t + interval '2 seconds'
             WHERE c.origin = p_origin;
        END IF;
    END IF;
    SELECT * INTO b FROM call_budgets WHERE origin = p_origin;
    RETURN QUERY SELECT made, CASE WHEN permitted THEN 0.0::float8 ELSE w END, s.*
      FROM ({_STATE}) s;
END
$$;

CREATE FUNCTION paydesk_call_heard(p_origin text, p_call bigint, p_window float8,
                                   p_hand integer, p_status integer, p_limit integer,
                                   p_remaining integer, p_retry_after float8)
RETURNS TABLE (lim integer, lft integer, paused float8, used integer[], others integer,
               refusals bigint)
LANGUAGE plpgsql AS $$
DECLARE
    t timestamptz := clock_timestamp();
    win interval := make_interval(secs => p_window);
    b call_budgets%ROWTYPE;
    flying integer;
    through integer;
    resets timestamptz;
BEGIN
    PERFORM pg_advisory_xact_lock({LOCK_SPACE}, hashtext(p_origin));
    INSERT INTO call_budgets (origin) VALUES (p_origin) ON CONFLICT DO NOTHING;
    UPDATE call_budget_calls SET answered_at = t, expires_at = t + win
     WHERE id = p_call AND answered_at IS NULL;
    SELECT * INTO b FROM call_budgets WHERE origin = p_origin;
    IF p_limit IS NOT NULL AND p_limit > 0 THEN
        b.call_limit := p_limit;
        b.limit_from := 'header';
    END IF;
    IF p_limit IS NOT NULL OR p_remaining IS NOT NULL THEN
        b.headers_seen := true;
    ELSIF p_status IS NOT NULL AND p_status <> 429 AND b.headers_seen IS NULL THEN
        b.headers_seen := false;  -- it answers without them: not throttled
    END IF;
    SELECT (count(*) FILTER (WHERE answered_at IS NULL
                              AND sent_at > t - interval '30 seconds'))::int
      INTO flying FROM call_budget_calls WHERE origin = p_origin;
    IF p_remaining IS NOT NULL THEN
        -- Remaining only falls within a window: more than before, a new one began
        IF b.remaining IS NULL OR b.remaining_until IS NULL OR t >= b.remaining_until
           OR p_remaining > b.remaining THEN
            b.remaining_until := t + win;
        END IF;
        b.remaining := p_remaining;
        b.since_remaining := flying;
    END IF;
    IF p_status = 429 THEN
        b.refusals := b.refusals + 1;
        DELETE FROM call_budget_calls WHERE id = p_call;  -- the server did not count it
        resets := t + make_interval(secs => least(300, coalesce(p_retry_after, 5)));
        b.paused_until := greatest(b.paused_until, resets);
        b.remaining := 0;
        b.since_remaining := flying;
        b.remaining_until := resets;
        -- what it let through in its window (a Retry-After much shorter than the window is
        -- a limit of another kind: only its pause is taken)
        IF b.limit_from IS DISTINCT FROM 'header' AND p_retry_after >= p_window / 10 THEN
            SELECT count(*)::int INTO through FROM call_budget_calls c
             WHERE c.origin = p_origin AND c.expires_at > t AND c.answered_at IS NOT NULL
               AND c.sent_at >= resets - win - interval '1 second';
            IF through > 0 THEN  -- none let through teaches no limit
                b.call_limit := through;
                b.limit_from := 'refusal';
            END IF;
        END IF;
    END IF;
    UPDATE call_budgets SET call_limit = b.call_limit, limit_from = b.limit_from,
           headers_seen = b.headers_seen, remaining = b.remaining,
           since_remaining = b.since_remaining, remaining_until = b.remaining_until,
           paused_until = b.paused_until, refusals = b.refusals
     WHERE origin = p_origin;
    RETURN QUERY {_STATE};
END
$$;
""",
)
