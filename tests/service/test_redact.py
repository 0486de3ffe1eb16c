"""The redactor: keys and card data never reach exception text, logs or crash reports."""

import io
import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paydesk.logs import Redactor
from paydesk.service.errors import UnexpectedAnswerError, ValidationError
from paydesk.service.models import VirtualCard, items_of
from paydesk.service.redact import luhn_valid, redact

CARDS = [
    "4242424242424242",
    "4000 0000 0000 3220",
    "5555-5555-5555-4444",
    "378282246310005",
    "6011111111111117",
    "3530111333300000",
    "4222222222222",
    "6304000000000000000",
]


def _luhn_complete(partial: str) -> str:
    for last in "0123456789":
        if luhn_valid(partial + last):
            return partial + last
    raise AssertionError


@pytest.mark.parametrize("number", CARDS)
def test_card_numbers_are_redacted_to_their_last_four(number):
    """Issue 8, section 4: the redactor knows card numbers (13 to 19 digits that pass the
    Luhn check, spaced or not)."""
    digits = number.replace(" ", "").replace("-", "")
    text = redact(f"paid with {number}, thanks")
    assert digits not in text.replace(" ", "").replace("-", "")
    assert f"[card ending {digits[-4:]}]" in text


@settings(max_examples=200)
@given(
    st.integers(12, 18).flatmap(lambda n: st.text("0123456789", min_size=n, max_size=n)),
    st.sampled_from(["", " ", "-"]),
    st.text(max_size=10),
)
def test_any_luhn_number_of_13_to_19_digits_goes(partial, separator, around):
    """Issue 8, section 4: any length from 13 to 19, grouped or not, among other text."""
    number = _luhn_complete(partial)
    shown = separator.join(number[i : i + 4] for i in range(0, len(number), 4))
    text = redact(f"{around} {shown} {around}")
    assert number not in text.replace(separator, "") if separator else number not in text


@pytest.mark.parametrize(
    "text",
    [
        "amount 1000000 GBP",
        "reference SHOP-261122-K7QM4X-0042R9",
        "at 2026-11-22 10:00:00",
        "4242424242424241 (no Luhn)",
    ],
)
def test_other_numbers_stay(text):
    """Issue 8, section 4: amounts, references, dates and numbers failing Luhn stay."""
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "{'card_pan': '4111111111111112', 'cvv': '123'}",
        '{"cvv":"987","card_pan":"1234"}',
        "cvc=123&card_number=41111",
        "CVV: 4321",
    ],
)
def test_card_fields_are_redacted(text):
    """Issue 8, section 4: the values of card_pan and cvv (and kin) go, whatever they hold."""
    out = redact(text)
    for secret in ("4111111111111112", "123", "987", "1234", "41111", "4321"):
        assert f"'{secret}'" not in out and f'"{secret}"' not in out and f"={secret}" not in out
        assert f": {secret}" not in out
    assert "[redacted]" in out


def test_whole_keys_are_redacted_hyphens_and_all():
    """Item 14: a family key with a hyphen in its body was redacted only in part."""
    key = "sec-test-abcd-EFGH-1234-ijkl-5678"
    assert redact(f"bad key {key}.") == "bad key [redacted]."
    assert redact("x", "") == "x"


def test_answer_snippets_carry_no_card_number_nor_cvv():
    """Issue 8, section 4: UnexpectedAnswerError snippets carried the full number and CVV
    (a card answer of an unexpected shape)."""
    card = {"card_hash": "ch_1", "card_pan": "4242424242424242", "cvv": "123", "status": "x"}
    with pytest.raises(UnexpectedAnswerError) as info:
        items_of(card, 200, "cards")
    with pytest.raises(UnexpectedAnswerError) as second:
        VirtualCard.parse({**card, "status": {"pan": "4242424242424242"}}, 200)
    raw = UnexpectedAnswerError("not JSON", status=200, snippet=json.dumps(card))
    for error in (info.value, second.value, raw):
        for text in (str(error), repr(error), error.snippet):
            assert "4242424242424242" not in text and "'123'" not in text and '"123"' not in text


def test_validation_errors_carry_no_card_number():
    """Issue 8, section 4: a service's message and field errors, too."""
    error = ValidationError("refused 4000 0000 0000 3220", {"card": ["4000000000003220 is blocked"]})
    assert "3220" in error.message and "4000 0000 0000 3220" not in error.message
    assert "4000000000003220" not in json.dumps(error.errors)


def test_log_lines_carry_no_card_data():
    """Issue 8, section 4: logs (and the crash report, which uses the same redactor)."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    redactor = Redactor()
    redactor.add("MYSHOP-LIVE-abcdef")
    handler.addFilter(redactor)
    log = logging.getLogger("paydesk.test.redact")
    log.addHandler(handler)
    try:
        log.warning("card %s cvv=%s key %s", "4242 4242 4242 4242", "123", "MYSHOP-LIVE-abcdef")
        try:
            raise RuntimeError("answer {'card_pan': '5555555555554444', 'cvv': '321'}")
        except RuntimeError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)
    text = stream.getvalue()
    for secret in ("4242 4242 4242 4242", "cvv=123", "MYSHOP-LIVE-abcdef", "5555555555554444", "'321'"):
        assert secret not in text, text
    assert "[card ending 4242]" in text
    assert redactor.clean("4242424242424242") == "[card ending 4242]"
