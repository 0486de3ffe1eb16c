"""The cards controller on its own (no window, no Qt), over the desk folder's fixtures."""

import pytest

from paydesk.desk.cards.controller import CardsController


@pytest.fixture
def controller(session):
    """The desk's cards rules with a short second look (a lost operation not found is
    declared not done after 0.2 s instead of 2 s)."""
    made = CardsController(session, session.card_ledger)
    made.second_look = 0.2
    return made
