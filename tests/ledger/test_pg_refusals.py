"""Why a shared ledger cannot be opened, told apart (a real PostgreSQL, a role that logs in
with its password over TCP by scram-sha-256, as a shop's desks do): nothing answers, the
password missing or refused, no such database, TLS required by the server or asked for by
the address. The engine (what the start dialog says) and "Test connection" say the same
one sentence, never with the password; only "nothing answers" is "unreachable"."""

from __future__ import annotations

import itertools
import os

import pytest

from paydesk.ledger.postgres import LedgerUnreachable, PgEngine
from paydesk.ledger.postgres.engine import LedgerRefused
from paydesk.ledger.postgres.probe import ADDRESS, PASSWORD, probe
from paydesk.ledger.postgres.refusal import (
    NO_DATABASE,
    NO_PASSWORD,
    TLS_ADDRESS,
    TLS_SERVER,
    WRONG_PASSWORD,
)
from tests import postgres
from tests.postgres import free_port

SECRET = "Tr0ub4dor&3-refusals"
_roles = itertools.count(1)


@pytest.fixture
def role_url(pg_server, pg_url):
    """The test's database, reached as a role of its own that logs in with SECRET."""
    dbname = pg_url.rsplit("/", 1)[1]
    role = f"clerk_{os.getpid()}_{next(_roles)}"
    pg_server.login_role(role, SECRET, dbname)
    return role, f"postgresql://{role}@127.0.0.1:{pg_server.port}/{dbname}"


async def refused(url: str, password: str | None) -> LedgerRefused:
    engine = PgEngine(url, password=password, desk="desk-a")
    try:
        with pytest.raises(LedgerRefused) as caught:
            await engine.opened()
    finally:
        await engine.close()
    assert not isinstance(caught.value, LedgerUnreachable)
    assert engine.reachable  # the server answered: the ledger is not "unreachable"
    return caught.value


def said_alike(error: LedgerRefused, url: str, password: str | None, field: str) -> str:
    """The engine's sentence is Test connection's, said beside ``field``."""
    tested = probe(url, password)
    assert (tested.works, tested.field, tested.message) == (False, field, str(error))
    assert SECRET not in str(error)
    return str(error)


async def test_a_missing_password_is_asked_for_not_unreachable(role_url):
    role, url = role_url
    error = await refused(url, None)
    assert error.kind == NO_PASSWORD and error.asks_password
    assert said_alike(error, url, None, PASSWORD) == (f"The shared ledger asks for the password of {role}: enter it")


async def test_a_wrong_password_is_refused_not_unreachable(role_url):
    role, url = role_url
    error = await refused(url, SECRET + "-old")
    assert error.kind == WRONG_PASSWORD and error.asks_password
    assert said_alike(error, url, SECRET + "-old", PASSWORD) == (
        f"The shared ledger refused this password for {role}: enter the right one"
    )


async def test_no_such_database(pg_server, role_url):
    role, url = role_url
    missing = url.rsplit("/", 1)[0] + "/no_such_shop"
    error = await refused(missing, SECRET)
    assert error.kind == NO_DATABASE and not error.asks_password
    assert said_alike(error, missing, SECRET, ADDRESS) == (
        f'The server at 127.0.0.1:{pg_server.port} has no database "no_such_shop": check the end of the address'
    )


async def test_tls_asked_for_by_the_address_and_not_offered(pg_server, role_url):
    role, url = role_url
    asking = url + "?sslmode=require"  # the test server has no certificate: no TLS
    error = await refused(asking, SECRET)
    assert error.kind == TLS_ADDRESS
    assert said_alike(error, asking, SECRET, ADDRESS) == (
        f"The address asks for TLS but the server at 127.0.0.1:{pg_server.port} does not "
        "offer it: its administrator turns ssl on (docs/SHARED_LEDGER.md)"
    )


@pytest.mark.postgresql  # a cluster of its own
async def test_tls_required_by_the_server():
    """A server whose pg_hba.conf lets the desks in by ``hostssl`` lines only."""
    why = postgres.missing()
    if why:
        pytest.skip(why)
    cluster = postgres.Cluster()
    (cluster.data / "pg_hba.conf").write_text("local all all trust\nhostssl all all 127.0.0.1/32 scram-sha-256\n")
    try:
        cluster.start()
        cluster.create_database("shop")
        cluster.login_role("clerk", SECRET, "shop")
        url = f"postgresql://clerk@127.0.0.1:{cluster.port}/shop"
        error = await refused(url, SECRET)
        assert error.kind == TLS_SERVER
        assert said_alike(error, url, SECRET, ADDRESS) == (
            f"The server at 127.0.0.1:{cluster.port} lets this computer in only over TLS: "
            "add ?sslmode=require to the address"
        )
    finally:
        cluster.remove()


async def test_nothing_answering_is_unreachable(pg_server):
    url = f"postgresql://paydesk@127.0.0.1:{free_port()}/paydesk"
    engine = PgEngine(url, password=SECRET, desk="desk-a")
    try:
        with pytest.raises(LedgerUnreachable):
            await engine.opened()
    finally:
        await engine.close()
    tested = probe(url, SECRET)
    assert (tested.works, tested.field) == (False, ADDRESS)
    assert tested.message.startswith("Nothing answers at 127.0.0.1:")
