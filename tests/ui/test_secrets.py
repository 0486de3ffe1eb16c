"""The key store as the window shows it: the waiting notice, "saved" said only when the
keyring saved, the notice of no keyring (the store itself: tests/config/test_secrets.py)."""

import asyncio

import pytest

from paydesk.config.profiles import Profile
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.ui.main_window import KEYRING_NOTICE, MainWindow
from paydesk.ui.status import KEYRING_WAITING
from tests.config.keyrings import LockedKeyring, SlowKeyring


def test_the_window_says_when_it_waits_for_the_keyring(loop, paths, qtbot):
    backend = SlowKeyring(1.0)
    desk = build_desk(paths, KeyStore(backend, slow_after=0.2))
    session = desk.session
    loop.run(desk.open())
    window = MainWindow(desk)
    qtbot.addWidget(window)
    window.show()
    task = loop.spawn(session.keys.get("p1", "test", "secret"))
    loop.until(lambda: window.status.keyring.isVisible(), message="the waiting notice")
    assert window.status.keyring.text() == KEYRING_WAITING
    loop.until(task.done, message="the keyring's answer")
    assert not window.status.keyring.isVisible()
    loop.run(session.close())


def test_saved_is_said_only_when_the_keyring_saved(loop, paths, sandbox, qtbot):
    from paydesk.ui.profile_editor import ProfileEditor
    from tests.ui import press
    from tests.ui.test_profiles import save

    desk = build_desk(paths, KeyStore(LockedKeyring()))
    session = desk.session
    loop.run(desk.open())
    said = []
    session.hub.call_finished.connect(said.append)
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    press.type_into(editor.name, "Shop")
    press.type_into(editor.url, sandbox.base_url)
    press.type_into(editor.key_fields[("test", "secret")].edit, sandbox.key("test"))
    assert save(loop, editor) is True
    assert said[-1] == ("Profile Shop saved, but its keys are kept for this session only (the keyring stayed locked)")
    loop.run(session.close())


def test_no_keyring_notice_on_screen(loop, paths, qtbot):
    desk = build_desk(paths, KeyStore(None))
    session = desk.session
    loop.run(desk.open())
    window = MainWindow(desk)
    qtbot.addWidget(window)
    window.show()
    assert window.keyring_notice.isVisible()
    assert window.keyring_notice.text() == KEYRING_NOTICE
    assert "this session only" in KEYRING_NOTICE
    # it promises no question that never comes: it says where to enter them again
    assert "asked" not in KEYRING_NOTICE and "Edit profile" in KEYRING_NOTICE
    loop.run(session.close())


def test_notice_hidden_with_a_keyring(loop, paths, memory_keyring, qtbot):
    desk = build_desk(paths, KeyStore(memory_keyring))
    session = desk.session
    window = MainWindow(desk)
    qtbot.addWidget(window)
    window.show()
    assert not window.keyring_notice.isVisible()
    loop.run(session.close())


@pytest.mark.parametrize("exists", [True, False])
def test_keyring_notice_waits_for_the_lookup(loop, qapp, paths, memory_keyring, exists):
    """The keyring is looked for after the window's first paint: until it has answered the
    window says nothing about it and start-up is not over; then the notice shows only when
    there is no keyring."""
    from tests.ui.conftest import Running

    desk = build_desk(paths, KeyStore(memory_keyring))
    loop.run(desk.open())
    loop.run(desk.session.save_profile(Profile(id="p_shop", name="Shop", base_url="http://127.0.0.1:9/pay"), {}))
    loop.run(desk.close())
    answered = asyncio.Event()

    async def find():
        await answered.wait()
        return memory_keyring if exists else None

    running = Running(loop, qapp, paths, KeyStore(None, find=find))
    loop.run(asyncio.sleep(0.3))
    window = running.window
    assert window.isVisible() and not window.keyring_notice.isVisible() and not window.started
    answered.set()
    running.wait_started()
    assert window.keyring_notice.isVisible() is not exists
    running.close()
