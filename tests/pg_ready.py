"""The databases a test cluster keeps ready for the tests (tests/postgres.py's
``keep_ready``): a thread copies them from the template ahead of the tests that take them,
and makes each one given back as new for a next test instead of dropping it and copying
the template again, off the tests' path: a copy costs the server about 50 ms of CPU and
its drop 9 more, a reset a fraction of that.

A database is reused only when nothing but its rows changed:

- every connection to it is ended, then it is renamed (so a pool of the test's that is
  still closing, and connects again, finds no database rather than the next test's);
- its shape is compared with the template's (``SHAPE``: tables, columns and their
  collations, constraints, indexes, triggers and whether they fire, rules, policies,
  functions, types, sequences' settings, enums, schemas, grants, the database's settings,
  the extensions, the migrations it records, and each of some thirty catalogues' count and
  highest oid, so that whatever was made since the copy shows); any difference, and it is
  dropped;
- its rows are emptied (the tables that have any, with CASCADE for an empty table that
  refers to one of them, triggers off for the statement: the card audit refuses TRUNCATE
  to everyone else) and its sequences start again.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
import traceback
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.postgres import Cluster

# One text per object of the database's shape, sorted and hashed: what a test could change
# beyond its rows. (Statistics, dead rows and the free space a reset leaves are not shape;
# nor is a transaction left prepared: the tests' clusters allow none.)
SHAPE = """
select md5(string_agg(item, E'\\n' order by item)) from (
  select concat_ws(' ', 'class', c.relname, c.relkind, pg_get_userbyid(c.relowner), c.relacl,
                   c.relrowsecurity, c.relforcerowsecurity, c.reloptions, c.relpersistence) as item
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
  union all
  select concat_ws(' ', 'column', c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod),
                   a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attacl, a.attidentity, a.attgenerated,
                   a.attcollation::regcollation)
    from pg_attribute a
    join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
   where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and a.attnum > 0
  union all
  select concat_ws(' ', 'constraint', conrelid::regclass, conname, pg_get_constraintdef(oid))
    from pg_constraint
   where connamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  union all
  select concat_ws(' ', 'index', pg_get_indexdef(i.indexrelid), i.indisvalid)
    from pg_index i join pg_class c on c.oid = i.indexrelid
    join pg_namespace n on n.oid = c.relnamespace
   where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
  union all
  select concat_ws(' ', 'trigger', pg_get_triggerdef(oid), tgenabled) from pg_trigger  -- foreign keys' too
  union all
  select concat_ws(' ', 'rule', pg_get_ruledef(r.oid), r.ev_enabled)
    from pg_rewrite r join pg_class c on c.oid = r.ev_class
    join pg_namespace n on n.oid = c.relnamespace
   where n.nspname not in ('pg_catalog', 'information_schema')
  union all
  select concat_ws(' ', 'policy', polrelid::regclass, polname, polcmd, polpermissive, polroles,
                   pg_get_expr(polqual, polrelid), pg_get_expr(polwithcheck, polrelid))
    from pg_policy
  union all
  select concat_ws(' ', 'function', p.oid::regprocedure, md5(p.prosrc), pg_get_userbyid(p.proowner),
                   p.proacl, p.prosecdef, p.proconfig)
    from pg_proc p
   where p.pronamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  union all
  select concat_ws(' ', 'type', t.oid::regtype, t.typacl) from pg_type t
   where t.typnamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace,
                                'pg_toast'::regnamespace)
  union all
  select concat_ws(' ', 'schema', nspname, pg_get_userbyid(nspowner), nspacl) from pg_namespace
   where nspname !~ '^pg_(toast_)?temp_'  -- a session's temporary schema, left when it ends
  union all
  select concat_ws(' ', 'sequence', seqrelid::regclass, seqtypid::regtype, seqstart, seqincrement, seqmax,
                   seqmin, seqcache, seqcycle)
    from pg_sequence
  union all
  select concat_ws(' ', 'enum', enumtypid::regtype, enumsortorder, enumlabel) from pg_enum
  union all
  select concat_ws(' ', 'default acl', defaclrole::regrole, defaclobjtype, defaclacl) from pg_default_acl
  union all
  select concat_ws(' ', 'database', pg_get_userbyid(datdba), datacl, datconnlimit, datallowconn)
    from pg_database where datname = current_database()
  union all
  select concat_ws(' ', 'setting', setrole, setconfig)
    from pg_db_role_setting
   where setdatabase = (select oid from pg_database where datname = current_database())
  union all
  select concat_ws(' ', 'extension', extname, extversion) from pg_extension
  union all
  select concat_ws(' ', 'large objects', count(*)) from pg_largeobject_metadata having count(*) > 0
  union all
  select concat_ws(' ', 'migrated', m) from schema_migrations m
  union all
  {made}
) shape
"""

# Whatever a test made, of any kind, has an oid above every one of the template's: each
# catalog's count and highest oid (a session's temporary schema, left when it ends, aside).
_CATALOGS = (
    "pg_class pg_type pg_proc pg_constraint pg_trigger pg_policy pg_rewrite pg_attrdef pg_operator "
    "pg_opclass pg_opfamily pg_amop pg_amproc pg_am pg_cast pg_collation pg_conversion pg_language "
    "pg_extension pg_enum pg_event_trigger pg_foreign_data_wrapper pg_foreign_server pg_user_mapping "
    "pg_publication pg_publication_rel pg_statistic_ext pg_ts_config pg_ts_dict pg_ts_parser "
    "pg_ts_template pg_transform pg_default_acl pg_largeobject_metadata"
).split()
SHAPE = SHAPE.replace(
    "{made}",
    "\n  union all\n  ".join(
        [f"select concat_ws(' ', '{c}', count(*), max(oid)) from {c}" for c in _CATALOGS]
        + [
            "select concat_ws(' ', 'pg_namespace', count(*), max(oid)) from pg_namespace"
            " where nspname !~ '^pg_(toast_)?temp_'"
        ]
    ),
)

# The tables with rows (but the migrations' own record), in one round trip.
_TABLES = """
select quote_ident(schemaname) || '.' || quote_ident(tablename) from pg_tables
 where schemaname not in ('pg_catalog', 'information_schema') and tablename <> 'schema_migrations'
"""


def shape(conn: Any) -> str:
    return conn.execute(SHAPE).fetchone()[0]


def empty(conn: Any) -> None:
    """Every row gone but the migrations' record, every sequence at its start."""
    tables = [name for (name,) in conn.execute(_TABLES).fetchall()]
    if tables:
        probe = " union all ".join(f"select '{t}' where exists (select 1 from {t})" for t in tables)
        full = [name for (name,) in conn.execute(probe).fetchall()]
        if full:
            with conn.transaction():
                # triggers off for these statements (the shared audit refuses TRUNCATE)
                conn.execute("set local session_replication_role = replica")
                # (cascade: an empty table that refers to one of them is named too)
                conn.execute(f"truncate {', '.join(full)} cascade")
    conn.execute(
        "select setval(format('%I.%I', schemaname, sequencename), start_value, false)"
        " from pg_sequences where last_value is not null"
    )


def made_new(admin: Any, connect: Any, name: str, new_name: str, template_shape: str) -> bool:
    """``name`` given back: ended, renamed ``new_name``, emptied and True when its shape is
    the template's; dropped and False otherwise (``admin``: an autocommit connection to
    another database of the cluster; ``connect(dbname)``: a new autocommit connection)."""
    import psycopg
    from psycopg import errors

    for _ in range(50):  # its connections end (a terminated backend takes a moment to go)
        admin.execute(
            "select pg_terminate_backend(pid) from pg_stat_activity where datname = %s and pid <> pg_backend_pid()",
            (name,),
        )
        try:
            admin.execute(f'ALTER DATABASE "{name}" RENAME TO "{new_name}"')
            break
        except errors.ObjectInUse:
            time.sleep(0.01)
    else:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        return False
    try:
        with connect(new_name) as conn:
            kept = shape(conn) == template_shape
            if kept:
                empty(conn)
    except psycopg.Error:
        kept = False
    if not kept:
        admin.execute(f'DROP DATABASE IF EXISTS "{new_name}" WITH (FORCE)')
    return kept


class Ahead:
    """The thread of ``Cluster.keep_ready``: keeps ``count`` databases ready (copied from
    the template, or given back and made as new), drops the ones given up, one job at a
    time, only while the server runs (a test may stop it)."""

    def __init__(self, cluster: Cluster, template: str, count: int):
        self.cluster = cluster
        self.template = template
        self.ready: queue.Queue[str | None] = queue.Queue()
        self.jobs: queue.Queue[tuple[str, str]] = queue.Queue()
        self._ending = False
        self._conn: Any = None
        self.count = count
        for _ in range(count):
            self.jobs.put(("make", cluster._new_name()))
        self._thread = threading.Thread(target=self._work, name="paydesk-pg-ahead", daemon=True)
        self._thread.start()

    def take(self, timeout: float = 60.0) -> str | None:
        """A database made ahead (None: the thread could not make one; the caller makes its
        own, and meets the error itself); the next one is asked for, unless one given back
        is made as new meanwhile."""
        try:
            made = self.ready.get(timeout=timeout)
        except queue.Empty:
            made = None
        self.jobs.put(("top up", ""))
        return made

    def end(self) -> None:
        with self.cluster._state:
            self._ending = True
            self.cluster._state.notify_all()
        self.jobs.put(("end", ""))
        self._thread.join(10)  # its connection closed before the server stops

    def _work(self) -> None:
        state = self.cluster._state
        try:
            while True:
                job, name = self.jobs.get()
                with state:
                    state.wait_for(lambda: self.cluster.running or self._ending)
                    if self._ending:
                        return
                    if job == "top up":  # as many ready as asked for, the reused among them
                        if self.ready.qsize() >= self.count:
                            continue
                        job, name = "make", self.cluster._new_name()
                    new_name = self.cluster._new_name() if job == "reuse" else ""
                    try:
                        done = self._do(job, name, new_name)
                    except Exception:  # noqa: BLE001 (this thread goes on whatever a job meets: a make failed
                        # is a None taken, its test makes its own and meets the error itself)
                        traceback.print_exc()
                        done = False
                if job == "make":
                    self.ready.put(name if done else None)
                elif job == "reuse" and done:
                    self.ready.put(new_name)
        finally:  # the connection it keeps, closed (not left to the collector at exit)
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    self._conn.close()
                self._conn = None

    def _do(self, job: str, name: str, new_name: str) -> bool:
        """One job on ``name`` (``new_name``: what a database reused is renamed); whether it
        was done."""
        import psycopg

        for _ in range(2):  # the kept connection may have been cut by a restart
            try:
                if self._conn is None or self._conn.closed:
                    self._conn = self.cluster.connect()
                if job == "make":
                    self.cluster.copy_template(self._conn, name, self.template)
                elif job == "reuse":
                    shape_then = self.cluster._shapes[self.template]
                    return made_new(self._conn, self.cluster.connect, name, new_name, shape_then)
                else:
                    self._conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                return True
            except psycopg.Error:
                if self._conn is not None:
                    with contextlib.suppress(psycopg.Error):
                        self._conn.close()
                self._conn = None
        return False
