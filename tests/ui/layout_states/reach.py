"""How the layout audit's states reach each window, as a user does (presses only,
tests/ui/press.py), and the long names they fill in."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from paydesk.i18n import _
from paydesk.ui.field_message import FieldMessage
from paydesk.ui.tabs import TABS
from tests import helpers
from tests.ui import press
from tests.ui.layout_audit import settle

LONG_PROFILE = "Østergaard & Sønners Kaffebrænderi og Konditori, Nørrebrogade afdeling"
LONG_FIRST = "Maximiliane-Theodora"
LONG_LAST = "Wolfeschlegelsteinhausen-Bergerdorff"
LONG_TITLE = "Annual membership renewal with the supporters' magazine and two guest passes"
QT_DIALOG = ("screen",)  # Qt's own dialogs (files, printing): only their size is ours


# -- found in any language: by place, role or object name, never by English words ---------


def to_tab(window, name: str) -> None:
    """The main window's tab ``name`` ("transactions", ui/tabs.py's TABS) clicked in the tab
    bar, at its place there (its title is in the staff's language)."""
    index = [n for _, n in TABS].index(name)
    bar = window.tabs.tabBar()
    press.click(bar, pos=bar.tabRect(index).center())
    assert window.tabs.currentIndex() == index, f"the {name} tab did not open"


def yes_button(box):
    """The button of a question (ui/dialogs.py's confirm, a told box, the counter's sale
    confirmations) that goes ahead: its accept role, whatever it says."""
    from PySide6.QtWidgets import QDialogButtonBox, QMessageBox

    accept = QDialogButtonBox.ButtonRole.AcceptRole
    if isinstance(box, QMessageBox):
        found = [b for b in box.buttons() if b.isVisible() and box.buttonRole(b) == QMessageBox.ButtonRole.AcceptRole]
    else:
        found = [
            b
            for bar in box.findChildren(QDialogButtonBox)
            for b in bar.buttons()
            if b.isVisible() and bar.buttonRole(b) == accept
        ]
    assert len(found) == 1, f"{len(found)} buttons that go ahead in {box.objectName()}"
    return found[0]


def shown_window(loop, name: str):
    loop.until(lambda: press.shown(name) is not None, message=name)
    return press.shown(name)


def checked(batches) -> str:
    """How the Batches window's message begins once Check all open is done, in the staff's
    language."""
    said = _("Checked the open links of {batch}: {report}")
    return said[: said.index("{report}")].format(batch=batches.shown_batch.name)


def open_editor(app, loop):
    """Edit profile…, pressed: the profile editor, its keys loaded."""
    press.click(app.window.edit_profile)
    editor = shown_window(loop, "profile-editor")
    loop.until(lambda: editor.key_fields[("test", "secret")].text(), message="the keys")
    return editor


def wait_over(loop, dialog, timeout=30):
    """Until what a button of ``dialog`` started is over (or the dialog closed)."""
    loop.until(lambda: press.closed(dialog) or len(dialog.tasks) == 0, timeout, message="the dialog's work")


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
    defaults = dict(
        amount="25",
        email="maximiliane.wolfeschlegelsteinhausen@example.com",
        first_name=LONG_FIRST,
        last_name=LONG_LAST,
        title=LONG_TITLE,
        description="Large, oat milk, and a slice of the day's cake to take away",
    )
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
    helpers.control(
        app.session.profile.base_url, loop.run(app.session.key()), f"pay/{record.reference}", {"outcome": "success"}
    )


def counter_tab(app, loop):
    """The Counter tab, its title clicked (the shop's e-mail set in the profile first)."""
    from tests.ui.counter.conftest import SHOP_EMAIL, Counter

    session = app.session
    loop.run(session.save_profile(replace(session.profile, shop_email=SHOP_EMAIL), {}))
    to_tab(app.window, "counter")
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
        f"{what}: the window is {frame.width()}×{frame.height()} on a screen of {area.width()}×{area.height()}"
    )
    assert least.width() <= area.width() and least.height() <= area.height(), (
        f"{what}: the window cannot be made smaller than {least.width()}×{least.height()}, "
        f"the screen is {area.width()}×{area.height()}"
    )


# -- the set-up dialogs (issue 29 item 9) -----------------------------------------------

LONG_DESK = "Østergaard Kaffebrænderi, till 2 by door"  # a desk's name: 40 characters at most
LONG_ROLE = "paydesk_counter_and_back_office_of_the_shop"  # a PostgreSQL role, as the shop names it
LONG_DATABASE = "the_shops_shared_ledger_for_every_counter_and_back_office"
LEDGER_PASSWORD = "correct-horse-battery-staple"


@dataclass
class Ledgers:
    """Real PostgreSQL servers (tests/postgres.py) whose answers Test connection and the
    start dialog say: ``server`` lets the role in with its password and has no TLS;
    ``tls`` lets desks in over TLS only (pg_hba.conf's hostssl lines) and refuses
    ``rejected`` whatever the way."""

    server: Any
    tls: Any
    ledger: str  # PayDesk's ledger (migrated), on ``server``
    empty: str  # an empty database, on ``server``
    newer: str  # a ledger a newer PayDesk upgraded, on ``server``
    role: str = LONG_ROLE
    rejected: str = "paydesk_till_refused"

    def url(self, dbname: str, *, cluster: Any = None, user: str = LONG_ROLE, query: str = "") -> str:
        port = (cluster or self.server).port
        return f"postgresql://{user}@127.0.0.1:{port}/{dbname}{query}"


TLS_ONLY_HBA = (
    "local all all trust\n"
    "host all paydesk_till_refused 127.0.0.1/32 reject\n"
    "hostssl all all 127.0.0.1/32 scram-sha-256\n"
)


def make_ledgers(server, tls) -> Ledgers:
    """The databases and the role on ``server`` (the session's cluster, its template
    migrated) and on ``tls`` (a cluster of its own, started with TLS_ONLY_HBA)."""
    from psycopg import sql

    ledger = server.fresh_database()
    empty = server.create_database(f"empty_{ledger}")
    newer = server.fresh_database()
    server.sql("INSERT INTO schema_migrations (version) VALUES (9999)", newer)
    role = sql.Identifier(LONG_ROLE)
    if not server.sql(f"SELECT 1 FROM pg_roles WHERE rolname = '{LONG_ROLE}'"):
        server.login_role(LONG_ROLE, LEDGER_PASSWORD)
    for dbname in (ledger, newer):
        with server.connect(dbname) as conn:
            conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {}").format(role))
    tls.login_role(LONG_ROLE, LEDGER_PASSWORD)
    tls.create_database("shop")
    return Ledgers(server, tls, ledger, empty, newer)


def answers(ledgers: Ledgers) -> list[tuple[str, str, str, str]]:
    """(state, the address typed, the password typed, the field the answer is said beside)
    for each kind of answer Test connection gives."""
    from tests.postgres import free_port

    ok = LEDGER_PASSWORD
    return [
        ("connected to PayDesk's ledger", ledgers.url(ledgers.ledger), ok, "address"),
        ("connected to an empty database", ledgers.url(ledgers.empty), ok, "address"),
        ("a ledger of a newer PayDesk", ledgers.url(ledgers.newer), ok, "address"),
        ("no password given", ledgers.url(ledgers.ledger), "", "password"),
        ("a wrong password", ledgers.url(ledgers.ledger), "not-" + ok, "password"),
        ("no such database", ledgers.url(LONG_DATABASE), ok, "address"),
        ("nothing listening", f"postgresql://{LONG_ROLE}@127.0.0.1:{free_port()}/{LONG_DATABASE}", ok, "address"),
        ("TLS required by the server", ledgers.url("shop", cluster=ledgers.tls), ok, "address"),
        ("TLS asked for, not offered", ledgers.url(ledgers.ledger, query="?sslmode=require"), ok, "address"),
        ("not let in", ledgers.url("shop", cluster=ledgers.tls, user=ledgers.rejected), ok, "address"),
        ("a remote address without TLS", f"postgresql://{LONG_ROLE}@ledger.shop.lan/{LONG_DATABASE}", ok, "address"),
        ("the password in the address", ledgers.url(ledgers.ledger).replace("@", f":{ok}@", 1), "", "password"),
    ]


def problem_answers(ledgers: Ledgers) -> list[tuple[str, str, str | None]]:
    """(state, the address PayDesk is started on, a wrong password to type when the start
    dialog asks for one, else None) for each reason the start dialog gives."""
    from tests.postgres import free_port

    return [
        ("unreachable", f"postgresql://{LONG_ROLE}@127.0.0.1:{free_port()}/{LONG_DATABASE}?sslmode=disable", None),
        ("the password asked for", ledgers.url(ledgers.ledger), "not-" + LEDGER_PASSWORD),
        ("no such database", ledgers.url(LONG_DATABASE, user="postgres"), None),
        ("TLS required by the server", ledgers.url("shop", cluster=ledgers.tls), None),
        ("TLS asked for, not offered", ledgers.url(ledgers.ledger, query="?sslmode=require"), None),
        ("not let in", ledgers.url("shop", cluster=ledgers.tls, user=ledgers.rejected), None),
    ]


def open_shared_ledger(app, loop):
    """Settings → Shared ledger…, from the menu bar."""
    window = app.window
    menu(app, loop, window.settings_menu, window.shared_ledger_action)
    return shown_window(loop, "shared-ledger")


def press_test_connection(loop, dialog) -> None:
    """Test connection pressed, until its answer is said."""
    loop.run(press.click_starting(dialog.test_button, "test ledger"), 30)


def start_problem(loop, qapp, paths, keys, url):
    """PayDesk started on the shared ledger at ``url``, which cannot be opened: its task and
    the start dialog."""
    from tests.ui.test_shared_ledger_start import problem_dialog, start

    task, _ = start(loop, qapp, paths, keys, url)
    return task, problem_dialog()


def quit_problem(loop, task, dialog) -> None:
    """Quit pressed in the start dialog: PayDesk ends."""
    import asyncio

    press.click(dialog.quit)
    assert loop.run(asyncio.wait_for(asyncio.shield(task), 15), 16) == 0


def least_width(window) -> None:
    """The window made as narrow as it can be, as a person drags its side."""
    settle()
    window.resize(window.minimumSizeHint().width(), window.height())
    settle()


def least_size(window) -> None:
    """The window dragged as small as it lets a person make it."""
    settle()
    window.resize(1, 1)
    settle()
