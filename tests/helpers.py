"""Shared test helpers: a running sandbox, a notification listener, an SMTP sink."""

from __future__ import annotations

import json
import os
import random
import selectors
import shutil
import socket
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import keyring.backend
import pytest

from paydesk.sandbox import SandboxConfig, SandboxServer


class MemoryKeyring(keyring.backend.KeyringBackend):
    """Stands in for the system keyring (tests/ui/test_keyring_real.py uses the real one):
    what PayDesk stores, a test can see or take away."""

    priority = 1

    def __init__(self):
        super().__init__()
        self.store = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        from keyring.errors import PasswordDeleteError

        if self.store.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


def need_system(binary: str, package: str) -> str:
    """The path of a system program; skip (or fail under CI) naming the Debian package."""
    path = shutil.which(binary)
    if path:
        return path
    message = f"needs {binary} from Debian's package '{package}' (apt-get install {package})"
    if os.environ.get("CI"):
        pytest.fail(message + "; .ci/run should have installed it")
    pytest.skip(message)


def start_xvfb(folder: Path, screen: str = "1400x900x24") -> tuple[subprocess.Popen, str]:
    """A virtual X screen (Xvfb) and its DISPLAY: Xvfb picks a free display number itself
    (``-displayfd``), so tests running side by side, or other programs' X servers, never
    meet on one. Its messages go to ``folder``/xvfb.log."""
    binary = need_system("Xvfb", "xvfb")
    read, write = os.pipe()
    with open(folder / "xvfb.log", "w") as log:
        proc = subprocess.Popen(
            [binary, "-displayfd", str(write), "-screen", "0", screen, "-nolisten", "tcp"],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()  # written once it is ready
    assert number, f"Xvfb did not start: {(folder / 'xvfb.log').read_text()[-1000:]}"
    return proc, f":{number}"


@dataclass
class Running:
    server: SandboxServer
    merchants: list[dict]

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def key(self, mode: str = "test", kind: str = "secret", merchant: int = 0) -> str:
        return self.merchants[merchant]["keys"][mode][kind]

    def webhook_secret(self, merchant: int = 0) -> str:
        """The merchant's webhook secret: what signs ``--family``'s notifications."""
        return self.merchants[merchant]["webhook_secret"]

    def client(self, mode: str = "test", kind: str = "secret", merchant: int = 0, **kw) -> httpx.Client:
        return httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {self.key(mode, kind, merchant)}", "Accept": "application/json"},
            timeout=10,
            **kw,
        )

    def faults(self, merchant: int = 0, mode: str = "test", **body) -> None:
        """The sandbox's fault injection for one merchant and mode: ``body`` set (``error_rate``,
        ``latency_ms``, ``drop_after_commit_rate``...), or (none given) cleared."""
        set_faults(self.base_url, self.key(mode, merchant=merchant), **body)

    def control(self, path: str, body: dict | None = None, merchant: int = 0, mode: str = "test") -> dict:
        """The sandbox's control API for one merchant and mode: ``control(base_url, ...)``."""
        return control(self.base_url, self.key(mode, merchant=merchant), path, body)

    def settings(self, merchant: int = 0, **body) -> dict:
        """``--family``'s merchant settings (both modes): ``body`` set (``amount_limits``,
        ``customer_pays_fee``, ``home_currency``), then all of them as the sandbox has them."""
        with self.client(merchant=merchant) as c:
            answer = c.put("/_sandbox/settings", json=body)
            answer.raise_for_status()
            return answer.json()["data"]

    def fund_live_wallet(self, amount: str = "100000", merchant: int = 0) -> None:
        """Top up the merchant's live balance in each currency of the deployment: the
        family's cards have no test mode and draw on it whichever key makes them (it starts
        at 0, as a new business's account does)."""
        for currency in self.server.config.currencies:
            self.control("balance", {"currency": currency, "amount": amount}, merchant=merchant, mode="live")

    def stop(self) -> None:
        self.server.stop()


def start_sandbox(data_dir: Path, **options) -> Running:
    """A sandbox on a free port; ``options`` go to ``SandboxConfig`` (``family=True``,
    ``quirks=True``, ``webhook_url=...``, ``base_path=...``, ``deployment=...``).

    Not throttled unless asked (``rate_limit=N``, or None for the dialect's own): the family's
    server allows 60 requests a minute per client address, and a test, all of it from
    127.0.0.1, makes many more than a shop would in its first minute; only the tests about
    the throttle want it."""
    options.setdefault("notify_backoff", 0.05)
    options.setdefault("rate_limit", 0)
    server = SandboxServer(SandboxConfig(data_dir=data_dir, port=0, **options)).start()
    merchants = json.loads((data_dir / "merchants.json").read_text())
    return Running(server, merchants)


def set_faults(base_url: str, key: str, **body) -> None:
    """``PUT /_sandbox/faults`` with ``body`` (``DELETE``, clearing them, when none is given)
    for the merchant and mode of the secret ``key``."""
    url = base_url.rstrip("/") + "/_sandbox/faults"
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
    (
        httpx.put(url, json=body, headers=headers, timeout=10)
        if body
        else httpx.delete(url, headers=headers, timeout=10)
    ).raise_for_status()


def control(base_url: str, key: str, path: str, body: dict | None = None) -> dict:
    """``POST /_sandbox/<path>`` with ``body`` (``pay/<reference>`` with an outcome, a
    balance...) for the merchant and mode of the secret ``key``: the sandbox's answer."""
    url = base_url.rstrip("/") + f"/_sandbox/{path}"
    headers = {"Authorization": f"Bearer {key}", "Accept": "application/json"}
    answer = httpx.post(url, json=body or {}, headers=headers, timeout=10)
    answer.raise_for_status()
    return answer.json()


def payment(tx_ref: str, **over) -> dict:
    body = {
        "amount": "1000",
        "currency": "USD",
        "email": "ada@example.com",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "tx_ref": tx_ref,
        "customization": {"title": "Coffee", "description": "Two flat whites"},
        "meta": {"till": "3"},
    }
    body.update(over)
    return body


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def own_port() -> int:
    """A port free now on 127.0.0.1 that the system does not hand out to outgoing
    connections (below its ephemeral range), picked at random: a test's fixed port (the
    embedded sandbox's usual one) that tests running side by side do not share, and that
    stays free while the test leaves it and comes back."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    while True:
        port = random.randrange(20000, max(low, 20001))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port


class Served(ThreadingHTTPServer):
    """A test's own web server on a thread of its own: ``start()`` serves, ``close()`` stops
    it at once. socketserver's ``serve_forever`` looks for ``shutdown()`` only between two
    polls, every 0.5 s: each test that stopped one waited up to half a second for it."""

    def start(self) -> Served:
        self._wake, self._waker = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, name="test-http-server", daemon=True)
        self._thread.start()
        return self

    def _serve(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake, selectors.EVENT_READ)
            while not any(key.fileobj is self._wake for key, _ in selector.select()):
                self._handle_request_noblock()  # what serve_forever does with a connection

    def close(self) -> None:
        """Stop serving (again: nothing)."""
        if self._waker.fileno() == -1:
            return
        self._waker.send(b"x")
        self._thread.join(10)
        self._wake.close()
        self._waker.close()
        self.server_close()


class Listener:
    """A merchant's notification endpoint on loopback: records every POST.

    ``fail_first`` answers that many requests with 500 before answering 200.
    """

    def __init__(self, fail_first: int = 0):
        self.received: list[dict] = []
        self.fail_first = fail_first
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with outer._lock:
                    outer.received.append({"path": self.path, "headers": dict(self.headers), "raw": raw})
                    failing = outer.fail_first > 0
                    if failing:
                        outer.fail_first -= 1
                self.send_response(500 if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = Served(("127.0.0.1", 0), Handler).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks/paydesk"

    def close(self) -> None:
        self.httpd.close()


class RawHttp:
    """One TCP connection to a server, spoken to byte by byte: what a client library hides
    (half-sent requests, a body that never ends, whether the server closed the connection)."""

    def __init__(self, base_url: str, timeout: float = 10.0):
        parts = httpx.URL(base_url)
        self.prefix = parts.path.rstrip("/")
        self.host = f"{parts.host}:{parts.port}"
        self.sock = socket.create_connection((parts.host, parts.port), timeout=timeout)
        self._buffer = b""

    def request_head(self, method: str, path: str, headers: dict[str, str] | None = None) -> bytes:
        lines = [f"{method} {self.prefix}{path} HTTP/1.1", f"Host: {self.host}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def response(self, timeout: float = 10.0) -> tuple[int, dict[str, str], bytes]:
        """The next answer: status, headers (lower-case names), body (by Content-Length)."""
        self.sock.settimeout(timeout)
        while b"\r\n\r\n" not in self._buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed before an answer: {self._buffer[:200]!r}")
            self._buffer += chunk
        head, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(self._buffer) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed in the middle of an answer")
            self._buffer += chunk
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        return int(status_line.split(" ")[1]), headers, body

    def closed_by_server(self, wait: float = 0.5) -> bool:
        """True when the server has closed (or reset) the connection within ``wait`` s."""
        self.sock.settimeout(wait)
        try:
            return self.sock.recv(1) == b""
        except TimeoutError:
            return False
        except ConnectionResetError:
            return True

    def close(self) -> None:
        self.sock.close()


def decode_qr_file(path) -> list[str]:
    """The QR codes zbar reads off an image file (through pyzbar)."""
    from PySide6.QtGui import QImage
    from pyzbar import pyzbar

    image = QImage(str(path)).convertToFormat(QImage.Format.Format_Grayscale8)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    raw = bytes(image.constBits())[: stride * height]
    pixels = b"".join(raw[y * stride : y * stride + width] for y in range(height))
    return [s.data.decode() for s in pyzbar.decode((pixels, width, height))]


class Foreign:
    """Another program at a profile's address: a plain web server on 127.0.0.1 (a developer's
    own app, a blog) answering every request with ``shape`` (see ``SHAPES``), never with the
    service's envelope. It keeps every request it was sent, and counts those carrying one of
    ``secrets`` (in any header or in the body): PayDesk must send it none.

    ``port`` 0: a free one. ``close()`` stops it (nothing listens there after)."""

    SHAPES = {
        # a web page, whatever was asked
        "html": (200, "text/html; charset=utf-8", b"<!DOCTYPE html><html><body><h1>My blog</h1></body></html>"),
        # another API's refusal: JSON, but its status is a number (not the service's envelope)
        "json-401": (401, "application/json", b'{"status": 401, "message": "Unauthorized"}'),
        # another API's "no such route": JSON without the envelope
        "json-404": (404, "application/json", b'{"detail": "Not Found"}'),
    }

    def __init__(self, shape: str = "html", port: int = 0, secrets: tuple[str, ...] = ()):
        self.secrets = tuple(s for s in secrets if s)
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self._lock = threading.Lock()
        status, content_type, body = self.SHAPES[shape]
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                with outer._lock:
                    outer.requests.append((self.command, self.path, dict(self.headers), raw))
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, *args):
                pass

        self.httpd = Served(("127.0.0.1", port), Handler).start()
        self.port = self.httpd.server_address[1]

    def with_secret(self) -> int:
        """How many requests carried one of the secrets."""
        with self._lock:
            seen = list(self.requests)
        return sum(
            1
            for _, _, headers, raw in seen
            if any(s in " ".join(headers.values()) or s.encode() in raw for s in self.secrets)
        )

    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def close(self) -> None:
        self.httpd.close()
