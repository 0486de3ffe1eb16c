"""The details pane never breaks a reference (issue 28, item 14): the reference and the
service's reference on one line each in the fixed face, whole, or elided in the middle with
the whole of it on hover; Copy reference copies the whole."""

from __future__ import annotations

from collections import Counter

from PySide6.QtGui import QFontMetrics, QGuiApplication

from paydesk.ui.fixed_text import is_fixed
from tests.ui import press
from tests.ui.layout_checks import tooltip_of
from tests.ui.transactions.test_lookup_selection import pick

LONG_REF = "INV-2025-SPRING-TERM-FEES-YEAR7-PARENT-00003"  # a finance file's own reference


def ink_lines(label) -> list[int]:
    """The pixel rows of the label, as painted, that hold the text's ink."""
    image = label.grab().toImage()
    light = [[image.pixelColor(x, y).lightness() for x in range(image.width())] for y in range(image.height())]
    background = Counter(v for line in light for v in line).most_common(1)[0][0]
    return [y for y, line in enumerate(light) if any(abs(v - background) > 90 for v in line)]


def one_line(label, text: str) -> None:
    assert label.text() == text and is_fixed(label.font())
    painted = ink_lines(label)
    assert painted, f"{text} is not drawn"
    assert painted[-1] - painted[0] < QFontMetrics(label.font()).height(), (
        f"{text} drawn on more than one line: ink rows {painted[0]}..{painted[-1]}"
    )
    if QFontMetrics(label.font()).horizontalAdvance(text) > label.contentsRect().width():
        assert tooltip_of(label) == text, f"{text} elided without the whole of it on hover"


def test_the_details_pane_never_breaks_a_reference(strict_shop):
    shop, tab = strict_shop, strict_shop.tab
    made = shop.create(LONG_REF)
    shop.refresh()
    pick(shop, made)
    for width in (1280, 1024):  # as a person drags the window's side
        tab.window().resize(width, 700)
        shop.loop.until(lambda width=width: tab.window().width() == width, message="resized")
        one_line(tab.details.values["tx_ref"], LONG_REF)
        one_line(tab.details.values["reference"], made.reference)
    press.click(tab.details.copy_ref)
    assert QGuiApplication.clipboard().text() == LONG_REF
    press.click(tab.details.copy_service_ref)
    assert QGuiApplication.clipboard().text() == made.reference
