"""The family's answer shapes (SERVICE.md 1b), byte for byte, through the client's own
readers: a lookup is judged by its transaction, a refusal dressed as success is a refusal,
both expiry spellings read. The same shapes come from the real --family sandbox in
test_dialects.py; these pin each rule on its own."""

import json

import pytest

from paydesk.config.profiles import Profile
from paydesk.service import TransactionState, ValidationError
from paydesk.service.answers import read, read_lookup
from paydesk.service.client import ServiceClient
from paydesk.service.errors import NotFoundError, UnexpectedAnswerError
from paydesk.service.models import Transaction, read_expiry

TX = {"tx_ref": "F-1", "amount": "1,000.00", "currency": "USD", "reference": "PDK-9"}


def _body(status, message, data) -> bytes:
    return json.dumps({"message": message, "status": status, "data": data}).encode()


@pytest.mark.parametrize(
    "word,state",
    [
        ("pending", TransactionState.PENDING),
        ("success", TransactionState.SUCCESS),
        ("failed/cancelled", TransactionState.FAILED),
        ("refunded", TransactionState.REFUNDED),
        ("reversed", TransactionState.REVERSED),
    ],
)
def test_a_lookup_is_judged_by_its_transaction(word, state):
    raw = _body(word, "Payment details", {**TX, "status": word})
    answer = read_lookup(201, {}, raw)
    tx = Transaction.parse(answer.data, answer.status)
    assert tx.status is state and tx.status_raw == word and tx.tx_ref == "F-1"
    if word != "success":  # every other call still reads the envelope's word
        with pytest.raises(ValidationError):
            read(201, {}, raw)


def test_a_transaction_without_its_state_takes_the_envelopes():
    answer = read_lookup(201, {}, _body("failed/cancelled", "Payment details", TX))
    assert Transaction.parse(answer.data, 201).status is TransactionState.FAILED


def test_lookup_errors_stay_errors():
    with pytest.raises(NotFoundError) as info:
        read_lookup(404, {}, _body("null", "Payment not submitted", None))
    assert info.value.message == "Payment not submitted"
    with pytest.raises(NotFoundError):
        read_lookup(404, {}, _body("failed", "Invalid transaction", None))
    with pytest.raises(ValidationError):  # a refusal without a transaction
        read_lookup(201, {}, _body("failed", "Something went wrong", None))
    with pytest.raises(UnexpectedAnswerError) as info:  # the framework's own 404 page
        read_lookup(404, {}, b"<!DOCTYPE html><title>Not Found</title>")
    assert info.value.status == 404


@pytest.mark.parametrize(
    "message,data",
    [
        ("Insufficient Funds, please fund your account", None),  # the family's, verbatim
        ("Insufficient Funds, please fund your account", "null"),
        ("insufficient balance", {"card_hash": "ch_1"}),  # says so even beside a card
        ("Card funding failed", None),
        ("Unable to process request", {}),
    ],
)
def test_a_refusal_dressed_as_success_is_a_refusal(message, data):
    answer = read(201, {}, _body("success", message, data))
    with pytest.raises(ValidationError) as info:
        ServiceClient._moved(answer)
    assert info.value.message == message


@pytest.mark.parametrize(
    "status,message,data",
    [
        ("success", "Card Funding successful", {}),  # the document's
        ("success", "Card funded successfully", {"card_hash": "ch_1", "balance": "70.00"}),
        ("suucess", "Withdrawal Successful", {"card_hash": "ch_1"}),
    ],
)  # the family's withdraw
def test_a_card_moved_is_done(status, message, data):
    assert ServiceClient._moved(read(201, {}, _body(status, message, data))) == message


@pytest.mark.parametrize(
    "given,kept",
    [
        ("05/29", "2029-05"),
        ("5/29", "2029-05"),
        ("12/2031", "2031-12"),
        ("2029-05", "2029-05"),
        ("2029-05-31", "2029-05"),
        (" 07 / 30 ", "2030-07"),
        ("soon", "soon"),
        (None, None),
        ("13/29", "13/29"),
    ],
)
def test_both_expiry_spellings_read(given, kept):
    assert read_expiry(given) == kept


def test_the_profile_keeps_its_lookup_path_and_drops_a_strange_one():
    base = {"id": "p_1", "name": "Shop", "base_url": "https://pay.example"}
    assert Profile.from_json(base).lookup_path is None
    assert Profile.from_json({**base, "lookup_path": "api/verify-payment"}).lookup_path == "api/verify-payment"
    assert Profile.from_json({**base, "lookup_path": "../admin"}).lookup_path is None
