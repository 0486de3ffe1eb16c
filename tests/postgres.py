"""A throwaway PostgreSQL cluster for the tests and benchmarks: Debian's PostgreSQL 15
binaries, a cluster in a temporary folder (made and run as the ``postgres`` user when this
runs as root: initdb refuses root), on a free port, listening on its own unix socket (in
the folder) and on 127.0.0.1, stopped and removed at the end.

Authentication: the socket and the ``postgres`` role over TCP are trusted; every other
role logs in over TCP with its password (scram-sha-256), as a shop's desks do.

    with Cluster.started() as cluster:
        cluster.create_database("shop")      # empty; or from_template(...)
        url = cluster.url("shop")           # postgresql://postgres@127.0.0.1:PORT/shop

A test's own database (``fresh_database``) is copied from a migrated template; once
``keep_ready()`` is called, a thread keeps the next ones ready ahead of the tests that take
them, and makes the ones given back (``give_back``) as new for the next tests, or drops them
(tests/pg_ready.py), so a test waits for neither.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.pg_ready import Ahead

MISSING = "PostgreSQL 15 (Debian package postgresql) is not installed"
NO_TRGM = "pg_trgm (Debian package postgresql-contrib) is not installed"
TEMPLATE = "paydesk_template"


def bindir() -> Path | None:
    """Debian's PostgreSQL binaries (not whatever pg_ctl is first on PATH)."""
    candidates = [Path("/usr/lib/postgresql/15/bin")]
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, timeout=10)
        if found.returncode == 0 and found.stdout.strip():
            candidates.append(Path(found.stdout.strip()))
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    return None


def missing() -> str | None:
    """Why the PostgreSQL tests cannot run here (None: they can)."""
    if bindir() is None:
        return MISSING
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "psycopg 3 and psycopg-pool are not installed (pip install -e .)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run PostgreSQL as"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


HBA = """\
local   all  all                       trust
host    all  postgres  127.0.0.1/32    trust
host    all  all       127.0.0.1/32    scram-sha-256
"""


class Cluster:
    """One PostgreSQL server in a folder of its own."""

    _numbers = itertools.count(1)
    # set by tests/conftest.py in ./dev check's tier, which asks no PostgreSQL server
    refusal: str | None = None

    def __init__(self, folder: Path | None = None):
        if Cluster.refusal:
            raise RuntimeError(Cluster.refusal)
        found = bindir()
        if found is None:
            raise RuntimeError(MISSING)
        self.bin = found
        self.folder = folder or Path(tempfile.mkdtemp(prefix="paydesk-pg-"))
        self.data = self.folder / "data"
        self.socket_dir = self.folder / "run"
        self.log = self.folder / "server.log"
        self.port = 0
        self.running = False
        self.as_postgres = os.geteuid() == 0
        # held while the server starts or stops, and by the thread making databases ahead
        # while it speaks to the server (so a test stopping the server waits for its
        # statement, and the thread waits for the server to be up again)
        self._state = threading.Condition(threading.RLock())
        self._ahead: Ahead | None = None
        self._shapes: dict[str, str] = {}  # a template's shape (tests/pg_ready.py)
        self._init()

    # -- the server ---------------------------------------------------------------------

    def _run(self, *command: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [str(c) for c in command]
        if self.as_postgres:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=self.folder, timeout=120)
        if check and done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stdout}{done.stderr}\n{log}")
        return done

    def _init(self) -> None:
        self.socket_dir.mkdir(parents=True, exist_ok=True)
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
            shutil.chown(self.socket_dir, "postgres", "postgres")
        self._run(
            self.bin / "initdb",
            "-D",
            self.data,
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
            "--no-instructions",
        )
        (self.data / "pg_hba.conf").write_text(HBA)
        with (self.data / "postgresql.conf").open("a") as conf:
            # speed over durability against a power cut, never against the server's own
            # crash: a commit is written to the WAL (not flushed), so a server stopped with
            # "immediate" (as if killed) keeps every commit it acknowledged
            conf.write(
                "\n# the tests' throwaway cluster\n"
                "fsync = off\nsynchronous_commit = on\nfull_page_writes = off\n"
                "max_connections = 200\nshared_buffers = 64MB\n"
                "listen_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.socket_dir}'\n"
            )

    def start(self) -> None:
        """Start (again, on the same port once it had one)."""
        if self.running:  # (only the caller's thread changes it)
            return
        with self._state:
            self._start()
            self._state.notify_all()

    def _start(self) -> None:
        if self.running:
            return
        for attempt in range(5):
            if not self.port or attempt:
                self.port = free_port()
            done = self._run(
                self.bin / "pg_ctl",
                "-D",
                self.data,
                "-l",
                self.log,
                "-w",
                "-t",
                "60",
                "-o",
                f"-p {self.port}",
                "start",
                check=False,
            )
            if done.returncode == 0:
                self.running = True
                return
            if attempt == 4 or "already in use" not in self.log.read_text(errors="replace"):
                raise RuntimeError(
                    f"PostgreSQL did not start: {done.stdout}{done.stderr}\n"
                    f"{self.log.read_text(errors='replace')[-2000:]}"
                )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``immediate``: as if it crashed); connections are cut."""
        if not self.running:
            return
        with self._state:
            if not self.running:
                return
            self._run(self.bin / "pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")
            self.running = False

    def restart(self) -> None:
        self.stop()
        self.start()

    @contextlib.contextmanager
    def down(self, mode: str = "fast") -> Iterator[None]:
        """The server stopped for the block, running again after it (whatever happens)."""
        self.stop(mode)
        try:
            yield
        finally:
            self.start()

    def remove(self) -> None:
        if self._ahead is not None:
            self._ahead.end()
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    @classmethod
    @contextlib.contextmanager
    def started(cls) -> Iterator[Cluster]:
        cluster = cls()
        atexit.register(cluster.remove)  # a run that ends without the finally still stops it
        try:
            cluster.start()
            yield cluster
        finally:
            cluster.remove()
            atexit.unregister(cluster.remove)

    # -- addresses and databases --------------------------------------------------------

    def url(self, dbname: str = "postgres", user: str = "postgres", *, tcp: bool = True) -> str:
        """A URL without a password: over TCP on 127.0.0.1 (keepalives apply), or over
        the unix socket (``tcp=False``)."""
        if tcp:
            return f"postgresql://{user}@127.0.0.1:{self.port}/{dbname}"
        return f"postgresql://{user}@/{dbname}?host={self.socket_dir}&port={self.port}"

    def connect(self, dbname: str = "postgres", **kwargs: Any) -> Any:
        """An autocommit connection as the superuser, over the socket."""
        import psycopg

        return psycopg.connect(
            host=str(self.socket_dir), port=self.port, user="postgres", dbname=dbname, autocommit=True, **kwargs
        )

    def sql(self, statement: str, dbname: str = "postgres") -> list[tuple[Any, ...]]:
        with self.connect(dbname) as conn:
            cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def create_database(self, name: str, template: str | None = None) -> str:
        source = f' TEMPLATE "{template}" STRATEGY WAL_LOG' if template else ""
        self.sql(f'CREATE DATABASE "{name}"{source}')
        return name

    def drop_database(self, name: str) -> None:
        self.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def login_role(self, name: str, password: str, dbname: str | None = None) -> None:
        """A role that logs in with its password (over TCP: scram-sha-256), given all rights
        on ``dbname``, its schema public and what is in it, as a shop's desk role has."""
        from psycopg import sql

        with self.connect() as conn:
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(name), sql.Literal(password))
            )
        if dbname:
            with self.connect(dbname) as conn:
                conn.execute(
                    sql.SQL("GRANT ALL ON DATABASE {} TO {}").format(sql.Identifier(dbname), sql.Identifier(name))
                )
                conn.execute(sql.SQL("GRANT ALL ON ALL TABLES IN SCHEMA public TO {}").format(sql.Identifier(name)))
                conn.execute(sql.SQL("GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {}").format(sql.Identifier(name)))
                conn.execute(sql.SQL("GRANT ALL ON SCHEMA public TO {}").format(sql.Identifier(name)))

    def make_template(self, name: str = TEMPLATE) -> str:
        """A database with every migration applied, to copy a test's database from."""
        from paydesk.ledger.postgres.schema import migrate
        from tests.pg_ready import shape

        self.create_database(name)
        with self.connect(name) as conn:
            migrate(conn)
            self._shapes[name] = shape(conn)
        self.sql(f'ALTER DATABASE "{name}" WITH IS_TEMPLATE true')
        return name

    def fresh_database(self, template: str = TEMPLATE) -> str:
        """A new database made from ``template``, named uniquely in this cluster: one made
        ahead when ``keep_ready`` was called for that template."""
        if self._ahead is not None and self._ahead.template == template:
            made = self._ahead.take()
            if made is not None:
                return made
        return self.create_database(self._new_name(), template)

    def _new_name(self) -> str:
        return f"t{os.getpid()}_{next(self._numbers)}"

    def copy_template(self, conn: Any, name: str, template: str = TEMPLATE) -> None:
        # WAL_LOG (PostgreSQL 15's default) copies the template's few megabytes through the
        # WAL; FILE_COPY checkpoints twice, flushing whatever earlier tests left dirty: 0.06
        # to 0.24 s a database here instead of 0.03 s
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY WAL_LOG')

    def keep_ready(self, count: int = 2, template: str = TEMPLATE) -> None:
        """From now on, ``count`` databases copied from ``template`` (or given back and made
        as new: ``give_back``) are kept ready by a thread, and ``drop_later`` drops on that
        thread (tests/pg_ready.py)."""
        if self._ahead is None:
            from tests.pg_ready import Ahead

            self._ahead = Ahead(self, template, count)

    def give_back(self, name: str) -> None:
        """A database ``fresh_database`` gave, no longer used: made as new for a next test
        when only its rows changed, else dropped (on the thread of ``keep_ready``; dropped at
        once without it)."""
        if self._ahead is None:
            self.drop_database(name)
        else:
            self._ahead.jobs.put(("reuse", name))

    def drop_later(self, name: str) -> None:
        """Drop the database off the caller's path (on the thread of ``keep_ready``; at once
        without it)."""
        if self._ahead is None:
            self.drop_database(name)
        else:
            self._ahead.jobs.put(("drop", name))
