"""What the first paint does not need is not imported before it (docs/ARCHITECTURE.md,
"Start-up order"): the network stack, the QR encoder, the keyring, the spreadsheet reader,
the shared ledger's driver and the sandbox's server are each imported by what uses them,
after the window is on screen. A module that imports one of them at its top, on the way
to the first paint, costs every start tens of milliseconds (httpx alone, with the rich,
click and pygments it loads for its command line, 40 to 60 ms of a 300 ms start). The desk's
controllers of the tabs not shown first (transactions, cards, bulk) and the notification
test are made at their first use, after the first paint: their modules are not imported
before it either. The first paint is the window's frame ("Opening the ledger…"): the ledger,
the desk and the first tab are imported after it, while it shows."""

import os
import subprocess
import sys

# packages (and PayDesk's own parts) a start of `paydesk --sandbox` must not import before
# the window's first paint
NOT_BEFORE_FIRST_PAINT = (
    "httpx",
    "httpcore",
    "rich",
    "click",
    "pygments",
    "zxingcpp",
    "keyring",
    "openpyxl",
    "psycopg",
    "psycopg_pool",
    "argon2",  # staff PINs: hashed on a worker thread when someone signs in
    "starlette",
    "uvicorn",
    "paydesk.sandbox",
    "paydesk.receiver",
    # the desk's parts the first paint does not use (desk/build.py's Desk makes them at
    # their first use): the Transactions, Cards and Bulk controllers and what only they
    # use, and Send a test notification with the sandbox's control calls
    "paydesk.desk.transactions",
    "paydesk.desk.reconcile",
    "paydesk.desk.export",
    "paydesk.desk.cards",
    "paydesk.desk.bulk",
    "paydesk.desk.notify_test",
    "paydesk.service.sandbox_control",
    # the window's frame paints before the desk is built and its ledger opened (app.run):
    # the ledger, the desk's composition and session, the first tab and the sign-in screen
    # are imported after that first paint
    "paydesk.ledger",
    "paydesk.desk.build",
    "paydesk.desk.session",
    "paydesk.ui.links",
    "paydesk.ui.staff",
)


def imported_before_first_paint(tmp_path) -> list[str]:
    """The modules `paydesk --sandbox` had imported when its window first painted, in the
    order their imports ended (Python's own -X importtime, read up to the app's paint line)."""
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PAYDESK_REPORT_PAINT="1",
        PAYDESK_QUIT_AFTER="1",
        PAYDESK_HOME=str(tmp_path / "data"),
        PAYDESK_SANDBOX_HOME=str(tmp_path / "sandbox"),
    )
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "paydesk", "--sandbox", "--no-keyring"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )
    lines = done.stdout.splitlines()
    assert "first-paint" in lines, f"the window never painted:\n{done.stdout[-2000:]}"
    names = []
    for line in lines[: lines.index("first-paint")]:
        if line.startswith("import time:") and "|" in line and "[us]" not in line:
            names.append(line.rsplit("|", 1)[1].strip())
    return names


def test_first_paint_imports_only_what_it_needs(tmp_path):
    names = imported_before_first_paint(tmp_path)
    assert "paydesk.ui.main_window" in names  # the reading works: the window's own module is there
    early = [heavy for heavy in NOT_BEFORE_FIRST_PAINT if any(n == heavy or n.startswith(heavy + ".") for n in names)]
    assert early == [], f"imported before the first paint: {early}"
