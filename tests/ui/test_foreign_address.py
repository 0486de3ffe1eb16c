"""Another program at a profile's address, as a person at the window sees it (issue 28,
item 5): the link they made waits (never NOT CREATED), the window says what answers there
where they acted and in the status bar, no key is blamed, and when the program goes the
status bar says Offline without anything pressed."""

from urllib.parse import urlsplit

from tests.helpers import Foreign
from tests.profiles import SECRET_KEYS, use_profile
from tests.ui import press
from tests.ui.test_first_session import type_form

FOREIGN_WORDS = "does not answer like the service"


def test_a_foreign_program_is_said_where_the_link_was_made_and_gets_no_key(start_app, loop, make_sandbox):
    app = start_app(sandbox=True).on_links_tab()
    sb = make_sandbox("shop", base_path="/pay")
    # a profile added by hand, its keys never checked against what answers there now
    use_profile(loop, app.session, sb, name="Shop", txref_prefix="SHOP", keys=SECRET_KEYS)
    loop.until(lambda: "Shop" in app.window.windowTitle(), message="the profile")
    sb.stop()
    secrets = tuple(sb.key(mode, kind) for mode in ("test", "live") for kind in ("secret", "public"))
    program = Foreign("json-401", port=urlsplit(sb.base_url).port, secrets=secrets)
    try:
        window, tab = app.window, app.window.links_tab
        loop.until(lambda: tab.loaded, message="the links tab")
        type_form(tab)
        press.click(tab.form.create_button)
        loop.until(
            lambda: FOREIGN_WORDS in tab.panel.error.text(), 30, message="what answers there, said with the link"
        )
        assert tab.panel.state.text() == "CREATING…"  # kept: never NOT CREATED
        connection = window.status.connection.text()
        assert FOREIGN_WORDS in connection and "refused" not in connection
        assert "refused" not in window.last_call.text()
        assert program.with_secret() == 0
        program.close()  # the program goes: nothing listens there now
        loop.until(
            lambda: window.status.connection.text().startswith("Offline since"),
            30,
            message="Offline in the status bar, nothing pressed",
        )
        assert program.with_secret() == 0
    finally:
        program.close()
