"""A PayDesk process for test_card_recovery.py: starts on the embedded sandbox, creates a card,
then makes the service drop every answer after committing and funds the card from its page
as a user does (its row clicked, Fund pressed, the amount typed, Fund pressed). The test kills
it while the fund is in flight."""

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
from tests.waiting import until_async

qapp = QApplication([sys.argv[0]])
paths = default_paths().ensure()


def ready(window, session):
    async def act():
        await until_async(lambda: window.started and session.profile is not None, 120, "start-up", every=0.05)
        profile, key = session.profile, await session.key()
        op = await window.desk.cards.create(profile, "test", Decimal(40), "GBP", None)
        card = await session.card_ledger.card(profile.id, "test", op.card_hash)
        # from here on, as a user: the Cards tab, the card's row, Fund, 15, Fund
        tab = window.cards_tab
        press.tab(window.tabs, "Cards")
        wallet = tab.wallet
        await until_async(lambda: wallet.model.row_of(card.card_hash) is not None, 60, "the card listed", every=0.05)
        index = wallet.model.index(wallet.model.row_of(card.card_hash), 0)
        press.click(wallet.table.viewport(), pos=wallet.table.visualRect(index).center())
        await until_async(
            lambda: tab.page.record is not None and tab.page.buttons["fund"].isEnabled(), 60, "Fund enabled", every=0.05
        )
        async with httpx.AsyncClient() as http:
            r = await http.put(
                f"{profile.base_url}/_sandbox/faults",
                json={"drop_after_commit_rate": 1.0},
                headers={"Authorization": f"Bearer {key}"},
            )
            r.raise_for_status()
        print(json.dumps({"card": card.card_hash}), flush=True)
        press.click(tab.page.buttons["fund"])
        dialog = await until_async(lambda: press.shown("fund-dialog"), 60, "the fund dialog", every=0.05)
        press.type_into(dialog.amount, "15")
        press.click(dialog.action)

    session.tasks.spawn(act())


args = paydesk_app.parse_args(["--sandbox"])
with asyncio.Runner(loop_factory=EventLoop) as runner:
    runner.run(paydesk_app.run(qapp, args, paths, KeyStore(None), window_ready=ready))
