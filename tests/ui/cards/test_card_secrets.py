"""Full card numbers and security codes: shown only after Reveal, hidden again after the time
or when PayDesk loses focus, never in an accessible name while hidden, cleared from the
clipboard, and after a whole session nowhere on disk (ledger, audit log, logs, crash report,
settings)."""

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtGui import QAccessible, QGuiApplication
from PySide6.QtWidgets import QApplication, QWidget

from paydesk import logs
from paydesk.ledger.cards import AuditQuery
from paydesk.ui.cards.secret import HIDDEN_CODE, HIDDEN_NUMBER, grouped
from paydesk.ui.crash import ExceptionHook, report_text
from tests.ui.cards.test_wallet import Desk


def accessible_text(root) -> str:
    """Every name, description and value in the accessibility tree under ``root``."""
    out, seen = [], set()

    def walk(iface, depth=0):
        if iface is None or not iface.isValid() or depth > 40:
            return
        key = id(iface.object()) if iface.object() is not None else None
        if key is not None and key in seen:
            return
        seen.add(key)
        for kind in (QAccessible.Text.Name, QAccessible.Text.Description, QAccessible.Text.Value):
            out.append(iface.text(kind))
        for i in range(iface.childCount()):
            walk(iface.child(i), depth + 1)

    walk(QAccessible.queryAccessibleInterface(root))
    return "\n".join(out)


@pytest.fixture
def desk(start_app, loop, paths):
    hook = ExceptionHook(paths.logs / "paydesk.log").install()
    log_path = logs.setup(paths.logs)
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    desk.hook, desk.log_path = hook, log_path
    yield desk
    hook.uninstall()
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, "_paydesk", False)]:
        root.removeHandler(handler)
        handler.close()


def issued(desk):
    with sqlite3.connect(desk.session.sandbox.data_dir / "sandbox.sqlite3") as db:
        return db.execute("SELECT card_pan, cvv FROM cards").fetchall()


def test_reveal_hides_again_and_nothing_leaks(desk, loop, paths):
    page = desk.tab.page
    secret = page.secret
    _, card = desk.create("30", "GBP")
    (pan, cvv), = issued(desk)
    window = desk.window
    window.activateWindow()
    loop.until(lambda: QGuiApplication.focusWindow() is window.windowHandle(), message="focus")

    hidden = accessible_text(window)
    assert pan not in hidden and grouped(pan) not in hidden
    assert secret.number.accessibleName() == HIDDEN_NUMBER and secret.code.accessibleName() == HIDDEN_CODE
    assert secret.number.text().endswith(pan[-4:]) and pan not in secret.number.text()

    secret.show_for_ms = 600
    desk.press(secret.reveal_button)
    loop.until(lambda: secret.shown, message="revealed")
    assert secret.number.text() == grouped(pan) and secret.code.text() == cvv
    assert grouped(pan) in accessible_text(window)  # the walk sees a shown number...
    loop.until(lambda: not secret.shown, timeout=5, message="hidden after the time")
    assert grouped(pan) not in accessible_text(window)  # ...and none once hidden
    assert secret.number.accessibleName() == HIDDEN_NUMBER

    secret.show_for_ms = 30_000
    desk.press(secret.reveal_button)
    loop.until(lambda: secret.shown, message="revealed again")
    other = QWidget()
    other.setWindowTitle("Another window")
    other.show()
    other.activateWindow()
    loop.until(lambda: not secret.shown, timeout=5, message="hidden when focus leaves")
    assert pan not in secret.number.text() and cvv != secret.code.text()
    other.close()
    window.activateWindow()
    loop.until(lambda: QGuiApplication.focusWindow() is window.windowHandle(), message="focus back")

    # copy: on the clipboard, then off it after the time
    clipboard = QApplication.clipboard()
    secret.clear_after_ms = 400
    desk.press(secret.copy_button)
    loop.until(lambda: clipboard.text() == pan, message="the number on the clipboard")
    assert not secret.shown  # copying does not show it
    loop.until(lambda: clipboard.text() == "", timeout=5, message="the clipboard cleared")
    # unless something else was copied since
    desk.press(secret.copy_button)
    loop.until(lambda: clipboard.text() == pan, message="copied again")
    clipboard.setText("an invoice number")
    loop.run(asyncio.sleep(0.8))
    assert clipboard.text() == "an invoice number"

    # the audit log says what was done, never the number
    lines, _ = loop.run(desk.session.card_ledger.audit_page(AuditQuery(desk.profile.id, "test")))
    actions = [e.action for e in lines]
    assert actions.count("reveal") == 2 and actions.count("copy number") == 2

    # a crash report written now holds no number either
    try:
        raise RuntimeError(f"while showing card {card.masked}")
    except RuntimeError as error:
        report = report_text(type(error), error, error.__traceback__)
    window.close()
    loop.until(lambda: desk.app.task.done(), timeout=20, message="PayDesk to stop")
    logging.getLogger().handlers[-1].flush()

    leaks = []
    for path in Path(paths.data).rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            for value in (pan, grouped(pan)):
                if value.encode() in raw:
                    leaks.append(f"{value[-4:]} in {path}")
            if cvv and f'"{cvv}"'.encode() in raw or f"cvv={cvv}".encode() in raw:
                leaks.append(f"security code in {path}")
    logs.flush()
    for text in (report, desk.log_path.read_text("utf-8") if desk.log_path.exists() else ""):
        assert pan not in text and grouped(pan) not in text
    assert leaks == []
    files = {p.name for p in Path(paths.data).rglob("*") if p.is_file()}
    assert "ledger.sqlite3" in files and "paydesk.log" in files  # the scan read them


def test_every_issued_number_is_kept_out_of_the_ledger(desk, loop, paths):
    """Several cards, refreshed, revealed: scan the ledger for every PAN and CVV issued."""
    for amount in ("11", "12", "13"):
        desk.create(amount, "USD")
    desk.tab.request_refresh()
    loop.until(lambda: desk.tab.wallet.as_of.text().startswith("Up to date"), message="refresh")
    desk.press(desk.tab.page.secret.reveal_button)
    loop.until(lambda: desk.tab.page.secret.shown, message="revealed")
    values = issued(desk)
    desk.window.close()
    loop.until(lambda: desk.app.task.done(), timeout=20, message="PayDesk to stop")
    ledger = b"".join(p.read_bytes() for p in Path(paths.data).glob("ledger.sqlite3*"))
    with sqlite3.connect(paths.data / "ledger.sqlite3") as db:
        dump = "\n".join(db.iterdump())
    assert len(values) == 3
    for pan, cvv in values:
        assert pan.encode() not in ledger and pan not in dump
        assert f"'{cvv}'" not in dump  # no column holds a security code
