"""Does an address answer like the service? (service/probe.py) Asked with a made-up key,
against real servers over HTTP on 127.0.0.1: the sandbox in each dialect (the documented
service, its samples, the family's real server code) answers like the service; other
programs do not; nothing listening, or a listener that never answers, is unreachable."""

import socket
from http.server import BaseHTTPRequestHandler

import pytest

from paydesk.service.models import LOOKUP_PATHS
from paydesk.service.probe import Sounding, sound
from tests import dialects
from tests.helpers import Foreign, Served, free_port, start_sandbox

pytestmark = pytest.mark.dialects()


async def test_the_service_answers_like_the_service_in_every_dialect(sandbox, dialect):
    assert await sound(sandbox.base_url) is Sounding.SERVICE
    for path in LOOKUP_PATHS:  # whichever path the profile knows its deployment by
        assert await sound(sandbox.base_url, lookup_path=path) is Sounding.SERVICE


async def test_a_deployment_at_the_top_of_its_address_too(tmp_path):
    """``paydesk-sandbox`` with no path of its own, and a trailing slash typed."""
    sb = start_sandbox(tmp_path / "top", **dialects.options("family"))
    try:
        assert await sound(sb.base_url + "/") is Sounding.SERVICE
    finally:
        sb.stop()


@pytest.mark.parametrize("shape", sorted(Foreign.SHAPES))
async def test_other_programs_do_not(shape):
    program = Foreign(shape)
    try:
        assert await sound(f"http://127.0.0.1:{program.port}/pay") is Sounding.OTHER
        assert program.count() >= 1
    finally:
        program.close()


class Gateway:
    """A proxy in front of a service that is down: 502 and its own HTML page."""

    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = b"<html><body>502 Bad Gateway</body></html>"
                self.send_response(502)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = Served(("127.0.0.1", 0), Handler).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/pay"

    def close(self):
        self.httpd.close()


async def test_nothing_listening_a_silent_listener_and_a_gateway_page_are_unreachable():
    assert await sound(f"http://127.0.0.1:{free_port()}/pay") is Sounding.UNREACHABLE
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # takes the connection, never answers
        base = f"http://127.0.0.1:{silent.getsockname()[1]}/pay"
        assert await sound(base, timeout=0.5) is Sounding.UNREACHABLE
    gateway = Gateway()
    try:
        assert await sound(gateway.base_url) is Sounding.UNREACHABLE
    finally:
        gateway.close()
