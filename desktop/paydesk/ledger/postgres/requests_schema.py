"""The shared ledger's migration 12: sale requests, for counters that hold no secret key.

A key-less counter writes its sale as a row of ``sale_requests`` (and an event "request",
key its id, whose NOTIFY carries the event's id); the shop's key holder answers it once in
``sale_request_answers`` (its primary key is the request's id: one answer, whoever writes it
first): "taken" with the tx_ref it made the sale under, "refused" with one plain sentence
(a counter's limit), or "withdrawn" (the counter stopped waiting, or the key holder found it
too old to serve). A request's id is the sale's idempotency anchor: it is taken once, under
one tx_ref, and that tx_ref's link is created under the rule of intent before call.

``counter_limits`` holds each counter's limits (the largest sale, the sales an hour), set
where the administrator sets the counter up (``packaging/sql/counter_role.sql``);
``counter_logins`` maps a counter's database role to its counter, read by
``paydesk_counter()`` (SECURITY DEFINER: a counter's role reads its own mapping through it,
and the row-level security policies name it). ``counter_merchants()`` hands a counter's role
what a counter shows of the shop's merchants (no callback or webhook settings).
"""

from __future__ import annotations

VERSION = 12

# the profile's fields a counter needs (desk/counter.py, the customer display)
COUNTER_FIELDS = (
    "name",
    "base_url",
    "currencies",
    "txref_prefix",
    "merchant_name",
    "walk_in_name",
    "shop_email",
    "counter_logo",
    "customer_language",
    "has_cards",
)

STATEMENTS = [
    """CREATE TABLE sale_requests (
        id bigserial PRIMARY KEY,
        counter text COLLATE "C" NOT NULL,
        profile_id text COLLATE "C" NOT NULL,
        mode text COLLATE "C" NOT NULL CHECK (mode IN ('test', 'live')),
        amount numeric NOT NULL CHECK (amount > 0),
        currency text COLLATE "C" NOT NULL,
        email text NOT NULL,
        note text NOT NULL DEFAULT '',
        made_at timestamptz NOT NULL DEFAULT now(),
        made_by text NOT NULL,
        actor text  -- the person signed in at the counter (desk/staff.py), NULL: no staff
    )""",
    "CREATE INDEX sale_requests_by_counter ON sale_requests (counter, made_at)",
    """CREATE TABLE sale_request_answers (
        request_id bigint PRIMARY KEY REFERENCES sale_requests (id),
        outcome text COLLATE "C" NOT NULL CHECK (outcome IN ('taken', 'refused', 'withdrawn')),
        tx_ref text COLLATE "C",
        why text NOT NULL DEFAULT '',
        answered_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((outcome = 'taken') = (tx_ref IS NOT NULL))
    )""",
    "CREATE INDEX sale_request_answers_taken ON sale_request_answers (answered_at) WHERE outcome = 'taken'",
    """CREATE TABLE counter_limits (
        counter text COLLATE "C" PRIMARY KEY,
        largest_sale numeric CHECK (largest_sale > 0),
        sales_per_hour integer CHECK (sales_per_hour > 0)
    )""",
    """CREATE TABLE counter_logins (
        role_name text COLLATE "C" PRIMARY KEY,
        counter text COLLATE "C" NOT NULL UNIQUE
    )""",
    """CREATE FUNCTION paydesk_counter() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
        SET search_path = pg_catalog, public AS
        $$ SELECT counter FROM public.counter_logins WHERE role_name = session_user $$""",
    f"""CREATE FUNCTION counter_merchants() RETURNS TABLE (id text, profile jsonb) LANGUAGE sql
        STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS
        $$ SELECT m.id, jsonb_strip_nulls(jsonb_build_object({
        ", ".join(f"'{name}', m.profile -> '{name}'" for name in COUNTER_FIELDS)
    }))
           FROM public.merchants m ORDER BY lower(m.profile ->> 'name'), m.id $$""",
]

MIGRATION: tuple[int, str] = (VERSION, ";\n".join(STATEMENTS))
