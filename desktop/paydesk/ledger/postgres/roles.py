"""A counter's own database role on the shop's shared ledger: the SQL script the shop's
administrator runs as PostgreSQL's superuser, once per counter (docs/SHARED_LEDGER.md,
"Counters without keys"). ``paydesk-receiver --counter-role-sql`` prints it.

The counter's role (made first with ``createuser --pwprompt``) joins the group
``paydesk_counters``, which may insert its own sale requests and read its own counter's
shifts, sales and their links, nothing more: not the cards, the inbox, other counters'
sales, the merchants' settings (a counter reads what it shows of its merchant through
``counter_merchants()``) or the staff's PIN hashes (it may run the staff's SECURITY DEFINER
PIN functions, when the ledger has them). Row-level security holds the rows to the counter's
own; ``FORCE ROW LEVEL SECURITY`` holds the tables' owner (the desks' role) to the policies
too, which let it see and write everything (``USING (true)``: nothing changes for the
desks). Running the script again for the same role changes its counter's limits.
"""

from __future__ import annotations

GROUP = "paydesk_counters"

# what a counter reads, row by row (its own rows only); the desks' role sees every row
OWN_ROWS = {
    "counter_shifts": "counter = (SELECT paydesk_counter())",
    "counter_sales": "counter = (SELECT paydesk_counter())",
    "counter_shift_closes": "EXISTS (SELECT 1 FROM counter_shifts s WHERE s.id = shift_id"
    " AND s.counter = (SELECT paydesk_counter()))",
    "counter_voids": "EXISTS (SELECT 1 FROM counter_sales s WHERE s.profile_id = counter_voids.profile_id"
    " AND s.tx_ref = counter_voids.tx_ref AND s.counter = (SELECT paydesk_counter()))",
    "counter_decisions": "EXISTS (SELECT 1 FROM counter_sales s WHERE s.profile_id = counter_decisions.profile_id"
    " AND s.tx_ref = counter_decisions.tx_ref AND s.counter = (SELECT paydesk_counter()))",
    "links": "EXISTS (SELECT 1 FROM counter_sales s WHERE s.profile_id = links.profile_id"
    " AND s.tx_ref = links.tx_ref AND s.counter = (SELECT paydesk_counter()))",
    "sale_requests": "counter = (SELECT paydesk_counter())",
    "sale_request_answers": "EXISTS (SELECT 1 FROM sale_requests r WHERE r.id = request_id"
    " AND r.counter = (SELECT paydesk_counter()))",
    # the doorbells of its own records only (and the lease's: whether the key holder is there)
    "events": "kind = 'lease'"
    " OR (kind IN ('link', 'sale') AND EXISTS (SELECT 1 FROM counter_sales s WHERE s.profile_id = events.profile_id"
    " AND s.tx_ref = events.key AND s.counter = (SELECT paydesk_counter())))"
    " OR (kind = 'shift' AND EXISTS (SELECT 1 FROM counter_shifts s WHERE s.id::text = events.key"
    " AND s.counter = (SELECT paydesk_counter())))"
    " OR (kind = 'request' AND EXISTS (SELECT 1 FROM sale_requests r WHERE r.id::text = events.key"
    " AND r.counter = (SELECT paydesk_counter())))",
}
# what it may insert, and which of those rows (besides being its own, above)
INSERTS = {
    "sale_requests": "true",
    "sale_request_answers": "outcome = 'withdrawn'",  # it may give up on its own request
    "counter_shifts": "true",
    "counter_shift_closes": "true",
    "counter_voids": "true",
    "counter_decisions": "true",
    "events": "kind IN ('request', 'sale', 'shift')",
}
# a void holds its link's row (SELECT ... FOR SHARE, ledger/books/counter.py), which asks
# for UPDATE on one column and an UPDATE policy: granted on one column, every row it would
# write refused (WITH CHECK (false)), so it locks its own links and changes none
LOCKED = ("links", "checked_at")
READ_ONLY = ("schema_migrations", "poller_lease")  # the schema's version; who holds the keys
SEQUENCES = ("events_id_seq", "sale_requests_id_seq", "counter_shifts_id_seq")
PIN_FUNCTIONS = ("staff_salt", "staff_check")  # the staff book's (when the ledger has them)


def _policies() -> str:
    lines = []
    for table, own in OWN_ROWS.items():
        check = INSERTS.get(table)
        lines += [
            f"  EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', '{table}');",
            f"  EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', '{table}');",
            f"  EXECUTE format('DROP POLICY IF EXISTS paydesk_desks ON %I', '{table}');",
            "  EXECUTE format('CREATE POLICY paydesk_desks ON %I TO %I USING (true) WITH CHECK (true)',"
            f" '{table}', owner);",
            f"  DROP POLICY IF EXISTS paydesk_counter_reads ON {table};",
            f"  CREATE POLICY paydesk_counter_reads ON {table} FOR SELECT TO {GROUP} USING ({own});",
            f"  DROP POLICY IF EXISTS paydesk_counter_writes ON {table};",
        ]
        if check is not None:
            lines.append(
                f"  CREATE POLICY paydesk_counter_writes ON {table} FOR INSERT TO {GROUP}"
                f" WITH CHECK (({own}) AND ({check}));"
            )
    table, column = LOCKED
    lines += [
        f"  DROP POLICY IF EXISTS paydesk_counter_locks ON {table};",
        f"  CREATE POLICY paydesk_counter_locks ON {table} FOR UPDATE TO {GROUP}"
        f" USING ({OWN_ROWS[table]}) WITH CHECK (false);",
        f"  GRANT UPDATE ({column}) ON {table} TO {GROUP};",
    ]
    return "\n".join(lines)


def counter_role_sql() -> str:
    """The script, for ``psql -v role=ROLE -v counter='COUNTER' [-v largest_sale=N]
    [-v sales_per_hour=N] -f FILE`` on the shop's database, as the superuser."""
    reads = ", ".join([*OWN_ROWS, *READ_ONLY])
    inserts = ", ".join(INSERTS)
    return f"""-- PayDesk: a counter's own role on the shop's shared ledger (docs/SHARED_LEDGER.md).
-- As PostgreSQL's superuser, on the shop's database, once a desk has made its tables:
--   runuser -u postgres -- psql -d paydesk -v role=till1 -v counter='Till 1' \\
--       -v largest_sale=500 -v sales_per_hour=60 -f counter_role.sql
-- (the role made first: runuser -u postgres -- createuser --pwprompt till1). Again for the
-- same role: its counter's limits changed (a limit left out: none).
\\set ON_ERROR_STOP on
\\if :{{?role}}
\\else
  \\echo 'Give the counter''s role: -v role=till1'
  \\quit 1
\\endif
\\if :{{?counter}}
\\else
  \\echo 'Give the counter''s name as PayDesk shows it: -v counter=''Till 1'''
  \\quit 1
\\endif
\\if :{{?largest_sale}}
\\else
  \\set largest_sale ''
\\endif
\\if :{{?sales_per_hour}}
\\else
  \\set sales_per_hour ''
\\endif
BEGIN;
SELECT set_config('paydesk.role', :'role', true) AS role, set_config('paydesk.counter', :'counter', true) AS counter,
       set_config('paydesk.largest_sale', :'largest_sale', true) AS largest_sale,
       set_config('paydesk.sales_per_hour', :'sales_per_hour', true) AS sales_per_hour;
DO $paydesk$
DECLARE
  member text := current_setting('paydesk.role');
  counter_name text := current_setting('paydesk.counter');
  owner text := (SELECT tableowner FROM pg_tables WHERE schemaname = 'public' AND tablename = 'sale_requests');
  pin regprocedure;
BEGIN
  IF owner IS NULL THEN
    RAISE EXCEPTION 'This database has no PayDesk ledger of this version yet: start a desk on it first';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = member) THEN
    RAISE EXCEPTION 'There is no role %: make it first (createuser --pwprompt %)', member, member;
  END IF;
  IF member = owner OR EXISTS (SELECT 1 FROM pg_roles WHERE rolname = member AND rolsuper) THEN
    RAISE EXCEPTION 'The role % is the desks'' own (or a superuser): give the counter a role of its own', member;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{GROUP}') THEN
    CREATE ROLE {GROUP} NOLOGIN;
  END IF;
  EXECUTE format('GRANT {GROUP} TO %I', member);
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO {GROUP}', current_database());
  GRANT USAGE ON SCHEMA public TO {GROUP};
  REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {GROUP};
  GRANT SELECT ON {reads} TO {GROUP};
  GRANT INSERT ON {inserts} TO {GROUP};
  GRANT USAGE ON SEQUENCE {", ".join(SEQUENCES)} TO {GROUP};
  REVOKE EXECUTE ON FUNCTION counter_merchants() FROM PUBLIC;
  GRANT EXECUTE ON FUNCTION paydesk_counter(), counter_merchants() TO {GROUP};
  FOR pin IN SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = 'public' AND p.proname IN ({", ".join(f"'{name}'" for name in PIN_FUNCTIONS)}) LOOP
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO {GROUP}', pin);
  END LOOP;
{_policies()}
  INSERT INTO counter_logins (role_name, counter) VALUES (member, counter_name)
    ON CONFLICT (role_name) DO UPDATE SET counter = excluded.counter;
  INSERT INTO counter_limits (counter, largest_sale, sales_per_hour)
    VALUES (counter_name, nullif(current_setting('paydesk.largest_sale'), '')::numeric,
            nullif(current_setting('paydesk.sales_per_hour'), '')::integer)
    ON CONFLICT (counter) DO UPDATE SET largest_sale = excluded.largest_sale, sales_per_hour = excluded.sales_per_hour;
  RAISE NOTICE 'The role % sells as the counter "%" (largest sale: %, sales an hour: %)', member, counter_name,
    coalesce(nullif(current_setting('paydesk.largest_sale'), ''), 'no limit'),
    coalesce(nullif(current_setting('paydesk.sales_per_hour'), ''), 'no limit');
END
$paydesk$;
COMMIT;
"""
