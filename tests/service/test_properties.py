"""Property tests: money, the tx_ref check character, snippet escaping."""

from datetime import date
from decimal import Decimal
from html.parser import HTMLParser

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from paydesk.service.models import PaymentRequest
from paydesk.service.money import MoneyError, format_amount, parse_amount, to_wire
from paydesk.service.snippets import SecretKeyInSnippet, form_fields, html_form, inline_checkout
from paydesk.service.txref import (
    ALPHABET,
    INSTALLATION_ALPHABET,
    TxRefError,
    TxRefGenerator,
    check_characters,
    is_consistent,
    new_installation_id,
    validate,
)

amounts = st.decimals(min_value=0, max_value=Decimal("1e12"), places=2, allow_nan=False)


@given(amounts)
def test_format_then_parse_is_identity(value):
    assert parse_amount(format_amount(value)) == value


@given(st.integers(min_value=1, max_value=10**9))
def test_whole_amounts_go_out_as_digits(n):
    assert to_wire(Decimal(n)) == str(n)
    assert to_wire(format_amount(n)) == str(n)


@given(st.text(max_size=12))
def test_parse_never_raises_anything_but_money_error(text):
    try:
        value = parse_amount(text)
    except MoneyError:
        return
    assert isinstance(value, Decimal) and value.is_finite()


@pytest.mark.parametrize("bad", ["1,00", "1.000,00", "1e3", "", " ", "NaN", "Infinity", "١٢", "12,3456"])
def test_not_amounts(bad):
    with pytest.raises(MoneyError):
        parse_amount(bad)


@pytest.mark.parametrize("bad", [Decimal("1.5"), Decimal("0"), 0, "0.50"])
def test_wire_amounts_are_whole_and_positive(bad):
    with pytest.raises(MoneyError):
        to_wire(bad)


payloads = st.text(alphabet=ALPHABET, min_size=2, max_size=30)


@given(payloads, st.data())
def test_check_catches_any_single_substitution(payload, data):
    ref = payload + check_characters(payload)
    assert is_consistent(ref)
    i = data.draw(st.integers(0, len(ref) - 1))
    other = data.draw(st.sampled_from(ALPHABET))
    assume(other != ref[i])
    assert not is_consistent(ref[:i] + other + ref[i + 1 :])


@given(payloads, st.data())
def test_check_catches_any_adjacent_swap(payload, data):
    ref = payload + check_characters(payload)
    i = data.draw(st.integers(0, len(ref) - 2))
    assume(ref[i] != ref[i + 1])
    assert not is_consistent(ref[:i] + ref[i + 1] + ref[i] + ref[i + 2 :])


def test_check_exhaustively_on_short_payloads():
    """Every two-character payload: every substitution and every neighbour swap is caught."""
    for a in ALPHABET:
        for b in ALPHABET:
            ref = a + b + check_characters(a + b)
            assert is_consistent(ref)
            for i in range(4):
                for c in ALPHABET:
                    if c != ref[i]:
                        assert not is_consistent(ref[:i] + c + ref[i + 1 :]), (ref, i, c)
                if i < 3 and ref[i] != ref[i + 1]:
                    assert not is_consistent(ref[:i] + ref[i + 1] + ref[i] + ref[i + 2 :]), (ref, i)


@given(
    st.text(alphabet=INSTALLATION_ALPHABET, min_size=6, max_size=6),
    st.from_regex(r"[A-Z0-9]{1,8}", fullmatch=True),
    st.dates(date(2000, 1, 1), date(2099, 12, 31)),
)
@settings(max_examples=200)
def test_generated_references_validate_and_differ(inst, prefix, day):
    gen = TxRefGenerator(prefix, inst, today=lambda: day)
    refs = [gen.next() for _ in range(3)]
    assert len(set(refs)) == 3
    for ref in refs:
        assert validate(ref.lower()) == ref
        assert validate(" " + ref[:5] + " " + ref[5:]) == ref
        assert len(ref) <= 33 and ref.startswith(prefix + "-" + day.strftime("%y%m%d"))


def test_installations_differ_without_coordination():
    ids = {new_installation_id() for _ in range(2000)}
    assert len(ids) >= 1995  # 30 random bits each


@pytest.mark.parametrize(
    "typed,message",
    [
        ("", "Type a reference"),
        ("hello", "looks like"),
        ("SHOP-261122-K7QM4X-0042", "looks like"),
        ("SHOP-261122-K7QM4X-00421", "looks like"),
    ],
)
def test_validator_messages(typed, message):
    with pytest.raises(TxRefError, match=message):
        validate(typed)


def test_validator_catches_a_typo():
    ref = TxRefGenerator("SHOP", "K7QM4X", today=lambda: date(2026, 11, 22)).next()
    typo = ref[:-3] + ("1" if ref[-3] != "1" else "2") + ref[-2:]
    with pytest.raises(TxRefError, match="typing mistake"):
        validate(typo)


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inputs, self.scripts, self.forms, self.data = {}, [], [], []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input":
            self.inputs[a["name"]] = a["value"]
        elif tag == "form":
            self.forms.append(a)
        elif tag == "script":
            self._in_script = True
            self.scripts.append(a)

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.data.append(data)


nasty = st.text(min_size=1, max_size=40).filter(lambda s: s.strip())


@given(title=nasty, description=nasty, first=nasty, meta_value=nasty)
@settings(max_examples=150)
def test_form_snippet_has_exactly_the_intended_fields(title, description, first, meta_value):
    req = PaymentRequest(
        amount=Decimal(25),
        currency="GBP",
        email="a@example.com",
        first_name=first,
        last_name="X",
        tx_ref="T-1",
        title=title,
        description=description,
        meta={"k": meta_value},
        callback_url="https://shop.example/cb?a=1&b=2",
    )
    parsed = _Collect()
    parsed.feed(html_form(req, "pub-test-abc", "http://127.0.0.1:8000/pay/"))
    assert parsed.forms == [{"method": "post", "action": "http://127.0.0.1:8000/pay/ext_transfer"}]
    assert parsed.inputs == form_fields(req, "pub-test-abc")
    assert parsed.inputs["title"] == title and parsed.inputs["first_name"] == first


@given(title=nasty, first=nasty)
@settings(max_examples=150)
def test_inline_snippet_keeps_the_script_intact(title, first):
    import json

    req = PaymentRequest(
        amount=Decimal(25),
        currency="GBP",
        email="a@example.com",
        first_name=first,
        last_name="X",
        tx_ref="T-1",
        title=title,
    )
    parsed = _Collect()
    parsed.feed(inline_checkout(req, "pub-test-abc", "http://127.0.0.1:8000/pay"))
    assert parsed.scripts[0] == {"src": "http://127.0.0.1:8000/pay/js/payment.js"}
    assert len(parsed.scripts) == 2  # no value broke out of its script element
    code = "".join(parsed.data)
    config = json.loads(code.split("var paydeskCheckout = ", 1)[1].split(";\n", 1)[0])
    assert config["customization"]["title"] == title
    assert config["customer"]["first_name"] == first
    assert config["secret_key"] == "pub-test-abc"


@pytest.mark.parametrize("key", ["sec-test-abc", "SEC-LIVE-abc", ""])
def test_secret_keys_are_refused(key):
    req = PaymentRequest(
        amount=Decimal(1), currency="GBP", email="a@example.com", first_name="A", last_name="B", tx_ref="T"
    )
    with pytest.raises(SecretKeyInSnippet):
        html_form(req, key, "http://x")
    with pytest.raises(SecretKeyInSnippet):
        inline_checkout(req, key, "http://x")
    with pytest.raises(SecretKeyInSnippet):
        html_form(req, "pub-same", "http://x", secret_key="pub-same")
