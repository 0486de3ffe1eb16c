import atexit
import os
import shutil
import tempfile
from pathlib import Path

# The suite never writes into the home folder of the machine running it: PayDesk's data,
# Qt's settings (file dialogs), keyrings and caches all go to a folder of its own.
REAL_HOME = Path.home()
TEST_HOME = Path(tempfile.mkdtemp(prefix="paydesk-test-home-"))
atexit.register(shutil.rmtree, TEST_HOME, ignore_errors=True)
os.environ["HOME"] = str(TEST_HOME)
for variable, folder in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                         ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
    os.environ[variable] = str(TEST_HOME / folder)
for variable in ("PAYDESK_HOME", "PAYDESK_SANDBOX_HOME"):
    os.environ.pop(variable, None)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
# the accessibility tree is built even with no screen reader attached
os.environ.setdefault("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1")

import pytest  # noqa: E402

from tests.helpers import Listener, start_sandbox  # noqa: E402


@pytest.fixture
def sandbox(tmp_path):
    """The default sandbox: cards deployment, strict, under /pay."""
    running = start_sandbox(tmp_path / "sandbox", base_path="/pay")
    yield running
    running.stop()


@pytest.fixture
def make_sandbox(tmp_path):
    started = []

    def make(name="sb", **options):
        running = start_sandbox(tmp_path / name, **options)
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
