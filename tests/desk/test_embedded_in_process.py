"""The embedded sandbox this desk serves is reached in process (desk/transports.py,
sandbox/in_process.py), while its port still serves everyone else: the customer's pay
page. Once it stops, its address is the network's again."""

from __future__ import annotations

import httpx

from paydesk.desk.build import build_desk
from paydesk.desk.transports import Transports
from paydesk.sandbox.in_process import InProcess


async def test_the_sandbox_this_desk_serves_is_reached_in_process_and_still_listens(paths, keys):
    transports = Transports()
    desk = build_desk(paths, keys, transports=transports)
    await desk.open()
    try:
        profile = await desk.session.start_embedded_sandbox()
        assert isinstance(transports.of(profile.base_url), InProcess)
        sale = await desk.counter.sell("5", profile.currencies[0])
        assert sale.record.checkout_url.startswith(profile.base_url + "/")
        async with desk.session.lease(profile, "test") as client:
            assert (await client.validate(sale.record.tx_ref)).tx_ref == sale.record.tx_ref
        # the customer's browser: the pay page over HTTP, at the address the link carries
        async with httpx.AsyncClient(timeout=10) as browser:
            page = await browser.get(sale.record.checkout_url)
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    finally:
        await desk.close()
    assert transports.of(profile.base_url) is None  # stopped: nothing to reach in process
