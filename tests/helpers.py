"""Shared test helpers: a running sandbox, a notification listener, an SMTP sink."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from paydesk.sandbox import SandboxConfig, SandboxServer


def need_system(binary: str, package: str) -> str:
    """The path of a system program; skip (or fail under CI) naming the Debian package."""
    path = shutil.which(binary)
    if path:
        return path
    message = f"needs {binary} from Debian's package '{package}' (apt-get install {package})"
    if os.environ.get("CI"):
        pytest.fail(message + "; .ci/run should have installed it")
    pytest.skip(message)


@dataclass
class Running:
    server: SandboxServer
    merchants: list[dict]

    @property
    def base_url(self) -> str:
        return self.server.base_url

    def key(self, mode: str = "test", kind: str = "secret", merchant: int = 0) -> str:
        return self.merchants[merchant]["keys"][mode][kind]

    def client(self, mode: str = "test", kind: str = "secret", merchant: int = 0,
               **kw) -> httpx.Client:
        return httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {self.key(mode, kind, merchant)}",
                     "Accept": "application/json"},
            timeout=10, **kw,
        )

    def stop(self) -> None:
        self.server.stop()


def start_sandbox(data_dir: Path, **options) -> Running:
    options.setdefault("notify_backoff", 0.05)
    server = SandboxServer(SandboxConfig(data_dir=data_dir, port=0, **options)).start()
    merchants = json.loads((data_dir / "merchants.json").read_text())
    return Running(server, merchants)


def payment(tx_ref: str, **over) -> dict:
    body = {
        "amount": "1000", "currency": "USD", "email": "ada@example.com",
        "first_name": "Ada", "last_name": "Lovelace", "tx_ref": tx_ref,
        "customization": {"title": "Coffee", "description": "Two flat whites"},
        "meta": {"till": "3"},
    }
    body.update(over)
    return body


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
                    outer.received.append({"path": self.path, "headers": dict(self.headers),
                                           "raw": raw})
                    failing = outer.fail_first > 0
                    if failing:
                        outer.fail_first -= 1
                self.send_response(500 if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks/paydesk"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
