import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

# The suite never writes into the home folder of the machine running it: PayDesk's data,
# Qt's settings (file dialogs), keyrings and caches all go to a folder of its own.
REAL_HOME = Path.home()
TEST_HOME = Path(tempfile.mkdtemp(prefix="paydesk-test-home-"))
atexit.register(shutil.rmtree, TEST_HOME, ignore_errors=True)
os.environ["HOME"] = str(TEST_HOME)
for variable, folder in (
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_CACHE_HOME", ".cache"),
    ("XDG_STATE_HOME", ".local/state"),
):
    os.environ[variable] = str(TEST_HOME / folder)
for variable in ("PAYDESK_HOME", "PAYDESK_SANDBOX_HOME"):
    os.environ.pop(variable, None)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
# the accessibility tree is built even with no screen reader attached
os.environ.setdefault("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")

import pytest  # noqa: E402

from tests import dialects  # noqa: E402
from tests.helpers import Listener, MemoryKeyring, own_port, start_sandbox  # noqa: E402

# tests/test_no_qt.py proves the fast tier's Qt guard (tests/no_qt.py) is on: it belongs to
# that tier alone (./dev check loads the guard with -p tests.no_qt), not to the whole suite
collect_ignore = [] if "tests.no_qt" in sys.modules else ["test_no_qt.py"]

# The fast tier (./dev check, and the first of ./dev test's runs): the tests at the root of
# tests/ and in these folders, but those marked browser or slow. `--tier fast` runs only
# them (tests/ui and the other folders are not even collected: they import Qt); `--tier
# rest` runs every other test, so that the two runs together are the whole suite, once.
TESTS = Path(__file__).parent
FAST_FOLDERS = ("service", "ledger", "scheduler", "sandbox", "desk", "config", "receiver", "i18n")


def pytest_addoption(parser):
    parser.addoption(
        "--tier",
        choices=("fast", "rest"),
        default=None,
        help="fast: the Qt-free tier of ./dev check; rest: every test but those",
    )


def uses_postgresql(item) -> bool:
    """The test asks the worker's PostgreSQL server: marked ``postgresql``, naming the
    cluster's fixtures, or with the ``postgresql`` backend among its parameters (the ledgers'
    fixtures ask for the cluster inside them). A fast-tier test that reaches the server
    without any of these fails at ``pg_server`` (it must be marked)."""
    if item.get_closest_marker("postgresql") is not None:
        return True
    if {"pg_server", "pg_url"} & set(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and "postgresql" in callspec.params.values()


def pytest_itemcollected(item):
    """The tests that ask PostgreSQL carry its mark, found or written (so that ``-m
    postgresql`` selects them all, and ``-m "not postgresql"`` none)."""
    if item.get_closest_marker("postgresql") is None and uses_postgresql(item):
        item.add_marker("postgresql")


def in_fast_tier(item) -> bool:
    parts = item.path.relative_to(TESTS).parts
    return (
        (len(parts) == 1 or parts[0] in FAST_FOLDERS)
        and item.get_closest_marker("browser") is None
        and item.get_closest_marker("slow") is None
        and item.get_closest_marker("postgresql") is None  # given by pytest_itemcollected
    )


def pytest_ignore_collect(collection_path, config):
    if config.getoption("tier") != "fast" or collection_path.parent != TESTS:
        return None
    if collection_path.is_dir() and collection_path.name not in FAST_FOLDERS:
        return True  # a folder outside the tier (tests/ui imports Qt in its conftest)
    return None


FAST_TIER_REFUSAL = (
    "a fast-tier test asked for PostgreSQL: mark it (or its module) `pytest.mark.postgresql`; "
    "./dev test runs those in its second tier"
)


def pytest_configure(config):
    if config.getoption("tier") == "fast":  # a test starting a cluster of its own, unmarked
        from tests import postgres

        postgres.Cluster.refusal = FAST_TIER_REFUSAL
    config.addinivalue_line(
        "markers",
        "dialects(*names, only=None, apart=None): run this module's tests whose "
        "sandbox follows the `dialect` fixture against each named dialect (default: strict, "
        "quirks, family); `only` names the tests that do (the others stay strict); `apart` "
        "maps a dialect to the tests or cases (parts of a test's name and id) it leaves out: "
        "ones about a behaviour of the other dialects",
    )
    config.addinivalue_line(
        "markers",
        "sockets: the test's desks reach its sandboxes over real sockets, the network being "
        "what it is about (faults and outages, calls counted per address, who answers at an "
        "address); unmarked, a desk built with the `transports` fixture reaches them in process",
    )


@pytest.fixture
def dialect():
    """How the test's sandbox answers: "strict" unless the module's
    ``pytestmark = pytest.mark.dialects(...)`` parametrizes it (ids strict, quirks, family)."""
    return "strict"


def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("dialects")
    if marker is None or "dialect" not in metafunc.fixturenames:
        return
    names = marker.args or dialects.DIALECTS
    only = marker.kwargs.get("only")
    if only is not None and metafunc.function.__name__ not in only:
        names = ("strict",)
    metafunc.parametrize("dialect", dialects.params(*names))


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: not called without its workers
def pytest_xdist_make_scheduler(config, log):
    """--dist loadgroup keeps the groups of tests/side_by_side.py each on one worker."""
    if config.getvalue("dist") == "loadgroup":
        from tests.side_by_side import SideBySide

        return SideBySide(config, log)
    return None


def pytest_collection_modifyitems(config, items):
    """Leave out, per dialect, the tests and cases a module's ``dialects(apart=...)`` names,
    and with ``--tier`` the tests of the other tier; then the tests marked ``slow`` first
    (./dev test's workers take tests in this order: a long test started last would hold the
    run up alone)."""
    tier = config.getoption("tier")
    kept, dropped = [], []
    for item in items:
        if tier is not None and in_fast_tier(item) != (tier == "fast"):
            dropped.append(item)
            continue
        marker = item.get_closest_marker("dialects")
        callspec = getattr(item, "callspec", None)
        dialect = callspec.params.get("dialect") if callspec else None
        apart = (marker.kwargs.get("apart") or {}).get(dialect, ()) if marker else ()
        (dropped if any(case in item.name for case in apart) else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = sorted(kept, key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _staff_english_after():
    """Each test begins with the staff's words in English, whatever the test before chose."""
    yield
    from paydesk.i18n import ENGLISH, set_language, staff

    if staff().language != ENGLISH:
        set_language(ENGLISH)


@pytest.fixture(autouse=True)
def _embedded_sandbox_port(monkeypatch):
    """The embedded sandbox's usual port (8765 in PayDesk) is the test's own: tests running
    side by side (./dev test's workers) each close a window and start it again on that port,
    or take it meanwhile, without meeting another test's sandbox there."""
    from paydesk.desk import embedded

    monkeypatch.setattr(embedded, "FIRST_PORT", own_port())


@pytest.fixture
def transports(request):
    """How the test's desks reach its sandboxes (``build_desk(..., transports=...)``,
    paydesk/desk/transports.py): each sandbox the ``sandbox`` and ``make_sandbox`` fixtures
    start is reached in process (``SandboxServer.transport()``, no socket), as PayDesk
    reaches the embedded sandbox it serves, unless the test is marked ``sockets``. The
    sandbox still listens on its port: browsers, notifications to a receiver, the tests'
    own control calls and every client built without this go over HTTP."""
    from paydesk.desk.transports import Transports

    return Transports()


def _reached(request, running) -> None:
    """``running`` reached in process by the test's desks (see ``transports``)."""
    if request.node.get_closest_marker("sockets") is None:
        request.getfixturevalue("transports").add(running.base_url, running.server.transport())


@pytest.fixture
def sandbox(request, tmp_path, dialect):
    """The default sandbox: cards deployment, under /pay; strict unless the module runs its
    tests in each dialect (``dialect``)."""
    running = start_sandbox(tmp_path / "sandbox", base_path="/pay", **dialects.options(dialect))
    _reached(request, running)
    if dialect == "family":
        running.fund_live_wallet()  # its cards draw on the live balance, whichever key
    yield running
    running.stop()


@pytest.fixture
def make_sandbox(request, tmp_path):
    started = []

    def make(name="sb", **options):
        running = start_sandbox(tmp_path / name, **options)
        _reached(request, running)
        started.append(running)
        return running

    yield make
    for running in started:
        running.stop()


@pytest.fixture
def listener():
    hook = Listener()
    yield hook
    hook.close()


@pytest.fixture
def paths(tmp_path):
    """PayDesk's folders for one test (its data, its embedded sandbox's), made."""
    from paydesk.config.paths import Paths

    return Paths(data=tmp_path / "paydesk", sandbox=tmp_path / "paydesk-sandbox").ensure()


@pytest.fixture
def memory_keyring():
    return MemoryKeyring()


@pytest.fixture(params=["sqlite", "postgresql"])
async def ledger(request, tmp_path):
    """An empty ledger of its own, open for the test (tests/ledger, tests/scheduler), on each
    backend: a SQLite file, and a PostgreSQL database of its own (tests/link_ledgers.py)."""
    from tests.link_ledgers import make_ledger

    opened = make_ledger(request, tmp_path / "ledger.sqlite3")
    await opened.opened()
    yield opened
    await opened.close()


@pytest.fixture
def inbox(ledger):
    """The notification inbox beside the ``ledger`` fixture's (so on each backend)."""
    from tests.link_ledgers import inbox_beside

    return inbox_beside(ledger)


# -- the shared ledger's PostgreSQL (tests/postgres.py) ----------------------------------


@pytest.fixture(scope="session")
def pg_server(request):
    """A throwaway PostgreSQL cluster for the session (each xdist worker its own), with a
    template database already migrated; stopped and removed at the end."""
    from tests import postgres

    if request.config.getoption("tier") == "fast":
        pytest.fail(FAST_TIER_REFUSAL)
    why = postgres.missing()
    if why:
        pytest.skip(why)
    with postgres.Cluster.started() as cluster:
        try:
            cluster.make_template()
        except Exception as exc:
            if "pg_trgm" in str(exc):
                pytest.skip(postgres.NO_TRGM)
            raise
        cluster.keep_ready()  # the next tests' databases, made while tests run
        yield cluster


@pytest.fixture
def pg_url(pg_server):
    """A fresh, migrated database of the test's own (copied from the template ahead of the
    test, on a thread of ``pg_server``'s): its URL over TCP as the superuser, without a
    password; given back after the test, on that thread, to be made as new for a next test
    (or dropped when more than its rows changed: tests/pg_ready.py)."""
    name = pg_server.fresh_database()
    yield pg_server.url(name)
    pg_server.start()  # a test that stopped the server leaves it running for the next
    pg_server.give_back(name)
