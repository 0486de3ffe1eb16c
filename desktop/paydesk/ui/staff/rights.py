"""What the window shows the person signed in: the tabs, menu actions, keys and buttons of
what they may do (desk/staff.py's capabilities), the rest hidden. Applied on every change
of person. The desk refuses the rest anyway (``staff.require``); hiding is for the person,
not the boundary."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolBar, QWidget

from ...desk.staff import Capability, Staff
from ..tabs import TABS
from . import StaffWindow

TAB_NEEDS = {  # a tab's name -> what the person must be allowed to see it
    "links": Capability.LINKS,
    "transactions": Capability.TRANSACTIONS,
    "cards": Capability.CARDS,
    "counter": Capability.SELL,
}


def _actions(window: StaffWindow) -> list[tuple[QAction, Capability]]:
    return [
        (window.shared_ledger_action, Capability.SHARED_LEDGER),
        (window.notifications_action, Capability.TRANSACTIONS),
        (window.counter_shifts_action, Capability.END_OF_DAY),
        (window.bulk.bulk_action, Capability.BULK_LINKS),
        (window.bulk.batches_action, Capability.BULK_LINKS),
        (window.mode_key, Capability.GO_LIVE),
        (window.edit_profile_key, Capability.PROFILES),
    ]


def _menu_shown(menu: QMenu) -> None:
    """A menu with nothing the person may use is not shown at all."""
    menu.menuAction().setVisible(any(a.isVisible() and not a.isSeparator() for a in menu.actions()))


def apply_rights(window: StaffWindow, staff: Staff) -> None:
    """Show what ``staff``'s person may do, hide the rest (everything shown when no staff
    are set up)."""
    allows = staff.allows
    tabs = window.tabs
    for index, (_, name) in enumerate(TABS):
        tabs.setTabVisible(index, allows(TAB_NEEDS[name]))
    if not tabs.isTabVisible(tabs.currentIndex()):
        shown = [i for i in range(tabs.count()) if tabs.isTabVisible(i)]
        if shown:
            tabs.setCurrentIndex(shown[0])
    for action, needs in _actions(window):
        action.setVisible(allows(needs))
    window.staff_action.setVisible(allows(Capability.STAFF))
    for menu in (window.settings_menu, window.view_menu, window.bulk.menu):
        _menu_shown(menu)
    profiles = allows(Capability.PROFILES)
    window.profiles.setEnabled(profiles)  # which profile is shown; only an Admin switches
    buttons: dict[QWidget, bool] = {
        window.edit_profile: profiles,
        window.add_profile: profiles,
        window.mode_button: allows(Capability.GO_LIVE),
    }
    if allows(Capability.SELL) and not profiles:
        window.counter_tab.tools.rename_button.hide()  # the till's name is a profile's setting
    elif "counter" in window.built_tabs:
        window.counter_tab.tools.rename_button.show()
    toolbar = window.findChild(QToolBar, "toolbar")
    assert toolbar is not None  # made by the window, with its name
    for action in toolbar.actions():  # a widget in a toolbar is shown or hidden by its action
        allowed = buttons.get(toolbar.widgetForAction(action))
        if allowed is not None:
            action.setVisible(allowed)
