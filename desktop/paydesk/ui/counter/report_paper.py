"""A shift report on paper and as a PDF file: its lines (``report_lines``), how they are
painted (``paint``, ``pdf_bytes``), and how they reach a file or a printer, never drawn nor
written on the GUI thread:

- ``render``: the PDF bytes, painted by ``pdf_bytes`` in a worker thread (Qt allows
  QPainter on a QPdfWriter over a QBuffer off the GUI thread; the font database is read on
  the GUI thread first, ``fonts_ready``).
- ``save_closed``: at Close shift, the PDF saved by itself in "Shift reports" under the
  user's Documents (QStandardPaths), named "Shift 12 — Till 1 — 2026-11-26 17-02.pdf";
  a file of that name is never overwritten ("… (2).pdf").
- ``write_new``/``write``: the bytes written with ``asyncio.to_thread``.
- ``print_on``: the report painted on a QPrinter the staff chose, in a worker thread too
  (Qt supports painting a QPrinter outside the GUI thread; the spooling, or the file of
  "Print to File (PDF)", happens in ``QPainter.end``, there).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextOption,
)

from ...desk.shift_report import heading, lines
from ...i18n import N_, _, pgettext
from ...ledger.counter import Figures, Shift
from ..files import documents
from ..fixed_text import fixed_font, fixed_option
from ..links.watermark import paint_page_mark

FOLDER = N_("Shift reports")  # under the user's Documents, in the staff's language
_UNSAFE = '/\\:*?"<>|'  # not in a file's name on any of the desks' systems
FIXED = {N_("Shift")}  # read back and typed (finance asks for "shift 12"): the fixed font


def report_lines(
    shift: Shift, figures: Figures, profile: str | None = None, *, closed: bool = True
) -> list[tuple[str, str]]:
    """desk/shift_report.py's lines, with the shift's number after the counter's name."""
    said = lines(shift, figures, profile or "", closed=closed)
    return said[:1] + [(_("Shift"), str(shift.id))] + said[1:]


def _words() -> QTextOption:
    option = QTextOption(Qt.AlignmentFlag.AlignLeft)
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    return option


def paint(painter: QPainter, rect: QRectF, heading: str, lines: list[tuple[str, str]], test: bool = False) -> None:
    """Paint a report in ``rect`` (device pixels): the heading, then a label and its value a
    line; TEST across the page for a test-mode shift."""
    unit = rect.width() / 100  # layout in hundredths of the width
    if test:
        paint_page_mark(painter, rect)
    title = QFont()
    title.setPixelSize(int(unit * 4.5))
    title.setBold(True)
    painter.setFont(title)
    painter.setPen(QColor("black"))
    top = rect.top() + unit * 3
    painter.drawText(
        QRectF(rect.left(), top, rect.width(), unit * 8),
        _("{heading} — TEST").format(heading=heading) if test else heading,
        _words(),
    )
    y = top + unit * 11
    step = min(unit * 4.2, (rect.bottom() - y) / max(len(lines), 1))  # one page, always
    body = QFont()
    body.setPixelSize(int(min(unit * 2.6, step * 0.7)))
    body.setFeature(QFont.Tag("liga"), 0)
    label_font = QFont(body)
    label_font.setBold(True)
    fixed = fixed_font(body)
    # the labels' column as wide as its widest label (a longer language's words are not
    # wrapped onto the next line), a third of the page at least, three fifths at most
    painter.setFont(label_font)
    widest = max((painter.fontMetrics().horizontalAdvance(label) for label, _value in lines), default=0)
    labels = min(max(unit * 34, widest + unit), unit * 60)
    values = rect.width() - labels - unit * 2
    fixed_labels = {_(word) for word in FIXED}
    for label, value in lines:
        painter.setFont(label_font)
        painter.drawText(QRectF(rect.left(), y, labels, step), label, _words())
        painter.setFont(fixed if label in fixed_labels else body)
        option = fixed_option() if label in fixed_labels else _words()
        painter.drawText(QRectF(rect.left() + labels + unit * 2, y, values, step), value, option)
        y += step


def pdf_bytes(shift: Shift, figures: Figures, profile: str | None = None) -> bytes:
    """The report as a one-page A4 PDF, in memory. Safe in a worker thread (QPdfWriter on a
    QBuffer; ``render`` runs it there, the font database read first)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout.Unit.Millimeter)
    writer.setResolution(300)
    writer.setTitle(heading(shift))
    writer.setCreator("PayDesk")
    painter = QPainter(writer)
    area = writer.pageLayout().paintRectPixels(writer.resolution())
    paint(
        painter,
        QRectF(0, 0, area.width(), area.height()),
        heading(shift),
        report_lines(shift, figures, profile),
        shift.mode == "test",
    )
    painter.end()
    buffer.close()
    return bytes(data.data())


def fonts_ready() -> None:
    """Read the font database on the GUI thread, before any worker paints text (the first
    read scans the system's fonts; the fixed face is looked up and kept)."""
    QFontDatabase.families()
    fixed_font()


def folder() -> Path:
    """Where Close shift saves its reports: "Shift reports" (in the staff's language) in the user's
    Documents."""
    return documents() / _(FOLDER)


def report_name(shift: Shift) -> str:
    """ "Shift 12 — Till 1 — 2026-11-26 17-02.pdf" (the close's local time; the opening's
    while the shift is open)."""
    counter = "".join("-" if c in _UNSAFE or ord(c) < 32 else c for c in shift.counter)
    when = (shift.closed_at or shift.opened_at).astimezone().strftime("%Y-%m-%d %H-%M")
    name = _("Shift {number} — {counter} — {when}").format(
        number=shift.id, counter=counter.strip() or pgettext("till", "counter"), when=when
    )
    return f"{name}.pdf"  # the file's type, whatever the language


async def render(shift: Shift, figures: Figures, profile: str | None = None) -> bytes:
    """The report's PDF, painted in a worker thread."""
    fonts_ready()
    return await asyncio.to_thread(pdf_bytes, shift, figures, profile)


def _write_new(where: Path, name: str, data: bytes) -> Path:
    """``data`` in a new file ``where/name`` ("name (2).pdf" and on when taken): created
    exclusively, so no file is ever overwritten, even by two desks at once."""
    where.mkdir(parents=True, exist_ok=True)
    stem, suffix = name.rsplit(".", 1)
    for n in range(1, 1000):
        path = where / (name if n == 1 else f"{stem} ({n}).{suffix}")
        try:
            with path.open("xb") as file:
                file.write(data)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(_("{path} and 998 more are taken").format(path=where / name))


async def save_closed(shift: Shift, figures: Figures, profile: str | None = None, where: Path | None = None) -> Path:
    """The closed shift's report saved by itself (see the module); OSError when it cannot
    be written."""
    data = await render(shift, figures, profile)
    return await asyncio.to_thread(_write_new, where or folder(), report_name(shift), data)


async def write(path: Path, data: bytes) -> None:
    """``data`` in ``path`` (chosen by the staff in a save dialog, which asked about an
    existing file), off the GUI thread."""
    await asyncio.to_thread(path.write_bytes, data)


def _paint_printer(printer: Any, shift: Shift, lines: list[tuple[str, str]]) -> bool:
    painter = QPainter()
    if not painter.begin(printer):
        return False
    area = printer.pageLayout().paintRectPixels(printer.resolution())
    paint(painter, QRectF(0, 0, area.width(), area.height()), heading(shift), lines, shift.mode == "test")
    return painter.end()  # the page is spooled (or the PDF file written) here


async def print_on(printer: Any, shift: Shift, lines: list[tuple[str, str]]) -> bool:
    """Paint the report on ``printer`` (a QPrinter set up by the print dialog, which is
    closed: the GUI thread no longer touches it) in a worker thread. False: refused."""
    fonts_ready()
    return await asyncio.to_thread(_paint_printer, printer, shift, lines)
