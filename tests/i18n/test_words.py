"""The words in the reader's language (paydesk/i18n.py): the staff's and the customer's,
the pseudo-language, the system's language. Qt-free."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from paydesk import i18n
from paydesk.desk.states import STATE_FILTERS, state_words
from paydesk.i18n import ENGLISH, PSEUDO, _, customer, pseudo, set_language, system_language
from paydesk.ledger import LinkRecord


def link_record(state: str) -> LinkRecord:
    now = datetime.now(UTC)
    return LinkRecord(
        id=1,
        profile_id="p",
        mode="test",
        tx_ref="PAY-1",
        amount=Decimal("12.50"),
        currency="NGN",
        email="ada@example.com",
        first_name="Ada",
        last_name="Obi",
        state=state,
        created_at=now,
        updated_at=now,
    )


@pytest.fixture(autouse=True)
def english_after():
    yield
    set_language(ENGLISH)


def test_the_staff_reads_french_once_chosen_and_english_again_after():
    set_language("fr")
    assert _("Thank you") == "Merci"
    assert _("WAITING FOR PAYMENT") == "EN ATTENTE DE PAIEMENT"
    set_language(ENGLISH)
    assert _("Thank you") == "Thank you"


def test_a_message_nobody_translated_reads_in_english():
    set_language("fr")
    assert _("A message no catalogue holds") == "A message no catalogue holds"


def test_a_language_not_offered_is_english():
    assert set_language("xx").language == ENGLISH


def test_the_customer_reads_their_own_language_whatever_the_staff_read():
    set_language(ENGLISH)
    record = link_record(state="pending")
    assert state_words(record).words == "WAITING FOR PAYMENT"
    assert state_words(record, customer("fr")).words == "EN ATTENTE DE PAIEMENT"
    assert customer("de").language == ENGLISH  # not offered to customers: English


def test_a_state_nobody_put_in_words_reads_in_the_staff_language():
    """A record whose state is unknown, the service having said no word for it: "UNKNOWN" in
    the staff's language; the service's own word, when it said one, as it said it."""
    set_language("fr")
    assert state_words(link_record(state="unknown")).words == "INCONNU"
    assert state_words(replace(link_record(state="unknown"), state_raw="on_hold")).words == "ON_HOLD"
    set_language(ENGLISH)
    assert state_words(link_record(state="unknown")).words == "UNKNOWN"


def test_the_state_filters_are_said_in_the_staff_language_where_shown():
    set_language("fr")
    shown = [_(words) for words, _states, _voided in STATE_FILTERS]
    assert shown[0] == "Tous les états"
    assert "Annulé en caisse" in shown


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANGUAGE": "de:fr", "LANG": "en_GB.UTF-8"}, "fr"),
        ({"LC_ALL": "fr_CA.UTF-8", "LANG": "en_US.UTF-8"}, "fr"),
        ({"LANG": "de_DE.UTF-8"}, ENGLISH),
        ({"LANG": "C.UTF-8"}, ENGLISH),
        ({}, ENGLISH),
    ],
)
def test_the_system_language_is_read_as_gettext_reads_it(environ, expected):
    assert system_language(environ) == expected


def test_the_pseudo_language_is_accented_longer_and_bracketed():
    out = pseudo("Waiting for payment")
    assert out.startswith("[") and out.endswith("]")
    assert out != "Waiting for payment" and "á" in out
    letters = sum(c.isalpha() for c in "Waiting for payment")
    assert len(out) - 2 >= len("Waiting for payment") + round(letters * 0.4)


def test_the_pseudo_language_makes_a_sentence_longer_in_words_a_line_can_break_between():
    """A long sentence made 40% longer is longer by words, as a translation is, never by one
    word of 60 letters that no wrapped label can break (a caption keeps its filler whole)."""
    sentence = (
        "A shared ledger lets every desk of the shop see the same links, transactions and cards. "
        "Its address comes from the shop's administrator."
    )
    out = pseudo(sentence)
    letters = sum(c.isalpha() for c in sentence)
    assert len(out) - 2 >= len(sentence) + round(letters * 0.4)
    longest = max(len(word) for word in sentence.split())
    assert max(len(word) for word in out.split()) <= longest + 2, out  # the brackets at most
    assert pseudo("Shared ledger") == "[Šháŕéd ļédĝéŕ·~~~~]"


@pytest.mark.parametrize(
    "message",
    ["Void {reference}?", "%s sent", "%(count)d links", "&Save", "<b>Paid</b> at {time}"],
)
def test_the_pseudo_language_keeps_placeholders_mnemonics_and_markup(message):
    out = pseudo(message)
    for kept in re.findall(r"\{\w+\}|%\(\w+\)d|%s|&\w|<\w+>|</\w+>", message):
        assert kept in out
    assert out.format(reference="PAY-1", time="12:00") if "{" in message else out


def test_the_pseudo_language_is_the_staff_language_when_chosen():
    set_language(PSEUDO)
    assert _("Thank you").startswith("[Ţĥ") or _("Thank you").startswith("[Ţ")
    assert i18n.ngettext("{n} link", "{n} links", 2).format(n=2).startswith("[2")


@pytest.mark.parametrize(
    ("n", "french"),
    [(0, "Créer 0 lien"), (1, "Créer 1 lien"), (2, "Créer 2 liens"), (1500, "Créer 1\u202f500 liens")],
)
def test_plurals_in_french(n, french):
    from paydesk.desk.formats import number_in

    words = set_language("fr")
    assert i18n.ngettext("Create {n} link", "Create {n} links", n).format(n=number_in(n, words)) == french


def test_plurals_in_english():
    assert i18n.ngettext("Create {n} link", "Create {n} links", 1).format(n=1) == "Create 1 link"
    assert i18n.ngettext("Create {n} link", "Create {n} links", 2).format(n=2) == "Create 2 links"


def test_the_role_counter_is_a_message_of_its_own_apart_from_the_counter_tab():
    """ "Counter" the role (a person at the till, "Caissier") and "Counter" the tab (the till,
    "Caisse") are two messages: the role's has the context "role"."""
    from paydesk.ledger.staff import Role

    words = set_language("fr")
    assert words.pgettext("role", "Counter") == "Caissier"
    assert [role.title for role in Role] == ["Caissier", "Finance", "Admin"]
    assert words.pgettext("role", "Counter") != words.pgettext("tab", "Counter")  # never one message


def test_the_sentences_the_lower_layers_raise_read_in_french_where_the_desk_shows_them():
    """The ledger's and the shared ledger's sentences a person reads, in the staff's language."""
    from paydesk.config.shared_ledger import url_problem
    from paydesk.ledger.postgres.connection import LedgerUnreachable

    set_language("fr")
    since = datetime(2026, 11, 27, 9, 30, tzinfo=UTC)
    assert str(LedgerUnreachable(since)).startswith("Registre partagé injoignable depuis ")
    assert url_problem("mysql://shop") == (
        "Saisissez l’adresse du registre, qui commence par postgresql://, par ex. "
        "postgresql://paydesk@db.shop.lan/paydesk?sslmode=verify-full"
    )


def test_the_service_layers_own_sentences_read_in_french_and_stay_english_for_the_ledger():
    """A network failure is PayDesk's own sentence (the service said nothing): shown in the
    staff's language (str), kept in English (``message``: the ledger's note, the logs)."""
    import httpx

    from paydesk.service.client import _transport_error

    set_language("fr")
    error = _transport_error(httpx.ConnectTimeout("slow"), 10.0)
    assert str(error) == "Le service est injoignable (délai dépassé)"
    assert error.message == "The service cannot be reached (timed out)"
    lost = _transport_error(TimeoutError(), 7.5)
    assert str(lost) == "Pas de réponse du service en 7.5\u00a0s" and lost.message.endswith("within 7.5 s")
    set_language(ENGLISH)
    assert str(error) == "The service cannot be reached (timed out)"


def test_the_ledgers_english_sentences_with_values_read_in_french():
    """The ledger keeps PayDesk's sentences in English whatever the desk's language (a card
    check's finding, an activity's export line); a French desk reads them back in French by
    their shape, the values as written; the service's own words stay as it said them."""
    from paydesk.desk.texts import ledger_words

    set_language("fr")
    try:
        assert ledger_words("Card audit: 3 lines to audit.csv") == "Journal des cartes\u00a0: 3 lignes vers audit.csv"
        assert ledger_words("Transactions: 1 record to day.csv") == "Transactions\u00a0: 1 enregistrement vers day.csv"
        assert ledger_words("The card is blocked at the service") == "La carte est bloquée chez le service"
        assert ledger_words("The card shows the credit (balance GBP 12.00)").startswith("La carte présente le crédit")
        assert ledger_words("Card created") == "Carte créée"
        assert ledger_words("Insufficient balance on the merchant") == "Insufficient balance on the merchant"
    finally:
        set_language(ENGLISH)
    assert ledger_words("Card audit: 3 lines to audit.csv") == "Card audit: 3 lines to audit.csv"
