"""A PayDesk process for test_card_recovery.py: starts on the embedded sandbox, creates a card,
then makes the service drop every answer after committing and funds the card from its page
as a user does (its row clicked, Fund pressed, the amount typed, Fund pressed). The test kills it while the fund is in flight."""

import asyncio
import json
import sys
from decimal import Decimal

import httpx
from PySide6.QtWidgets import QApplication

from paydesk import app as paydesk_app
from paydesk.config.paths import default_paths
from paydesk.config.secrets import KeyStore
from paydesk.ui.loop import EventLoop
from tests.ui import press

qapp = QApplication([sys.argv[0]])
paths = default_paths().ensure()


def ready(window, session):
    async def act():
        while not window.started or session.profile is None:
            await asyncio.sleep(0.05)
        profile, key = session.profile, await session.key()
        op = await window.cards.create(profile, "test", Decimal(40), "GBP", None)
        card = await session.card_ledger.card(profile.id, "test", op.card_hash)
        # from here on, as a user: the Cards tab, the card's row, Fund, 15, Fund
        tab = window.cards_tab
        press.tab(window.tabs, "Cards")
        wallet = tab.wallet
        while wallet.model.row_of(card.card_hash) is None:
            await asyncio.sleep(0.05)
        index = wallet.model.index(wallet.model.row_of(card.card_hash), 0)
        press.click(wallet.table.viewport(), pos=wallet.table.visualRect(index).center())
        while tab.page.record is None or not tab.page.buttons["fund"].isEnabled():
            await asyncio.sleep(0.05)
        async with httpx.AsyncClient() as http:
            r = await http.put(f"{profile.base_url}/_sandbox/faults",
                               json={"drop_after_commit_rate": 1.0},
                               headers={"Authorization": f"Bearer {key}"})
            r.raise_for_status()
        print(json.dumps({"card": card.card_hash}), flush=True)
        press.click(tab.page.buttons["fund"])
        while press.shown("fund-dialog") is None:
            await asyncio.sleep(0.05)
        dialog = press.shown("fund-dialog")
        press.type_into(dialog.amount, "15")
        press.click(dialog.action)

    session.tasks.spawn(act())


args = paydesk_app.parse_args(["--sandbox"])
with asyncio.Runner(loop_factory=EventLoop) as runner:
    runner.run(paydesk_app.run(qapp, args, paths, KeyStore(None), window_ready=ready))
