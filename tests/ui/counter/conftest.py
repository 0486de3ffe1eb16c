"""The Counter tab of a running PayDesk on its embedded sandbox, opened as staff open it
(Ctrl+4), its profile given the shop's e-mail (the counter's default for walk-in customers)."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit

from paydesk.ui.counter.display import CustomerView
from paydesk.ui.counter.sales import REFERENCE, STATE
from paydesk.ui.counter.tab import CounterTab
from tests import helpers
from tests.ui import press

SHOP_EMAIL = "till@example.com"


class Counter:
    """The app, its Counter tab, and the sandbox as its operator sees it."""

    def __init__(self, app, loop):
        self.app, self.loop, self.window = app, loop, app.window
        self.tab: CounterTab = app.window.counter_tab

    @property
    def view(self) -> CustomerView | None:
        """The customer's view on screen: the display's window (shown), or the view beside
        the amount box (shown); None when neither is."""
        display = press.shown("customer-display")
        if display is not None:
            return display.findChild(CustomerView)
        beside = self.tab.findChild(CustomerView)
        return beside if beside is not None and beside.isVisible() else None

    def calls(self, ending: str = "/api/payment") -> int:
        """How many calls this merchant's test key made to a path ending so (the call log)."""
        key = self.loop.run(self.app.session.key())
        answer = httpx.get(
            f"{self.app.session.profile.base_url}/_sandbox/requests",
            headers={"Authorization": f"Bearer {key}"},
            timeout=10,
        )
        answer.raise_for_status()
        return sum(1 for call in answer.json()["data"] if call["path"].endswith(ending))

    def pay(self, sale, outcome: str = "success") -> None:
        """The customer pays the sale's link (the sandbox's control API)."""
        helpers.control(
            self.app.session.profile.base_url,
            self.loop.run(self.app.session.key()),
            f"pay/{sale.record.reference}",
            {"outcome": outcome},
        )

    def sell(self, amount: str):
        """Type the amount into the box and press Enter: the sale made (its task's outcome)."""
        press.type_into(self.tab.amount, amount)
        task = press.starting("sell", lambda: press.enter(self.tab.amount))
        return self.loop.run(task, timeout=60)

    def listed_state(self, tx_ref: str) -> str | None:
        """The State column of the sale's row in today's list, as the list shows it (the
        model's display role), found by its Reference column; None when it is not listed."""
        model = self.tab.sales.model()
        for row in range(model.rowCount()):
            if model.index(row, REFERENCE).data() == tx_ref:
                return model.index(row, STATE).data()
        return None

    def texts_on_display(self) -> list[str]:
        """Every text the customer's view shows."""
        view = self.view
        assert view is not None and view.isVisible()
        assert not view.findChildren(QLineEdit), "the customer's view has something to type in"
        return [label.text() for label in view.findChildren(QLabel) if label.isVisibleTo(view) and label.text()]


def open_counter_tab(app, loop) -> Counter:
    """Ctrl+4, as staff open the Counter tab; once its list is loaded."""
    window = app.window
    press.key(window.focusWidget() or window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    counter = Counter(app, loop)
    loop.until(lambda: window.tabs.currentWidget() is counter.tab, message="the Counter tab")
    loop.until(lambda: counter.tab.loaded, message="the Counter tab loaded")
    return counter


@pytest.fixture
def counter(start_app, loop):
    """PayDesk on its sandbox with the shop's e-mail set, on the Counter tab, the customer's
    view open beside the amount box (one screen)."""
    app = start_app(sandbox=True)
    app.on_links_tab()
    session = app.session
    loop.run(session.save_profile(replace(session.profile, shop_email=SHOP_EMAIL), {}))
    counter = open_counter_tab(app, loop)
    press.click(counter.tab.place.toggle)
    assert counter.view is counter.tab.place.beside and counter.view.isVisible()
    return counter
