"""Windows no larger than their screen: the size a window opens at is bounded by the
screen's available area (less room for the window system's frame and title bar, not
known before the window is shown), so a 1024×768 screen shows every window whole; and
windows whose wrapped texts need more lines when narrower never made so small that their
fields are squashed (``keep_wrapped_height``)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

FRAME_ROOM = QSize(16, 48)  # a frame's sides and a title bar, as window systems draw them


def screen_room(widget: QWidget) -> QSize:
    """The most a window of ``widget`` may take: its screen's available area (the primary
    screen's before it is placed), less the frame's room."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    area = screen.availableGeometry().size() if screen is not None else QSize(1024, 768)
    return (area - FRAME_ROOM).expandedTo(QSize(0, 0))


def resize_within_screen(widget: QWidget, width: int, height: int) -> None:
    """``widget.resize(width, height)``, made smaller where its screen is."""
    room = screen_room(widget)
    widget.resize(min(width, room.width()), min(height, room.height()))


def fit_to_contents(window: QWidget, width: int = 0) -> None:
    """Open ``window`` at the size its contents ask for (at least ``width`` wide where the
    screen has room; a wrapped text's height at that width too), within its screen: Qt's
    own first size stops at two thirds of the screen, where a long form is squeezed though
    the screen has room."""
    hint = window.sizeHint()
    layout = window.layout()
    if layout is not None:
        layout.activate()
        hint = layout.totalSizeHint()
    wide = min(max(hint.width(), width), screen_room(window).width())
    if layout is not None and layout.hasHeightForWidth():
        hint.setHeight(layout.totalHeightForWidth(wide))
    resize_within_screen(window, wide, hint.height())


class _WrappedHeight(QObject):
    """Holds a window's least height at what its layout needs at the window's width."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self.hold()
        return False

    def hold(self) -> None:
        layout = self.window.layout()
        if layout is None:
            return
        need = layout.totalMinimumSize().height()
        if layout.hasHeightForWidth():
            need = max(need, layout.totalHeightForWidth(self.window.width()))
        need = min(need, screen_room(self.window).height())
        if need != self.window.minimumHeight():
            self.window.setMinimumHeight(need)


def keep_wrapped_height(window: QWidget) -> None:
    """Never let ``window`` (or a pane a splitter sizes) be made shorter than its contents
    need at its width. Qt counts a wrapped text (a word-wrapped label) as one line in a
    window's least height, so a window made narrower, its texts on more lines, squashes its
    fields to slivers; this keeps its least height at the height its layout asks for at the
    width it has (within its screen)."""
    _WrappedHeight(window).hold()
