"""A receipt for a paid transaction, painted with QPainter on a printer's page or a PDF:
the merchant (as customers know it), the customer, the amount, both references, the date,
the state, a QR of the reference (scan it back into the lookup box), and TEST across it in
test mode. The merchant's own fee is the merchant's business, not the customer's: it is not
printed. Text wraps between words (a word is broken only when it is longer than the line);
references are drawn in the fixed font, without ligatures (fixed_text)."""

from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPageLayout, QPageSize, QPainter, QPdfWriter, QTextOption

from ...desk.receipt import FIXED, lines
from ...i18n import ENGLISH, N_, customer
from ...ledger import LinkRecord
from ..fixed_text import draw_one_line, fixed_font
from ..links.qr import QrCode
from ..links.watermark import paint_page_mark

TITLE, SCAN = N_("Payment receipt"), N_("Scan to look up")  # the customer's language


def _words() -> QTextOption:
    """Between words; inside a word only when the word is longer than the line."""
    option = QTextOption(Qt.AlignmentFlag.AlignLeft)
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    return option


def paint(
    painter: QPainter, page: QRectF, record: LinkRecord, merchant: str, test: bool, language: str = ENGLISH
) -> None:
    """Paint the receipt in ``page`` (device pixels), in the customer's ``language``."""
    words = customer(language)
    fixed_labels = {words.pgettext("receipt", label) for label in FIXED}
    unit = page.width() / 100  # layout in hundredths of the page's width
    if test:
        paint_page_mark(painter, page)
    title = QFont()
    title.setPixelSize(int(unit * 5))
    title.setBold(True)
    painter.setFont(title)
    painter.setPen(QColor("black"))
    top = page.top() + unit * 4
    painter.drawText(
        QRectF(page.left(), top, page.width(), unit * 8),
        Qt.AlignmentFlag.AlignHCenter,
        words.gettext(TITLE) + (" — TEST" if test else ""),
    )
    body = QFont()
    body.setPixelSize(int(unit * 2.6))
    body.setFeature(QFont.Tag("liga"), 0)  # "Coffee" copied from the PDF reads "Coffee"
    fixed = fixed_font(body)
    label_font = QFont(body)
    label_font.setBold(True)
    y = top + unit * 12
    for label, value in lines(record, merchant, words):
        painter.setFont(label_font)
        painter.drawText(QRectF(page.left(), y, unit * 30, unit * 4), Qt.AlignmentFlag.AlignLeft, label)
        box = QRectF(page.left() + unit * 32, y, unit * 68, unit * 40)
        if label in fixed_labels:  # a reference: one line, smaller when it must, never broken
            painter.setFont(fixed)
            height = draw_one_line(painter, box, value)
        else:
            painter.setFont(body)
            used = painter.boundingRect(box, value, _words())  # long names and e-mails wrap
            painter.drawText(box, value, _words())
            height = used.height()
        y += max(unit * 4.5, height + unit * 0.8)
    side = unit * 32
    QrCode(record.tx_ref).paint(painter, QRectF(page.center().x() - side / 2, y + unit * 3, side, side))
    painter.setFont(body)
    painter.drawText(
        QRectF(page.left(), y + side + unit * 4, page.width(), unit * 4),
        Qt.AlignmentFlag.AlignHCenter,
        words.gettext(SCAN),
    )
    painter.setFont(fixed)
    draw_one_line(
        painter,
        QRectF(page.left(), y + side + unit * 8, page.width(), unit * 4),
        record.tx_ref,
        Qt.AlignmentFlag.AlignHCenter,
    )


def pdf_bytes(record: LinkRecord, merchant: str, test: bool, language: str = ENGLISH) -> bytes:
    """The receipt as a one-page A4 PDF, in memory (the caller writes it off the GUI thread)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout.Unit.Millimeter)
    writer.setResolution(300)
    writer.setTitle(customer(language).gettext("Receipt {reference}").format(reference=record.tx_ref))
    writer.setCreator("PayDesk")
    painter = QPainter(writer)  # (0, 0) is the printable area's corner
    area = writer.pageLayout().paintRectPixels(writer.resolution())
    paint(painter, QRectF(0, 0, area.width(), area.height()), record, merchant, test, language)
    painter.end()
    buffer.close()
    return bytes(data.data())
