"""The customer's view on a one-screen counter (beside the amount box), its logo and watermark;
and every control of the tab named. A monitor of its own: test_monitor.py."""

from __future__ import annotations

from tests.ui import press
from tests.ui.counter.conftest import open_counter_tab
from tests.ui.test_accessibility import _unnamed_focusable


def test_one_screen_offers_no_full_screen_display(start_app, loop, qapp):
    """With one screen (the staff's) the customer's view can only be beside the amount box:
    a full-screen display there would cover the till (the monitor case: test_monitor.py)."""
    app = start_app(sandbox=True)
    app.on_links_tab()
    counter = open_counter_tab(app, loop)
    place = counter.tab.place
    assert len(qapp.screens()) == 1
    assert [place.screens.itemText(i) for i in range(place.screens.count())] == ["This screen, beside the amount box"]
    press.click(place.toggle)
    assert place.beside.isVisible() and place.display is None
    assert place.toggle.text() == "Close customer display"
    assert _unnamed_focusable(counter.tab, at_least=10) == []


def test_every_control_of_the_counter_is_named(counter, loop):
    tab = counter.tab
    assert _unnamed_focusable(tab, at_least=10) == []
    assert tab.amount.accessibleName() == "Amount" and tab.note.accessibleName() == "Note"
    assert tab.email.accessibleName() == "Customer e-mail"
    assert [
        b.accessibleName() for b in (tab.sell_button, tab.new_sale_button, tab.place.toggle, tab.close_shift_button)
    ] == ["Sell", "New sale", "Close customer display", "Close shift"]
    assert tab.place.screens.accessibleName() == "Customer display on"


def test_the_profiles_logo_is_shown_above_the_amount(counter, loop, tmp_path):
    from dataclasses import replace

    from PySide6.QtGui import QColor, QImage

    image = QImage(400, 200, QImage.Format.Format_RGB32)
    image.fill(QColor("#2155cd"))
    path = tmp_path / "logo.png"
    assert image.save(str(path))
    session = counter.app.session
    loop.run(
        session.save_profile(replace(session.profile, counter_logo=str(path), merchant_name="The Corner Café"), {})
    )
    view = counter.view
    loop.until(lambda: view.logo.isVisible(), message="the logo")
    assert view.logo.pixmap().height() == 120 and view.merchant.text() == "The Corner Café"
    sale = counter.sell("3")
    assert counter.texts_on_display() == ["The Corner Café", "GBP 3.00", "WAITING FOR PAYMENT"]
    assert sale.record.title not in counter.texts_on_display()


def test_live_mode_has_no_test_watermark_on_the_customers_screen(counter, loop):
    from tests.ui.test_links import go_live

    view = counter.view
    assert view.watermark.isVisible()
    go_live(counter.window, loop)
    loop.until(lambda: not view.watermark.isVisible(), message="no TEST in live mode")
    assert counter.texts_on_display() == ["Sandbox"]


def test_one_screen_shows_one_code(counter, loop):
    """Beside the amount box the customer's view is on the staff's screen: one code there,
    the customer's, big; the staff's mirror keeps the state, the amount and the reference.
    With the customer's view closed, the staff's mirror shows the code again."""
    from tests.ui.test_links import decode_qr

    tab = counter.tab
    sale = counter.sell("4")
    url = sale.record.checkout_url
    assert decode_qr(tab) == [url], "the staff's screen shows more than one code"
    assert decode_qr(tab.place.beside) == [url]
    mirror = tab.mirror
    assert (mirror.state.text(), mirror.amount.text()) == ("WAITING FOR PAYMENT", "GBP 4.00")
    assert mirror.reference.text() == f"Reference {sale.tx_ref}"
    press.click(tab.place.toggle)  # the customer's view closed: the staff's mirror has it
    assert not tab.place.beside.isVisible()
    assert decode_qr(tab) == [url] and decode_qr(mirror) == [url]
    press.click(tab.place.toggle)
    assert decode_qr(tab) == [url] and decode_qr(tab.place.beside) == [url]
