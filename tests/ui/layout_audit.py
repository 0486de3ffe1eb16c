"""The layout audit: what a person would see wrong in a window, found from the widgets
themselves, in any language the window is shown in.

``audit(window)`` looks at every widget shown in a window and returns a ``Finding`` for each
of these:

- ``cut``: text its widget cuts: a label, a button, a choice shown in a combo box, a group
  box's title, a tab, a table's header section or a visible cell whose text needs more
  room than the widget gives it
  (Qt's own size of the text, from the font, against the widget's size or contents), unless
  the widget elides it and says the whole text in a tooltip;
- ``squashed``: a field, box or button smaller than the least Qt says it needs (a key field
  squashed to a sliver);
- ``overlap``: two sibling widgets on top of each other (stacked widgets, scroll areas'
  contents and a widget's own children are not siblings);
- ``outside``: a widget reaching out of its parent, whose edge cuts it;
- ``screen``: a window, or the least size its layout allows, larger than its screen's
  available area;
- ``sideways``: a scroll area (a QScrollArea, a list or table, a text box) whose content is
  wider than it shows, so a person scrolls sideways to read it (the texts it hides named:
  its widget's labels and buttons seen through its viewport, a table's columns), or taller
  with no scroll bar (``tests/ui/layout_scroll.py``).

``moved(window, act)`` snapshots where every widget is, does ``act`` (a field's message
shown or cleared), and returns a ``moved`` finding for each widget that went elsewhere.

Each finding names the window, the widget (class, object name, accessible name, the
nearest named parent), its text and the sizes, so a reader can fix it. ``EXCEPTIONS`` lists
what is as meant, each with its reason. The states it is run in are in
``tests/ui/layout_states/``; ``tests/ui/test_layout_audit.py`` runs them on screens of
1280×800 and 1024×768. The checks themselves are in ``tests/ui/layout_checks.py``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, QRect
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

from tests.ui.layout_checks import (
    cut,
    describe,
    outside,
    overlaps,
    rect_text,
    shown_widgets,
    shows_whole,
    siblings,
    squashed,
    text_of,
    too_big,
    tooltip_of,
    widest,
    window_name,
)
from tests.ui.layout_scroll import scroll_areas, sideways

CHECKS = ("cut", "squashed", "overlap", "outside", "screen", "sideways", "moved")


@dataclass(frozen=True)
class Finding:
    check: str  # one of CHECKS
    window: str  # the window's title and object name
    widget: str  # the widget: class, object name, accessible name, nearest named parent
    text: str  # the text concerned ("" when none)
    sizes: str  # what it needs against what it has, or where it was and went

    def __str__(self) -> str:
        text = f" {self.text!r}" if self.text else ""
        return f"[{self.check}] {self.window}: {self.widget}{text}: {self.sizes}"


@dataclass(frozen=True)
class Allowed:
    """A finding that is as meant: its check, the window's object name and the widget's
    (shell patterns, matched against the object name or the class name), and why."""

    check: str
    window: str
    widget: str
    reason: str

    def covers(self, finding: Finding, window: QWidget, widget: QWidget | None) -> bool:
        if finding.check != self.check or not fnmatch.fnmatchcase(window.objectName(), self.window):
            return False
        if widget is None:
            return self.widget == "*"
        return any(fnmatch.fnmatchcase(name, self.widget) for name in (widget.objectName(), type(widget).__name__))


# What the audit would report but is as meant. Keep each reason true: an exception whose
# widget is gone is found by test_layout_audit.py's check of this list.
EXCEPTIONS: tuple[Allowed, ...] = (
    Allowed(
        "overlap",
        "*",
        "test-watermark",
        "the TEST watermark lies under the link panel's and the customer view's "
        "widgets on purpose (ui/links/watermark.py), never over the code",
    ),
    Allowed(
        "sideways",
        "main-window",
        "ledger-table",
        "the Transactions ledger is a wide record (references, customer, e-mail, amount, "
        "state, times) whose columns a person sizes and scrolls; the details pane beside "
        "it shows the chosen one whole",
    ),
    Allowed(
        "sideways",
        "main-window",
        "card-list",
        "the Cards wallet is a ledger of cards (number, name, balance, state, expiry, "
        "creation) whose columns a person sizes and scrolls; the card's page beside it "
        "shows the chosen one whole",
    ),
    Allowed(
        "sideways",
        "batches-window",
        "batch-rows",
        "a batch's rows carry the spreadsheet's columns and the service's answers (URL, "
        "error, e-mail sent): a wide ledger whose columns a person sizes and scrolls",
    ),
    Allowed(
        "sideways",
        "main-window",
        "audit-log",
        "the card audit log is a ledger of every card operation (when, the computer's user, "
        "the person signed in, profile, mode, card, action, amount, result, detail) whose "
        "columns a person sizes and scrolls; its Export CSV… holds every column whole",
    ),
)

# -- the whole window ---------------------------------------------------------------------


def settle(window: QWidget | None = None) -> None:
    """Let pending layouts and paints happen, as they do before a person sees the window;
    with ``window``, until its widgets stop moving (a change that lands during the rounds,
    as a window's refresh run by the loop, posts layouts of its own: a loaded machine's run
    audited a toolbar laid out for the button's earlier text)."""
    before = None
    for _ in range(10):
        for _ in range(3):
            QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            QApplication.processEvents()
        if window is None:
            return
        now = [(w, w.geometry(), w.isVisible()) for w in window.findChildren(QWidget)]
        if now == before:
            return
        before = now


def _excepted(finding: Finding, window: QWidget, widget: QWidget | None, exceptions: Iterable[Allowed]) -> bool:
    return any(e.covers(finding, window, widget) for e in exceptions)


def audit(window: QWidget, exceptions: Iterable[Allowed] = EXCEPTIONS, checks: Iterable[str] = CHECKS) -> list[Finding]:
    """Every finding of ``window`` as shown now (of ``checks``), but those ``exceptions``
    cover."""
    settle(window)
    exceptions, checks = tuple(exceptions), frozenset(checks)
    name = window_name(window)
    widgets = shown_widgets(window)
    found: list[tuple[Finding, QWidget | None]] = []
    for widget, text, sizes in cut(window, [window, *widgets]):
        found.append((Finding("cut", name, describe(widget), text, sizes), widget))
    for widget, sizes in squashed(widgets):
        found.append((Finding("squashed", name, describe(widget), text_of(widget), sizes), widget))
    for one, other, shared in overlaps(window, widgets):
        finding = Finding(
            "overlap",
            name,
            f"{describe(one)} and {describe(other)}",
            text_of(one) or text_of(other),
            f"{rect_text(one.geometry())} and {rect_text(other.geometry())} share {rect_text(shared)}",
        )
        if not (_excepted(finding, window, one, exceptions) or _excepted(finding, window, other, exceptions)):
            found.append((finding, None))
    for widget, sizes in outside(widgets):
        found.append((Finding("outside", name, describe(widget), text_of(widget), sizes), widget))
    for area, hidden, sizes in sideways(scroll_areas([window, *widgets])):
        found.append((Finding("sideways", name, describe(area), hidden, sizes), area))
    for sizes in too_big(window):
        found.append((Finding("screen", name, describe(window), "", sizes), None))
    return [f for f, w in found if f.check in checks and (w is None or not _excepted(f, window, w, exceptions))]


def positions(window: QWidget, leave_out: Iterable[QWidget] = ()) -> dict[int, tuple[QWidget, QRect]]:
    """Where every shown widget of ``window`` is, in the window's coordinates (the widgets
    of ``leave_out`` and theirs aside)."""
    settle()
    left = tuple(leave_out)
    places = {}
    for widget in shown_widgets(window):
        if any(w is widget or w.isAncestorOf(widget) for w in left):
            continue
        places[id(widget)] = (widget, QRect(widget.mapTo(window, QPoint(0, 0)), widget.size()))
    return places


def moved(
    window: QWidget, act: Callable[[], object], messages: Iterable[QWidget] = (), what: str = "a message"
) -> list[Finding]:
    """A finding for each widget of ``window`` that is elsewhere, or of another size, after
    ``act`` (a field's message shown or cleared) than before; the ``messages`` themselves
    may change."""
    messages = tuple(messages)
    before = positions(window, messages)
    act()
    after = positions(window, messages)
    name = window_name(window)
    found = []
    for key, (widget, was) in before.items():
        if key not in after:
            continue
        now = after[key][1]
        # a control is where it was, and as large; a container (its children are looked at
        # themselves) may grow or shrink at its far side, where nothing is moved by it
        control = not siblings(widget) or isinstance(widget, QAbstractScrollArea)
        if now.topLeft() != was.topLeft() or (control and now.size() != was.size()):
            found.append(
                Finding(
                    "moved",
                    name,
                    describe(widget),
                    text_of(widget),
                    f"{rect_text(was)} became {rect_text(now)} when {what}",
                )
            )
    return found


def report(findings: list[Finding], state: str) -> str:
    """The findings as a reader gets them: one a line, under the state they were found in."""
    return f"{len(findings)} layout findings in {state}:\n" + "\n".join(f"  {f}" for f in findings)


def assert_clean(findings: list[Finding], state: str) -> None:
    assert not findings, report(findings, state)


__all__ = [
    "CHECKS",
    "EXCEPTIONS",
    "Allowed",
    "Finding",
    "assert_clean",
    "audit",
    "describe",
    "moved",
    "positions",
    "report",
    "settle",
    "shown_widgets",
    "shows_whole",
    "tooltip_of",
    "widest",
]
