"""The shared ledger's migration 13: the staff book (mirroring the file's v13,
``ledger/staff_schema.py``), readable by its owner alone, and the three functions a
counter's database role uses instead of the table:

- ``staff_people()``: id, name, role of everyone, by name (no salt, no hash);
- ``staff_salt(person)``: the person's salt and argon2id parameters (no secret in them);
- ``staff_check(person, hash)``: compares the desk's argon2id hash with the stored one in
  constant time (every byte, no early exit), counts a wrong one, refuses without comparing
  while the person's wait runs; returns ok, waiting (refused without comparing), the wait
  in seconds, and the person's name and role when ok. No row: no such person.

Each is ``SECURITY DEFINER`` (it runs with its owner's rights, the table's) with a fixed
``search_path``; EXECUTE is PUBLIC's, so any role that may connect can check a PIN but
never read a hash. The wait's rule is ``ledger/staff.wait_after``'s, written here from
its constants (the book's tests ask both backends the same questions).
"""

from __future__ import annotations

from ..staff import FIRST_WAIT, FREE_TRIES, LONGEST_WAIT
from ..staff_schema import ROLES

VERSION = 13
FUNCTIONS = ("staff_people()", "staff_salt(text)", "staff_check(text, bytea)")

_WAIT = (
    f"CASE WHEN f <= {FREE_TRIES} THEN 0"
    f" ELSE least({LONGEST_WAIT}, {FIRST_WAIT} * power(2, least(f - {FREE_TRIES + 1}, 16)))::integer END"
)

STATEMENTS = [
    f"""CREATE TABLE staff (
        id text COLLATE "C" PRIMARY KEY,
        name text NOT NULL,
        name_key text COLLATE "C" NOT NULL UNIQUE,
        role text COLLATE "C" NOT NULL CHECK (role IN ({", ".join(f"'{r}'" for r in ROLES)})),
        salt bytea NOT NULL,
        time_cost integer NOT NULL,
        memory_cost integer NOT NULL,
        parallelism integer NOT NULL,
        hash bytea NOT NULL,
        failures integer NOT NULL DEFAULT 0,
        wait_until timestamptz,
        added_at timestamptz NOT NULL DEFAULT now()
    )""",
    "REVOKE ALL ON staff FROM PUBLIC",
    """CREATE FUNCTION staff_people() RETURNS TABLE (id text, name text, role text)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        SELECT s.id, s.name, s.role FROM public.staff s ORDER BY s.name_key, s.id
    $$""",
    """CREATE FUNCTION staff_salt(person text)
        RETURNS TABLE (salt bytea, time_cost integer, memory_cost integer, parallelism integer)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        SELECT s.salt, s.time_cost, s.memory_cost, s.parallelism FROM public.staff s WHERE s.id = person
    $$""",
    f"""CREATE FUNCTION staff_check(person text, given bytea)
        RETURNS TABLE (ok boolean, waiting boolean, wait_s double precision, name text, role text)
        LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
        DECLARE
            r public.staff%ROWTYPE;
            diff integer := 0;
            f integer;
            w integer;
        BEGIN
            SELECT * INTO r FROM public.staff s WHERE s.id = person FOR UPDATE;
            IF NOT FOUND THEN
                RETURN;
            END IF;
            IF r.wait_until IS NOT NULL AND r.wait_until > now() THEN
                RETURN QUERY SELECT false, true, extract(epoch FROM r.wait_until - now())::double precision,
                    NULL::text, NULL::text;
                RETURN;
            END IF;
            IF given IS NULL OR length(given) <> length(r.hash) THEN
                diff := 1;
            ELSE
                FOR i IN 0 .. length(r.hash) - 1 LOOP  -- every byte: no early exit
                    diff := diff | (get_byte(r.hash, i) # get_byte(given, i));
                END LOOP;
            END IF;
            IF diff = 0 THEN
                UPDATE public.staff SET failures = 0, wait_until = NULL WHERE id = person;
                RETURN QUERY SELECT true, false, 0::double precision, r.name, r.role;
                RETURN;
            END IF;
            f := r.failures + 1;
            w := {_WAIT};
            UPDATE public.staff SET failures = f,
                wait_until = CASE WHEN w > 0 THEN now() + w * interval '1 second' END
                WHERE id = person;
            RETURN QUERY SELECT false, false, w::double precision, NULL::text, NULL::text;
        END
    $$""",
    # PUBLIC's by default; said here so that a roles script revoking it knows what to give back
    *[f"GRANT EXECUTE ON FUNCTION {f} TO PUBLIC" for f in FUNCTIONS],
]

MIGRATION: tuple[int, str] = (VERSION, ";\n".join(STATEMENTS))
