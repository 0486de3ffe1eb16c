"""The QR code as encoded (ui/links/qr.py): read back by two readers that share nothing with
the writer's choices, at error correction M (a misspelt keyword is silently ignored by
zxing-cpp's writer, so the level is read back, not trusted)."""

from __future__ import annotations

import zxingcpp
from PySide6.QtGui import QImage

from paydesk.ui.links.qr import QUIET, QrCode
from tests.ui.test_links import decode_qr_file

URL = "http://127.0.0.1:8123/checkout/pay/CTR-261127-4PD5Q1-0001S2-abcdef0123456789"


def grey(image: QImage) -> tuple[bytes, int, int]:
    image = image.convertToFormat(QImage.Format.Format_Grayscale8)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    raw = bytes(image.constBits())[: stride * height]
    return b"".join(raw[y * stride : y * stride + width] for y in range(height)), width, height


def test_the_code_reads_back_at_error_correction_m(qapp, tmp_path):
    code = QrCode(URL)
    pixels, width, height = grey(code.image(400))
    read = zxingcpp.read_barcode(zxingcpp.ImageView(pixels, width, height, zxingcpp.ImageFormat.Lum))
    assert read is not None and read.text == URL and read.ec_level == "M"
    path = tmp_path / "code.png"
    assert code.image(400).save(str(path))
    assert decode_qr_file(path) == [URL]  # and by zbar


def test_the_image_has_the_quiet_zone_and_whole_modules(qapp):
    code = QrCode(URL)
    image = code.image(600).convertToFormat(QImage.Format.Format_Grayscale8)
    total = code.size + 2 * QUIET
    module = image.width() // total
    assert image.width() == image.height() == module * total  # whole pixels a module
    border = [image.pixelColor(x, y).value() for x in range(image.width()) for y in range(QUIET * module)]
    assert set(border) == {255}  # the top quiet zone is white
    # the top-left finder pattern's corner module is dark, just inside the quiet zone
    assert image.pixelColor(QUIET * module, QUIET * module).value() == 0
