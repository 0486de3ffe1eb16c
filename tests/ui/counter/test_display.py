"""The customer display as a window of its own: full screen on the chosen monitor, titled,
closed from the staff's screen only; and every control of the tab named."""

from __future__ import annotations

from tests.ui import press
from tests.ui.counter.conftest import open_counter_tab
from tests.ui.test_accessibility import _unnamed_focusable
from tests.ui.test_links import decode_qr


def test_the_display_on_a_monitor_is_closed_from_the_staffs_screen(start_app, loop, qapp):
    app = start_app(sandbox=True)
    app.on_links_tab()
    from dataclasses import replace

    session = app.session
    loop.run(session.save_profile(replace(session.profile, shop_email="till@example.com"), {}))
    counter = open_counter_tab(app, loop)
    tab = counter.tab
    place = tab.place
    assert place.screens.currentText() == "This screen, beside the amount box"  # one screen
    monitor = qapp.screens()[0].name() or "Screen 1"
    press.choose(place.screens, monitor)
    press.click(place.toggle)
    display = place.display
    assert display is not None and display.isVisible() and display.isFullScreen()
    assert display.windowTitle() == "PayDesk customer display"
    assert place.toggle.text() == "Close customer display"
    assert not place.beside.isVisible()
    assert display.view.watermark.isVisible()  # test mode: TEST behind everything
    sale = counter.sell("4")
    assert decode_qr(display.view.qr) == [sale.record.checkout_url]
    display.close()  # the customer's side (the window's close button): it stays
    assert display.isVisible()
    press.click(place.toggle)
    assert press.closed(display) and place.toggle.text() == "Open customer display"
    assert _unnamed_focusable(tab, at_least=10) == []


def test_every_control_of_the_counter_is_named(counter, loop):
    tab = counter.tab
    assert _unnamed_focusable(tab, at_least=10) == []
    assert tab.amount.accessibleName() == "Amount" and tab.note.accessibleName() == "Note"
    assert tab.email.accessibleName() == "Customer e-mail"
    assert [b.accessibleName() for b in (tab.sell_button, tab.new_sale_button,
                                         tab.place.toggle, tab.close_shift_button)] == [
        "Sell", "New sale", "Close customer display", "Close shift"]
    assert tab.place.screens.accessibleName() == "Customer display on"


def test_the_profiles_logo_is_shown_above_the_amount(counter, loop, tmp_path):
    from dataclasses import replace

    from PySide6.QtGui import QColor, QImage

    image = QImage(400, 200, QImage.Format.Format_RGB32)
    image.fill(QColor("#2155cd"))
    path = tmp_path / "logo.png"
    assert image.save(str(path))
    session = counter.app.session
    loop.run(session.save_profile(replace(session.profile, counter_logo=str(path),
                                          merchant_name="The Corner Café"), {}))
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
