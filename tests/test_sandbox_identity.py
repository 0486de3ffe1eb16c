"""Who answers at the embedded sandbox's address, found without a secret key
(paydesk/desk/sandbox_identity.py), against real sandboxes over HTTP."""

import json
import socket
import subprocess
import sys
from http.server import BaseHTTPRequestHandler

import pytest

from paydesk.desk import sandbox_identity as identity
from paydesk.desk.sandbox_identity import Answer
from tests import dialects
from tests.helpers import Served, free_port, start_sandbox


class Recorder:
    """A plain web server answering 404 to everything (what a developer's own server on
    the port does), keeping the Authorization headers it was sent."""

    def __init__(self):
        self.seen: list[str] = []
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append(self.headers.get("Authorization", ""))
                self.send_response(404)
                self.send_header("Content-Length", "9")
                self.end_headers()
                self.wfile.write(b"Not Found")

            def log_message(self, *args):
                pass

        self.server = Served(("127.0.0.1", 0), Handler).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/pay"

    def close(self):
        self.server.close()


def test_the_sandbox_that_holds_the_key_is_ours(sandbox):
    public = identity.public_test_key(sandbox.server.data_dir)
    assert public == sandbox.key("test", "public")
    assert identity.identify(sandbox.base_url, public) is Answer.OURS


@pytest.mark.parametrize("dialect", dialects.params())
def test_a_paydesk_sandbox_on_this_folder_is_ours_in_every_dialect(tmp_path, dialect):
    """A ``paydesk-sandbox`` (strict, --quirks or --family) started on this computer's data
    folder is recognised by the public key in that folder; another of the same dialect, with
    merchants of its own, is another deployment (the old check, going by 403/401 on a
    strict-only route, took --quirks and --family for another program)."""
    ours = start_sandbox(tmp_path / "ours", base_path="/pay", **dialects.options(dialect))
    other = start_sandbox(tmp_path / "other", base_path="/pay", **dialects.options(dialect))
    try:
        public = identity.public_test_key(tmp_path / "ours")
        assert identity.identify(ours.base_url, public) is Answer.OURS
        assert identity.identify(other.base_url, public) is Answer.OTHER_SERVICE
    finally:
        ours.stop()
        other.stop()


def test_a_sandbox_with_other_merchants_is_another_deployment(sandbox, make_sandbox):
    other = make_sandbox("other", base_path="/pay")
    assert identity.identify(other.base_url, sandbox.key("test", "public")) is Answer.OTHER_SERVICE


def test_a_program_answering_404_is_not_ours_and_sees_no_secret(sandbox):
    recorder = Recorder()
    try:
        answer = identity.identify(recorder.base_url, sandbox.key("test", "public"))
    finally:
        recorder.close()
    assert answer is Answer.OTHER_PROGRAM  # the old check took any 404 for "our sandbox"
    sent = " ".join(recorder.seen)
    assert recorder.seen and all(sandbox.key(mode) not in sent for mode in ("test", "live"))


def test_nothing_listening_and_a_silent_listener():
    port = free_port()
    assert identity.identify(f"http://127.0.0.1:{port}/pay", "pub-test-" + "x" * 32) is Answer.NOBODY
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # takes the connection, never answers
        base = f"http://127.0.0.1:{silent.getsockname()[1]}/pay"
        assert identity.identify(base, "pub-test-" + "x" * 32, timeout=0.5) is Answer.OTHER_PROGRAM


def test_without_a_key_to_recognise_it_by_nothing_is_trusted(sandbox):
    assert identity.identify(sandbox.base_url, None) is Answer.OTHER_PROGRAM


def test_a_claim_names_a_live_paydesk_only(tmp_path):
    identity.claim(tmp_path, 8765)
    assert identity.served_by_paydesk(tmp_path, 8765)
    assert not identity.served_by_paydesk(tmp_path, 8766)  # another port: not that window
    identity.release(tmp_path)
    assert not (tmp_path / identity.OWNER_FILE).exists()
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    host = socket.gethostname()
    (tmp_path / identity.OWNER_FILE).write_text(json.dumps({"owner": f"{host}:{ended.stdout.strip()}:1", "port": 8765}))
    assert not identity.served_by_paydesk(tmp_path, 8765)  # that process has ended
