"""The link form's checks (desk/checks.py) say what the service would refuse, before
anything is sent: they agree with the sandbox's own rules (sandbox/rules.py) on every case
below."""

from decimal import Decimal

import pytest

from paydesk.desk import checks
from paydesk.sandbox import rules

URLS = [
    "https://shop.example/cb",
    "http://127.0.0.1:8000/pay?x=1#y",
    "HTTPS://a.b",
    "ftp://x.example",
    "https://",
    "https://[::1]/",
    "javascript:alert(1)",
    "https://shop.example/a b",
    "https://shop.example/é",
    "https://-bad.example",
    "http://localhost:99999x",
]
REFS = ["SHOP-1", "a", "...", ".", "a.b~c:d-e_f", "has space", "x" * 100, "x" * 101, "Ünï"]
NAMES = ["Ada", "Ada\u0000", "Ada\r\nBcc: x", "Zoë", "tab\there", "line\u2028sep"]


@pytest.mark.parametrize("url", URLS)
def test_urls_as_the_service_takes_them(url):
    assert (checks.url(url) is None) == rules.matches(rules.URL, url), url


@pytest.mark.parametrize("ref", REFS)
def test_references_as_the_service_takes_them(ref):
    ours = checks.tx_ref(ref) is None
    theirs = rules.matches(rules.TX_REF, ref) and len(ref) <= rules.LENGTHS["tx_ref"]
    assert ours == theirs, ref


@pytest.mark.parametrize("text", NAMES)
def test_one_line_fields_as_the_service_takes_them(text):
    assert (checks.name(text, "first name") is None) == rules.matches(rules.FILLED_ONE_LINE, text)
    assert (checks.limit(text, 100) is None) == rules.matches(rules.ONE_LINE, text)


def test_extra_fields_as_the_service_takes_them():
    assert checks.meta([("till", "3")]) is None
    assert checks.meta([(f"k{i}", "v") for i in range(21)]) == "At most 20 extra fields"
    assert checks.meta([("n" * 41, "v")]).startswith("An extra field's name")
    assert checks.meta([("note", "v" * 101)]).startswith("An extra field's value")
    assert checks.meta([("note", "two\nlines")]) is None  # values may keep line breaks
    assert checks.meta([("bad\nname", "v")]).startswith("An extra field's name")
    assert (rules.META_MEMBERS, rules.META_NAME, rules.META_VALUE) == (
        checks.META_FIELDS,
        checks.META_NAME,
        checks.META_VALUE,
    )


@pytest.mark.parametrize(
    "email", ["ada@example.com", "ada@ex", "a@-x.com", "a b@x.com", " ada@example.com "]
)  # (the form sends it trimmed)
def test_emails_as_the_service_takes_them(email):
    assert (checks.email(email) is None) == rules.matches(rules.EMAIL, email), email


SEPARATORS = "No thousands separators: type 1500"


@pytest.mark.parametrize(
    "typed, said",
    [
        ("1500", None),
        ("1,500", SEPARATORS),  # as English Excel formats it
        ("1.500", SEPARATORS),  # German, Dutch...
        ("1 500", SEPARATORS),
        ("1\u00a0500", SEPARATORS),  # French Excel's no-break space
        ("1\u202f500", SEPARATORS),  # its narrow no-break space
        ("1'500", SEPARATORS),  # Swiss
        ("1,500.00", "No thousands separators or decimals: type 1500"),
        ("1.500,00", "No thousands separators or decimals: type 1500"),
        ("1 500,00", "No thousands separators or decimals: type 1500"),
        ("1,500.50", "Whole units only, without thousands separators (the service takes no decimals)"),
        ("1.500,5", "Whole units only, without thousands separators (the service takes no decimals)"),
        ("1,234,567", "No thousands separators: type 1234567"),
        ("12,345,678", "Between 1 and 10,000,000"),  # what was meant is too much anyway
        ("25.00", "No decimals: type 25"),
        ("25,0", "No decimals: type 25"),
        ("25.50", "Whole units only, digits 0-9 (the service takes no decimals)"),
        ("2,5", "Whole units only, digits 0-9 (the service takes no decimals)"),
        ("£1,500", "No currency sign or thousands separators: type 1500"),
        ("1.500 €", "No currency sign or thousands separators: type 1500"),
        ("$25", "No currency sign: type 25"),
        ("1\u00a0500\u00a0€", "No currency sign or thousands separators: type 1500"),
        ("€ 1.500,00", "No currency sign, thousands separators or decimals: type 1500"),
        ("£", "Whole units only, digits 0-9"),
        ("1,50,000", "No thousands separators: type 150000"),  # Indian grouping
        ("1,5000", "Whole units only, digits 0-9"),  # not groups of three: not guessed
        ("1,500 000", "Whole units only, digits 0-9"),  # two separators: not guessed
        ("1,500.000", "Whole units only, digits 0-9"),
        ("abc", "Whole units only, digits 0-9"),
        ("-5", "Whole units only, digits 0-9"),
        ("1e3", "Whole units only, digits 0-9"),
        ("\u0661\u0662", "Whole units only, digits 0-9"),
    ],
)
def test_an_amount_typed_with_separators_says_what_to_type(typed, said):
    """Every message names the real problem: a separator is never called a decimal point
    (1,500 is fifteen hundred), "no decimals" is said only of real decimals, and nothing is
    guessed silently: the amount is refused with what to type."""
    assert checks.amount(typed) == said, typed


def test_a_cards_amount_in_whole_units():
    assert checks.whole_amount(" 1,250 ") == (Decimal(1250), None)
    assert checks.whole_amount("") == (None, "Enter an amount in whole units, e.g. 25")
    assert checks.whole_amount("2.50")[1] == "Whole units only, e.g. 25 (the service takes no decimals)"
    assert checks.whole_amount("0") == (None, "At least 1")
    assert checks.whole_amount(str(checks.MAX_AMOUNT + 1)) == (None, "At most 10,000,000")
    assert checks.whole_amount("30", Decimal(20), "GBP 20.00") == (None, "At most GBP 20.00")
    assert checks.whole_amount("20", Decimal(20), "GBP 20.00") == (Decimal(20), None)


def test_the_name_on_a_card():
    assert checks.cardholder_name(" ", "first name") == "Enter the cardholder's first name, as it goes on the card"
    assert checks.cardholder_name("Ada", "first name") is None
    assert checks.cardholder_name("Ada\r\nBcc: x", "first name") == checks.name("Ada\r\nBcc: x", "")


def test_a_profiles_reference_prefix_and_currencies():
    """The profile editor's rules, Qt-free: what is saved is what these hand back."""
    assert checks.txref_prefix(" shop ") == ("SHOP", None)
    assert checks.txref_prefix("") == ("", "1 to 8 letters or digits, e.g. SHOP")
    assert checks.txref_prefix("SHOP-1")[1] == "1 to 8 letters or digits, e.g. SHOP"
    assert checks.txref_prefix("ABCDEFGHI")[1] == "1 to 8 letters or digits, e.g. SHOP"
    assert checks.txref_prefix("CAFÉ")[1] == "1 to 8 letters or digits, e.g. SHOP"
    assert checks.currency_codes(" gbp, USD ,") == (["GBP", "USD"], None)
    for typed in ("", " , ", "GBP, US", "GBP; USD", "GB1"):
        assert checks.currency_codes(typed)[1] == "List three-letter currency codes, e.g. GBP, USD", typed
