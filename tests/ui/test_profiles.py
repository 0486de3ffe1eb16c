"""The profile editor checks keys with real calls against the sandbox before saving."""

from paydesk.ui.main_window import MainWindow
from paydesk.ui.profile_editor import ProfileEditor
from tests.ui import press


def _fill(editor, sb, **keys):
    editor.show()
    press.type_into(editor.name, "Coffee shop")
    press.type_into(editor.url, sb.base_url)
    for (mode, kind), field in editor.key_fields.items():
        press.type_into(field.edit, keys.get(f"{mode}_{kind}", ""))


def press_and_wait(loop, editor, button, timeout=30):
    """Press Save or Check keys; wait until what it started is over. True when the editor
    closed (saved)."""
    press.click(button)
    loop.until(lambda: press.closed(editor) or len(editor.tasks) == 0, timeout, message=f"{button.text()} to finish")
    return press.closed(editor)


def save(loop, editor):
    return press_and_wait(loop, editor, editor.save_button)


def _message(editor, mode, kind):
    m = editor.key_messages[(mode, kind)]
    return m.text() if m.isVisible() or m.text() else ""


def test_good_keys_are_checked_and_saved(session, loop, sandbox, memory_keyring, qtbot):
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    _fill(
        editor,
        sandbox,
        test_secret=sandbox.key("test"),
        test_public=sandbox.key("test", "public"),
        live_secret=sandbox.key("live"),
        live_public=sandbox.key("live", "public"),
    )
    assert save(loop, editor) is True
    assert _message(editor, "test", "secret") == "Works: secret key, test mode"
    assert _message(editor, "test", "public") == "Works: public key, test mode"
    assert _message(editor, "live", "secret") == "Works: secret key, live mode"
    assert _message(editor, "live", "public") == "Works: public key, live mode"
    profile = session.profile
    assert profile.name == "Coffee shop" and profile.has_cards is True
    assert profile.currencies == ["GBP", "USD"]
    assert memory_keyring.store[("PayDesk", f"{profile.id}/live/secret")] == sandbox.key("live")
    saved = (session.paths.profiles).read_text()
    for merchant in sandbox.merchants:
        for mode in merchant["keys"].values():
            assert mode["secret"] not in saved and mode["public"] not in saved


def test_bad_keys_say_what_is_wrong_and_nothing_is_saved(session, loop, sandbox, qtbot):
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    _fill(
        editor,
        sandbox,
        test_secret=sandbox.key("test", "public"),
        test_public=sandbox.key("test", "secret"),
        live_secret="sec-live-" + "Z" * 32,
        live_public=sandbox.key("test", "public"),
    )
    assert save(loop, editor) is False
    assert _message(editor, "test", "secret") == "This is a public key; a secret key goes here"
    assert _message(editor, "test", "public").startswith("This is a secret key; never publish it")
    assert _message(editor, "live", "secret").startswith("Not accepted by the service")
    assert _message(editor, "live", "public") == "This looks like a test key, entered as the live key"
    assert editor.status.text() == "Fix the keys marked in red."
    assert session.settings.profiles == [] and not session.paths.profiles.read_text().count("Coffee")


def test_fields_are_checked_next_to_themselves(session, loop, qtbot):
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    press.type_into(editor.currencies, "GB, usd1")
    press_and_wait(loop, editor, editor.check_button)
    assert editor.name_message.text() == "Give the profile a name, e.g. the shop's name"
    assert editor.url_message.text() == "Enter the service's address, starting with https://"
    assert editor.currencies_message.text() == "List three-letter currency codes, e.g. GBP, USD"
    assert editor.key_messages[("test", "secret")].text().startswith("At least one secret key")


def _red(message) -> bool:
    """Whether a field's message is shown as an error (in red)."""
    return "#b3261e" in message.styleSheet()


def test_unreachable_service_is_not_wrong_keys(session, loop, qtbot):
    """Issue 28, item 6: with the service unreachable, the keys were marked red ("Could not
    check: The service cannot be…"), Save was refused ("Fix the keys marked in red") and the
    status bar said "Keys checked: some do not work". Keys that could not be checked are
    not wrong: said so, not in red; Save keeps them, with a plain warning."""
    from tests.helpers import free_port

    said = []  # what the status bar is told
    session.hub.call_finished.connect(said.append)
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    press.type_into(editor.name, "Nowhere")
    press.type_into(editor.url, f"http://127.0.0.1:{free_port()}/pay")
    press.type_into(editor.key_fields[("test", "secret")].edit, "sec-test-" + "a" * 32)
    press.type_into(editor.key_fields[("test", "public")].edit, "pub-test-" + "b" * 32)
    assert press_and_wait(loop, editor, editor.check_button) is False
    for kind in ("secret", "public"):
        message = editor.key_messages[("test", kind)]
        assert _message(editor, "test", kind) == "Not checked: the service could not be reached"
        assert not _red(message)
    assert "could not be checked" in editor.status.text() and "red" not in editor.status.text()
    assert "do not work" not in said[-1] and "not checked" in said[-1].lower()
    assert save(loop, editor) is True  # saved, unchecked
    assert session.profile.name == "Nowhere"
    assert loop.run(session.key()) == "sec-test-" + "a" * 32
    assert "could not be checked" in said[-1] and "do not work" not in said[-1]


def test_refused_keys_still_block_save_beside_unchecked_ones(session, loop, sandbox, qtbot):
    """A key the service refuses keeps Save refused, whatever else could not be checked."""
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    _fill(editor, sandbox, test_secret="sec-test-" + "Z" * 32)
    assert save(loop, editor) is False
    assert _message(editor, "test", "secret").startswith("Not accepted by the service")
    assert _red(editor.key_messages[("test", "secret")])
    assert editor.status.text() == "Fix the keys marked in red."
    assert session.settings.profiles == []


def test_a_foreign_program_at_the_address_gets_no_key_from_the_editor(session, loop, qtbot):
    """Issue 28, item 5: the keys are checked only at an address that answers like the
    service; another program there is said next to the address, and sent no key."""
    from tests.helpers import Foreign

    secret, public = "sec-test-" + "c" * 32, "pub-test-" + "d" * 32
    program = Foreign("html", secrets=(secret, public))
    try:
        editor = ProfileEditor(session)
        qtbot.addWidget(editor)
        editor.show()
        press.type_into(editor.name, "Blog")
        press.type_into(editor.url, f"http://127.0.0.1:{program.port}/pay")
        press.type_into(editor.key_fields[("test", "secret")].edit, secret)
        press.type_into(editor.key_fields[("test", "public")].edit, public)
        assert save(loop, editor) is False
        assert "does not answer like the service" in editor.url_message.text()
        assert _red(editor.url_message)
        assert _message(editor, "test", "secret").startswith("Not checked")
        assert not _red(editor.key_messages[("test", "secret")])
        assert program.count() >= 1 and program.with_secret() == 0
        assert session.settings.profiles == []
    finally:
        program.close()


def test_no_cards_deployment_is_found_out(session, loop, make_sandbox, qtbot):
    sb = make_sandbox(deployment="no-cards", base_path="/svc/")
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    _fill(editor, sb, test_secret=sb.key("test"))
    press.type_into(editor.url, sb.base_url + "/")  # a trailing slash is fine
    assert save(loop, editor) is True
    assert session.profile.has_cards is False
    assert session.profile.currencies == ["EUR", "GBP", "USD"]


def test_keys_are_masked_with_a_show_button(session, qtbot):
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    editor.show()
    field = editor.key_fields[("test", "secret")]
    assert field.edit.echoMode() == field.edit.EchoMode.Password
    press.click(field.show_button)
    assert field.edit.echoMode() == field.edit.EchoMode.Normal and field.show_button.text() == "Hide"
    press.click(field.show_button)
    assert field.edit.echoMode() == field.edit.EchoMode.Password


def test_switch_profiles_from_the_window(built_desk, session, loop, sandbox, make_sandbox, qtbot):
    other = make_sandbox("other")
    for name, sb in (("First", sandbox), ("Second", other)):
        editor = ProfileEditor(session)
        qtbot.addWidget(editor)
        _fill(editor, sb, test_secret=sb.key("test"))
        press.type_into(editor.name, name)
        assert save(loop, editor)
    window = MainWindow(built_desk)
    qtbot.addWidget(window)
    window.show()
    assert window.profiles.count() == 2 and window.profiles.currentText() == "Second"
    press.choose(window.profiles, "First")
    # the active profile changes before the window hears of it: wait for what the user sees
    loop.until(lambda: "First" in window.windowTitle(), message="the switch")
    assert session.profile.name == "First"
    assert "First" in window.windowTitle() and window.where.text() == "First · TEST"
    loop.run(session.delete_profile(session.profile.id))
    assert window.profiles.count() == 1 and session.profile.name == "Second"


def test_reference_prefix_and_default_urls(built_desk, session, loop, sandbox, qtbot):
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    _fill(editor, sandbox, test_secret=sandbox.key("test"))
    press.type_into(editor.prefix, "a b")
    press.type_into(editor.callback_default, "javascript:alert(1)")
    assert save(loop, editor) is False
    assert editor.prefix_message.text() == "1 to 8 letters or digits, e.g. SHOP"
    assert editor.callback_message.text() == "An address starting with http:// or https://"
    press.type_into(editor.prefix, "shop")
    press.type_into(editor.callback_default, "https://shop.example/hooks")
    press.type_into(editor.return_default, "https://shop.example/thanks")
    assert save(loop, editor) is True
    profile = session.profile
    assert (profile.txref_prefix, profile.callback_url, profile.return_url) == (
        "SHOP",
        "https://shop.example/hooks",
        "https://shop.example/thanks",
    )
    window = MainWindow(built_desk)
    qtbot.addWidget(window)
    form = window.links_tab.form
    loop.until(lambda: window.links_tab.loaded, message="the links tab")
    assert form.tx_ref.text().startswith("SHOP-")
    assert form.callback_url.text() == "https://shop.example/hooks"
    assert form.return_url.text() == "https://shop.example/thanks"


def test_the_counter_defaults_are_checked_and_saved(session, loop, sandbox, qtbot, tmp_path):
    logo = tmp_path / "logo.png"
    logo.write_bytes(b"\x89PNG\r\n\x1a\n")
    editor = ProfileEditor(session)
    qtbot.addWidget(editor)
    _fill(editor, sandbox, test_secret=sandbox.key("test"))
    counter = editor.counter
    assert counter.title() == "Counter" and counter.walk_in.text() == "Walk-in customer"
    # the logo is a path on each counter's computer, and the editor says so where it is typed
    assert counter.logo_hint.isVisible() and counter.logo_hint.text().startswith(
        "A file on this computer. Each counter shows the image at this path on its own"
    )
    assert "same path on every counter" in counter.logo_hint.accessibleName()
    press.type_into(counter.shop_email, "shop@")
    press.type_into(counter.logo, str(tmp_path / "missing.png"))
    assert save(loop, editor) is False
    assert counter.shop_email_message.text() == "Not an e-mail address"
    assert counter.logo_message.text() == "No such file: choose an image"
    press.type_into(counter.walk_in, "Counter   sale")
    press.type_into(counter.shop_email, "till@shop.example")
    assert counter.choose_logo.accessibleName() == counter.choose_logo.text() == "Choose…"
    press.click(counter.choose_logo)
    loop.until(lambda: press.shown("logo-dialog") is not None, message="the file dialog")
    press.save_as(press.shown("logo-dialog"), logo)  # the path typed, then Enter
    loop.until(lambda: counter.logo.text() == str(logo), message="the chosen logo")
    assert save(loop, editor) is True
    profile = session.profile
    assert (profile.walk_in_name, profile.shop_email, profile.counter_logo) == (
        "Counter sale",
        "till@shop.example",
        str(logo),
    )


def test_a_profile_switch_shows_that_profiles_own_form_and_typing_goes_there(
    built_desk, session, loop, sandbox, make_sandbox, qtbot
):
    """Issue 28, item 7: after a switch of profile, and then to LIVE, the Payment links form
    still held the previous profile's customer, amount and title, ready to send, and the
    keyboard stayed in the Profile box, where typing "s" switched the profile again. Each
    profile and mode has its own form (what was typed there is there again when it comes
    back; LIVE never gets a test one), and after a switch typing goes to its first field."""
    from PySide6.QtCore import Qt

    from tests.profiles import SECRET_KEYS, use_profile
    from tests.ui.test_first_session import CUSTOMER, type_form
    from tests.ui.test_links import go_live

    other = make_sandbox("other", base_path="/pay")
    use_profile(loop, session, sandbox, name="First", txref_prefix="FIRST", keys=SECRET_KEYS)
    use_profile(loop, session, other, name="Second", txref_prefix="SECOND", keys=SECRET_KEYS)
    window = MainWindow(built_desk)
    qtbot.addWidget(window)
    window.resize(1200, 900)
    window.show()
    tab, form = window.links_tab, window.links_tab.form
    loop.until(lambda: tab.loaded, message="the links tab")
    assert window.profiles.currentText() == "Second"
    type_form(tab)  # Second's customer, amount and title, ready to send

    def empty() -> bool:
        return all(getattr(form, key).text() == "" for key in CUSTOMER)

    # by keyboard: Tab to the Profile box and type the first letter of the other profile
    press.tab_to(window.profiles)
    press.key(window.profiles, Qt.Key.Key_F)
    loop.until(lambda: "First" in window.windowTitle(), message="the switch to First")
    loop.until(lambda: window.focusWidget() is form.amount, message="the keyboard in the form")
    assert empty() and not form.tx_ref.text().startswith("SECOND-")  # never the last one's
    loop.until(lambda: form.tx_ref.text().startswith("FIRST-"), message="First's reference")
    press.key(window.focusWidget(), Qt.Key.Key_S)  # typing goes to the form, not the Profile box
    assert form.amount.text() == "s" and session.profile.name == "First"

    # by mouse, back to Second: its form as it was left
    press.choose(window.profiles, "Second")
    loop.until(lambda: "Second" in window.windowTitle(), message="the switch to Second")
    loop.until(lambda: window.focusWidget() is form.amount, message="the keyboard in the form")
    assert all(getattr(form, key).text() == text for key, text in CUSTOMER.items())
    assert not form.tx_ref.text().startswith("FIRST-")
    loop.until(lambda: form.tx_ref.text().startswith("SECOND-"), message="Second's reference")

    # LIVE: never the test form
    go_live(window, loop)
    loop.until(lambda: "LIVE" in window.windowTitle(), message="live mode")
    assert empty()
    loop.until(lambda: window.focusWidget() is form.amount, message="the keyboard in the form")
