"""Client overhead: ServiceClient's create and validate against raw httpx calls with the
same payload and connection reuse, against the sandbox, in one run.

Run: ./dev bench   (or: .venv/bin/python tests/benchmarks/bench_client.py [--calls 400])
Prints figures; asserts nothing about time.
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

import httpx
from sandbox_process import sandbox_running

from paydesk.service import PaymentRequest, ServiceClient

counter = itertools.count()


def body(ref: str) -> dict:
    return {
        "amount": "1000",
        "currency": "USD",
        "email": "b@example.com",
        "first_name": "B",
        "last_name": "C",
        "tx_ref": ref,
    }


async def raw_round(http: httpx.AsyncClient) -> tuple[float, float]:
    ref = f"RAW-{next(counter)}"
    t0 = time.perf_counter()
    r = await http.post("api/payment", json=body(ref))
    assert r.json()["status"] == "success"
    t1 = time.perf_counter()
    v = await http.get(f"api/transaction/{ref}")
    assert v.json()["data"]["tx_ref"] == ref
    return t1 - t0, time.perf_counter() - t1


async def client_round(client: ServiceClient) -> tuple[float, float]:
    ref = f"CLI-{next(counter)}"
    t0 = time.perf_counter()
    await client.create_payment(
        PaymentRequest(
            amount=Decimal(1000), currency="USD", email="b@example.com", first_name="B", last_name="C", tx_ref=ref
        )
    )
    t1 = time.perf_counter()
    tx = await client.validate(ref)
    assert tx.tx_ref == ref
    return t1 - t0, time.perf_counter() - t1


async def run(base: str, key: str, calls: int) -> None:
    headers = {"Accept": "application/json", "Authorization": f"Bearer {key}"}
    raw_c, raw_v, cli_c, cli_v = [], [], [], []
    async with httpx.AsyncClient(base_url=base + "/", headers=headers) as http, ServiceClient(base, key) as client:
        for _ in range(50):  # warm both
            await raw_round(http)
            await client_round(client)
        for _ in range(calls // 20):  # interleave blocks so drift hits both alike
            for _ in range(20):
                c, v = await raw_round(http)
                raw_c.append(c), raw_v.append(v)
            for _ in range(20):
                c, v = await client_round(client)
                cli_c.append(c), cli_v.append(v)
    med = statistics.median
    print(f"client vs raw httpx, {len(raw_c)} calls each, loopback sandbox, median per call")
    print(f"{'call':>9} | {'raw httpx ms':>12} | {'ServiceClient ms':>16} | {'ratio':>5}")
    for name, raw, cli in (("create", raw_c, cli_c), ("validate", raw_v, cli_v)):
        print(f"{name:>9} | {med(raw) * 1000:>12.3f} | {med(cli) * 1000:>16.3f} | {med(cli) / med(raw):>5.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=400)
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="paydesk-bench-"))
    with sandbox_running(data) as (base, keys):
        asyncio.run(run(base, keys["secret"], args.calls))


if __name__ == "__main__":
    main()
