import pytest

from tests.helpers import Listener, start_sandbox


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
