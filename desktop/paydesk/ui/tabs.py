"""The four tabs: their titles and names, and where typing goes when one is shown."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from ..i18n import NP_, pgettext

TAB = "tab"  # the context of a tab's title (the tab "Counter", a till; not the role): as NP_ says it
TABS = (  # (title, name), in the order of the tab bar and of Ctrl+1..4; shown through title()
    (NP_("tab", "Payment links"), "links"),
    (NP_("tab", "Transactions"), "transactions"),
    (NP_("tab", "Cards"), "cards"),
    (NP_("tab", "Counter"), "counter"),
)


def title(index: int) -> str:
    """The title of the tab at ``index``, in the staff's language."""
    return pgettext(TAB, TABS[index][0])


def _takes_typing(widget: QWidget) -> bool:
    if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)):
        return not widget.isReadOnly()
    return isinstance(widget, QComboBox) and widget.isEditable()


def first_field(tab: QWidget | None) -> QWidget | None:
    """Where typing should go when ``tab`` is shown: its first field a user can type in (in
    the order Tab visits them), else its first widget that takes the keyboard, else a list."""
    if tab is None:
        return None
    candidates: list[QWidget] = []
    widget = tab.nextInFocusChain()
    while widget is not tab and widget is not None and len(candidates) < 500:
        if (
            tab.isAncestorOf(widget)
            and widget.isVisibleTo(tab)
            and widget.isEnabled()
            and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        ):
            if _takes_typing(widget):
                return widget
            candidates.append(widget)
        widget = widget.nextInFocusChain()
    lists = [w for w in candidates if isinstance(w, QAbstractItemView)]
    return (lists or candidates or [None])[0]
