"""Full card numbers and security codes: shown only after Reveal, hidden again after the time
or when PayDesk loses focus, never in an accessible name while hidden, cleared from the
clipboard, and after a whole session nowhere on disk (ledger, audit log, logs, crash report,
settings)."""

import asyncio
import json
import logging
import re
import sqlite3
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QAccessible, QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from paydesk import logs
from paydesk.ledger.cards import AuditQuery
from paydesk.ui.cards.secret import HIDDEN_CODE, HIDDEN_NUMBER, grouped
from paydesk.ui.crash import ExceptionHook
from tests.ui import press
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


def pan_forms(pan: str) -> set[str]:
    """A card number as text may hold it: whole, in groups of four (spaces or hyphens)."""
    return {pan, grouped(pan), grouped(pan).replace(" ", "-")}


def cvv_pattern(cvv: str) -> re.Pattern:
    """The security code next to a cvv-ish key, in every textual form: JSON ``"cvv": "123"``
    (escaped inside a JSON string too), repr ``'cvv': '123'``, ``cvv=123``, ``CVC: 123``."""
    key = r"(?:cvv2?|cvc2?|csc|security[_ ]?code|card_?code)"
    return re.compile(rf"""(?i)\b{key}\b[\\"']*\s*[:=]\s*[\\"']*{cvv}(?![0-9])""")


def leaks(text: str, where: str, secrets) -> list[str]:
    found = []
    for pan, cvv in secrets:
        found += [f"card ending {pan[-4:]} in {where}" for form in pan_forms(pan) if form in text]
        if cvv_pattern(cvv).search(text):
            found.append(f"the security code of card ending {pan[-4:]} in {where}")
    return found


def files_to_scan(paths) -> list[Path]:
    """Everything PayDesk keeps: its data folder (ledger and its journal, logs, window.ini,
    profiles) and the home folder (Qt's own QSettings, caches), but not the sandbox's own
    data: it is the service, which holds the numbers it issued."""
    roots = [Path(paths.data), Path.home()]
    out = []
    for root in roots:
        for path in root.rglob("*"):
            if (
                path.is_file()
                and Path(paths.sandbox) not in path.parents
                and not path.name.startswith("sandbox.sqlite3")
            ):
                out.append(path)
    return out


def scan_files(paths, secrets) -> tuple[list[str], set[str]]:
    found, names = [], set()
    for path in files_to_scan(paths):
        names.add(path.name)
        found += leaks(path.read_bytes().decode("utf-8", "replace"), str(path), secrets)
    return found, names


def crash_with_card(desk, card_hash) -> str:
    """An unexpected error whose text carries the card as the service answered it (JSON, a
    dict's repr, key=value), through PayDesk's own exception hook: the report it shows."""
    data = desk.api("GET", f"api/virtual_card/card/{card_hash}")["data"]
    try:
        raise ValueError(
            f"unexpected card answer {json.dumps(data)}; as read: {data!r}; "
            f"card_pan={data['card_pan']} cvv={data['cvv']}; shown as "
            f"{grouped(data['card_pan'])}"
        )
    except ValueError:
        desk.hook(*sys.exc_info())
    dialog = desk.hook.dialogs[-1]
    report = dialog.report.toPlainText() + "\n" + "\n".join(label.text() for label in dialog.findChildren(QLabel))
    press.click(press.button(dialog, "Close"))
    desk.loop.until(lambda: press.closed(dialog), message="the report closed")
    assert "ValueError" in report and "unexpected card answer" in report
    return report


def test_reveal_hides_again_and_nothing_leaks(desk, loop, paths):
    page = desk.tab.page
    secret = page.secret
    _, card = desk.create("30", "GBP")
    ((pan, cvv),) = issued(desk)
    window = desk.window
    window.activateWindow()
    loop.until(lambda: QGuiApplication.focusWindow() is window.windowHandle(), message="focus")

    # the card's page is read after it is created: its last four once it is
    loop.until(lambda: secret.number.text().endswith(pan[-4:]), message="the last four shown")
    hidden = accessible_text(window)
    assert pan not in hidden and grouped(pan) not in hidden
    assert secret.number.accessibleName() == HIDDEN_NUMBER and secret.code.accessibleName() == HIDDEN_CODE
    assert pan not in secret.number.text()

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

    # a crash report made now holds neither the number nor the code, in any form
    report = crash_with_card(desk, card.card_hash)
    secrets = issued(desk)
    assert secrets == [(pan, cvv)]
    window.close()
    loop.until(lambda: desk.app.task.done(), timeout=20, message="PayDesk to stop")
    logs.flush()

    assert leaks(report, "the crash report", secrets) == []
    found, names = scan_files(paths, secrets)
    assert found == []
    # the scan read what matters: the ledger, the log (with the crash in it), the window's
    # settings
    assert {"ledger.sqlite3", "paydesk.log", "window.ini"} <= names
    assert "unexpected card answer" in desk.log_path.read_text("utf-8")


def test_every_issued_number_and_code_is_kept_out_of_every_file(desk, loop, paths):
    """Several cards, refreshed, revealed, one in a crash: scan every file PayDesk keeps
    (and its ledger's rows) for every PAN and CVV issued."""
    for amount in ("11", "12", "13"):
        desk.create(amount, "USD")
    desk.press(desk.tab.wallet.refresh_button)
    loop.until(lambda: desk.tab.wallet.as_of.text().startswith("Up to date"), message="refresh")
    desk.press(desk.tab.page.secret.reveal_button)
    loop.until(lambda: desk.tab.page.secret.shown, message="revealed")
    report = crash_with_card(desk, desk.tab.page.record.card_hash)
    values = issued(desk)
    desk.window.close()
    loop.until(lambda: desk.app.task.done(), timeout=20, message="PayDesk to stop")
    logs.flush()
    assert len(values) == 3
    assert leaks(report, "the crash report", values) == []
    found, names = scan_files(paths, values)
    assert found == [] and {"ledger.sqlite3", "paydesk.log", "window.ini"} <= names
    with sqlite3.connect(paths.data / "ledger.sqlite3") as db:
        dump = "\n".join(db.iterdump())
        columns = {
            c[1].lower()
            for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            for c in db.execute(f"PRAGMA table_info('{table}')")
        }
    assert not columns & {"card_pan", "pan", "cvv", "cvc", "card_number"}
    for pan, cvv in values:
        assert not any(form in dump for form in pan_forms(pan))
        assert f"'{cvv}'" not in dump  # no column holds a security code
