"""A pane that scrolls up and down, never sideways: a form or a record's details taller than
its room scroll, but its texts are never past its right edge behind a horizontal scroll
bar, where a person does not look (the Transactions details pane at 1024 px hid its state
and its Copy buttons there)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtWidgets import QScrollArea, QWidget


class DownScrollArea(QScrollArea):
    """``widget`` in a scroll area as wide as the viewport and never narrower than the least
    ``widget`` needs (and its scroll bar beside it): a splitter, or the window made as narrow
    as it goes, stops there instead of hiding the widget's side."""

    def __init__(self, widget: QWidget, accessible_name: str):
        super().__init__()
        self.setWidgetResizable(True)
        self.setWidget(widget)
        self.setAccessibleName(accessible_name)
        widget.installEventFilter(self)  # its least width changes as its texts do

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        widget = self.widget()
        if widget is None:
            return hint
        least = widget.minimumSizeHint().expandedTo(widget.minimumSize()).width()
        width = least + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()
        return QSize(max(hint.width(), width), hint.height())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)
