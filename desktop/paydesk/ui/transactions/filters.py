"""The ledger browser's search box and filters: state, currency, and a date range in local
time (today, yesterday, last 7 days, this month, custom)."""

from __future__ import annotations

from datetime import date
from typing import cast

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import QComboBox, QDateEdit, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from ...desk.day import CUSTOM, RANGES, date_range
from ...desk.states import STATE_FILTERS
from ...i18n import _, pgettext
from ...ledger import LinkQuery


class FilterBar(QWidget):
    changed = Signal()  # any filter or the search text changed

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("ledger-filters")
        rows = QVBoxLayout(self)
        rows.setContentsMargins(0, 0, 0, 0)
        # three lines (the search; what is listed; which days), so that the list beside the
        # details fits a counter's laptop in a language with longer words than English
        top, middle, bottom = QHBoxLayout(), QHBoxLayout(), QHBoxLayout()
        rows.addLayout(top)
        rows.addLayout(middle)
        rows.addLayout(bottom)
        self.captions: dict[str, QLabel] = {}

        def captioned(row: QHBoxLayout, text: str, widget: QWidget, name: str) -> None:
            caption = QLabel(text)
            self.captions[name] = caption
            caption.setBuddy(widget)
            widget.setObjectName(name)
            widget.setAccessibleName(text.replace("&", "").rstrip(": \u00a0"))  # French: "Date :"
            row.addWidget(caption)
            row.addWidget(widget)

        self.search = QLineEdit()
        self.search.setPlaceholderText(_("reference, service reference, e-mail or name"))
        self.search.setClearButtonEnabled(True)
        captioned(top, pgettext("filter", "&Search:"), self.search, "ledger-search")  # not Look up
        self.state = QComboBox()
        # sized for its words in any language, not its longest item: "Waiting for payment" in
        # a longer language widened the window past a 1024-pixel screen; the list shows them whole
        self.state.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.state.setMinimumContentsLength(16)
        for text, states, voided in STATE_FILTERS:  # each lists the rows that show its words
            self.state.addItem(_(text), (states, voided))
        captioned(middle, _("S&tate:"), self.state, "ledger-state")
        self.currency = QComboBox()
        # as wide as its choices: they come after it is first shown (the profile's currencies)
        self.currency.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        captioned(middle, _("C&urrency:"), self.currency, "ledger-currency")
        middle.addStretch(1)
        self.range = QComboBox()
        for key in RANGES:  # shown in the staff's words, chosen by its key
            self.range.addItem(_(key), key)
        captioned(bottom, _("&Dates:"), self.range, "ledger-range")
        self.first = QDateEdit(QDate.currentDate().addDays(-7))
        self.last = QDateEdit(QDate.currentDate())
        for edit, text, name in ((self.first, _("From:"), "ledger-from"), (self.last, _("To:"), "ledger-to")):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            captioned(bottom, text, edit, name)
            edit.dateChanged.connect(self._dates_changed)
        bottom.addStretch(1)
        self.search.textChanged.connect(self.changed)
        self.state.currentIndexChanged.connect(self.changed)
        self.currency.currentIndexChanged.connect(self.changed)
        self.range.currentIndexChanged.connect(self._range_changed)
        self._range_changed()

    def set_currencies(self, codes: list[str]) -> None:
        current = self.currency.currentData()
        self.currency.blockSignals(True)
        self.currency.clear()
        self.currency.addItem(_("All currencies"), None)
        for code in codes:
            self.currency.addItem(code, code)
        index = self.currency.findData(current)
        self.currency.setCurrentIndex(max(0, index))
        self.currency.blockSignals(False)

    def _range_changed(self) -> None:
        custom = self.range.currentData() == CUSTOM
        for edit, name in ((self.first, "ledger-from"), (self.last, "ledger-to")):
            edit.setVisible(custom)
            self.captions[name].setVisible(custom)
        self.changed.emit()

    def _dates_changed(self) -> None:
        if self.range.currentData() == CUSTOM:
            self.changed.emit()

    def query(self, profile_id: str, mode: str, base: LinkQuery | None = None) -> LinkQuery:
        start, end = date_range(
            self.range.currentData(),  # a QDate's Python value is a date
            cast(date, self.first.date().toPython()),
            cast(date, self.last.date().toPython()),
        )
        (states, voided), currency = self.state.currentData(), self.currency.currentData()
        sort = (base.sort, base.descending) if base else ("created", True)
        return LinkQuery(
            profile_id,
            mode,
            text=self.search.text().strip(),
            states=states,
            voided=voided,
            currencies=frozenset({currency}) if currency else frozenset(),
            created_from=start,
            created_to=end,
            sort=sort[0],
            descending=sort[1],
        )
