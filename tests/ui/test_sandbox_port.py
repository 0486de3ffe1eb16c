"""Who answers on the embedded sandbox's port (issue 15, defect 11). When another program
took the port while PayDesk used it, PayDesk sent its key there, said "The test key was
refused" and marked the link NOT CREATED; a paydesk-sandbox started on its own was called
"another PayDesk window"."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest

from paydesk.sandbox import SandboxConfig, SandboxServer
from tests import dialects
from tests.ui import press
from tests.ui.test_first_session import type_form


class OtherDeployment:
    """Another deployment of the service on the sandbox's port: it refuses every key it does
    not hold as the service does (401, the service's envelope) and keeps every Authorization
    header it was sent. A stand-in rather than a second real sandbox because a real one does
    not keep the keys it is shown, and what it was sent is what this test is about."""

    def __init__(self, port: int):
        self.seen: list[str] = []
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def _refuse(self):
                seen.append(self.headers.get("Authorization", ""))
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                body = json.dumps({"status": "error", "message": "Invalid Secret Key", "data": None}).encode()
                self.send_response(401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _refuse

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def our_keys(app, loop) -> list[str]:
    return [loop.run(app.session.key(mode)) for mode in ("test", "live")]


def test_a_program_that_takes_the_port_meanwhile_gets_no_key_and_no_key_is_called_wrong(start_app, loop):
    first = start_app(sandbox=True).on_links_tab()  # serves the sandbox on its port
    port = urlsplit(first.session.profile.base_url).port
    second = start_app(sandbox=True).on_links_tab()  # another window: uses the first one's sandbox
    assert second.session.sandbox is None
    assert "another PayDesk window" in second.window.last_call.text()
    assert first.close() == 0
    intruder = OtherDeployment(port)  # another program took the port meanwhile
    try:
        tab = second.window.links_tab
        type_form(tab)
        press.click(tab.form.create_button)
        loop.until(
            lambda: "not this computer's sandbox" in tab.form.why_disabled.text(), message="what answers there, said"
        )
        said = tab.form.why_disabled.text()
        assert "another deployment" in said.lower() and "nothing was sent" in said
        connection = second.window.status.connection.text()
        assert "not this computer's sandbox" in connection and "refused" not in connection
        assert loop.run(second.session.ledger.recent(second.session.profile.id, "test")) == []
        assert tab.panel.state.text() != "NOT CREATED"
        sent = " ".join(intruder.seen)
        assert intruder.seen and not any(key in sent for key in our_keys(second, loop))
    finally:
        intruder.close()


@pytest.mark.parametrize("dialect", dialects.params())
def test_a_paydesk_sandbox_started_on_its_own_is_not_another_paydesk_window(start_app, loop, paths, dialect):
    first = start_app(sandbox=True).on_links_tab()
    base = first.session.profile.base_url
    port = urlsplit(base).port
    assert first.close() == 0
    # `paydesk-sandbox --data-dir <this computer's sandbox folder> --port <its port>`
    # (in any dialect: `--quirks` and `--family` were taken for another program)
    alone = SandboxServer(
        SandboxConfig(
            data_dir=paths.sandbox, port=port, base_path="/pay", deployment="cards", **dialects.options(dialect)
        )
    ).start()
    try:
        app = start_app(sandbox=True).on_links_tab()
        said = app.window.last_call.text()
        assert "another PayDesk window" not in said
        assert "paydesk-sandbox started on its own" in said
        assert app.session.sandbox is None and app.session.profile.base_url == base
        tab = app.window.links_tab
        type_form(tab)
        press.click(tab.form.create_button)  # the same sandbox, the same data: it works
        loop.until(lambda: tab.panel.state.text() == "WAITING FOR PAYMENT", message="the link")
        assert app.close() == 0
    finally:
        alone.stop()


def test_a_sandbox_of_another_deployment_on_the_port_is_said_as_such(start_app, loop, tmp_path):
    first = start_app(sandbox=True).on_links_tab()
    port = urlsplit(first.session.profile.base_url).port
    assert first.close() == 0
    # a plain `paydesk-sandbox --port <its port>`: its own data, at the top of the address
    other = SandboxServer(SandboxConfig(data_dir=tmp_path / "elsewhere", port=port)).start()
    try:
        app = start_app(sandbox=True).on_links_tab()
        said = app.window.last_call.text()
        assert "another PayDesk window" not in said
        assert f"usual port {port} is taken by another program" in said
        moved = urlsplit(app.session.profile.base_url).port
        assert moved != port and app.session.sandbox is not None
        assert app.close() == 0
    finally:
        other.stop()


def test_another_program_found_during_a_call_stays_said_in_the_status_bar(start_app, loop):
    """A call already under way (its lease checked the sandbox) is refused, and the check it
    then makes (as a link's create does after a refused key) finds another program on the
    port: the status bar keeps saying so; the lease took the WrongServiceError for "nothing
    answers" and wrote over it with "offline"."""
    first = start_app(sandbox=True).on_links_tab()
    port = urlsplit(first.session.profile.base_url).port
    second = start_app(sandbox=True).on_links_tab()
    session = second.session
    profile = session.profile
    lease = session.lease(profile, "test")
    loop.run(lease.__aenter__())  # the call is under way: its lease checked the sandbox
    assert first.close() == 0
    intruder = OtherDeployment(port)  # another program took the port during the call

    async def the_check_the_call_then_makes():
        try:
            await session.verify_service(profile, "test")
        except Exception as error:  # it leaves the lease as it would
            if not await lease.__aexit__(type(error), error, error.__traceback__):
                raise
        else:
            await lease.__aexit__(None, None, None)

    try:
        try:
            loop.run(the_check_the_call_then_makes())
        except Exception as error:  # noqa: BLE001 - which error is asserted just below
            assert "not this computer's sandbox" in str(error)
        else:
            raise AssertionError("the check let a key go to another program")
        connection = second.window.status.connection.text()
        assert "not this computer's sandbox" in connection and "offline" not in connection.lower()
    finally:
        intruder.close()
