"""Sentences with numbers and lists in them read as French writes them once French is
chosen (issue 33): numbers grouped the French way (not "10,000,000"), counts in the
singular for one, lists joined with "et"/"ou", and no English word or piece left inside."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from paydesk.desk import checks
from paydesk.desk.budget_words import busy_text
from paydesk.desk.bulk.keep import SHOWN, _changed_words, _differences
from paydesk.desk.bulk.progress import outcome, report
from paydesk.desk.inbox_words import entry_text, refused_words
from paydesk.i18n import ENGLISH, set_language
from paydesk.ledger.batch import BatchFigures
from paydesk.ledger.inbox import APPLIED, InboxEntry, RefusedGroup, body_hash
from paydesk.service.budget import BudgetState
from paydesk.service.budget_book import BookState

NNBSP = "\u202f"  # how French groups thousands


@pytest.fixture(autouse=True)
def french():
    set_language("fr")
    yield
    set_language(ENGLISH)


def test_limits_are_grouped_the_french_way():
    assert f"10{NNBSP}000{NNBSP}000" in checks.amount("20000000")
    assert f"10{NNBSP}000{NNBSP}000" in (checks.whole_amount("20000000")[1] or "")
    assert f"100{NNBSP}000" in (checks.calls_a_minute("0")[1] or "")
    assert "10,000,000" not in checks.amount("12,345,678")


def test_what_a_pasted_amount_carries_is_listed_with_a_french_or():
    said = checks.amount("€ 1.500,00") or ""
    assert " or " not in said and " ou " in said, said


def test_the_busy_status_joins_with_a_french_and():
    said = busy_text(BudgetState(BookState(limit=60, left=1), frozenset({4, 5})))
    assert " and " not in said and " et " in said, said
    assert "1 appel " in said and "appels" not in said.split(";")[1].split("sur")[0], said


def test_a_batch_of_one_reads_in_the_singular_and_whole():
    one = BatchFigures(rows=1, created=1)
    said = report(one, "Finished")
    assert "1 lien créé sur 1" in said, said
    big = BatchFigures(rows=20000, created=12000, waiting=1, creating=1, refused=1)
    said = report(big, "Cancelled", BatchFigures(rows=20000, created=2000, waiting=18000))
    assert f"12{NNBSP}000" in said and "(" in said and " now" not in said, said
    assert "1 non envoyée" in said and "1 refusée" in said, said
    said = outcome(big, cancelled=True, before=BatchFigures(rows=20000, created=2000, waiting=18000))
    assert f"10{NNBSP}000" in said and "1 refusée," in said, said
    said = outcome(BatchFigures(rows=1, created=1, creating=1), cancelled=False, before=None)
    assert "1 ligne envoyée, sans réponse" in said and " sent" not in said, said


def test_what_was_empty_before_reads_in_french():
    said = " ".join(_differences({"amount": "25"}, {"amount": "25", "title": "Thé"}))
    assert "(none)" not in said and "(vide)" in said, said


def test_rows_a_corrected_file_changes_are_one_french_sentence():
    said = _changed_words([f"La ligne {n} diffère" for n in range(SHOWN + 1)])
    assert "(et 1 autre)\u00a0: rétablissez-les" in said and "more" not in said, said
    assert _changed_words(["La ligne 1 diffère"]).startswith("La ligne 1 diffère\u00a0: rétablissez-la,")


def test_an_entry_and_the_refused_requests_in_french():
    body = b"{}" * 800
    entry = InboxEntry(
        id=1,
        received_at=datetime(2026, 11, 23, 22, 0, tzinfo=UTC),
        body_hash=body_hash(body),
        body=body,
        headers={},
        remote="127.0.0.1",
        verdict=APPLIED,
        detail="",
        profile_id="p",
        mode="test",
        tx_ref="",
        event="",
    )
    text = entry_text(entry)
    assert "(none)" not in text and f"1{NNBSP}600" in text, text
    when = datetime(2026, 11, 23, 21, 0, tzinfo=UTC)
    groups = [RefusedGroup(f"10.0.0.{i}", 1 if i == 0 else 2, 0, when, when) for i in range(5)]
    groups.append(RefusedGroup("10.0.1.1", 1500, 0, when, when))
    said = refused_words(groups)
    assert "1 refusée depuis 10.0.0.0" in said, said
    assert f"1{NNBSP}500 refusées depuis 1 autre adresse " in said, said
