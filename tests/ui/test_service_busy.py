"""The service's budget as a person sees it (issue 30): a create that meets the service's
limit waits, saying "Waiting for the service (3 s)" where the person acted (Create link, the
counter's Enter), and is made; the status bar says the service is busy while it is, and the
words go with their cause; the profile editor takes "Calls a minute this service allows".

The service is a sandbox throttled per client address with a short window; another program
on the same address (``tests/throttle.py``'s ``foreign``) has spent the window when the
person presses, so the create waits for the window's end (its send at most once refused)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from paydesk.ui.profile_editor import ProfileEditor
from tests.profiles import use_profile
from tests.throttle import foreign, requests_of
from tests.ui import press
from tests.ui.counter.conftest import open_counter_tab
from tests.ui.test_links import fill

LIMIT, WINDOW = 3, 3


@pytest.fixture
def busy_app(start_app, loop, make_sandbox):
    """PayDesk on a throttled service (its window the budget's), the window of calls spent
    by another program on the same address."""
    app = start_app(sandbox=True)
    app.on_links_tab()
    sb = make_sandbox("busy", base_path="/pay", rate_limit=LIMIT, rate_limit_window=WINDOW)
    app.session.budgets.window = WINDOW  # the service's window (a minute for the family)
    use_profile(loop, app.session, sb, name="Busy", txref_prefix="BSY", shop_email="till@example.com")
    loop.until(lambda: app.window.links_tab.loaded, message="the links tab")
    app.sb = app.service = sb
    return app


def spend_the_window(sb) -> None:
    with foreign(sb) as other:
        for n in range(LIMIT):
            other.get(f"/api/transaction/OTHER-{n}")


def status_busy(window) -> str:
    """What the status bar says of the service's budget (its words shown, or "")."""
    label = window.statusBar().busy
    return label.text() if label.isVisible() else ""


def test_create_link_waits_for_the_service_and_says_so(busy_app, loop):
    app, tab = busy_app, busy_app.window.links_tab
    fill(tab)
    spend_the_window(app.sb)
    task = press.click_starting(tab.form.create_button, "create")
    waiting = loop.until(
        lambda: tab.form.why_disabled.text().startswith("Waiting for the service ("),
        10,
        "the wait said beside Create link",
    )
    assert waiting and not tab.form.create_button.isEnabled()
    assert tab.form.why_disabled.accessibleName() == tab.form.why_disabled.text()
    said = loop.until(lambda: status_busy(app.window), 5, "the status bar's words")
    assert said.startswith("Service busy: it asked to wait ")
    record = loop.run(task, timeout=30)
    assert record is not None and record.checkout_url  # made: never refused on a 429
    assert not tab.form.why_disabled.text().startswith("Waiting")
    loop.until(lambda: status_busy(app.window) == "", 5, "the status bar's words gone")
    # one link made, at most one send refused first: the budget waits on what the service
    # said of the window (its Remaining, or a 429 to whichever call met the spent window)
    posts = [c["status"] for c in requests_of(app.sb) if c["method"] == "POST"]
    assert posts in ([201], [429, 201])


def test_a_counter_sale_waits_for_the_service_and_says_so(busy_app, loop):
    counter = open_counter_tab(busy_app, loop)
    press.type_into(counter.tab.amount, "12")
    spend_the_window(busy_app.sb)
    task = press.starting("sell", lambda: press.enter(counter.tab.amount))
    loop.until(
        lambda: counter.tab.message.text().startswith("Waiting for the service ("), 10, "the wait said under the sale"
    )
    assert counter.tab.message.isVisible()
    sale = loop.run(task, timeout=30)
    assert sale is not None and sale.record.checkout_url
    assert not counter.tab.message.text().startswith("Waiting")


def test_the_calls_a_minute_a_profile_allows(session, loop, sandbox, qtbot):
    from tests.profiles import add_profile

    profile = loop.run(add_profile(session, sandbox, txref_prefix="CALL"))
    editor = ProfileEditor(session, profile)
    qtbot.addWidget(editor)
    editor.show()
    loop.run(editor.load_keys())
    press.type_into(editor.calls, "sixty")
    press.click(editor.save_button)
    loop.until(lambda: len(editor.tasks) == 0, 30, "Save to finish")
    assert editor.calls_message.text() == "A whole number of calls, e.g. 60; or leave it empty"
    assert not press.closed(editor) and session.profile.calls_a_minute is None
    press.type_into(editor.calls, "30")
    press.click(editor.save_button)
    loop.until(lambda: press.closed(editor), 30, "the profile saved")
    assert session.profile.calls_a_minute == 30
    saved = replace(session.profile)
    budget = session.budgets.of(saved)
    assert budget.hand == 30  # the budget keeps to 30 a minute, whatever the service says
