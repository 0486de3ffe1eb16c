"""The desk's client to a sandbox of its own process: in process (``SandboxServer.transport()``,
sandbox/in_process.py, as PayDesk reaches its embedded sandbox and the Qt-free tests their
sandboxes) beside over its socket on 127.0.0.1, in the same run: a look-up that finds
nothing (``validate``, one request) and a create (``create_payment``), p50 and p95 over
``--calls`` of each, the two ways taking turns so the machine's load falls on both alike.

    .venv/bin/python tests/benchmarks/bench_in_process.py [--calls 300]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import tempfile
import time
from decimal import Decimal
from pathlib import Path

from paydesk.sandbox import SandboxConfig, SandboxServer
from paydesk.service import PaymentRequest, ServiceClient
from paydesk.service.errors import NotFoundError

counter = itertools.count()


def request() -> PaymentRequest:
    return PaymentRequest(
        tx_ref=f"BENCH-{next(counter)}",
        amount=Decimal("10"),
        currency="USD",
        email="b@example.com",
        first_name="B",
        last_name="C",
    )


async def lookup(client: ServiceClient) -> float:
    t0 = time.perf_counter()
    try:
        await client.validate("BENCH-NOPE")
    except NotFoundError:
        pass
    return (time.perf_counter() - t0) * 1000


async def create(client: ServiceClient) -> float:
    t0 = time.perf_counter()
    await client.create_payment(request())
    return (time.perf_counter() - t0) * 1000


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1]


async def main(calls: int) -> None:
    import json

    folder = Path(tempfile.mkdtemp(prefix="bench-in-process-"))
    server = SandboxServer(SandboxConfig(data_dir=folder, port=0, base_path="/pay", rate_limit=0)).start()
    try:
        key = json.loads((folder / "merchants.json").read_text())[0]["keys"]["test"]["secret"]
        ways = {
            "socket": ServiceClient(server.base_url, key),
            "in process": ServiceClient(server.base_url, key, transport=server.transport()),
        }
        for name, call in (("look-up (404)", lookup), ("create", create)):
            times: dict[str, list[float]] = {way: [] for way in ways}
            for client in ways.values():  # a first call each: connections, caches
                await call(client)
            for _ in range(calls):
                for way, client in ways.items():
                    times[way].append(await call(client))
            for way, values in times.items():
                print(f"{name:14} {way:11} p50 {p(values, 50):6.2f} ms  p95 {p(values, 95):6.2f} ms  ({calls} calls)")
        for client in ways.values():
            await client.aclose()
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    asyncio.run(main(parser.parse_args().calls))
