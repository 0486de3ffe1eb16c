"""The sale's code, encoded ahead in a worker (``prepare``) while the book is read back: the
same code as one encoded on the spot (the standard's mask choice kept), shared by every
screen that shows it, and what both screens show after Enter."""

from __future__ import annotations

import segno

from paydesk.ui.links import qr
from tests.ui.test_links import decode_qr


def test_a_prepared_code_is_the_standards_and_shared():
    text = "https://checkout.example/pay/PREPARED-1"
    qr.prepare(text)
    code = qr.code_of(text)
    assert code.matrix == [list(row) for row in segno.make(text, error="m", micro=False).matrix]
    assert qr.code_of(text) is code  # the mirror and the customer's display: one encoding
    qr.prepare(text)  # already encoded: nothing more to do
    assert qr.code_of(text) is code


def test_enter_shows_the_prepared_code_on_both_screens(counter, loop):
    sale = counter.sell("4")
    url = sale.record.checkout_url
    assert decode_qr(counter.tab.mirror.qr) == [url] == decode_qr(counter.view.qr)
    assert counter.tab.mirror.qr.code is counter.view.qr.code  # one encoding for both
