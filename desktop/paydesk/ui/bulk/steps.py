"""The first and third steps of Bulk links: choose the file (or download the template), and the
dry run (the editable grid, its problems, the counts, the policy and "Create N links")."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QListView,
    QRadioButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...desk.bulk.check import BulkRow
from ...desk.formats import number_in
from ...i18n import N_, _, ngettext, pgettext, staff
from .. import widgets
from ..field_message import ERROR_STYLE
from ..table import tips_for_cut_text
from .grid import ProblemsModel, RowsModel

SKIP, ALL = "skip", "all"
INTRO = N_(
    "Make a payment link for every row of a spreadsheet: CSV (comma or semicolon, "
    "UTF-8) or Excel (.xlsx). Each row is checked before anything is sent, and you can "
    "fix problems here. Start from the template: it has the columns, and example rows "
    "from this profile's rules."
)


def say(label: QLabel, text: str) -> None:
    """``label`` says ``text`` (to a screen reader too), shown only when there is any."""
    label.setText(text)
    label.setAccessibleName(text)
    label.setVisible(bool(text))


class FileStep(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("bulk-file-step")
        self.setAccessibleName(_("File"))
        column = QVBoxLayout(self)
        intro = QLabel(_(INTRO))
        intro.setWordWrap(True)
        column.addWidget(intro)
        row = QHBoxLayout()
        self.choose = widgets.button(_("&Choose file…"), "bulk-choose-file")
        self.template = widgets.button(_("&Download template…"), "bulk-download-template")
        row.addWidget(self.choose)
        row.addWidget(self.template)
        row.addStretch(1)
        column.addLayout(row)
        self.message = widgets.label("bulk-file-message")
        column.addWidget(self.message)
        column.addStretch(1)
        say(self.message, "")

    def complain(self, text: str, ok: bool = False) -> None:
        self.message.setStyleSheet("" if ok else ERROR_STYLE)
        say(self.message, text)


class CheckStep(QWidget):
    """The dry run: the rows as checked, fixed in place."""

    createRequested = Signal()
    policyChanged = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("bulk-check-step")
        self.setAccessibleName(pgettext("step", "Check"))
        column = QVBoxLayout(self)
        self.counts = widgets.label("bulk-counts")
        column.addWidget(self.counts)
        split = QSplitter(Qt.Orientation.Vertical)
        self.model = RowsModel()
        self.grid = QTableView()
        self.grid.setObjectName("bulk-grid")
        self.grid.setAccessibleName(_("Rows"))
        self.grid.setModel(self.model)
        tips_for_cut_text(self.grid)
        self.grid.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.grid.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.grid.setTabKeyNavigation(False)  # arrows move between cells; Tab leaves the grid
        split.addWidget(self.grid)
        below = QWidget()
        below_column = QVBoxLayout(below)
        below_column.setContentsMargins(0, 0, 0, 0)
        caption = QLabel(_("&Problems (choose one to go to its cell):"))
        below_column.addWidget(caption)
        self.problems_model = ProblemsModel()
        self.problems = QListView()
        self.problems.setObjectName("bulk-problems")
        self.problems.setAccessibleName(_("Problems"))
        self.problems.setModel(self.problems_model)
        tips_for_cut_text(self.problems)
        self.problems.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        caption.setBuddy(self.problems)
        below_column.addWidget(self.problems, 1)
        split.addWidget(below)
        split.setSizes([420, 160])
        column.addWidget(split, 1)

        policy = QHBoxLayout()
        self.skip = QRadioButton(_("Create the valid rows, &skip the rest"))
        self.skip.setObjectName("bulk-policy-skip")
        self.all = QRadioButton(_("&All or nothing"))
        self.all.setObjectName("bulk-policy-all")
        self.policy = QButtonGroup(self)
        for button in (self.skip, self.all):
            button.setAccessibleName(button.text().replace("&", ""))
            self.policy.addButton(button)
            policy.addWidget(button)
        self.skip.setChecked(True)
        self.policy.buttonToggled.connect(lambda *_args: self.policyChanged.emit())
        policy.addStretch(1)
        column.addLayout(policy)
        bottom = QHBoxLayout()
        self.why = widgets.label("bulk-create-why")
        self.why.setStyleSheet(ERROR_STYLE)
        bottom.addWidget(self.why, 1)
        self.create_links = widgets.button(_("Create links"), "bulk-create")
        self.create_links.clicked.connect(self.createRequested.emit)
        bottom.addWidget(self.create_links)
        column.addLayout(bottom)
        self.problems.activated.connect(self._go_to_problem)
        self.problems.clicked.connect(self._go_to_problem)
        self.checking = False
        self.blank = 0
        self.already: frozenset[int] = frozenset()  # file rows a batch of this file has

    def chosen_policy(self) -> str:
        return ALL if self.all.isChecked() else SKIP

    def show_rows(
        self, fields: list[str], rows: list[BulkRow], blank: int, *, fresh: bool, already: frozenset[int] = frozenset()
    ) -> None:
        """Rows as checked (``fresh``: a new dry run; else the same rows checked again)."""
        if fresh:
            self.model.show(fields, rows)
        else:
            self.model.set_rows(rows)
        self.problems_model.show(rows)
        self.blank, self.already = blank, already
        self.update_counts()

    def figures(self) -> tuple[int, int]:
        """(valid rows, rows with problems)."""
        bad = sum(1 for row in self.model.rows if row.problems)
        return len(self.model.rows) - bad, bad

    def to_create(self) -> int:
        valid, bad = self.figures()
        if self.chosen_policy() == ALL and bad:
            return 0
        return sum(1 for row in self.model.rows if not row.problems and row.number not in self.already)

    def update_counts(self) -> None:
        valid, bad = self.figures()
        words = staff()
        counts = {"valid": number_in(valid, words), "bad": number_in(bad, words)}
        if self.blank:
            text = ngettext(
                "Rows: {valid} valid, {bad} with problems, {blank} blank ignored",
                "Rows: {valid} valid, {bad} with problems, {blank} blank ignored",
                self.blank,
            ).format(blank=number_in(self.blank, words), **counts)
        else:
            text = _("Rows: {valid} valid, {bad} with problems").format(**counts)
        if self.already:
            sent = len(self.already)
            text = ngettext(
                "{counts}. {n} of them was sent from this file before: only the others are created",
                "{counts}. {n} of them were sent from this file before: only the others are created",
                sent,
            ).format(counts=text, n=number_in(sent, words))
        say(self.counts, text)
        n = self.to_create()
        self.create_links.setText(ngettext("Create {n} link", "Create {n} links", n).format(n=number_in(n, words)))
        self.create_links.setAccessibleName(self.create_links.text())
        if self.checking:
            why = _("Checking the rows…")
        elif self.chosen_policy() == ALL and bad:
            why = ngettext(
                "All or nothing: fix the {n} row with problems first, or choose to skip it",
                "All or nothing: fix the {n} rows with problems first, or choose to skip them",
                bad,
            ).format(n=number_in(bad, words))
        elif n == 0:
            why = _("No row to create")
        else:
            why = ""
        say(self.why, why)
        self.create_links.setEnabled(n > 0 and not self.checking)

    def set_checking(self, checking: bool) -> None:
        self.checking = checking
        self.update_counts()

    def _go_to_problem(self, index: QModelIndex) -> None:
        problem = self.problems_model.at(index.row())
        if problem is None:
            return
        cell = self.model.cell_of(problem)
        if cell.isValid():
            self.grid.setCurrentIndex(cell)
            self.grid.scrollTo(cell)
            self.grid.setFocus(Qt.FocusReason.OtherFocusReason)
