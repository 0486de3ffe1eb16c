"""Hostile input, measured: what a 50 MB body costs the sandbox, whether 1,100 half-sent
requests under a 1,024 descriptor limit stop it serving others, and how long the client
waits on a 429 asking for 99,999 s (with the app's defaults).

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_hostile.py)
Prints figures; asserts nothing. Run it against another checkout's code with
PYTHONPATH=<checkout>/desktop to compare.
"""

from __future__ import annotations

import asyncio
import json
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

MB = 1024 * 1024


def start(data_dir: Path, descriptors: int | None = None) -> tuple[subprocess.Popen, str]:
    def limit():
        if descriptors:
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            resource.setrlimit(resource.RLIMIT_NOFILE, (descriptors, hard))

    proc = subprocess.Popen(
        [sys.executable, "-m", "paydesk.sandbox", "--port", "0", "--data-dir", str(data_dir), "--base-path", "/pay"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
    )
    line = proc.stdout.readline().strip()
    if not line.startswith("serving "):
        proc.kill()
        raise SystemExit(f"the sandbox did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


def stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=30)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()[1]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def send_big_body(base: str, path: str, headers: dict[str, str], size: int, start: bytes = b"") -> tuple[str, float]:
    """Send ``size`` bytes as the body (``start``, then x's); return (the answer's status
    line, seconds)."""
    url = httpx.URL(base + path)
    started = time.monotonic()
    with socket.create_connection((url.host, url.port), timeout=60) as s:
        head = [f"POST {url.raw_path.decode()} HTTP/1.1", f"Host: {url.host}", f"Content-Length: {size}"] + [
            f"{k}: {v}" for k, v in headers.items()
        ]
        s.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + start)
        chunk = b"x" * MB
        sent = len(start)
        try:
            while sent < size:
                s.sendall(chunk[: size - sent])
                sent += len(chunk[: size - sent])
        except OSError:
            pass  # the server closed the connection: it will not read the rest
        s.settimeout(60)
        try:
            answer = s.recv(4096).split(b"\r\n", 1)[0].decode()
        except OSError as error:
            answer = f"({type(error).__name__})"
    return answer or "(closed)", time.monotonic() - started


def big_bodies() -> None:
    print("a 50 MB body to each route, each on a fresh sandbox: its peak memory growth")
    print(f"{'route':>18} | {'answer':>32} | {'seconds':>7} | {'peak growth MB':>14}")
    for path, kind, ctype in (
        ("/api/js_transfer", "public", "application/json"),
        ("/api/payment", "secret", "application/json"),
        ("/ext_transfer", None, "application/x-www-form-urlencoded"),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            proc, base = start(Path(tmp) / "sb")
            try:
                keys = json.loads((Path(tmp) / "sb" / "merchants.json").read_text())
                headers = {"Content-Type": ctype}
                if kind:
                    headers["Authorization"] = f"Bearer {keys[0]['keys']['test'][kind]}"
                httpx.get(base + "/openapi.json")  # warm
                before = peak_rss_mb(proc.pid)
                form = b"meta=" if path == "/ext_transfer" else b'{"meta": {"k": "'
                answer, seconds = send_big_body(base, path, headers, 50 * MB, form)
                print(f"{path:>18} | {answer[:32]:>32} | {seconds:7.2f} | {peak_rss_mb(proc.pid) - before:14.1f}")
            finally:
                stop(proc)


def half_open_sockets(count: int = 1100) -> None:
    print(f"\n{count:,} half-sent requests, the sandbox limited to 1,024 descriptors")
    with tempfile.TemporaryDirectory() as tmp:
        proc, base = start(Path(tmp) / "sb", descriptors=1024)
        url = httpx.URL(base)
        held = []
        try:
            soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
            for _ in range(count):
                s = socket.create_connection((url.host, url.port), timeout=10)
                s.sendall(b"GET /pay/api/transaction/X HTTP/1.1\r\nHost: sandbox\r\n")
                held.append(s)
            time.sleep(0.5)
            served = []
            for _ in range(5):
                started = time.monotonic()
                try:
                    ok = httpx.get(base + "/openapi.json", timeout=15).status_code == 200
                except httpx.HTTPError:
                    ok = False
                served.append((ok, time.monotonic() - started))
            descriptors = len(list(Path(f"/proc/{proc.pid}/fd").iterdir()))
        finally:
            for s in held:
                s.close()
            log = stop(proc)
        answered = sum(ok for ok, _ in served)
        print(f"  others served: {answered}/5, slowest {max(t for _, t in served) * 1000:.0f} ms")
        print(f"  descriptors open in the sandbox: {descriptors}")
        print(f"  log: {len(log.splitlines())} lines, {log.count('Too many open files')} 'Too many open files'")


async def client_waits() -> None:
    from paydesk.service import PaymentRequest, ServiceClient, ServiceError

    async def slow_down(reader, writer):
        await reader.readuntil(b"\r\n\r\n")
        body = b'{"status": "failed", "message": "slow down"}'
        writer.write(
            b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 99999\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(slow_down, "127.0.0.1", 0)
    base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/pay"
    print("\na 429 with Retry-After: 99999, the client with the app's defaults")
    async with ServiceClient(base, "sec-test-bench") as client:
        for name, call in (
            ("validate", lambda: client.validate("X-1")),
            (
                "create_payment",
                lambda: client.create_payment(
                    PaymentRequest(
                        amount=1, currency="GBP", email="a@example.com", first_name="A", last_name="B", tx_ref="X-1"
                    )
                ),
            ),
        ):
            started = time.monotonic()
            try:
                await call()
                outcome = "returned"
            except ServiceError as error:
                outcome = f"{type(error).__name__}, retry_after={getattr(error, 'retry_after', '-')}"
            print(f"  {name:>14}: {time.monotonic() - started:6.1f} s, {outcome}")
    server.close()


if __name__ == "__main__":
    big_bodies()
    half_open_sockets()
    asyncio.run(client_waits())
