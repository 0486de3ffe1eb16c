"""Never paying twice, never losing one: 200 links through a faulty service."""

import asyncio
import sqlite3
from decimal import Decimal

import httpx
import pytest

from paydesk.service import PaymentRequest, ServiceClient, TransactionState


@pytest.mark.parametrize("quirks", [False, True])
async def test_two_hundred_links_under_faults(make_sandbox, quirks):
    sb = make_sandbox(quirks=quirks, base_path="/pay")
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {sb.key()}"}) as http:
        r = await http.put(
            f"{sb.base_url}/_sandbox/faults", json={"drop_after_commit_rate": 0.5, "error_rate": 0.2, "seed": 2026}
        )
        r.raise_for_status()
    refs = [f"FAULT-{i:03d}" for i in range(200)]
    gate = asyncio.Semaphore(8)
    async with ServiceClient(
        sb.base_url, sb.key(), backoff=0.005, max_backoff=0.05, create_attempts=12, retries=6
    ) as client:

        async def create(ref: str):
            async with gate:
                return await client.create_payment(
                    PaymentRequest(
                        amount=Decimal(10),
                        currency="GBP",
                        email="f@example.com",
                        first_name="F",
                        last_name="G",
                        tx_ref=ref,
                    )
                )

        links = await asyncio.gather(*(create(r) for r in refs))
    assert [link.tx_ref for link in links] == refs  # every one reported created
    recovered = sum(link.recovered for link in links)
    assert recovered > 20  # the faults really happened

    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {sb.key()}"}) as http:
        (await http.delete(f"{sb.base_url}/_sandbox/faults")).raise_for_status()
    async with ServiceClient(sb.base_url, sb.key()) as client:
        for ref in refs:
            tx = await client.validate(ref)
            assert tx.tx_ref == ref and tx.status is TransactionState.PENDING
    with sqlite3.connect(sb.server.data_dir / "sandbox.sqlite3") as db:
        rows = db.execute("SELECT tx_ref, COUNT(*) FROM transactions GROUP BY tx_ref").fetchall()
    assert sorted(rows) == [(ref, 1) for ref in refs]  # exactly once each
    for link in links:
        if link.checkout_url:
            assert link.checkout_url.startswith(sb.base_url + "/payment/PDK-")
        else:
            assert quirks and link.recovered  # the family's lookup does not tell the link
