"""Settings → Shared ledger…'s "Test connection" against a real PostgreSQL: what it found,
said for the field it concerns, never with the password."""

from __future__ import annotations

import itertools
import os

from paydesk.ledger.postgres.probe import ADDRESS, PASSWORD, probe
from tests.postgres import free_port

_roles = itertools.count(1)
SECRET = "Tr0ub4dor&3-shared"


def _role(pg_server, dbname):
    name = f"desk_{os.getpid()}_{next(_roles)}"
    pg_server.login_role(name, SECRET, dbname)
    return name


def test_the_ledger_answers(pg_url):
    found = probe(pg_url, None)
    assert found.works and "PostgreSQL 15" in found.message and "ledger is there" in found.message


def test_an_empty_database_is_set_up_at_the_first_start(pg_server):
    name = pg_server.create_database(f"empty_{os.getpid()}_{next(_roles)}")
    found = probe(pg_server.url(name), None)
    assert found.works and "empty" in found.message


def test_the_password_is_checked_and_never_said(pg_server, pg_url):
    dbname = pg_url.rsplit("/", 1)[1]
    role = _role(pg_server, dbname)
    url = f"postgresql://{role}@127.0.0.1:{pg_server.port}/{dbname}"
    assert probe(url, SECRET).works
    wrong = probe(url, SECRET + "x")
    assert (wrong.works, wrong.field) == (False, PASSWORD)
    assert "refused this password" in wrong.message and SECRET not in wrong.message
    none = probe(url, "")
    assert (none.works, none.field) == (False, PASSWORD) and "password" in none.message


def test_what_is_wrong_with_the_address_is_said_beside_it(pg_server):
    nobody = probe(f"postgresql://paydesk@127.0.0.1:{free_port()}/paydesk", SECRET)
    assert (nobody.works, nobody.field) == (False, ADDRESS)
    assert "Nothing answers at 127.0.0.1:" in nobody.message and SECRET not in nobody.message
    missing = probe(pg_server.url("no_such_database"), None)
    assert (missing.works, missing.field) == (False, ADDRESS)
    assert 'has no database "no_such_database"' in missing.message
