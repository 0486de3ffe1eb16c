"""A shop on a real sandbox with its main window, and what a user does to make bulk links:
open the window from the Payment links tab, choose a file in the standard dialog, check the
rows, edit a cell, choose from the menu bar. Only presses (tests/ui/press.py)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from PySide6.QtCore import Qt

from paydesk.desk.build import build_desk
from paydesk.service.models import PaymentRequest
from paydesk.ui.main_window import MainWindow
from tests.profiles import use_profile
from tests.ui import press

HEADERS = ["amount", "currency", "email", "first_name", "last_name", "title", "tx_ref"]


def row(n: int, **over) -> dict[str, str]:
    values = dict(
        amount=str(10 + n),
        currency="GBP",
        email=f"parent{n}@example.com",
        first_name="Ada",
        last_name=f"Parent{n}",
        title="Term fees",
        tx_ref="",
    )
    values.update(over)
    return values


def write_csv(
    path: Path, rows: list[dict[str, str]], *, headers=HEADERS, delimiter=",", bom=False, blank_last=False
) -> Path:
    with open(path, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        out = csv.writer(f, delimiter=delimiter)
        out.writerow(headers)
        for values in rows:
            out.writerow([values.get(h, "") for h in headers])
        if blank_last:
            out.writerow([""] * len(headers))
    return path


@dataclass
class Shop:
    desk: object
    window: MainWindow
    sandbox: object
    loop: object

    @property
    def session(self):
        return self.desk.session

    def open_bulk(self):
        """The Payment links tab's "Bulk links…", pressed: the window, shown."""
        press.click(self.window.links_tab.bulk)
        self.loop.until(lambda: press.shown("bulk-window") is not None, message="Bulk links")
        return press.shown("bulk-window")

    def choose_file(self, window, path: Path) -> None:
        """Choose file…, then the path typed into the standard dialog and Enter."""
        press.click(window.file_step.choose)
        self.loop.until(lambda: press.shown("bulk-open-dialog") is not None, message="the file dialog")
        press.save_as(press.shown("bulk-open-dialog"), path)

    def load(self, window, path: Path) -> None:
        """The file chosen and read: the columns step shows."""
        self.choose_file(window, path)
        self.loop.until(
            lambda: window.stack.currentWidget() is window.mapping_step, message=f"the columns of {path.name}"
        )

    def check(self, window) -> None:
        press.click(window.next)
        self.loop.until(lambda: window.stack.currentWidget() is window.check_step, message="the dry run")

    def edit_cell(self, window, number: int, field: str, text: str) -> None:
        """Click the cell of file row ``number``, F2, type ``text``, Enter; then wait for the
        rows to be checked again."""
        grid, model = window.check_step.grid, window.check_step.model
        index = next(model.index(i, model.fields.index(field)) for i, r in enumerate(model.rows) if r.number == number)
        grid.scrollTo(index)
        press.click(grid.viewport(), pos=grid.visualRect(index).center())
        press.key(grid, Qt.Key.Key_F2)
        editor = grid.window().focusWidget()
        press.type_into(editor, text)
        press.enter(editor)
        self.loop.until(
            lambda: not window.check_step.checking and model.rows[index.row()].values.get(field) == text,
            message="the rows checked again",
        )

    def create(self, window):
        press.click(window.check_step.create_links)
        self.loop.until(lambda: window.stack.currentWidget() is window.progress_step, message="the progress")

    def wait_done(self, window, timeout=60.0) -> str:
        outcome = window.progress_step.outcome
        self.loop.until(lambda: outcome.isVisible() and outcome.text(), timeout, message="the batch to end")
        return outcome.text()

    def link(self, ref: str, amount=25):
        return self.loop.run(
            self.desk.links.create(
                PaymentRequest(
                    amount=Decimal(amount),
                    currency="GBP",
                    email="ada@example.com",
                    first_name="Ada",
                    last_name="Lovelace",
                    tx_ref=ref,
                    title="Flat white",
                    description="Oat milk",
                )
            )
        )

    def creates(self) -> int:
        """How many links the service made for this merchant (its call log: the payment
        creates it answered with success). The service refuses a reference it has, so this
        equal to the rows sent means none was made twice and none lost."""
        r = httpx.get(
            f"{self.sandbox.base_url}/_sandbox/requests",
            headers={"Authorization": f"Bearer {self.sandbox.key('test')}"},
        )
        r.raise_for_status()
        return sum(
            1
            for call in r.json()["data"]
            if call["method"] == "POST" and call["path"].endswith("/api/payment") and (call["status"] or 500) < 300
        )

    def in_ledger(self, ref: str):
        return self.loop.run(self.session.ledger.get(self.session.profile.id, ref))

    def menu(self, menu, action) -> None:
        """A menu of the menu bar clicked open, then its entry."""
        bar = self.window.menuBar()
        press.click(bar, pos=bar.actionGeometry(menu.menuAction()).center())
        self.loop.until(menu.isVisible, message=f"the {menu.title()} menu")
        press.click(menu, pos=menu.actionGeometry(action).center())


@pytest.fixture
def shop(make_sandbox, paths, keys, loop, qtbot):
    yield from open_shop(make_sandbox("sb", base_path="/pay"), "Corner Shop", "SHOP", paths, keys, loop, qtbot)


def open_shop(sandbox, name, prefix, paths, keys, loop, qtbot):
    """A desk's window on ``sandbox`` with a profile ``name`` (references ``prefix``-…),
    started as PayDesk starts; closed after the test (a fixture's body: ``yield from``)."""
    desk = build_desk(paths, keys)
    loop.run(desk.open())
    window = MainWindow(desk)
    qtbot.addWidget(window)
    window.resize(1300, 900)
    window.show()
    use_profile(loop, desk.session, sandbox, name=name, txref_prefix=prefix, currencies=["GBP", "USD"], discover=True)
    desk.start_background()
    window.start_up_done()
    loop.until(lambda: window.links_tab.loaded, message="the links tab")
    yield Shop(desk, window, sandbox, loop)
    window.close()
    loop.run(desk.close())
