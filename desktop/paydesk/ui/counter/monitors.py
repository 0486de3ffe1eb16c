"""The monitors as the staff knows them: where each stands, its size, and the name the
system gives it ("Right, 1920×1080 (HDMI-1)"), and how a chosen one is remembered."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication, QScreen

from ...i18n import _

MEANINGLESS = {"", "screen"}  # what Qt's platforms call a monitor they know nothing of
MIDDLE = 0.1  # a centre this near the desktop's (of its width or height) is in the middle


def _words(text: str) -> str:
    """A system's name for a monitor, without the prefix Windows gives it (\\\\.\\DISPLAY2)."""
    return text.strip().removeprefix("\\\\.\\")


def system_name(screen: QScreen) -> str:
    """What the system calls the monitor: its maker and model as it reports them, and the
    name of its connection ("Dell U2419H, HDMI-1"); "" when it says nothing of use."""
    model = " ".join(w for w in (_words(screen.manufacturer()), _words(screen.model())) if w)
    name = _words(screen.name())
    names = [part for part in (model, name) if part.lower() not in MEANINGLESS]
    if len(names) == 2 and names[1].lower() in names[0].lower():
        names = names[:1]
    return ", ".join(names)


def place_word(geometry: QRect, desktop: QRect) -> str:
    """Where a monitor stands on the desktop made of every monitor: Left, Right, Above,
    Below or Middle."""
    dx = geometry.center().x() - desktop.center().x()
    dy = geometry.center().y() - desktop.center().y()
    if abs(dx) <= desktop.width() * MIDDLE and abs(dy) <= desktop.height() * MIDDLE:
        return _("Middle")
    if abs(dx) * desktop.height() >= abs(dy) * desktop.width():
        return _("Left") if dx < 0 else _("Right")
    return _("Above") if dy < 0 else _("Below")


def monitor_label(screen: QScreen, number: int) -> str:
    """ "Right, 1920×1080 (HDMI-1)": where it stands among the monitors it shares a desktop
    with (where no place can be told, as for a display of its own: "Primary" for the
    system's main monitor, else "Screen 2" by its ``number``), its size in the monitor's own
    pixels, and the system's name."""
    siblings = screen.virtualSiblings() or [screen]
    desktop = QRect()
    for sibling in siblings:
        desktop = desktop.united(sibling.geometry())
    geometry = screen.geometry()
    if len(siblings) > 1 and desktop != geometry:
        place = place_word(geometry, desktop)
    elif screen is QGuiApplication.primaryScreen():
        place = _("Primary")
    else:
        place = _("Screen {number}").format(number=number)
    ratio = screen.devicePixelRatio()
    size = f"{round(geometry.width() * ratio)}×{round(geometry.height() * ratio)}"
    name = system_name(screen)
    return f"{place}, {size}" + (f" ({name})" if name else "")


def monitor_key(screen: QScreen, screens: list[QScreen]) -> str:
    """How a monitor is remembered: the system's name for it; when another monitor has the
    same name (or none has one), that name, where its corner is and its number in the
    system's list ("screen@0,0#2")."""
    name = screen.name()
    if name and sum(1 for other in screens if other.name() == name) == 1:
        return name
    corner = screen.geometry().topLeft()
    return f"{name}@{corner.x()},{corner.y()}#{screens.index(screen) + 1}"


def labels(screens: list[QScreen]) -> list[str]:
    """Each monitor's label, made different where two would read the same ("…, 2")."""
    made = [monitor_label(screen, number) for number, screen in enumerate(screens, 1)]
    return [
        label if made.count(label) == 1 else f"{label}, {made[: i + 1].count(label)}" for i, label in enumerate(made)
    ]
