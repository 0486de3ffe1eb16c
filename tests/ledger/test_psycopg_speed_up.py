"""The shared ledger runs on psycopg's C speed-up where it can be built: on Linux, `./dev`
(and `./dev package`, for the bundle) builds psycopg's C implementation against the
system's libpq when a C compiler and libpq's headers are there (Debian's libpq-dev and gcc,
in scripts/system-deps, which CI installs); psycopg's pure-Python part serves otherwise,
its pages 3 to 4 times slower (docs/BENCHMARKS.md)."""

import importlib.util
import logging
import shutil
import sys

import pytest


def test_the_shared_ledger_runs_on_psycopgs_c_speed_up():
    """Where the tools to build it are, it is built (``./dev``'s ``speed_up_psycopg``)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("elsewhere psycopg[binary] carries its own C part")
    if shutil.which("pg_config") is None or shutil.which("cc") is None:
        pytest.skip(
            "psycopg's C speed-up cannot be built here: it needs Debian's libpq-dev and gcc "
            "(scripts/system-deps installs them; ./dev then builds it)"
        )
    import psycopg

    assert importlib.util.find_spec("psycopg_c") is not None, "./dev did not build psycopg's C speed-up"
    assert psycopg.pq.__impl__ == "c"


@pytest.mark.postgresql
async def test_the_log_says_which_part_of_psycopg_serves(pg_url, caplog):
    import psycopg

    from paydesk.ledger.postgres.engine import PgEngine

    engine = PgEngine(pg_url, desk="desk-a")
    with caplog.at_level(logging.INFO, logger="paydesk"):
        await engine.opened()
    await engine.close()
    said = [r.getMessage() for r in caplog.records if "connected to the shared ledger" in r.getMessage()]
    assert said == [f"connected to the shared ledger: psycopg {psycopg.__version__}, {psycopg.pq.__impl__}"]
