"""The Payment links tab while the shared ledger is out of reach: Create link is disabled with
the reason beside it (never "Ready to create" then a crash dialog), a press the desk could not
foresee is refused with the same sentence, nothing is written or sent; once the ledger is
back the button and its words are as before. A ledger error that slips through to the
exception hook is said in the status bar, never as an unexpected problem."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication

from paydesk.ledger.postgres.engine import LedgerUnreachable
from paydesk.ui.crash import CrashDialog
from tests.ui import press
from tests.ui.outage.conftest import refused


def fill(form, ref: str) -> None:
    for key, text in dict(
        amount="42", email="ada@example.com", first_name="Ada", last_name="Lovelace", title="Flat white", tx_ref=ref
    ).items():
        press.type_into(getattr(form, key), text)


def test_create_link_is_refused_beside_the_button_while_the_ledger_is_down(shop):
    shop = shop()
    form = shop.window.links_tab.form
    fill(form, "SHOP-DOWN-1")
    assert form.create_button.isEnabled()
    calls = shop.calls()
    with shop.down():
        shop.loop.until(
            lambda: not form.create_button.isEnabled(), message="Create link disabled while the ledger is out of reach"
        )
        assert refused(form.why_disabled.text()), form.why_disabled.text()
        assert form.why_disabled.isVisible()
        assert refused(form.why_disabled.accessibleName())
        assert refused(form.create_button.toolTip())
        # Enter in a field (the button is the form's default) does nothing either
        press.click(form.title)
        press.enter(form.title)
        shop.settle()
        shop.no_crash()
    shop.loop.until(form.create_button.isEnabled, timeout=30, message="Create link again")
    assert form.why_disabled.text() == ""
    assert form.why_disabled.accessibleName() == "Ready to create"
    assert shop.calls() == calls  # nothing sent
    assert shop.loop.run(shop.session.ledger.get(shop.profile.id, "SHOP-DOWN-1")) is None
    shop.no_crash()


def test_a_create_that_meets_the_ledger_gone_is_refused_with_the_sentence(shop):
    """The desk did not know yet (no feed, no lease running): the press finds out, and says
    so where it was pressed; the button then waits for the ledger."""
    shop = shop(background=False)
    tab = shop.window.links_tab
    fill(tab.form, "SHOP-DOWN-2")
    calls = shop.calls()
    with shop.down(noticed=False):
        task = press.click_starting(tab.form.create_button, "create")
        shop.loop.run(task, timeout=30)
        assert refused(tab.form.why_disabled.text()), tab.form.why_disabled.text()
        assert not tab.form.create_button.isEnabled()
        shop.no_crash()
    shop.back()
    shop.loop.until(tab.form.create_button.isEnabled, timeout=30, message="Create link again")
    assert tab.form.why_disabled.text() == ""
    assert shop.calls() == calls
    assert shop.loop.run(shop.session.ledger.get(shop.profile.id, "SHOP-DOWN-2")) is None
    shop.no_crash()


def test_new_reference_while_the_ledger_is_down_says_so(shop):
    shop = shop()
    form = shop.window.links_tab.form
    before = form.tx_ref.text()
    with shop.down():
        press.click(form.new_ref)
        shop.settle()
        assert form.tx_ref.text() == before  # the reference stays as it was
        assert refused(form.why_disabled.text())
        shop.no_crash()


def test_a_ledger_error_reaching_the_crash_hook_is_said_not_shown_as_a_crash(shop):
    """Should one slip through a path: the status bar says the sentence; no dialog opens."""
    shop = shop()
    error = LedgerUnreachable(__import__("datetime").datetime.now().astimezone())
    try:
        raise error
    except LedgerUnreachable:
        sys.excepthook(*sys.exc_info())
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, CrashDialog) and w.isVisible()]
    bar = shop.window.statusBar()
    assert refused(bar.currentMessage()), bar.currentMessage()
    shop.crashes.clear()
