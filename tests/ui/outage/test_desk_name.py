"""Settings → Shared ledger…'s Rename desk while the shared ledger is out of reach: the desk's
name is the shop's (the ledger's desks table), so it is refused with the one sentence beside
the name before anything is kept, and the words go once the ledger answers again."""

from __future__ import annotations

from tests.ui import press
from tests.ui.outage.conftest import refused


def shared_ledger_dialog(shop):
    """Settings → Shared ledger…, by the menu bar, as a person opens it."""
    window = shop.window
    bar, menu = window.menuBar(), window.settings_menu
    press.click(bar, pos=bar.actionGeometry(menu.menuAction()).center())
    shop.loop.until(menu.isVisible, message="the Settings menu")
    press.click(menu, pos=menu.actionGeometry(window.shared_ledger_action).center())
    shop.loop.until(lambda: press.shown("shared-ledger") is not None, message="the dialog")
    return press.shown("shared-ledger")


def test_rename_desk_is_refused_beside_the_name(shop):
    shop = shop()
    dialog = shared_ledger_dialog(shop)
    before = shop.session.desk_name
    with shop.down():
        press.type_into(dialog.desk_name, "Till 9")
        press.click(dialog.rename_button)
        message = dialog.desk_name_message
        shop.loop.until(lambda: message.isVisible() and message.text() != "", message="the words beside the name")
        shop.settle()
        assert refused(message.text()), message.text()
        assert shop.session.desk_name == before
        assert shop.session.settings.desk_name == before  # nothing kept for the next start
        shop.no_crash()
    shop.loop.until(lambda: not message.isVisible(), timeout=15, message="the words gone once the ledger answers")
    assert shop.session.desk_name == before
    press.escape(dialog.rename_button)
    shop.loop.until(lambda: press.closed(dialog), message="the dialog closed")
    shop.no_crash()
