"""The counter's questions about one sale (Void this sale? Refund this payment?): a real
window with a title, the question, the sale's amount and its reference, what follows, and
two buttons (the safe one the default, and Escape's). The reference is read out and typed:
it has a line of its own in the fixed face and is never broken (``ReferenceLine``)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ...i18n import _
from ...ledger.counter import Sale
from ..dialogs import shown
from ..fixed_text import use_fixed
from .sales import sale_money

MIN_CHARS = 12  # a reference elided no narrower than this many characters


class ReferenceLine(QLabel):
    """A reference on one line in the fixed face, selectable; never wrapped nor broken. Where
    there is not room for all of it, it is elided ("…") and the whole is in the tooltip."""

    def __init__(self, reference: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.reference = reference
        use_fixed(self)
        self.setWordWrap(False)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAccessibleName(_("Reference {reference}").format(reference=reference))
        self._fit()

    def sizeHint(self) -> QSize:
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance(self.reference) + 2 + margins.left() + margins.right()
        return QSize(width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance("M" * MIN_CHARS) + margins.left() + margins.right()
        return QSize(min(width, self.sizeHint().width()), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = self.contentsRect().width()
        shown_text = (
            self.fontMetrics().elidedText(self.reference, Qt.TextElideMode.ElideMiddle, room)
            if self.fontMetrics().horizontalAdvance(self.reference) > room
            else self.reference
        )
        if shown_text != self.text():
            self.setText(shown_text)
        self.setToolTip("" if shown_text == self.reference else self.reference)


class SaleConfirm(QDialog):
    def __init__(
        self,
        parent: QWidget | None,
        title: str,
        question: str,
        sale: Sale | None,
        explanation: str,
        accept: str,
        reject: str,
        object_name: str,
    ):
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setWindowTitle(title)
        self.setAccessibleName(title)
        column = QVBoxLayout(self)
        self.question = QLabel(question)
        self.question.setObjectName("confirm-question")
        self.question.setWordWrap(True)
        font = self.question.font()
        font.setBold(True)
        self.question.setFont(font)
        column.addWidget(self.question)
        self.reference: ReferenceLine | None = None
        if sale is not None:
            form = QFormLayout()
            money = QLabel(sale_money(sale))
            money.setObjectName("confirm-amount")
            money.setAccessibleName(_("Amount {amount}").format(amount=sale_money(sale)))
            form.addRow(_("Amount:"), money)
            self.reference = ReferenceLine(sale.tx_ref)
            self.reference.setObjectName("confirm-reference")
            form.addRow(_("Reference:"), self.reference)
            column.addLayout(form)
        self.explanation = QLabel(explanation)
        self.explanation.setObjectName("confirm-explanation")
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.PlainText)
        column.addWidget(self.explanation)
        buttons = QDialogButtonBox()
        self.accept_button = QPushButton(accept)
        self.reject_button = QPushButton(reject)
        for button, role in (
            (self.accept_button, QDialogButtonBox.ButtonRole.AcceptRole),
            (self.reject_button, QDialogButtonBox.ButtonRole.RejectRole),
        ):
            button.setAccessibleName(accept if button is self.accept_button else reject)
            buttons.addButton(button, role)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)  # and Escape
        self.reject_button.setDefault(True)  # Enter keeps the safe course
        self.reject_button.setFocus()
        column.addWidget(buttons)


async def confirm_sale(
    parent: QWidget | None,
    title: str,
    question: str,
    sale: Sale | None,
    explanation: str,
    accept: str,
    reject: str,
    *,
    object_name: str,
) -> bool:
    """Ask ``question`` about ``sale`` (opened with ``open()``, awaited); True for ``accept``."""
    dialog = SaleConfirm(parent, title, question, sale, explanation, accept, reject, object_name)
    async with shown(dialog) as code:
        return bool(code)  # QDialog.Accepted (1), or Rejected (0)
