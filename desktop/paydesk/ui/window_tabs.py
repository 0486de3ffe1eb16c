"""The main window's tabs (``main_window.py``'s MainWindow takes them from ``WindowTabs``):
the first one built with the window's desk, the others right after the window has painted
(``build_tabs``), or at once when something asks for them first."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

from PySide6.QtWidgets import QWidget

from .tabs import TABS, title

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow, QTabWidget

    from ..desk.build import Desk
    from ..desk.session import Session
    from ..ledger import LinkRecord
    from .cards.tab import CardsTab
    from .counter.tab import CounterTab
    from .transactions.tab import TransactionsTab

    _Window = QMainWindow
else:
    _Window = object


def unbuilt(title: str) -> QWidget:
    page = QWidget()
    page.setAccessibleName(title)
    return page


class WindowTabs(_Window):
    """MainWindow's tabs past the first: built at their first use (``_tab``) or by ``build_tabs``."""

    # what they use of the window, made in main_window.py's MainWindow
    desk: Desk
    session: Session
    tabs: QTabWidget
    _built: dict[str, QWidget]

    if TYPE_CHECKING:  # the window's methods they call, defined in main_window.py

        def focus_tab(self, *_: object) -> None: ...

        def show_qr(self, record: LinkRecord) -> None: ...

    @property
    def built_tabs(self) -> set[str]:
        return set(self._built)

    @property
    def transactions_tab(self) -> TransactionsTab:
        return cast("TransactionsTab", self._tab("transactions"))

    @property
    def cards_tab(self) -> CardsTab:
        return cast("CardsTab", self._tab("cards"))

    @property
    def counter_tab(self) -> CounterTab:
        return cast("CounterTab", self._tab("counter"))

    async def build_tabs(self) -> None:
        """Build the tabs not built yet, one per turn of the loop (events flow between), and
        draw each once out of sight: its first showing then finds it laid out and styled."""
        for _title, name in TABS:
            if name not in self._built:
                self._tab(name)
                await asyncio.sleep(0)
                tab = self._built[name]
                if not tab.isVisible():
                    tab.grab()  # into a pixmap nobody sees; no showEvent
                await asyncio.sleep(0)

    def _tab(self, name: str) -> QWidget:
        tab = self._built.get(name)
        if tab is None:
            tab = self._built[name] = self._make(name)
            index = [n for _title, n in TABS].index(name)
            tab.setAccessibleName(title(index))  # named as its title reads, in any language
            shown, empty = self.tabs.currentIndex(), self.tabs.widget(index)
            self.tabs.blockSignals(True)  # the same tab stays current: nothing to announce
            try:
                self.tabs.removeTab(index)
                self.tabs.insertTab(index, tab, title(index))
                self.tabs.setCurrentIndex(shown)
            finally:
                self.tabs.blockSignals(False)
            if empty is not None:
                empty.deleteLater()
            if shown == index:
                self.focus_tab()
        return tab

    def _make(self, name: str) -> QWidget:
        if name == "transactions":
            from .transactions.tab import TransactionsTab

            tab = TransactionsTab(self.session, self.desk.transactions)
            tab.showQrRequested.connect(self.show_qr)
            return tab
        if name == "counter":
            from .counter.tab import CounterTab

            return CounterTab(self.session, self.desk.counter)
        from .cards.tab import CardsTab

        return CardsTab(self.session, self.desk.cards)

    def _tab_shown(self, index: int) -> None:
        name = TABS[index][1] if 0 <= index < len(TABS) else None
        if name is not None and name not in self._built:
            self._tab(name)  # shown before it was built (a key pressed at once)
        self.focus_tab()
