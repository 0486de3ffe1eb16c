"""The layout audit's states (tests/ui/test_layout_audit.py runs them): each test runs on
one screen of the size PAYDESK_AUDIT_SCREEN names ("1024x768"), which Qt's offscreen platform
was given in a configuration file; PAYDESK_AUDIT_SHOTS=<folder> saves a picture of each
state looked at."""

from __future__ import annotations

import os

import pytest
from PySide6.QtGui import QGuiApplication

from tests.ui.layout_audit import Finding, audit, moved, report

SCREEN = os.environ.get("PAYDESK_AUDIT_SCREEN", "")  # "1280x800": set by test_layout_audit.py
SHOTS = os.environ.get("PAYDESK_AUDIT_SHOTS", "")  # a folder: each state's picture saved there


@pytest.fixture(autouse=True)
def _on_the_chosen_screen():
    width, height = (int(n) for n in SCREEN.split("x"))
    screen = QGuiApplication.primaryScreen().geometry()
    assert (screen.width(), screen.height()) == (width, height), (
        f"the screen is {screen.width()}×{screen.height()}, not {SCREEN}: run through tests/ui/test_layout_audit.py"
    )


class Seen:
    """The findings of one test's states, said together at its end."""

    def __init__(self):
        self.found: list[tuple[str, list[Finding]]] = []

    def look(self, window, state: str, checks=None) -> None:
        found = audit(window) if checks is None else audit(window, checks=checks)
        self.found.append((state, found))
        if SHOTS:  # to see what the findings are about
            name = "".join(c if c.isalnum() else "-" for c in state)[:80]
            window.grab().save(os.path.join(SHOTS, f"{SCREEN}-{name}.png"))

    def steady(self, window, act, messages, state: str) -> None:
        """``act`` shows (or clears) ``messages``: nothing else in the window moves."""
        self.found.append((state, moved(window, act, messages, what=state)))

    def said(self) -> str:
        return "\n".join(report(f, f"{state} at {SCREEN}") for state, f in self.found if f)


@pytest.fixture
def seen():
    seen = Seen()
    yield seen
    said = seen.said()
    assert not said, said


@pytest.fixture
def app(start_app, loop):
    # PAYDESK_AUDIT_LANGUAGE: the staff's language the audit runs in (test_layout_audit.py
    # runs the pseudo-language, longer and accented, on the smaller screen)
    app = start_app(sandbox=True, language=os.environ.get("PAYDESK_AUDIT_LANGUAGE") or None)
    app.on_links_tab(size=None)  # as it opens on this screen
    return app


@pytest.fixture(scope="module")
def ledgers(pg_server):
    """The shared ledgers the set-up dialogs are tried on (reach.py's ``Ledgers``): the
    session's PostgreSQL, and one of this module's that lets desks in over TLS only."""
    from tests import postgres
    from tests.ui.layout_states.reach import TLS_ONLY_HBA, make_ledgers

    tls = postgres.Cluster()
    (tls.data / "pg_hba.conf").write_text(TLS_ONLY_HBA)
    try:
        tls.start()
        yield make_ledgers(pg_server, tls)
    finally:
        tls.remove()
