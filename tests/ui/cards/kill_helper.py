"""A PayDesk process for test_card_recovery.py: starts on the embedded sandbox, creates a card,
then makes the service drop every answer after committing and funds the card from its page
like a user. The test kills it while the fund is in flight."""

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

qapp = QApplication([sys.argv[0]])
paths = default_paths().ensure()


def ready(window, session):
    async def act():
        while not window.started or session.profile is None:
            await asyncio.sleep(0.05)
        profile, key = session.profile, await session.key()
        op = await window.cards.create(profile, "test", Decimal(40), "GBP", None)
        card = await session.card_ledger.card(profile.id, "test", op.card_hash)
        window.tabs.setCurrentWidget(window.cards_tab)
        window.cards_tab.page.show_card(card)
        async with httpx.AsyncClient() as http:
            r = await http.put(f"{profile.base_url}/_sandbox/faults",
                               json={"drop_after_commit_rate": 1.0},
                               headers={"Authorization": f"Bearer {key}"})
            r.raise_for_status()
        print(json.dumps({"card": card.card_hash}), flush=True)
        await window.cards.fund(card, Decimal(15))

    session.tasks.spawn(act())


args = paydesk_app.parse_args(["--sandbox"])
with asyncio.Runner(loop_factory=EventLoop) as runner:
    runner.run(paydesk_app.run(qapp, args, paths, KeyStore(None), window_ready=ready))
