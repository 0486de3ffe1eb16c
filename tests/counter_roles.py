"""A shop's database as docs/SHARED_LEDGER.md makes it, for the tests of counters' roles: a
database owned by the desks' role (not the superuser), and a counter's role made by the
script ``paydesk-receiver --counter-role-sql`` prints, run with psql as the superuser."""

from __future__ import annotations

import functools
import subprocess

OWNER, OWNER_PW = "shopdesks", "desks-pw-1"
TILL, TILL_PW = "till1", "till1-pw-1"


def owned_database(cluster) -> str:
    """A new empty database of ``cluster`` owned by the desks' role ``OWNER`` (and the role
    ``TILL`` made, with no rights yet): its name."""
    dbname = cluster._new_name()
    existing = {row[0] for row in cluster.sql("SELECT rolname FROM pg_roles")}
    for role, password in ((OWNER, OWNER_PW), (TILL, TILL_PW)):
        if role not in existing:
            cluster.login_role(role, password)
    cluster.sql(f'CREATE DATABASE "{dbname}" OWNER {OWNER}')
    return dbname


@functools.cache
def script() -> str:
    """The script as the command prints it (run once per test process: what it prints is
    the installed PayDesk's, the same for every test; a process of its own was 0.3 s of CPU
    and up to a second of each test's set-up)."""
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "paydesk.receiver.cli", "--counter-role-sql"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def psql(cluster, dbname: str, *variables: str, text: str) -> subprocess.CompletedProcess[str]:
    """``psql -v VAR ... -f -`` as the superuser on ``dbname``, ``text`` its input."""
    argv = [str(cluster.bin / "psql"), "-h", str(cluster.socket_dir), "-p", str(cluster.port), "-U", "postgres"]
    argv += ["-d", dbname, *[a for v in variables for a in ("-v", v)], "-f", "-"]
    return subprocess.run(argv, input=text, capture_output=True, text=True, timeout=60)


def counter_role(cluster, dbname: str, counter: str, *limits: str, role: str = TILL) -> None:
    """``role`` made the counter ``counter``'s, ``limits`` as ``largest_sale=500``..."""
    done = psql(cluster, dbname, f"role={role}", f"counter={counter}", *limits, text=script())
    assert done.returncode == 0, done.stderr
