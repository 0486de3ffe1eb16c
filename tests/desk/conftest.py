"""The desk's rules without Qt: a desk built as the app builds it (``build_desk``) over a
tmp folder, with an in-memory keyring, talking to a real sandbox (the root conftest's
``sandbox``) in process, or over HTTP when the test is marked ``sockets`` (the root
conftest's ``transports``). Plain asyncio (pytest-asyncio, ``asyncio_mode = "auto"``): no
QApplication, no qasync; ``./dev check`` runs this folder with pytest-qt off and PySide6,
shiboken6 and qasync unimportable (tests/no_qt.py)."""

from __future__ import annotations

import sqlite3
from decimal import Decimal

import pytest

from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.service.models import CardTransaction
from tests import profiles
from tests.waiting import until_async


@pytest.fixture
def keys(memory_keyring):
    return KeyStore(memory_keyring)


@pytest.fixture
async def desk(paths, keys, transports):
    """A whole desk (``build_desk``), its profiles read, nothing started; closed after. It
    reaches the test's sandboxes in process (``transports``) unless the test is marked
    ``sockets``."""
    made = build_desk(paths, keys, transports=transports)
    await made.open()
    yield made
    await made.close()


@pytest.fixture
def session(desk):
    return desk.session


@pytest.fixture
def until():
    """``await until(predicate, timeout, message)``: poll until true, or fail saying what."""

    async def wait(predicate, timeout=15.0, message="condition"):  # noqa: ASYNC109 (a poll's deadline: fails saying what)
        return await until_async(predicate, timeout, message, every=0.02)  # tests/waiting.py

    return wait


@pytest.fixture
def add_profile(session, sandbox):
    """``await add_profile(merchant=0, name="Shop", **over)``: a profile on ``sandbox`` with
    its test and live secret keys, saved and made active."""

    async def add(merchant=0, name="Shop", **over):
        over.setdefault("has_cards", True)
        return await profiles.add_profile(
            session, sandbox, merchant=merchant, name=name, txref_prefix="SHOP", keys=profiles.SECRET_KEYS, **over
        )

    return add


class Service:
    """The sandbox as its operator sees it: its control API (faults, payments) and what it
    holds (read from its own database, as an auditor would)."""

    def __init__(self, sb):
        self.sb = sb

    def faults(self, merchant=0, **body):
        self.sb.faults(merchant, **body)

    def control(self, path, body=None, merchant=0):
        return self.sb.control(path, body, merchant=merchant)  # tests/helpers.py

    def calls(self, merchant=0, mode="test") -> list[str]:
        """The paths of every /api/ call this merchant's ``mode`` key made (its call log)."""
        with self.sb.client(mode, merchant=merchant) as c:
            answer = c.get("/_sandbox/requests")
            answer.raise_for_status()
            return [call["path"] for call in answer.json()["data"]]

    def _rows(self, sql, *args):
        with sqlite3.connect(self.sb.server.data_dir / "sandbox.sqlite3") as db:
            db.row_factory = sqlite3.Row
            return db.execute(sql, args).fetchall()

    def payments(self, tx_ref) -> int:
        """How many payments the service holds with this tx_ref."""
        return self._rows("SELECT COUNT(*) FROM transactions WHERE tx_ref = ?", tx_ref)[0][0]

    def cards(self) -> list[str]:
        return [r["card_hash"] for r in self._rows("SELECT card_hash FROM cards")]

    def balance_of(self, card_hash) -> Decimal:
        return Decimal(self._rows("SELECT balance FROM cards WHERE card_hash = ?", card_hash)[0][0])

    def card_transactions(self, card_hash) -> list[CardTransaction]:
        rows = self._rows("SELECT * FROM card_transactions WHERE card_hash = ? ORDER BY rowid", card_hash)
        return [CardTransaction.parse(dict(r), 200) for r in rows]


@pytest.fixture
def service(sandbox):
    return Service(sandbox)
