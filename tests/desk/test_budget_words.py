"""How the call budget reads on screen (desk/budget_words.py), and the profile editor's
"Calls a minute this service allows" (desk/checks.py), without Qt."""

from __future__ import annotations

import pytest

from paydesk.desk.budget_words import busy_text, time_left, waiting_text
from paydesk.desk.budgets import origin_of, per_window
from paydesk.desk.checks import calls_a_minute
from paydesk.service.budget import BudgetState
from paydesk.service.budget_book import BookState


def state(waiting=(), **book) -> BudgetState:
    return BudgetState(BookState(**book), frozenset(waiting))


def test_a_persons_wait():
    assert waiting_text(2.2) == "Waiting for the service (3 s)"
    assert waiting_text(0.01) == "Waiting for the service (1 s)"


def test_the_status_bar_says_what_waits_and_what_is_left():
    assert busy_text(state(limit=60, left=12)) == ""  # nothing waits: nothing to say
    assert busy_text(state({5}, limit=60, left=12)) == (
        "Service busy: background checks slowed; 12 of 60 calls left this minute"
    )
    assert busy_text(state({4, 5}, limit=60, left=3)) == (
        "Service busy: bulk links slowed and background checks slowed; 3 of 60 calls left this minute"
    )
    assert busy_text(state({1}, limit=60, left=-2)) == ("Service busy: calls wait; 0 of 60 calls left this minute")
    assert busy_text(state({3}, limit=12, left=1, window=4.0)) == (
        "Service busy: codes on screen checked less often; 1 of 12 calls left in 4 s"
    )
    assert busy_text(state(limit=60, left=0, paused_for=7.2)) == (
        "Service busy: it asked to wait 8 s; calls resume by priority"
    )
    assert busy_text(state({5}, limit=None)) == ""  # not throttled


def test_a_batchs_honest_time_left():
    alone = state(limit=60, left=55, used={4: 5})
    # alone, 54 a minute: a batch spreads its calls, 9 in each sixth of the window
    assert time_left(10_000, alone) == "about 3 h 5 min at the service's 60 calls a minute"
    counters = state(limit=60, left=20, used={1: 8, 3: 4, 4: 30}, others=10)
    assert time_left(10_000, counters) == (
        "about 5 h 3 min at the service's 60 calls a minute, shared with the counters"
    )
    assert time_left(300, state(limit=60, left=50, used={5: 2})).endswith(", shared with other calls")
    assert time_left(100, state(limit=None)) == ""  # no limit: nothing to wait for
    assert time_left(0, alone) == ""
    assert time_left(40, state(limit=12, left=12, window=4.0)) == (  # 6 a window, spread
        "about 30 s at the service's 180 calls a minute"
    )


@pytest.mark.parametrize(
    "typed,expected",
    [
        ("", (None, None)),
        ("  ", (None, None)),
        ("60", (60, None)),
        (" 30 ", (30, None)),
        ("sixty", (None, "A whole number of calls, e.g. 60; or leave it empty")),
        ("2.5", (None, "A whole number of calls, e.g. 60; or leave it empty")),
        ("0", (None, "Between 1 and 100,000; or leave it empty")),
        ("١٢", (None, "A whole number of calls, e.g. 60; or leave it empty")),
    ],
)
def test_calls_a_minute_is_checked_as_typed(typed, expected):
    assert calls_a_minute(typed) == expected


def test_one_origin_whatever_the_path_and_the_case():
    assert origin_of("https://Pay.Example.com/api-base") == "https://pay.example.com:443"
    assert origin_of("http://127.0.0.1:8000/pay") == "http://127.0.0.1:8000"
    assert origin_of("http://[::1]:9/x") == "http://[::1]:9"
    assert per_window(60, 60.0) == 60 and per_window(60, 4.0) == 4
    assert per_window(1, 4.0) == 1 and per_window(None, 60.0) is None
