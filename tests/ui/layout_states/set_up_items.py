"""Issue 29's item 9, what a person sees in the set-up dialogs: Test connection's answer
never covers the address field and is read whole; the key fields keep their height under
their "Works: …" lines; the main window does not widen itself when a link's code, the Counter
tab or a counter sale is shown. Each dialog also at the least size a person can drag it to.
Run on screens of 1280×800 and 1024×768 (tests/ui/test_layout_audit.py), on a real PostgreSQL
(tests/postgres.py) for Test connection's and the start dialog's sentences."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect

from paydesk.i18n import _
from tests.ui import press
from tests.ui.layout_audit import settle, shows_whole
from tests.ui.layout_states.reach import (
    LONG_DESK,
    LONG_PROFILE,
    LONG_TITLE,
    answers,
    counter_tab,
    create_link,
    least_size,
    least_width,
    open_editor,
    open_shared_ledger,
    press_test_connection,
    problem_answers,
    quit_problem,
    start_problem,
    to_tab,
    wait_over,
)


def rect_in(window, widget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def what_is_wrong(window, message, fields, state: str) -> list[str]:
    """What a person would see wrong with ``message`` said under its field: over one of the
    ``fields``, cut (elided, or short of its lines), out of the window; and any field
    squashed below the height its text needs."""
    wrong = []
    where = rect_in(window, message)
    if not message.isVisible() or not message.text():
        return [f"{state}: nothing is said"]
    for field in fields:
        at = rect_in(window, field)
        if at.intersects(where):
            wrong.append(f"{state}: {message.text()!r} at {where} covers the field {field.accessibleName()!r} at {at}")
        least = field.minimumSizeHint().height()
        if field.height() < least:
            wrong.append(
                f"{state}: the field {field.accessibleName()!r} is {field.height()} px high, its text needs {least}"
            )
    if not shows_whole(message):
        lines, _ = message.shown_lines()
        wrong.append(f"{state}: {message.text()!r} is cut, shown as {lines} in {message.width()}×{message.height()}")
    if not window.rect().contains(where):
        wrong.append(f"{state}: {message.text()!r} at {where} is out of the window {window.rect()}")
    return wrong


def test_test_connections_answer_never_covers_the_address_and_is_read_whole(app, loop, ledgers):
    dialog = open_shared_ledger(app, loop)
    fields = [dialog.url, dialog.password.edit, dialog.desk_name]
    wrong = []
    for size in ("as opened", "at its least size"):
        if size != "as opened":
            least_size(dialog)
        for state, url, password, field in answers(ledgers):
            press.type_into(dialog.url, url)
            press.type_into(dialog.password.edit, password)
            press_test_connection(loop, dialog)
            settle()
            said = dialog.password_message if field == "password" else dialog.url_message
            wrong += what_is_wrong(dialog, said, fields, f"{state}, {size}")
            if said is dialog.password_message and dialog.url_message.isVisible():
                wrong += what_is_wrong(dialog, dialog.url_message, fields, f"{state}, {size}")
    assert not wrong, "\n".join(wrong)
    press.click(dialog.cancel_button)


def test_the_start_dialog_says_why_and_the_refusal_whole(loop, qapp, paths, keys, ledgers):
    wrong = []
    for state, url, typed in problem_answers(ledgers):
        task, dialog = start_problem(loop, qapp, paths, keys, url)
        for size in ("as opened", "at its least size"):
            if size != "as opened":
                least_size(dialog)
            settle()
            if not shows_whole(dialog.why):
                wrong.append(f"{state}, {size}: {dialog.why.text()!r} is cut")
            if rect_in(dialog, dialog.address).right() > dialog.width():
                wrong.append(f"{state}, {size}: the address is out of the window")
            if typed is not None:
                press.type_into(dialog.password, typed)
                press.click(dialog.connect_button)
                loop.until(dialog.password_message.isVisible, 15, message="the refusal")
                settle()
                wrong += what_is_wrong(dialog, dialog.password_message, [dialog.password], f"{state}, {size}")
        quit_problem(loop, task, dialog)
    assert not wrong, "\n".join(wrong)


def test_key_fields_keep_their_height_under_their_messages(app, loop):
    from tests.helpers import set_faults

    editor = open_editor(app, loop)
    press.type_into(editor.name, LONG_PROFILE)
    press.type_into(editor.merchant, LONG_PROFILE)
    fields = editor.key_fields
    keys = {key: field.text() for key, field in fields.items()}
    edits = [f.edit for f in fields.values()] + [editor.webhook.edit]
    opened = editor.size()

    def check_keys(state: str) -> list[str]:
        press.click(editor.check_button)
        wait_over(loop, editor)
        wrong = []
        for size in ("as opened", "at its least size"):
            if size != "as opened":
                least_size(editor)
            for key, message in editor.key_messages.items():
                wrong += what_is_wrong(editor, message, edits, f"{state}, the {key} key, {size}")
        editor.resize(opened)
        return wrong

    wrong = check_keys("every key works")
    press.type_into(fields[("test", "public")].edit, keys[("test", "secret")])
    press.type_into(fields[("live", "secret")].edit, "sec-live-" + "Z" * 32)
    press.type_into(fields[("live", "public")].edit, keys[("test", "public")])
    wrong += check_keys("keys refused")
    for key in (("test", "public"), ("live", "secret"), ("live", "public")):
        press.type_into(fields[key].edit, keys[key])
    set_faults(app.session.profile.base_url, keys[("live", "secret")], error_rate=1.0)
    try:
        wrong += check_keys("live keys not checked")
    finally:
        set_faults(app.session.profile.base_url, keys[("live", "secret")])
    assert not wrong, "\n".join(wrong)
    press.click(editor.cancel_button)


def test_the_window_does_not_widen_for_a_code_or_the_counter(app, loop):
    window = app.window
    grew = []

    def kept(width: int, least: int, what: str) -> None:
        settle()
        if window.width() != width:
            grew.append(f"{what}: the window widened from {width} to {window.width()} px")
        if window.height() != height:
            grew.append(f"{what}: the window grew from {height} to {window.height()} px high")
        if window.minimumSizeHint().width() > least:
            grew.append(
                f"{what}: it cannot be made narrower than {window.minimumSizeHint().width()} px, it could {least} px"
            )

    settle()
    width, height, least = window.width(), window.height(), window.minimumSizeHint().width()
    # the desk named at length (the counter goes by the desk's name)
    dialog = open_shared_ledger(app, loop)
    press.type_into(dialog.desk_name, LONG_DESK)
    loop.run(press.click_starting(dialog.rename_button, "rename desk"))
    press.click(dialog.cancel_button)
    kept(width, least, "the desk given a long name")
    for size in ("as opened", "at its least width"):
        if size != "as opened":
            least_width(window)
            width = window.width()
        to_tab(window, "links")
        create_link(app, loop, title=LONG_TITLE)
        loop.until(lambda: window.links_tab.panel.record is not None, message="the link")
        kept(width, least, f"a link's code shown, {size}")
        counter = counter_tab(app, loop)
        kept(width, least, f"the Counter tab shown, {size}")
        press.type_into(counter.tab.note, LONG_TITLE)
        sale = counter.sell("25")
        kept(width, least, f"a counter sale shown, {size}")
        press.click(counter.tab.place.toggle)
        kept(width, least, f"the customer's view beside the amount box, {size}")
        counter.pay(sale)
        loop.until(lambda tab=counter.tab: tab.mirror.state.text() == _("PAID"), 30, message="PAID")
        kept(width, least, f"the sale paid, {size}")
        press.click(counter.tab.place.toggle)
        kept(width, least, f"the customer's view put away, {size}")
    assert not grew, "\n".join(grew)
