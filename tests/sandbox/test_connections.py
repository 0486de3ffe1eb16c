"""Connections that never finish their request: closed in time, and however many there
are, everyone else is still served."""

import os
import resource
import signal
import socket
import subprocess
import sys
import time

import httpx
import pytest

from tests.helpers import RawHttp

HALF_SENT = b"GET /api/transaction/X HTTP/1.1\r\nHost: sandbox\r\n"


@pytest.mark.slow  # waits out the idle timeouts, about 20 s: only in ./dev test
def test_idle_and_half_sent_connections_are_closed_within_30_s(sandbox):
    """Item 10: a half-sent request stayed open past 65 s. An idle connection, a half-sent
    head, a head trickling a byte a second and a body trickling a byte a second are all
    closed within 30 s (the body with a 408 first)."""
    idle, half, slow_head, slow_body = (RawHttp(sandbox.base_url) for _ in range(4))
    half.send(HALF_SENT)
    slow_head.send(b"GET /pay/api/transaction/X HTTP/1.1\r\n")
    slow_body.send(
        slow_body.request_head(
            "POST",
            "/api/payment",
            {"Authorization": f"Bearer {sandbox.key()}", "Content-Type": "application/json", "Content-Length": "1000"},
        )
        + b"{"
    )
    started = time.monotonic()
    closed: dict[str, float] = {}
    try:
        while len(closed) < 4 and time.monotonic() - started < 35:
            for name, conn in (("idle", idle), ("half", half), ("slow_head", slow_head)):
                if name not in closed and conn.closed_by_server(wait=0.05):
                    closed[name] = time.monotonic() - started
            if "slow_body" not in closed:
                slow_body.sock.settimeout(0.05)
                try:
                    data = slow_body.sock.recv(4096)
                    if data:
                        assert b" 408 " in data.split(b"\r\n", 1)[0], data[:200]
                        assert b"connection: close" in data.lower()
                    closed["slow_body"] = time.monotonic() - started
                except TimeoutError:
                    pass
            for conn in (slow_head, slow_body):
                try:
                    conn.sock.send(b"x" if conn is slow_body else b"X")
                except OSError:
                    pass
            time.sleep(0.9)
    finally:
        for conn in (idle, half, slow_head, slow_body):
            conn.close()
    assert set(closed) == {"idle", "half", "slow_head", "slow_body"}, closed
    assert max(closed.values()) < 30, closed


def _raise_own_descriptor_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        try:  # root may raise its own hard limit (CI runs as root)
            resource.setrlimit(resource.RLIMIT_NOFILE, (needed, needed))
            return
        except (ValueError, OSError):
            pytest.skip(
                f"this test opens {needed} sockets; the machine's hard descriptor "
                f"limit is {hard} and may not be raised here (raise it with ulimit -Hn)"
            )
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


def _open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.slow  # 1,100 sockets, about 10 s: only in ./dev test
def test_eleven_hundred_half_open_sockets_do_not_stop_the_service(tmp_path):
    """Item 10: with a 1,024 descriptor limit, 1,100 half-sent requests stopped the
    sandbox from serving anyone and filled its log with "Too many open files"
    tracebacks. Now others are served at once, the open connections stay under the
    limit, and the pressure is logged once."""
    _raise_own_descriptor_limit(1400)

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "paydesk.sandbox",
            "--port",
            "0",
            "--data-dir",
            str(tmp_path / "sb"),
            "--base-path",
            "/pay",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
    )
    attackers: list[socket.socket] = []
    try:
        base = proc.stdout.readline().strip().split(" ", 1)[1]
        host, port = httpx.URL(base).host, httpx.URL(base).port
        for _ in range(1100):
            s = socket.create_connection((host, port), timeout=10)
            s.sendall(HALF_SENT)
            attackers.append(s)
        time.sleep(0.5)
        timings = []
        for _ in range(5):
            started = time.monotonic()
            r = httpx.get(base + "/openapi.json", timeout=10)
            timings.append(time.monotonic() - started)
            assert r.status_code == 200
        assert max(timings) < 3, timings
        descriptors = _open_descriptors(proc.pid)
        assert descriptors < 1024, descriptors
        print(
            f"\n1,100 half-sent sockets: {descriptors} descriptors open in the sandbox, "
            f"others served in {max(timings) * 1000:.0f} ms at worst"
        )
    finally:
        for s in attackers:
            s.close()
        proc.send_signal(signal.SIGINT)
        try:
            _, stderr = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, stderr = proc.communicate()
    assert "Too many open files" not in stderr, stderr[-2000:]
    # pressure is logged when it starts (and ends), never per socket; had the sockets come
    # slower than they were closed, there was no pressure to log at all
    assert stderr.count("the most this sandbox takes") <= 2, stderr[-2000:]
    assert len(stderr.splitlines()) < 20, stderr[-2000:]
