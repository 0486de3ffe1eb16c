import pytest

from paydesk.ui.session import Session


@pytest.fixture
def session(paths, keys, loop):
    s = Session(paths, keys)
    loop.run(s.load())
    yield s
    loop.run(s.close())
