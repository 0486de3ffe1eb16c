"""A word heard late: a shared ledger's changes can be heard in another order than they
were written (each desk reads what a change announced when it hears of it). Whether a word
on a link or a sale is older than what is known of it (``left_behind``, ``older_than``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from paydesk.ledger import LinkRecord
from paydesk.ledger.counter import OPEN, Sale
from paydesk.ledger.records import left_behind
from tests.records import WHEN, link_record


@pytest.mark.parametrize(
    ("heard", "known", "older"),
    [
        ("creating", "pending", True),  # the intent, heard after the service's answer
        ("creating", "success", True),
        ("creating", "rejected", True),
        ("pending", "success", True),  # a paid link is never payable again
        ("pending", "failed", True),
        ("success", "refunded", True),  # refunded comes after paid, never before
        ("pending", "pending", False),
        ("creating", "creating", False),
        ("pending", "creating", False),  # news: the answer came
        ("rejected", "creating", False),
        ("success", "pending", False),
        ("unknown", "pending", False),  # an open link may be said anything
        ("refunded", "success", False),
        ("failed", "success", True),  # a final state moves only to what may follow it
    ],
)
def test_a_state_the_link_has_left_is_an_older_word(heard, known, older):
    assert left_behind(heard, known) is older


def record(state: str, url: str | None = "http://127.0.0.1/checkout/pay/AB12") -> LinkRecord:
    return link_record("CTR-261127-AAAAAA-0001X", state, checkout_url=url)


def sale(link: LinkRecord | None) -> Sale:
    return Sale(
        id=1,
        profile_id="p1",
        mode="test",
        tx_ref="CTR-261127-AAAAAA-0001X",
        counter="Till 1",
        shift_id=1,
        number=1,
        made_at=WHEN,
        made_by="kim",
        kind=OPEN,
        record=link,
    )


def test_a_sale_heard_before_its_link_was_answered_is_older_than_its_code():
    shown = sale(record("pending"))
    assert sale(record("creating", url=None)).older_than(shown)
    assert sale(None).older_than(shown)  # read before its link's intent was written
    assert not shown.older_than(shown)
    assert not shown.older_than(sale(record("creating", url=None)))  # the news itself
    assert not shown.older_than(sale(None))


def test_a_void_and_a_decision_only_move_forward():
    open_sale = sale(record("pending"))
    voided = replace(open_sale, voided_at=WHEN, voided_by="kim")
    assert open_sale.older_than(voided) and not voided.older_than(open_sale)
    decided = replace(voided, decision="refund", decided_at=WHEN, decided_by="kim")
    assert voided.older_than(decided) and not decided.older_than(voided)
