"""The profile's card currency code map as text: read from what the user types (each
mistake said), written back in code order."""

from paydesk.config.profiles import format_card_currencies, parse_card_currencies


def test_parse_and_format():
    assert parse_card_currencies("11=usd, 12 = GBP,") == ({"11": "USD", "12": "GBP"}, None)
    assert format_card_currencies({"12": "GBP", "11": "USD"}) == "11=USD, 12=GBP"
    assert "e.g. 12=GBP" in parse_card_currencies("12 GBP")[1]
    assert "three-letter" in parse_card_currencies("12=POUND")[1]
    assert "twice" in parse_card_currencies("12=GBP, 12=USD")[1]
