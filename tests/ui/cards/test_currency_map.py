"""The profile's card currency code map, edited in the profile editor: checked next to its
field, saved with the profile, and used by the wallet at once (read and written as text:
tests/config/test_card_currencies.py)."""

from tests.ui import press
from tests.ui.cards.test_wallet import Desk


def test_the_map_is_edited_in_the_profile_editor(start_app, loop):
    app = start_app(sandbox=True)
    app.wait_started()
    desk = Desk(app, loop)
    _, card = desk.create("20", "GBP")
    loop.until(lambda: desk.tab.page.values["balance"].text() == "GBP 20.00", message="GBP")
    press.click(app.window.edit_profile)
    loop.until(lambda: press.shown("profile-editor") is not None, message="the editor")
    editor = press.shown("profile-editor")
    loop.until(lambda: editor.card_codes.text() != "", message="the map in the editor")
    assert editor.card_codes.text() == "10=NGN, 11=USD, 12=GBP, 13=EUR"
    press.type_into(editor.card_codes, "12=POUND")
    press.click(editor.save_button)
    loop.until(lambda: "three-letter" in editor.card_codes_message.text(), message="refused")
    assert editor.isVisible()
    press.type_into(editor.card_codes, "11=USD, 12=XTS")  # the test currency code, to see it change
    press.click(editor.save_button)
    loop.until(lambda: press.closed(editor), timeout=30, message="the editor to close")
    assert app.session.profile.card_currencies == {"11": "USD", "12": "XTS"}
    loop.until(
        lambda: desk.tab.wallet.model.text(desk.tab.wallet.model.records[0], 2) == "XTS 20.00",
        message="the new map in the list",
    )
    assert desk.tab.page.values["balance"].text() == "XTS 20.00"
