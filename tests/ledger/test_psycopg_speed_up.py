"""The shared ledger runs on psycopg's C speed-up where it can be built: on Linux, `./dev`
(and `./dev package`, for the bundle) builds psycopg's C implementation against the
system's libpq when a C compiler and libpq's headers are there (Debian's libpq-dev and gcc,
in scripts/system-deps, which CI installs); psycopg's pure-Python part serves otherwise,
its pages 3 to 4 times slower (docs/BENCHMARKS.md)."""

import logging
import sys

import pytest


def test_the_shared_ledger_runs_on_psycopgs_c_speed_up():
    if not sys.platform.startswith("linux"):
        pytest.skip("elsewhere psycopg[binary] carries its own C part")
    try:
        import psycopg_c  # noqa: F401
    except ImportError:
        pytest.skip(
            "psycopg's C speed-up is not built in this environment: it needs Debian's libpq-dev "
            "and gcc (scripts/system-deps), then ./dev builds it into a new .venv"
        )
    import psycopg

    assert psycopg.pq.__impl__ == "c"


@pytest.mark.postgresql
async def test_the_log_says_which_part_of_psycopg_serves(pg_url, caplog):
    import psycopg

    from paydesk.ledger.postgres.engine import PgEngine

    engine = PgEngine(pg_url, desk="desk-a")
    with caplog.at_level(logging.INFO, logger="paydesk"):
        await engine.opened()
    await engine.close()
    said = [r.getMessage() for r in caplog.records if "the shared ledger opened" in r.getMessage()]
    assert said == [
        f"the shared ledger opened: schema {engine.version}; psycopg {psycopg.__version__}, {psycopg.pq.__impl__}"
    ]
