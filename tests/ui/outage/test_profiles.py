"""A profile saved while the shared ledger (which holds the shop's merchants) is out of reach:
the profile editor's Save and the Counter's shop e-mail box are refused with the one sentence
where they were pressed, before the keys are checked with the service; nothing is saved, for
this desk or the others."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.ui import press
from tests.ui.outage.conftest import refused


def merchants(shop) -> list[tuple[str, str, str]]:
    """The shop's merchants as the shared ledger holds them (read while it answers)."""
    profiles = shop.loop.run(shop.session.store.load([]))
    return [(p.id, p.name, p.shop_email) for p in profiles if not p.embedded_sandbox]


def test_the_profile_editors_save_is_refused_before_the_keys_are_checked(shop):
    shop = shop()
    before, calls = merchants(shop), shop.calls()
    task = press.click_starting(shop.window.edit_profile, "editor")
    shop.loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor = press.shown("profile-editor")
    with shop.down():
        press.type_into(editor.name, "Renamed while down")
        press.click(editor.save_button)
        shop.loop.until(lambda: refused(editor.status.text()), message="the sentence")
        assert editor.isVisible()  # not saved: still open, as typed
        assert editor.name.text() == "Renamed while down"
        shop.no_crash()
    press.click(editor.cancel_button)
    shop.loop.run(task)
    assert merchants(shop) == before
    assert shop.session.profile.name == "Corner Shop"
    assert shop.calls() == calls  # the keys were not checked: nothing sent
    shop.no_crash()


def test_the_counters_shop_email_is_refused(shop):
    shop = shop()
    before = merchants(shop)
    window = shop.window
    press.key(window.focusWidget() or window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    tab = window.counter_tab
    shop.loop.until(lambda: window.tabs.currentWidget() is tab and tab.loaded, message="the Counter tab")
    box = tab.shop_email
    assert box.isVisible()  # the profile has no shop e-mail yet: asked there
    with shop.down():
        press.type_into(box.field, "till@example.com")
        press.click(box.save_button)
        shop.loop.until(lambda: refused(box.message.text()), message="the sentence")
        assert box.isVisible()
        shop.no_crash()
    assert merchants(shop) == before
    assert shop.session.profile.shop_email == ""
    shop.no_crash()
