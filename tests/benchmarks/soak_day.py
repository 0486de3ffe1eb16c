"""The rest of a day at the desk, for bench_soak.py (issue 28's day of real use): the customer
display moved to the counter's other monitor and back, a small batch of bulk links from a
spreadsheet (the template downloaded through the Bulk links window, rows added as finance
adds them), the batch's QR sheet and results file from the Batches window, the Notifications
window opened, searched and closed, and the profile editor opened, *Check keys*, Cancel.
Widgets are pressed as a person would (tests/ui/press.py); menus are opened from the menu bar.
"""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QLineEdit, QWidget

from paydesk.i18n import _
from paydesk.ui.counter.place import THIS_SCREEN
from tests.ui import press
from tests.waiting import until_async

BULK_ROWS = 3  # rows finance adds to the template (its own two rows stay)


async def until(predicate, what: str, timeout: float = 30.0):  # noqa: ASYNC109 (a poll's deadline: fails saying what)
    """tests/waiting.py's ``until_async`` at the soak's pace (every 50 ms, 30 s unless said);
    a step whose wait times out is counted as stuck (``Desk.step``)."""
    return await until_async(predicate, timeout, what, every=0.05)


def shown_window(name: str) -> QWidget | None:
    return next((w for w in QApplication.topLevelWidgets() if w.objectName() == name and w.isVisible()), None)


async def choose(combo: QComboBox, text: str) -> None:
    """tests/ui/press.py's ``choose`` (the list clicked open, the entry reached with the keys,
    Enter), waiting for the window to be active again on the loop: ``press.choose`` waits
    in ``QTest.qWait``, a loop inside this task's step, where other tasks' steps would run
    and be lost (asyncio refuses to enter a task while another one is being executed)."""
    index = combo.findText(text)
    if index < 0:
        raise AssertionError(f"{combo.accessibleName()} offers no {text!r}")
    press.click(combo)
    popup = QApplication.activePopupWidget()
    if popup is None:
        raise AssertionError(f"{combo.accessibleName()} opened no list")
    keys = popup.focusWidget() or popup
    QTest.keyClick(keys, Qt.Key.Key_Home)
    for _step in range(index):
        QTest.keyClick(keys, Qt.Key.Key_Down)
    QTest.keyClick(keys, Qt.Key.Key_Return)
    await to_front(combo.window())
    if combo.currentIndex() != index:
        raise AssertionError(f"{combo.accessibleName()}: could not reach {text!r}")


async def to_front(window: QWidget) -> None:
    """The window made the active one, as a click on it does under a window manager (Xvfb
    runs none, and the offscreen platform has none): its keys and shortcuts are its own."""
    window.activateWindow()
    await until(lambda: QApplication.activeWindow() is window, f"{window.objectName()} active")


async def save_as(path: Path, dialog_name: str = "save-dialog") -> None:
    """The file dialog that opens: the whole path typed into its name field, Enter. (A file
    saved over would make the dialog ask first, in a loop of its own run inside this task's
    step: the soak's names are new each time.)"""
    if dialog_name == "save-dialog" and await asyncio.to_thread(path.exists):
        raise AssertionError(f"{path.name} is there already")
    box = await until(lambda: shown_window(dialog_name), f"the {dialog_name}")
    name = box.findChild(QLineEdit, "fileNameEdit")
    press.type_into(name, str(path))
    press.enter(name)


def add_rows(path: Path, first: int) -> None:
    """Rows typed under the template's examples, as finance fills it in (no reference:
    PayDesk makes one)."""
    with open(path, encoding="utf-8-sig", newline="") as file:
        headers = next(csv.reader(file))
    with open(path, "a", encoding="utf-8", newline="") as file:
        out = csv.writer(file)
        for n in range(first, first + BULK_ROWS):
            values = {
                "amount": str(20 + n % 50),
                "currency": "GBP",
                "email": f"parent{n}@example.com",
                "first_name": "Ada",
                "last_name": f"Parent{n}",
                "title": "Term fees",
                "description": f"Soak row {n}",
            }
            out.writerow([values.get(h, "") for h in headers])


class DayMix:
    """The day's mix, pressed through the window (a mixin of bench_soak's ``Desk``)."""

    window: object
    folder: Path
    done: object
    _files = 0

    def new_file(self, stem: str, suffix: str) -> Path:
        """A name not used before in the soak's folder (a step stuck half-way leaves its file)."""
        self._files += 1
        return self.folder / f"{stem}-{self._files}{suffix}"

    def menu(self, menu, action) -> None:
        """A menu of the menu bar clicked open, then its entry clicked."""
        bar = self.window.menuBar()
        press.click(bar, pos=bar.actionGeometry(menu.menuAction()).center())
        if not menu.isVisible():
            raise AssertionError(f"the {menu.title()} menu did not open")
        press.click(menu, pos=menu.actionGeometry(action).center())

    # the counter's other monitor --------------------------------------------------------

    async def display(self) -> None:
        """The customer display moved to the other monitor (full screen there), a customer
        served on it, closed, and back beside the amount box."""
        tab = self.window.counter_tab
        self.show_tab(tab)
        await until(lambda: tab.loaded, "the Counter tab")
        place = tab.place
        if place.is_open:
            press.click(place.toggle)
        monitors = [place.screens.itemText(i) for i in range(place.screens.count()) if place.screens.itemData(i)]
        if monitors:  # a counter with one screen has only "beside the amount box"
            await choose(place.screens, monitors[0])
        press.click(place.toggle)
        if monitors:
            await until(
                lambda: place.display is not None and place.display.isVisible(), "the customer display on its monitor"
            )
        await self.sale()
        press.click(place.toggle)
        await until(lambda: not any(v.isVisible() for v in place.views), "the display closed")
        if monitors:
            await choose(place.screens, _(THIS_SCREEN))
        self.done["display"] += 1

    # bulk links -------------------------------------------------------------------------

    async def bulk(self) -> None:
        """Bulk links…: the template downloaded, rows added, chosen, checked, created."""
        path = self.new_file("term-fees", ".csv")
        links = self.window.links_tab
        self.show_tab(links)
        press.click(links.bulk)
        window = await until(lambda: shown_window("bulk-window"), "the Bulk links window")
        if window.stack.currentWidget() is window.progress_step:
            await until(lambda: window.progress_step.again.isVisible(), "Another file…")
            press.click(window.progress_step.again)
        while window.stack.currentWidget() is not window.file_step:
            press.click(window.back)
        press.click(window.file_step.template)
        await save_as(path)
        await until(lambda: path.exists() and "Template saved" in window.file_step.message.text(), "the template saved")
        add_rows(path, self._files * BULK_ROWS)
        press.click(window.file_step.choose)
        await save_as(path, "bulk-open-dialog")
        await until(lambda: window.stack.currentWidget() is window.mapping_step, "the columns")
        press.click(window.next)
        step = window.check_step
        await until(
            lambda: window.stack.currentWidget() is step and not step.checking and step.create.isEnabled(),
            "the dry run",
        )
        press.click(step.create)
        outcome = window.progress_step.outcome
        await until(
            lambda: window.stack.currentWidget() is window.progress_step and outcome.isVisible() and outcome.text(),
            "the batch created",
            120,
        )
        press.click(window.close_button)
        self.done["bulk"] += 1

    async def batch_outputs(self) -> None:
        """View > Batches…: the newest batch's QR sheet (PDF) and its results (CSV or XLSX),
        then Escape."""
        if not self.done["bulk"]:
            return
        self.menu(self.window.view_menu, self.window.bulk.batches_action)
        window = await until(lambda: shown_window("batches-window"), "the Batches window")
        await until(lambda: window.shown_batch is not None and window.qr.isEnabled(), "a batch chosen")
        sheet = self.new_file("codes", ".pdf")
        press.click(window.qr)
        await save_as(sheet)
        await until(lambda: sheet.exists() and sheet.name in window.said.text(), "the QR sheet")
        self.done["qr sheet"] += 1
        results = self.new_file("results", ".xlsx" if self.done["results"] % 2 else ".csv")
        press.click(window.results)
        await save_as(results)
        await until(lambda: results.exists() and results.name in window.said.text(), "the results file")
        self.done["results"] += 1
        await to_front(window)
        press.key(window, Qt.Key.Key_Escape)
        await until(lambda: not window.isVisible(), "the Batches window closed")
        for path in (sheet, results):
            path.unlink()

    # the other windows ------------------------------------------------------------------

    async def notifications(self) -> None:
        """View > Notifications…: searched for a reference, a row chosen if any, Escape."""
        self.menu(self.window.view_menu, self.window.notifications_action)
        window = await until(lambda: shown_window("notifications-window"), "Notifications")
        await until(lambda: window.count.text(), "the notifications counted")
        if self.paid:
            press.type_into(window.search, self.paid[-1])
            press.clear(window.search)
        table = window.table  # a row chosen (or the empty list clicked): the keyboard there
        first = table.visualRect(window.model.index(0, 0)) if window.model.rowCount() else None
        press.click(table.viewport(), pos=first.center() if first is not None else None)
        await to_front(window)
        press.key(window, Qt.Key.Key_Escape)
        await until(lambda: not window.isVisible(), "the Notifications window closed")
        self.done["notifications"] += 1

    async def profile_editor(self) -> None:
        """Edit profile…: Check keys, then Cancel."""
        press.click(self.window.edit_profile)
        editor = await until(lambda: shown_window("profile-editor"), "the profile editor")
        secret = editor.key_fields[("test", "secret")]
        await until(lambda: secret.text(), "the keys loaded")
        press.click(editor.check_button)
        await until(
            lambda: editor.check_button.isEnabled() and editor.status.text().startswith(("All keys", "Fix")),
            "the keys checked",
        )
        press.click(editor.cancel_button)
        await until(lambda: shown_window("profile-editor") is None, "the editor closed")
        self.done["profile"] += 1

    def put_straight_windows(self) -> None:
        """After a step that got stuck: the windows of its own it left open, closed."""
        for name in ("bulk-window", "batches-window", "notifications-window"):
            window = shown_window(name)
            if window is not None:
                window.close()
