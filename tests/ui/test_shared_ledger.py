"""Settings → Shared ledger…: the address's rules said next to it, the password in the
keyring and never in the settings file, the way back to this computer's own ledger."""

import json

from paydesk.config.secrets import SERVICE_NAME
from paydesk.config.shared_ledger import password_entry
from tests.ui import press
from tests.ui.test_accessibility import _unnamed_focusable

REMOTE = "postgresql://paydesk@ledger.shop.lan/paydesk"
PASSWORD = "correct-horse-battery-staple"


def _open(app, loop):
    """Settings → Shared ledger…, by the menu bar, as a user opens it."""
    window = app.window
    bar = window.menuBar()
    menu = window.settings_menu
    press.click(bar, pos=bar.actionGeometry(menu.menuAction()).center())
    loop.until(menu.isVisible, message="the Settings menu")
    press.click(menu, pos=menu.actionGeometry(window.shared_ledger_action).center())
    loop.until(lambda: press.shown("shared-ledger") is not None, message="the dialog")
    return press.shown("shared-ledger")


def test_a_remote_ledger_without_tls_is_refused_beside_its_field(start_app, loop, paths):
    app = start_app(sandbox=True)
    app.wait_started()
    dialog = _open(app, loop)
    assert dialog.isWindow() and dialog.windowTitle() == "Shared ledger"
    assert "its own ledger" in dialog.current.text()
    press.type_into(dialog.url, REMOTE)
    press.click(dialog.save_button)
    loop.until(dialog.url_message.isVisible, message="the message beside the address")
    assert "TLS" in dialog.url_message.text() and "sslmode=require" in dialog.url_message.text()
    assert dialog.isVisible()  # nothing saved
    assert "ledger_url" not in json.loads(paths.profiles.read_text())
    # "Test connection" says the same, without trying to connect
    press.type_into(dialog.url, REMOTE + "?sslmode=prefer")
    press.click(dialog.test_button)
    loop.until(lambda: "TLS" in dialog.url_message.text(), message="the message again")
    press.click(dialog.cancel_button)
    loop.until(lambda: press.closed(dialog), message="the dialog closed")
    app.close()


def test_the_password_goes_to_the_keyring_never_to_the_settings_file(start_app, loop, paths, memory_keyring):
    app = start_app(sandbox=True)
    app.wait_started()
    dialog = _open(app, loop)
    # typed in the address: moved out of it
    press.type_into(dialog.url, f"postgresql://paydesk:{PASSWORD}@ledger.shop.lan/paydesk?sslmode=require")
    press.click(dialog.save_button)
    loop.until(lambda: press.closed(dialog), message="the dialog closed")
    saved = paths.profiles.read_text()
    assert PASSWORD not in saved
    assert json.loads(saved)["ledger_url"] == REMOTE + "?sslmode=require"
    entry = password_entry(REMOTE)
    assert memory_keyring.store[(SERVICE_NAME, entry)] == PASSWORD
    assert "next start" in app.window.last_call.text()

    # opened again: the address as saved, the password from the keyring (masked); a new one
    # typed in the password field replaces it
    dialog = _open(app, loop)
    loop.until(lambda: dialog.password.text() == PASSWORD, message="the saved password")
    assert dialog.url.text() == REMOTE + "?sslmode=require"
    assert dialog.password.edit.echoMode() == dialog.password.edit.EchoMode.Password
    press.type_into(dialog.password.edit, "another-one")
    press.click(dialog.save_button)
    loop.until(lambda: press.closed(dialog), message="the dialog closed")
    assert memory_keyring.store[(SERVICE_NAME, entry)] == "another-one"
    assert "another-one" not in paths.profiles.read_text()

    # back to this computer's own ledger: the address and its password forgotten
    dialog = _open(app, loop)
    press.click(dialog.own_button)
    loop.until(lambda: press.closed(dialog), message="the dialog closed")
    assert "ledger_url" not in json.loads(paths.profiles.read_text())
    assert (SERVICE_NAME, entry) not in memory_keyring.store
    assert "own ledger" in app.window.last_call.text()
    app.close()


def test_the_dialog_controls_are_named_by_their_labels(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    dialog = _open(app, loop)
    assert _unnamed_focusable(dialog, at_least=5) == []
    for button in (dialog.test_button, dialog.own_button, dialog.save_button, dialog.cancel_button):
        assert button.accessibleName() == button.text()
    assert [b.text() for b in (dialog.test_button, dialog.save_button, dialog.own_button)] == [
        "Test connection",
        "Save",
        "Use this computer's own ledger",
    ]
    assert dialog.url.accessibleName() == "Ledger address"
    assert dialog.password.edit.accessibleName() == "Password"
    press.escape(dialog.url)
    loop.until(lambda: press.closed(dialog), message="Escape closes it")
    app.close()


def test_test_connection_says_beside_each_field_what_it_found(start_app, loop, pg_server, pg_url):
    from tests.postgres import free_port

    app = start_app(sandbox=True)
    app.wait_started()
    dialog = _open(app, loop)
    # nothing listens there: said beside the address, the window still answering meanwhile
    press.type_into(dialog.url, f"postgresql://paydesk@127.0.0.1:{free_port()}/paydesk")
    task = press.click_starting(dialog.test_button, "test ledger")
    loop.run(task)
    assert dialog.url_message.isVisible() and "Nothing answers at 127.0.0.1:" in dialog.url_message.text()
    # a role that logs in with a password: a wrong one is said beside the password
    dbname = pg_url.rsplit("/", 1)[1]
    role = f"dialog_{dbname}"
    pg_server.login_role(role, PASSWORD, dbname)
    press.type_into(dialog.url, f"postgresql://{role}@127.0.0.1:{pg_server.port}/{dbname}")
    press.type_into(dialog.password.edit, "not-" + PASSWORD)
    loop.run(press.click_starting(dialog.test_button, "test ledger"))
    assert not dialog.url_message.isVisible()
    assert "refused this password" in dialog.password_message.text()
    press.type_into(dialog.password.edit, PASSWORD)
    loop.run(press.click_starting(dialog.test_button, "test ledger"))
    assert "Connected to PostgreSQL 15" in dialog.url_message.text()
    assert dialog.status.text() == "The ledger answers."
    press.click(dialog.cancel_button)
    loop.until(lambda: press.closed(dialog), message="the dialog closed")
    app.close()


def test_on_a_shared_ledger_the_editor_asks_for_the_public_key(loop, tmp_path, pg_url, sandbox):
    """A profile names its merchant by its public key: without one the editor says so beside
    the field and saves nothing."""
    from paydesk.ui.profile_editor import ProfileEditor
    from tests.desk.test_shared_profiles import shop_desk

    desk = shop_desk(tmp_path, "counter-1", pg_url)
    session = loop.run(desk.__aenter__())
    try:
        editor = ProfileEditor(session, None)
        editor.show()
        press.type_into(editor.name, "Shop")
        press.type_into(editor.url, sandbox.base_url)
        press.type_into(editor.key_fields[("test", "secret")].edit, sandbox.key("test", "secret"))
        loop.run(press.click_starting(editor.save_button, "save"))
        message = editor.key_messages[("test", "public")]
        assert message.isVisible() and "public key names the merchant" in message.text()
        assert session.settings.profiles == []
        press.type_into(editor.key_fields[("test", "public")].edit, sandbox.key("test", "public"))
        loop.run(press.click_starting(editor.save_button, "save"))
        assert [p.name for p in session.settings.profiles] == ["Shop"]
        assert session.profile.id.startswith("m-")
    finally:
        loop.run(desk.__aexit__(None, None, None))


def test_the_desk_is_named_in_the_dialog(start_app, loop, paths):
    """Its own name, said in the shop's status bars and on its counter's shifts: kept in this
    installation's settings file, at once; empty gives back the computer's name."""
    from paydesk.config.desk_name import computer_name

    app = start_app(sandbox=True)
    app.wait_started()
    dialog = _open(app, loop)
    assert dialog.desk_name.text() == "" and dialog.desk_name.placeholderText() == computer_name()
    assert dialog.desk_name.accessibleName() == "Desk name"
    assert dialog.rename_button.accessibleName() == "Rename desk"
    press.click(dialog.desk_name)
    press.type_into(dialog.desk_name, "T" * 41)
    loop.run(press.click_starting(dialog.rename_button, "rename desk"))
    assert dialog.desk_name_message.isVisible()
    assert dialog.desk_name_message.text() == "At most 40 characters"
    press.click(dialog.desk_name)
    press.type_into(dialog.desk_name, "Till 9")
    loop.run(press.click_starting(dialog.rename_button, "rename desk"))
    assert dialog.desk_name_message.text() == "This desk is called Till 9"
    assert app.session.desk_name == app.window.desk.counter.name == "Till 9"
    assert json.loads(paths.profiles.read_text())["desk_name"] == "Till 9"
    press.click(dialog.cancel_button)  # renamed already: Cancel changes nothing back
    loop.until(lambda: press.closed(dialog), message="the dialog closed")
    dialog = _open(app, loop)
    assert dialog.desk_name.text() == "Till 9"
    press.click(dialog.desk_name)
    press.clear(dialog.desk_name)
    loop.run(press.click_starting(dialog.rename_button, "rename desk"))
    assert app.session.desk_name == computer_name()
    assert "desk_name" not in json.loads(paths.profiles.read_text())
    press.escape(dialog.rename_button)
    loop.until(lambda: press.closed(dialog), message="the dialog closed")
    app.close()


def test_two_desks_of_a_shop_cannot_take_one_name(loop, tmp_path, pg_url, qtbot):
    from paydesk.config.paths import Paths
    from paydesk.config.secrets import KeyStore
    from paydesk.desk.build import build_desk
    from paydesk.ui.shared_ledger import SharedLedgerDialog
    from tests.helpers import MemoryKeyring

    desks = []
    try:
        for name in ("desk-a", "desk-b"):
            paths = Paths(data=tmp_path / name, sandbox=tmp_path / f"{name}-sb").ensure()
            desk = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=pg_url)
            loop.run(desk.open())
            desks.append(desk)
        a, b = desks
        assert b.session.desk_name.endswith(f" ({b.session.installation_id})")
        dialog = SharedLedgerDialog(b.session, None, naming=b.naming)
        qtbot.addWidget(dialog)
        dialog.show()
        assert dialog.desk_name.placeholderText() == b.session.desk_name
        press.click(dialog.desk_name)
        press.type_into(dialog.desk_name, "Till 2")
        loop.run(press.click_starting(dialog.rename_button, "rename desk"))
        assert b.session.desk_name == "Till 2"
        dialog = SharedLedgerDialog(a.session, None, naming=a.naming)
        qtbot.addWidget(dialog)
        dialog.show()
        press.click(dialog.desk_name)
        press.type_into(dialog.desk_name, "Till 2")
        loop.run(press.click_starting(dialog.rename_button, "rename desk"))
        assert dialog.desk_name_message.isVisible() and dialog.desk_name_message.text() == (
            "Another desk of the shop is called Till 2: choose another name"
        )
        assert a.session.desk_name != "Till 2"
    finally:
        for desk in desks:
            loop.run(desk.close())
