"""The layout audit's checks, one kind of widget at a time: text a widget cuts, controls
squashed below their least size, siblings on top of each other, widgets out of their parent,
a window larger than its screen. ``tests/ui/layout_audit.py`` runs them over a window and
makes findings of what they return; see its docstring for what each check means."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QStyle,
    QStyleOptionButton,
    QStyleOptionComboBox,
    QStyleOptionGroupBox,
    QStyleOptionHeader,
    QStyleOptionViewItem,
    QTabBar,
    QTableView,
    QToolTip,
    QWidget,
)

from paydesk.ui.elided import ElidedLabel
from paydesk.ui.fitted import FittedLabel

_TEXT_FLAGS = Qt.TextFlag.TextShowMnemonic


def describe(widget: QWidget) -> str:
    """The widget as a reader finds it: class, object name, accessible name, and the nearest
    parent with an object name."""
    parts = [type(widget).__name__]
    if widget.objectName():
        parts.append(f"#{widget.objectName()}")
    if widget.accessibleName():
        parts.append(f"(accessible {widget.accessibleName()!r})")
    parent = widget.parentWidget()
    while parent is not None and not parent.objectName() and not parent.isWindow():
        parent = parent.parentWidget()
    if parent is not None and parent.objectName():
        parts.append(f"in #{parent.objectName()}")
    return " ".join(parts)


def window_name(window: QWidget) -> str:
    title = window.windowTitle()
    return f"{title!r} #{window.objectName()}" if title else f"#{window.objectName()}"


def _size(size: QSize) -> str:
    return f"{size.width()}×{size.height()}"


def shown_widgets(window: QWidget) -> list[QWidget]:
    """Every widget a person can see in ``window`` (shown, with a size, not a window of its
    own such as a popup or a tooltip)."""
    found = []
    for widget in window.findChildren(QWidget):
        if widget.isWindow() or widget.window() is not window or not widget.isVisible():
            continue
        found.append(widget)
    return found


# -- text cut by its widget ---------------------------------------------------------------


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _label_cut(label: QLabel) -> str | None:
    text = label.text()
    if not text or (label.pixmap() is not None and not label.pixmap().isNull()):
        return None
    if isinstance(label, FittedLabel):  # smaller letters where narrow; elided only below the least
        if label.text_shown() != label.words and label.toolTip() != label.words:
            return f"elided to {label.contentsRect().width()} px wide without the whole text in its tooltip"
        return None
    if isinstance(label, ElidedLabel):  # it elides: its tooltip must say the whole text
        if label.elided() and label.toolTip() != text:
            return (
                f"elided to {label.contentsRect().width()} px wide, {label.lines} line(s), "
                f"of {label.full_width()} px, without the whole text in its tooltip"
            )
        need_h = (
            label.heightForWidth(label.width()) if label.hasHeightForWidth() else label.minimumSizeHint().height()
        )  # a WrappedLabel: its lines
        if label.height() < need_h:
            return f"needs {need_h} px high at {label.width()} px wide, has {label.height()}"
        return None
    if label.wordWrap():
        least = label.minimumSizeHint().width()
        need_h = label.heightForWidth(label.width())
        if label.width() < least:
            return f"needs at least {least} px wide (its longest word), has {label.width()}"
        if label.height() < need_h:
            return f"needs {need_h} px high at {label.width()} px wide, has {label.height()}"
        return None
    need = label.sizeHint()
    if label.width() < need.width() or label.height() < need.height():
        return f"needs {_size(need)}, has {_size(label.size())}"
    return None


def shows_whole(label: QLabel) -> bool:
    """Whether a person reads the label's whole text on screen (not elided, nor cut)."""
    if isinstance(label, ElidedLabel):
        return not label.elided() and _label_cut(label) is None
    return _label_cut(label) is None


def tooltip_of(widget: QWidget) -> str:
    """The tooltip a person gets by resting the mouse on the widget."""
    QToolTip.hideText()
    point = widget.rect().center()
    QApplication.sendEvent(widget, QHelpEvent(QEvent.Type.ToolTip, point, widget.mapToGlobal(point)))
    text = QToolTip.text() if QToolTip.isVisible() else ""
    QToolTip.hideText()
    return text


def _button_cut(button: QAbstractButton) -> str | None:
    text = button.text()
    if not text:
        return None
    if isinstance(button, QPushButton):
        option = QStyleOptionButton()
        button.initStyleOption(option)
        inside = button.style().subElementRect(QStyle.SubElement.SE_PushButtonContents, option, button)
        need = button.fontMetrics().size(_TEXT_FLAGS, text)
        if not button.icon().isNull():
            need.setWidth(need.width() + button.iconSize().width() + 4)
        if inside.width() < need.width() or inside.height() < need.height():
            return f"its text needs {_size(need)}, the button has {_size(inside.size())} inside"
        return None
    if isinstance(button, (QCheckBox, QRadioButton)):
        need = button.sizeHint()
        if button.width() < need.width() or button.height() < need.height():
            return f"needs {_size(need)}, has {_size(button.size())}"
        return None
    need = button.sizeHint()
    if button.width() < need.width():
        return f"needs {_size(need)}, has {_size(button.size())}"
    return None


def _combo_cut(combo: QComboBox) -> str | None:
    text = combo.currentText()
    if not text or combo.isEditable():  # an editable one scrolls its text, as a field does
        return None
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    field = combo.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, combo
    )
    need = combo.fontMetrics().horizontalAdvance(text) + 2  # drawn 1 px in on each side
    if field.width() < need and text not in combo.toolTip():
        return f"its text needs {need} px, the box shows {field.width()}"
    return None


def _group_cut(box: QGroupBox) -> str | None:
    if not box.title():
        return None
    option = QStyleOptionGroupBox()
    box.initStyleOption(option)
    title = box.style().subControlRect(
        QStyle.ComplexControl.CC_GroupBox, option, QStyle.SubControl.SC_GroupBoxLabel, box
    )
    if title.right() >= box.width() or title.left() < 0:
        return f"its title needs {title.width()} px from x={title.left()}, the box is {box.width()}"
    return None


def _tabs_cut(bar: QTabBar) -> Iterable[tuple[str, str]]:
    for i in range(bar.count()):
        if not bar.isTabVisible(i):
            continue
        need, has = bar.tabSizeHint(i), bar.tabRect(i).size()
        if has.width() < need.width() and bar.tabToolTip(i) != bar.tabText(i):
            yield bar.tabText(i), f"tab {i} needs {_size(need)}, has {_size(has)}"


def _tooltip_at(view: QAbstractItemView, point: QPoint) -> str:
    """The tooltip a person gets by resting the mouse on ``point`` of the view's viewport."""
    viewport = view.viewport()
    QToolTip.hideText()
    event = QHelpEvent(QEvent.Type.ToolTip, point, viewport.mapToGlobal(point))
    QApplication.sendEvent(viewport, event)
    text = QToolTip.text() if QToolTip.isVisible() else ""
    QToolTip.hideText()
    return text


def _header_cut(view: QTableView) -> Iterable[tuple[str, str]]:
    header = view.horizontalHeader()
    model = view.model()
    if model is None or not header.isVisible():
        return
    sorted_by = header.sortIndicatorSection() if header.isSortIndicatorShown() else -1
    for section in range(header.count()):
        if header.isSectionHidden(section) or header.sectionSize(section) <= 0:
            continue
        text = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
        if not isinstance(text, str) or not text:
            continue
        option = QStyleOptionHeader()
        header.initStyleOption(option)
        option.section, option.text = section, text
        option.fontMetrics = header.fontMetrics()
        option.sortIndicator = (
            QStyleOptionHeader.SortIndicator.SortDown
            if section == sorted_by
            else QStyleOptionHeader.SortIndicator.None_
        )
        need = header.style().sizeFromContents(QStyle.ContentsType.CT_HeaderSection, option, QSize(), header)
        has = header.sectionSize(section)
        if has < need.width() or header.height() < need.height():
            tip = model.headerData(section, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
            if tip != text:
                yield text, (f"header section {section} needs {_size(need)}, has {has}×{header.height()}")


def _visible_indexes(view: QAbstractItemView):
    model = view.model()
    if model is None:
        return
    area = view.viewport().rect()
    if isinstance(view, QTableView):
        first = max(view.rowAt(area.top()), 0)
        last = view.rowAt(area.bottom())
        last = model.rowCount() - 1 if last < 0 else last
        columns = [c for c in range(model.columnCount()) if not view.isColumnHidden(c) and view.columnWidth(c) > 0]
        for row in range(first, last + 1):
            if view.isRowHidden(row):
                continue
            for column in columns:
                yield model.index(row, column)
    elif isinstance(view, QListView):
        for row in range(model.rowCount()):
            index = model.index(row, view.modelColumn())
            if view.visualRect(index).intersects(area):
                yield index


def _cells_cut(view: QAbstractItemView) -> Iterable[tuple[str, str]]:
    """Cells whose text is longer than their column: each column's first, asked for its
    tooltip as a person asks (the mouse resting on it)."""
    seen_columns: set[int] = set()
    for index in _visible_indexes(view):
        if index.column() in seen_columns:
            continue
        text = index.data(Qt.ItemDataRole.DisplayRole)
        if not isinstance(text, str) or not text:
            continue
        option = QStyleOptionViewItem()
        view.initViewItemOption(option)
        rect = view.visualRect(index)
        option.rect = rect
        need = view.itemDelegateForIndex(index).sizeHint(option, index)
        if need.width() <= rect.width() and need.height() <= rect.height():
            continue
        seen_columns.add(index.column())
        tip = _tooltip_at(view, rect.center())
        if text not in tip:
            yield (
                text,
                (
                    f"cell row {index.row()} column {index.column()} needs {_size(need)}, "
                    f"has {_size(rect.size())}; its tooltip says {tip!r}"
                ),
            )


def cut(window: QWidget, widgets: list[QWidget]) -> list[tuple[QWidget, str, str]]:
    """(widget, text, sizes) for each text a widget of ``widgets`` cuts."""
    found: list[tuple[QWidget, str, str]] = []
    for widget in widgets:
        if widget.width() <= 0 or widget.height() <= 0:
            continue
        why: str | None = None
        if isinstance(widget, QLabel):
            why = _label_cut(widget)
            text = widget.text()
        elif isinstance(widget, QAbstractButton):
            why = _button_cut(widget)
            text = _plain(widget.text())
        elif isinstance(widget, QGroupBox):
            why = _group_cut(widget)
            text = widget.title()
        elif isinstance(widget, QComboBox):
            why = _combo_cut(widget)
            text = widget.currentText()
        elif isinstance(widget, QTabBar):
            found += [(widget, t, s) for t, s in _tabs_cut(widget)]
            continue
        elif isinstance(widget, QAbstractItemView) and not isinstance(widget, QHeaderView):
            if isinstance(widget, QTableView):
                found += [(widget, t, s) for t, s in _header_cut(widget)]
            found += [(widget, t, s) for t, s in _cells_cut(widget)]
            continue
        if why is not None:
            found.append((widget, text, why))
    return found


# -- squashed controls --------------------------------------------------------------------

SQUASHABLE = (QLineEdit, QComboBox, QAbstractSpinBox, QPushButton, QCheckBox, QRadioButton)


def squashed(widgets: list[QWidget]) -> list[tuple[QWidget, str]]:
    found = []
    for widget in widgets:
        if not isinstance(widget, SQUASHABLE) or isinstance(
            widget.parentWidget(), (QAbstractSpinBox, QComboBox)
        ):  # their own field
            continue
        least = widget.minimumSizeHint()
        least = least.expandedTo(widget.minimumSize()) if widget.minimumSize().isValid() else least
        if widget.width() < least.width() or widget.height() < least.height():
            found.append((widget, f"needs at least {_size(least)}, has {_size(widget.size())}"))
    return found


# -- overlaps and widgets cut by their parent ---------------------------------------------


def siblings(parent: QWidget) -> list[QWidget]:
    return [
        c
        for c in parent.children()
        if isinstance(c, QWidget) and not c.isWindow() and c.isVisible() and c.width() > 0 and c.height() > 0
    ]


def _scrolled(parent: QWidget) -> bool:
    """``parent`` is a scroll area's viewport: its content is meant to be larger than it."""
    holder = parent.parentWidget()
    return isinstance(holder, QAbstractScrollArea) and holder.viewport() is parent


def overlaps(window: QWidget, widgets: list[QWidget]) -> list[tuple[QWidget, QWidget, QRect]]:
    found = []
    for parent in [window, *widgets]:
        if isinstance(parent, QStackedWidget) or _scrolled(parent):
            continue
        kids = siblings(parent)
        for i, one in enumerate(kids):
            for other in kids[i + 1 :]:
                shared = one.geometry().intersected(other.geometry())
                if shared.width() > 0 and shared.height() > 0:
                    found.append((one, other, shared))
    return found


def outside(widgets: list[QWidget]) -> list[tuple[QWidget, str]]:
    found = []
    for widget in widgets:
        parent = widget.parentWidget()
        if parent is None or _scrolled(parent) or widget.width() <= 0 or widget.height() <= 0:
            continue
        if not parent.rect().contains(widget.geometry()):
            found.append(
                (
                    widget,
                    f"at {rect_text(widget.geometry())} in a parent of {_size(parent.size())} ({describe(parent)})",
                )
            )
    return found


def rect_text(rect: QRect) -> str:
    return f"({rect.x()}, {rect.y()}) {rect.width()}×{rect.height()}"


# -- the window against its screen --------------------------------------------------------


def widest(window: QWidget, depth: int = 12) -> str:
    """What holds the window's least width up: from the window down, at each level the
    shown child asking for the most (its least width), as "a 900 > b 880 > ..."."""
    chain = []
    widget = window
    for _ in range(depth):
        kids = [
            k
            for k in widget.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
            if not k.isWindow() and k.isVisible()
        ]
        if not kids:
            break
        widget = max(kids, key=lambda k: k.minimumSizeHint().expandedTo(k.minimumSize()).width())
        least = widget.minimumSizeHint().expandedTo(widget.minimumSize()).width()
        chain.append(f"{type(widget).__name__}{'#' + widget.objectName() if widget.objectName() else ''} {least}")
    return " > ".join(chain)


def too_big(window: QWidget) -> list[str]:
    screen = window.screen()
    if screen is None:
        return ["the window is on no screen"]
    area = screen.availableGeometry()
    frame = window.frameGeometry()
    margins = frame.size() - window.geometry().size()
    least = window.minimumSizeHint().expandedTo(window.minimumSize()) + margins
    found = []
    if frame.width() > area.width() or frame.height() > area.height():
        found.append(f"the window is {_size(frame.size())}, its screen {screen.name()!r} has {_size(area.size())}")
    elif not area.contains(frame):
        found.append(f"the window at {rect_text(frame)} reaches out of its screen's {rect_text(area)}")
    if least.width() > area.width() or least.height() > area.height():
        found.append(
            f"the window cannot be made smaller than {_size(least)}, its screen "
            f"has {_size(area.size())}; its least width is held by {widest(window)}"
        )
    return found


def text_of(widget: QWidget) -> str:
    if isinstance(widget, (QLabel, QAbstractButton, QLineEdit)):
        return _plain(widget.text()) if isinstance(widget, QAbstractButton) else widget.text()
    if isinstance(widget, QGroupBox):
        return widget.title()
    if isinstance(widget, QComboBox):
        return widget.currentText()
    return ""
