"""How the layout audit's states reach each window, as a user does (presses only,
tests/ui/press.py), and the long names they fill in."""

from __future__ import annotations

from dataclasses import replace

from paydesk.ui.field_message import FieldMessage
from tests import helpers
from tests.ui import press
from tests.ui.layout_audit import settle

LONG_PROFILE = "Østergaard & Sønners Kaffebrænderi og Konditori, Nørrebrogade afdeling"
LONG_FIRST = "Maximiliane-Theodora"
LONG_LAST = "Wolfeschlegelsteinhausen-Bergerdorff"
LONG_TITLE = "Annual membership renewal with the supporters' magazine and two guest passes"
QT_DIALOG = ("screen",)  # Qt's own dialogs (files, printing): only their size is ours


def shown_window(loop, name: str):
    loop.until(lambda: press.shown(name) is not None, message=name)
    return press.shown(name)


def open_editor(app, loop):
    """Edit profile…, pressed: the profile editor, its keys loaded."""
    press.click(app.window.edit_profile)
    editor = shown_window(loop, "profile-editor")
    loop.until(lambda: editor.key_fields[("test", "secret")].text(), message="the keys")
    return editor


def wait_over(loop, dialog, timeout=30):
    """Until what a button of ``dialog`` started is over (or the dialog closed)."""
    loop.until(lambda: press.closed(dialog) or len(dialog.tasks) == 0, timeout,
               message="the dialog's work")


def rename_profile(app, loop, name: str = LONG_PROFILE):
    """The profile given a long name in the editor and saved: the status bar says so."""
    editor = open_editor(app, loop)
    press.type_into(editor.name, name)
    press.click(editor.save_button)
    wait_over(loop, editor)
    assert press.closed(editor), "the profile was not saved"
    loop.until(lambda: name in app.window.status.last_call.text(), message="the status")


# -- issue 28's items 9, 10 and 11: what a person sees at once ---------------------------


def menu(app, loop, which, action) -> None:
    """A menu of the menu bar clicked open, then its entry."""
    bar = app.window.menuBar()
    press.click(bar, pos=bar.actionGeometry(which.menuAction()).center())
    loop.until(which.isVisible, message=f"the {which.title()} menu")
    press.click(which, pos=which.actionGeometry(action).center())


def fill_link(form, **values) -> None:
    defaults = dict(amount="25", email="maximiliane.wolfeschlegelsteinhausen@example.com",
                    first_name=LONG_FIRST, last_name=LONG_LAST, title=LONG_TITLE,
                    description="Large, oat milk, and a slice of the day's cake to take away")
    defaults.update(values)
    for key, text in defaults.items():
        press.type_into(getattr(form, key), text)


def create_link(app, loop, **values):
    """A link made from the form, as a user makes one: its record, once shown."""
    tab = app.window.links_tab
    fill_link(tab.form, **values)
    task = press.click_starting(tab.form.create_button, "create")
    record = loop.run(task, timeout=60)
    assert record is not None, tab.form.why_disabled.text()
    return record


def pay(app, loop, record) -> None:
    """The customer pays the link (the sandbox's control API), and PayDesk learns it."""
    helpers.control(app.session.profile.base_url, loop.run(app.session.key()),
                    f"pay/{record.reference}", {"outcome": "success"})


def counter_tab(app, loop):
    """The Counter tab, its title clicked (the shop's e-mail set in the profile first)."""
    from tests.ui.counter.conftest import SHOP_EMAIL, Counter

    session = app.session
    loop.run(session.save_profile(replace(session.profile, shop_email=SHOP_EMAIL), {}))
    press.tab(app.window.tabs, "Counter")
    counter = Counter(app, loop)
    loop.until(lambda: counter.tab.loaded, message="the Counter tab loaded")
    return counter


def messages_of(widget) -> list:
    return widget.findChildren(FieldMessage)


def within_screen(window, what: str) -> None:
    """The window, and the least size it can be made, fit its screen's available area."""
    settle()
    area = window.screen().availableGeometry()
    frame = window.frameGeometry()
    least = window.minimumSizeHint().expandedTo(window.minimumSize())
    assert frame.width() <= area.width() and frame.height() <= area.height(), (
        f"{what}: the window is {frame.width()}×{frame.height()} on a screen of "
        f"{area.width()}×{area.height()}")
    assert least.width() <= area.width() and least.height() <= area.height(), (
        f"{what}: the window cannot be made smaller than {least.width()}×{least.height()}, "
        f"the screen is {area.width()}×{area.height()}")
