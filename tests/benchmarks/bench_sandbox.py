"""Sandbox throughput and latency: create-then-validate at 1, 16 and 64 concurrent clients,
beside a bare one-route JSON app on the same server stack, in the same run.

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_sandbox.py [--seconds 3])
Prints figures; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

HERE = Path(__file__).parent
counter = itertools.count()


def start(cmd: list[str]) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("serving "):
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


class Connection:
    """A minimal keep-alive HTTP/1.1 client on asyncio streams.

    The load generator must be much cheaper than the server it measures: httpx's
    pool costs more CPU per request than the sandbox does, and both share two cores.
    """

    def __init__(self, host: str, port: int, key: str):
        self.host, self.port = host, port
        self.auth = f"Bearer {key}"

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Authorization: {self.auth}\r\nAccept: application/json\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode() + body)
        status_line = await self.reader.readline()
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await self.reader.readexactly(length)
        return int(status_line.split()[1]), payload

    def close(self) -> None:
        self.writer.close()


async def drive(base: str, key: str, clients: int, seconds: float, sandbox: bool) -> dict:
    parts = urlsplit(base)
    prefix = parts.path
    latencies: list[float] = []
    done = 0
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal done
        conn = Connection(parts.hostname, parts.port, key)
        await conn.open()
        try:
            while time.perf_counter() < deadline:
                ref = f"BENCH-{next(counter)}"
                body = json.dumps(
                    {
                        "amount": "1000",
                        "currency": "USD",
                        "email": "b@example.com",
                        "first_name": "B",
                        "last_name": "C",
                        "tx_ref": ref,
                    }
                ).encode()
                t0 = time.perf_counter()
                s1, p1 = await conn.request("POST", prefix + ("/api/payment" if sandbox else "/one"), body)
                t1 = time.perf_counter()
                s2, p2 = await conn.request("GET", prefix + (f"/api/transaction/{ref}" if sandbox else "/one"))
                t2 = time.perf_counter()
                assert s1 in (200, 201) and s2 == 200, (p1, p2)
                latencies.extend((t1 - t0, t2 - t1))
                done += 2
        finally:
            conn.close()

    start_t = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    elapsed = time.perf_counter() - start_t
    q = statistics.quantiles(latencies, n=100)
    return {"rps": done / elapsed, "p50": q[49] * 1000, "p99": q[98] * 1000}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="paydesk-bench-"))
    sandbox, sb_url = start(
        [sys.executable, "-m", "paydesk.sandbox", "--port", "0", "--data-dir", str(data), "--base-path", "/pay"]
    )
    bare, bare_url = start([sys.executable, str(HERE / "bare_app.py")])
    key = json.loads((data / "merchants.json").read_text())[0]["keys"]["test"]["secret"]
    try:
        print(
            "sandbox create-then-validate vs bare one-route JSON app (Starlette + uvicorn), "
            f"{args.seconds:.0f} s per row, loopback"
        )
        print(
            f"{'clients':>7} | {'sandbox req/s':>13} {'p50 ms':>7} {'p99 ms':>7} | "
            f"{'bare req/s':>10} {'p50 ms':>7} {'p99 ms':>7} | {'ratio':>5}"
        )
        for clients in (1, 16, 64):
            asyncio.run(drive(bare_url, key, clients, 0.5, False))  # warm up
            asyncio.run(drive(sb_url, key, clients, 0.5, True))
            b = asyncio.run(drive(bare_url, key, clients, args.seconds, False))
            s = asyncio.run(drive(sb_url, key, clients, args.seconds, True))
            print(
                f"{clients:>7} | {s['rps']:>13.0f} {s['p50']:>7.2f} {s['p99']:>7.2f} | "
                f"{b['rps']:>10.0f} {b['p50']:>7.2f} {b['p99']:>7.2f} | {s['rps'] / b['rps']:>5.2f}"
            )
    finally:
        for proc in (sandbox, bare):
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
