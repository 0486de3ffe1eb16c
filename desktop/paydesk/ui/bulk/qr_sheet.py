"""A printable sheet of a batch's QR codes (issue 20 §3), for counters and notice boards: A4
pages of twelve codes, each of a row's checkout URL, with the customer's name, the amount
and the reference under it (the reference in the fixed face: read back and typed). Test
mode says so on every page, so nobody pins up codes that take no real money.

The codes are encoded on a worker thread (zxing-cpp, no Qt), the pages painted a page at a time
with the loop let run between pages (QPainter on a PDF is the GUI thread's), and the file
written off the GUI thread: a sheet of thousands of codes never freezes the window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPageLayout, QPageSize, QPainter, QPdfWriter, QTextOption

from ...desk.formats import money_in
from ...i18n import ENGLISH, Words, customer
from ...ledger.batch import CREATED, Batch, BatchBook, BatchRow
from ..fixed_text import draw_one_line, fixed_font
from ..links.qr import QrCode

COLUMNS, ROWS = 3, 4  # codes on a page
PER_PAGE = COLUMNS * ROWS


@dataclass(frozen=True)
class Label:
    """One code of the sheet and the words under it."""

    url: str
    name: str
    amount: str
    reference: str


def label_of(row: BatchRow, words: Words | None = None) -> Label | None:
    """A row's code and words (the customer's language, English when none is given); None
    when the row has no link to pay."""
    record = row.record
    if record is None or not record.checkout_url:
        return None
    name = (
        f"{record.first_name} {record.last_name}".strip()
        or f"{row.values.get('first_name', '')} {row.values.get('last_name', '')}".strip()
    )
    return Label(
        url=record.checkout_url,
        name=name,
        amount=money_in(record.amount, record.currency, words or customer(ENGLISH)),
        reference=row.tx_ref,
    )


def _text_option(alignment: Qt.AlignmentFlag) -> QTextOption:
    option = QTextOption(alignment)
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    return option


def _codes(labels: Sequence[Label]) -> list[QrCode]:
    """Each label's code (on a worker thread: encoding takes a while)."""
    return [QrCode(label.url) for label in labels]


class _Painter:
    """The fonts and measures of one sheet, and how a page of it is painted."""

    def __init__(self, page: QRectF, heading: str, test: bool, words: Words):
        self.page = page
        self.words = words
        self.heading = heading
        self.test = test
        self.unit = page.width() / 100  # layout in hundredths of the page's width
        self.body = QFont()
        self.body.setPixelSize(int(self.unit * 2.1))
        self.body.setFeature(QFont.Tag("liga"), 0)
        self.bold = QFont(self.body)
        self.bold.setBold(True)
        self.fixed = fixed_font(self.body)
        self.title = QFont(self.bold)
        self.title.setPixelSize(int(self.unit * 2.6))

    def paint(
        self, painter: QPainter, labels: Sequence[Label], codes: Sequence[QrCode], number: int, pages: int
    ) -> None:
        u, page = self.unit, self.page
        painter.setPen(QColor("black"))
        painter.setFont(self.title)
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        heading = QFontMetrics(self.title).elidedText(
            self.heading, Qt.TextElideMode.ElideRight, int(page.width() * 0.75)
        )
        painter.drawText(QRectF(page.left(), page.top(), page.width() * 0.75, u * 3.5), left, heading)
        painter.setFont(self.body)
        painter.drawText(
            QRectF(page.left() + page.width() * 0.75, page.top(), page.width() * 0.25, u * 3.5),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            self.words.gettext("Page {number} of {pages}").format(number=number, pages=pages),
        )
        if self.test:
            painter.setFont(self.bold)
            painter.setPen(QColor("#b3261e"))
            painter.drawText(
                QRectF(page.left(), page.top() + u * 3.5, page.width(), u * 3),
                left,
                self.words.gettext("TEST mode: these codes take no real money"),
            )
            painter.setPen(QColor("black"))
        top = page.top() + u * 7
        cell_w = page.width() / COLUMNS
        cell_h = (page.bottom() - top) / ROWS
        for index, (label, code) in enumerate(zip(labels, codes)):
            x = page.left() + (index % COLUMNS) * cell_w
            y = top + (index // COLUMNS) * cell_h
            self._cell(painter, QRectF(x, y, cell_w, cell_h), label, code)

    def _cell(self, painter: QPainter, cell: QRectF, label: Label, code: QrCode) -> None:
        u = self.unit
        painter.setPen(QColor(200, 200, 200))  # a cutting guide
        painter.drawRect(cell.adjusted(u * 0.5, u * 0.5, -u * 0.5, -u * 0.5))
        side = min(cell.width() - u * 4, cell.height() - u * 12)
        code.paint(painter, QRectF(cell.center().x() - side / 2, cell.top() + u, side, side))
        painter.setPen(QColor("black"))
        y = cell.top() + u + side + u * 0.5
        width = QRectF(cell.left() + u * 1.5, y, cell.width() - u * 3, u * 3)
        centre = Qt.AlignmentFlag.AlignHCenter
        painter.setFont(self.bold)
        painter.drawText(width, label.name, _text_option(centre))
        painter.setFont(self.body)
        painter.drawText(width.translated(0, u * 3), label.amount, _text_option(centre))
        painter.setFont(self.fixed)
        draw_one_line(
            painter, QRectF(width.left(), y + u * 6, width.width(), u * 5), label.reference, centre
        )  # never broken: smaller when it must


async def pdf_of(
    labels: Sequence[Label],
    heading: str,
    test: bool,
    on_page: Callable[[int, int], None] | None = None,
    language: str = ENGLISH,
) -> bytes:
    """The sheet as an A4 PDF, in memory: codes encoded on a worker thread, each page painted
    on this (the GUI) thread with the loop let run between pages. ``on_page(done, pages)``
    tells how far it got."""
    pages = max(1, -(-len(labels) // PER_PAGE))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(QMarginsF(10, 10, 10, 10), QPageLayout.Unit.Millimeter)
    writer.setResolution(300)
    writer.setTitle(heading)
    writer.setCreator("PayDesk")
    painter = QPainter(writer)
    try:
        area = writer.pageLayout().paintRectPixels(writer.resolution())
        sheet = _Painter(QRectF(0, 0, area.width(), area.height()), heading, test, customer(language))
        for number in range(1, pages + 1):
            chunk = labels[(number - 1) * PER_PAGE : number * PER_PAGE]
            codes = await asyncio.to_thread(_codes, chunk)
            if number > 1:
                writer.newPage()
            sheet.paint(painter, chunk, codes, number, pages)
            if on_page is not None:
                on_page(number, pages)
            await asyncio.sleep(0)  # the window paints between pages
    finally:
        painter.end()
        buffer.close()
    return bytes(data.data())


async def labels_of(book: BatchBook, batch_id: int, words: Words | None = None) -> list[Label]:
    """The codes of a batch's rows that can be paid (created, not paid yet), by row number,
    read from the book page by page."""
    labels: list[Label] = []
    after = None
    while True:
        page = await book.rows(batch_id, after=after, limit=500, states=(CREATED,))
        labels += [label for label in (label_of(row, words) for row in page) if label is not None]
        if len(page) < 500:
            return labels
        after = page[-1].number


async def save_sheet(
    book: BatchBook,
    batch: Batch,
    merchant: str,
    path: Path,
    on_page: Callable[[int, int], None] | None = None,
    language: str = ENGLISH,
) -> int:
    """Write the batch's QR sheet to ``path`` (off the GUI thread), in the customer's
    ``language``; returns how many codes it holds."""
    labels = await labels_of(book, batch.id, customer(language))
    heading = f"{merchant} — {batch.name}"
    data = await pdf_of(labels, heading, batch.mode == "test", on_page, language)
    await asyncio.to_thread(path.write_bytes, data)
    return len(labels)
