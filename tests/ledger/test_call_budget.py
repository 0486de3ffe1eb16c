"""The book of a service's calls, in memory (``service/budget_book.MemoryBook``) and on a
shared ledger (``ledger/postgres/budget.PgBook``, real PostgreSQL), asked the same questions
and giving the same answers: one call at a time until an answer tells; not throttled when
the answers carry no limit; the limit from the headers, kept in a sliding window; Remaining
counting what another program spent; the reserves of each class; a 429's pause, then one
call at a time; a limit learned from a 429 alone; the limit set by hand; the classes below
spreading their calls over the window, and leaving another program its calls. On
PostgreSQL two
desks take from one book: what one took counts at the other."""

from __future__ import annotations

import asyncio

import pytest

from paydesk.service.budget_book import Heard, MemoryBook
from paydesk.service.call_class import CallClass

PERSON, LOOKUP, SCREEN, BULK, BACKGROUND = CallClass
BACKENDS = ["memory", "postgresql"]
ORIGIN = "http://127.0.0.1:8000"


@pytest.fixture(params=BACKENDS)
async def books(request):
    async for made in _books(request):
        yield made


@pytest.fixture(params=["postgresql"])
async def shared_books(request):
    """As ``books``, on a shared ledger only: several desks, one book."""
    async for made in _books(request):
        yield made


async def _books(request):
    """``books(window)``: a desk's book of ``ORIGIN``; on PostgreSQL each call a desk of
    its own (its own engine) on one shared ledger, all of them one book."""
    engines = []

    def make(window: float = 60.0):
        if request.param == "memory":
            made = getattr(make, "memory", None)
            if made is None:
                made = make.memory = MemoryBook(window)
            return made
        from paydesk.ledger.postgres.budget import PgBook
        from paydesk.ledger.postgres.engine import PgEngine

        engine = PgEngine(request.getfixturevalue("pg_url"), desk=f"desk-{len(engines)}")
        engines.append(engine)
        return PgBook(engine, ORIGIN, window=window)

    make.backend = request.param
    yield make
    for engine in engines:
        await engine.close()


async def took(book, klass=PERSON, hand=None) -> int | None:
    return (await book.take(klass, hand)).call_id


async def test_one_call_at_a_time_until_an_answer_tells(books):
    book = books()
    first = await took(book, BACKGROUND)
    assert first is not None
    held = await book.take(BACKGROUND, None)
    assert held.call_id is None and 0 < held.wait <= 0.1
    await book.heard(first, Heard(404))  # no headers: no throttle
    ids = [await took(book, BACKGROUND) for _ in range(30)]
    assert None not in ids and len(set(ids)) == 30
    assert book.state().limit is None and book.state().left is None


async def test_the_limit_from_the_headers_is_kept(books):
    book = books(window=1.0)
    first = await took(book)
    await book.heard(first, Heard(201, limit=5, remaining=4))
    more = [await took(book) for _ in range(4)]
    assert None not in more
    held = await book.take(PERSON, None)
    assert held.call_id is None and 0.5 < held.wait <= 1.1  # the first leaves the log first
    state = book.state()
    assert (state.limit, state.left, state.used) == (5, 0, {1: 5})
    for call in more:
        await book.heard(call, Heard(201, limit=5, remaining=0))
    await asyncio.sleep(1.05)  # a window after the first's answer: it left the log
    assert await took(book) is not None


async def test_remaining_counts_what_another_program_spent(books):
    book = books()
    first = await took(book)
    await book.heard(first, Heard(201, limit=10, remaining=3))  # 6 spent by someone else
    assert book.state().others == 6
    ids = [await took(book) for _ in range(3)]
    assert None not in ids
    held = await book.take(PERSON, None)
    assert held.call_id is None and held.wait > 30  # until that window surely ended
    assert book.state().left == 0


async def test_each_class_leaves_its_reserve_to_the_classes_above(books):
    book = books()
    first = await took(book)
    await book.heard(first, Heard(201, limit=12, remaining=11))
    # 12 a window: codes on screen leave 1, and so does a person's look-up; below them the
    # background keeps 4 and bulk 2 (test_budget.py), and they spread their calls besides
    taken = 0
    while await took(book, SCREEN) is not None:
        taken += 1
    assert taken == 10 and book.state().left == 1
    for klass in (BACKGROUND, BULK, LOOKUP):
        held = await book.take(klass, None)
        assert held.call_id is None and held.wait > 30, klass  # until a call leaves the log
    assert await took(book, PERSON) is not None  # the last is a person's
    assert book.state().used == {1: 2, 3: 10}


async def test_the_classes_below_leave_another_program_its_calls(books):
    """Another program on the address called 20 times this window (Remaining says so): it
    will call again before the window ends, and a 429 would be its. bench_budget.py's other
    program was refused 34 times in 6 minutes while a batch took the window down to its
    reserve. Below a person's look-up, a class keeps as many again besides its reserve."""
    book = books()
    first = await took(book)
    await book.heard(first, Heard(201, limit=60, remaining=39))  # 20 of the window theirs
    for _ in range(14):  # codes on screen (not spread): 25 left
        assert await took(book, SCREEN) is not None
    held = await book.take(BULK, None)  # its 5, and the other program's 20
    assert held.call_id is None and held.wait > 30  # until the window surely ended
    assert await took(book, SCREEN) is not None  # the classes above go on: 24 left
    assert await took(book, PERSON) is not None


async def test_a_batch_spreads_its_calls_over_the_window(books):
    """A batch that took the whole window in its first seconds left the counters and the
    notifications' re-reads only the reserve until the window ended (bench_budget.py: a
    sale's code 100 s after Enter). Below a person's look-up a class takes no more than its
    share of a sixth of the window in any sixth, the calls of every class counted; a
    person's calls and codes on screen are not held."""
    book = books(window=6.0)  # sixths of a second
    first = await took(book)
    await book.heard(first, Heard(201, limit=60, remaining=59))
    bulk = 0
    while (got := await book.take(BULK, None)).call_id is not None:
        bulk += 1
    assert bulk == 8  # 9 of 60 a sixth (55 after its reserve), the first call counted
    assert 0 < got.wait <= 1.0  # until the first leaves the sixth, not the window's end
    held = await book.take(BACKGROUND, None)  # 7 a sixth: already spent
    assert held.call_id is None and held.wait <= 1.0
    assert await took(book, SCREEN) is not None and await took(book, PERSON) is not None
    assert await took(book, LOOKUP) is not None
    await asyncio.sleep(1.05)  # the next sixth
    assert await took(book, BULK) is not None
    assert book.state().left == 60 - 13


async def test_a_429_pauses_then_one_call_at_a_time(books):
    book = books(window=2.0)
    first = await took(book)
    await book.heard(first, Heard(201, limit=20, remaining=19))
    second = await took(book)
    await book.heard(second, Heard(429, limit=20, remaining=0, retry_after=1))
    held = await book.take(PERSON, None)
    assert held.call_id is None and 0.5 < held.wait <= 1.05
    assert book.state().paused_for > 0.5 and book.state().refusals == 1
    await asyncio.sleep(1.05)
    probe = await took(book)
    assert probe is not None
    assert (await book.take(PERSON, None)).call_id is None  # until the probe's answer
    await book.heard(probe, Heard(201, limit=20, remaining=19))
    assert await took(book) is not None


async def test_a_limit_said_only_by_refusing_is_learned(books):
    book = books(window=2.0)
    first = await took(book)
    await book.heard(first, Heard(404))  # no headers: not throttled
    calls = [await took(book) for _ in range(6)]
    for call in calls[:3]:
        await book.heard(call, Heard(404))
    await book.heard(calls[3], Heard(429, retry_after=2))
    state = book.state()
    assert state.limit == 4 and state.refusals == 1  # the four answered in its window
    assert (await book.take(PERSON, None)).call_id is None  # paused until the window's end
    for call in calls[4:]:
        await book.lost(call)


async def test_a_window_another_program_began_teaches_no_limit(books):
    """A 429 whose window (by its Retry-After) began before any call of the book: another
    program began it and spent an unknown share, so only the pause is taken (a desk's one
    early call must not become a limit of one)."""
    book = books(window=10.0)
    first = await took(book)
    await book.heard(first, Heard(404))  # no headers: not throttled
    await asyncio.sleep(1.5)
    call = await took(book)
    # the window ending in 5 s began 5 s ago, 3.5 s before the book's first call
    await book.heard(call, Heard(429, retry_after=5))
    state = book.state()
    assert state.limit is None and state.refusals == 1 and state.paused_for > 4


async def test_a_limit_set_by_hand(books):
    book = books()
    first = await took(book, hand=3)
    await book.heard(first, Heard(404))  # the service says nothing: the hand's limit holds
    assert [await took(book, hand=3) is not None for _ in range(3)] == [True, True, False]
    assert book.state().limit == 3


async def test_two_desks_take_from_one_book(shared_books):
    here, there = shared_books(), shared_books()
    first = await took(here)
    await here.heard(first, Heard(201, limit=4, remaining=3))
    assert await took(there) is not None and await took(here) is not None
    assert await took(there) is not None
    assert (await here.take(PERSON, None)).call_id is None  # four of four, between them
    assert there.state().left == 0 and here.state().left == 0


async def test_a_persons_call_waiting_at_one_desk_holds_the_others_background(shared_books):
    # (in one process its own line serves a person first: tests/service/test_budget.py)
    here, there = shared_books(window=1.0), shared_books(window=1.0)
    first = await took(here)
    await here.heard(first, Heard(201, limit=30, remaining=0))  # another program took all
    assert (await there.take(PERSON, None)).call_id is None  # a person waits there
    await asyncio.sleep(1.05)  # the window ended: one call at a time until an answer
    assert (await here.take(BACKGROUND, None)).call_id is None  # held for the person
    assert await took(there) is not None
