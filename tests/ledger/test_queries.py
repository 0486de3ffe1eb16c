"""Queries: keyset pages walk every sort exactly like a sort of the same rows would, in both
directions; filters and text search find exactly what they should; no query scans. On both
backends (SQLite, PostgreSQL); each backend's plans checked in its own words."""

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from paydesk.ledger import SORTS, LinkQuery, LinkRecord, SqliteLedger
from paydesk.ledger.sqlite.search import Plan
from tests.link_ledgers import BACKENDS, make_ledger, shared_ledger

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
FIRST = ["Ada", "grace", "Alan", "Edsger", "Barbara", "Zoë"]
LAST = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "O'Brien"]
STATES = ["pending", "success", "failed", "cancelled", "refunded", "unknown", "creating"]


def make(n, seed=7, profile="p1"):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        when = NOW - timedelta(minutes=rng.randrange(0, 60 * 24 * 40))
        checked = when + timedelta(minutes=5) if rng.random() < 0.7 else None
        out.append(
            LinkRecord(
                id=0,
                profile_id=profile,
                mode="test" if rng.random() < 0.8 else "live",
                tx_ref=f"SHOP-{i:05d}-{rng.choice('ABCDEFGH')}{rng.randrange(100):02d}",
                amount=Decimal(rng.choice([5, 25, 25, 100, 1000, 2500])),
                currency=rng.choice(["GBP", "USD", "EUR"]),
                email=f"{first.lower()}_{last.lower().replace(chr(39), '')}{i % 50}@example.com",
                first_name=first,
                last_name=last,
                state=rng.choice(STATES),
                created_at=when,
                updated_at=when,
                checked_at=checked,
                reference=f"PDK-{rng.getrandbits(48):012x}",
                origin="link" if rng.random() < 0.9 else "lookup",
            )
        )
    return out


@pytest.fixture(scope="module")
def rows():
    return make(1500)


async def filled(opened, rows):
    assert await opened.import_records(rows) == len(rows)
    assert await opened.import_records(make(300, seed=8, profile="p2")) == 300
    return opened


@pytest.fixture(params=BACKENDS)
async def ledger(request, tmp_path, rows):
    opened = await filled(make_ledger(request, tmp_path / "q.sqlite3"), rows)
    yield opened
    await opened.close()


@pytest.fixture
async def sqlite_ledger(tmp_path, rows):
    """The same rows in a SQLite file, for its plans (EXPLAIN QUERY PLAN)."""
    opened = await filled(SqliteLedger(tmp_path / "q.sqlite3"), rows)
    yield opened
    await opened.close()


def key(sort):
    def k(r: LinkRecord):
        return {
            "created": (r.created_at,),
            "amount": (r.amount,),
            "state": (r.state, r.created_at),
            "customer": (r.customer.lower(),),
            "email": (r.email,),
            "reference": (r.tx_ref,),
            "currency": (r.currency, r.created_at),
            "checked": (r.checked_at or datetime.min.replace(tzinfo=UTC),),
        }[sort]

    return k


async def walk(ledger, query, size):
    out, after = [], None
    while True:
        page = await ledger.page(query, after=after, limit=size)
        out += page.records
        if not page.more:
            return out
        after = page.end


async def walk_back(ledger, query, size):
    page = await ledger.last_page(query, limit=size)
    out = list(page.records)
    while page.more:
        page = await ledger.page(query, before=page.start, limit=size)
        out = page.records + out
    return out


@pytest.mark.parametrize("sort", SORTS)
@pytest.mark.parametrize("descending", [True, False])
async def test_pages_walk_each_sort_like_a_sort(ledger, rows, sort, descending):
    query = LinkQuery("p1", "test", sort=sort, descending=descending)
    mine = [r for r in rows if r.mode == "test"]
    forward = await walk(ledger, query, 97)
    assert len(forward) == len(mine) == await ledger.count(query)
    assert len({r.id for r in forward}) == len(forward)  # no row twice, none skipped
    keys = [key(sort)(r) for r in forward]
    assert keys == sorted(keys, reverse=descending)
    assert sorted(r.tx_ref for r in forward) == sorted(r.tx_ref for r in mine)
    backward = await walk_back(ledger, query, 97)
    assert [r.id for r in backward] == [r.id for r in forward]


async def test_filters(ledger, rows):
    since, until = NOW - timedelta(days=7), NOW - timedelta(days=1)
    query = LinkQuery(
        "p1",
        "test",
        states=frozenset({"success", "failed"}),
        currencies=frozenset({"USD"}),
        created_from=since,
        created_to=until,
        origin="link",
    )
    expected = {
        r.tx_ref
        for r in rows
        if r.mode == "test"
        and r.state in ("success", "failed")
        and r.currency == "USD"
        and since <= r.created_at < until
        and r.origin == "link"
    }
    got = await walk(ledger, query, 40)
    assert {r.tx_ref for r in got} == expected and expected
    assert await ledger.count(query) == len(expected)
    some = frozenset(sorted(expected)[:5])
    assert {r.tx_ref for r in await walk(ledger, LinkQuery("p1", "test", tx_refs=some), 3)} == some


@pytest.mark.parametrize(
    "text",
    [
        "lovelace",
        "LOVELACE",
        "race",
        "ce h",
        "zoë",
        "SHOP-0012",
        "ov",
        "a",
        "00123",
        "pdk-",
        "o'brien",
        "_lov",
        "%",
        "nobody-xyz",
    ],
)
async def test_text_search_finds_exactly_the_substring(ledger, rows, text):
    needle = text.lower()

    def hit(r):
        return any(
            needle in field.lower() for field in (r.tx_ref, r.reference or "", r.email, f"{r.first_name} {r.last_name}")
        )

    expected = {r.tx_ref for r in rows if r.mode == "test" and hit(r)}
    query = LinkQuery("p1", "test", text=text)
    got = await walk(ledger, query, 250)
    assert {r.tx_ref for r in got} == expected
    assert await ledger.count(query) == len(expected)


async def test_no_query_scans_the_table(sqlite_ledger, tmp_path):
    """Every page the browser asks for is found through an index (the plan says SEARCH, or
    walks an index in order), never by scanning the table."""
    db = sqlite3.connect(tmp_path / "q.sqlite3")
    db.row_factory = sqlite3.Row
    queries = [LinkQuery("p1", "test", sort=s) for s in SORTS] + [
        LinkQuery("p1", "test", text="lovelace12"),
        LinkQuery(
            "p1",
            "test",
            states=frozenset({"failed"}),
            currencies=frozenset({"USD"}),
            created_from=NOW - timedelta(days=3),
        ),
        LinkQuery("p1", "test", origin="link"),
    ]
    for query in queries:
        plan = Plan(db, query)
        for backwards in (False, True):
            sql, args = plan.page_sql(None, 100, backwards)
            steps = [r["detail"] for r in db.execute("EXPLAIN QUERY PLAN " + sql, args)]
            scans = [s for s in steps if s == "SCAN links" or (s.startswith("SCAN links ") and "INDEX" not in s)]
            sorts = [s for s in steps if "TEMP B-TREE" in s and not query.text]
            assert not scans and not sorts, (query, steps)
            if query.text:  # a selective term goes through the trigram index
                assert any(s.startswith("SCAN links_fts") for s in steps), (query, steps)


@pytest.mark.parametrize("sort", ["created", "amount", "customer", "reference"])
async def test_anchors_find_any_block_by_seeking(ledger, sort):
    query = LinkQuery("p1", "test", sort=sort, descending=sort != "customer")
    everything = await walk(ledger, query, 500)
    anchors = await ledger.anchors(query, 97)
    assert len(anchors) == len(everything) // 97
    for block in (1, 5, len(anchors) - 1):
        page = await ledger.page(query, after=anchors[block - 1], limit=97)
        assert [r.id for r in page.records] == [r.id for r in everything[block * 97 : (block + 1) * 97]]


async def test_by_the_services_reference(ledger, rows):
    wanted = rows[123]
    found = await ledger.by_reference("p1", wanted.reference)
    assert found is not None and found.tx_ref == wanted.tx_ref
    assert await ledger.by_reference("p1", "PDK-nothing") is None
    assert await ledger.by_reference("p2", wanted.reference) is None  # another profile's


async def test_the_scan_check_can_fail(sqlite_ledger, tmp_path):
    """The check above would see a scan: a query on a column with no index is one."""
    db = sqlite3.connect(tmp_path / "q.sqlite3")
    steps = [
        r[3] for r in db.execute("EXPLAIN QUERY PLAN SELECT id FROM links WHERE callback_url = 'x' ORDER BY error")
    ]
    assert "SCAN links" in steps and any("TEMP B-TREE" in s for s in steps)


async def test_open_records_use_their_own_small_index(sqlite_ledger, tmp_path):
    from paydesk.ledger.sqlite.links import OPEN_WHERE

    db = sqlite3.connect(tmp_path / "q.sqlite3")
    steps = [
        r[3]
        for r in db.execute(
            f"EXPLAIN QUERY PLAN SELECT id FROM links INDEXED BY links_open WHERE state = 'creating' AND {OPEN_WHERE}"
        )
    ]
    assert any("links_open" in s for s in steps), steps


async def test_unsettled_are_the_creates_of_both_modes(ledger):
    assert [r.tx_ref for r in await ledger.unsettled("p1")] == sorted(
        r.tx_ref
        for r in (await walk(ledger, LinkQuery("p1", "test", states=frozenset({"creating"})), 500))
        + (await walk(ledger, LinkQuery("p1", "live", states=frozenset({"creating"})), 500))
    )


# -- PostgreSQL's plans -------------------------------------------------------------------


@pytest.fixture
async def pg_ledger(pg_url, rows):
    """The same rows in a PostgreSQL database, for its plans (EXPLAIN)."""
    opened = await filled(shared_ledger(pg_url), rows)
    yield opened
    await opened.close()


async def explain(ledger, sql, args, *, sorts=False):
    """The plan's nodes, each with the types of the nodes above it, as the planner makes it
    when told to avoid scanning the table (and sorting, unless ``sorts``) wherever another
    way exists: a scan or a sort in it then means no index can serve the query, whatever the
    table's size (a few thousand rows, where scanning would otherwise be cheapest)."""

    def read(conn):
        with conn.transaction():
            conn.execute("SET LOCAL enable_seqscan = off")
            if not sorts:
                conn.execute("SET LOCAL enable_sort = off")
            return conn.execute("EXPLAIN (FORMAT JSON) " + sql, args).fetchone()

    (plan,) = (await ledger._engine.read(read))["QUERY PLAN"]

    def walk_plan(node, above):
        yield node, above
        for child in node.get("Plans", []):
            yield from walk_plan(child, above + (node["Node Type"],))

    return list(walk_plan(plan["Plan"], ()))


def table_scans_and_sorts(nodes):
    """Scans of the whole table, and rows of the table sorted (a Sort with no Limit between
    it and the table: a sort of a page's few rows is no sort of the table)."""
    bad = []
    for node, above in nodes:
        if node.get("Relation Name") != "links":
            continue
        if node["Node Type"] == "Seq Scan":
            bad.append("Seq Scan")
        nearest = [t for t in reversed(above) if t in ("Sort", "Incremental Sort", "Limit")]
        if nearest and nearest[0] != "Limit":
            bad.append(f"{nearest[0]} over {node['Node Type']}")
    return bad


async def test_no_query_scans_the_table_on_postgresql(pg_ledger):
    from paydesk.ledger.postgres.search import Plan as PgPlan

    queries = [LinkQuery("p1", "test", sort=s, descending=d) for s in SORTS for d in (True, False)] + [
        LinkQuery("p1", "test", text="lovelace12"),
        LinkQuery(
            "p1",
            "test",
            states=frozenset({"failed"}),
            currencies=frozenset({"USD"}),
            created_from=NOW - timedelta(days=3),
        ),
        LinkQuery("p1", "test", origin="link"),
    ]
    for query in queries:
        plan = PgPlan(query)
        for cursor in (None, (await pg_ledger.page(query, limit=50)).end):
            for backwards in (False, True):
                nodes = await explain(pg_ledger, *plan.page_sql(cursor, 100, backwards), sorts=bool(query.text))
                if query.text:  # an index, then a sort of what it found, may be best
                    assert "Seq Scan" not in {n["Node Type"] for n, _ in nodes}, (query, nodes)
                else:
                    assert not table_scans_and_sorts(nodes), (query, nodes)


@pytest.mark.slow  # a large ledger, about 6 s: ./dev test runs it, ./dev check leaves it out
async def test_a_selective_term_goes_through_the_trigram_index_on_postgresql(pg_url):
    """PostgreSQL's planner weighs the term against its statistics (SQLite's plan does it by
    hand, search.BROAD): with enough rows for an index to pay, a rare term is looked up in
    the trigram index, and a common one read along the sort's index, where a page fills
    after a few rows."""
    from paydesk.ledger.postgres.search import Plan as PgPlan

    ledger = shared_ledger(pg_url)
    try:
        assert await ledger.import_records(make(20_000, seed=9)) == 20_000
        for text, index in (("lovelace12", "links_search"), ("a", "links_by_created")):
            nodes = await explain(ledger, *PgPlan(LinkQuery("p1", "test", text=text)).page_sql(None, 100), sorts=True)
            assert index in {node.get("Index Name") for node, _ in nodes}, (text, nodes)
    finally:
        await ledger.close()


async def test_the_postgresql_scan_check_can_fail(pg_ledger):
    nodes = await explain(pg_ledger, "SELECT id FROM links WHERE callback_url = 'x' ORDER BY error LIMIT 10", [])
    assert table_scans_and_sorts(nodes) == ["Seq Scan", "Sort over Seq Scan"]


async def test_postgresql_lists_use_their_own_small_indexes(pg_ledger):
    from paydesk.ledger.books import link_lists as lists
    from paydesk.ledger.postgres.dialect import PgDialect

    pg = PgDialect(pg_ledger._engine)
    since = NOW - timedelta(days=30)
    opened = {"links_open", "links_by_state"}  # (profile, mode, state, ...) serves them too
    for (sql, args), indexes in (
        (lists.unsettled(pg, "p1"), opened),
        (lists.unsettled(pg, None), {"links_open"}),
        (lists.open_records(pg, "p1", "test", since, 1000), opened),
        (lists.open_records(pg, None, None, None, None), {"links_open"}),
        (lists.paid(pg, since, "p1", "test", NOW, None, 200), {"links_paid"}),
        (lists.paid_count(pg, since, None, None), {"links_paid"}),
    ):
        nodes = await explain(pg_ledger, pg.sql(sql), args, sorts=True)  # of their few rows
        assert indexes & {node.get("Index Name") for node, _ in nodes}, (sql, nodes)
        assert "Seq Scan" not in {node["Node Type"] for node, _ in nodes}


# -- both backends, side by side ----------------------------------------------------------


@pytest.mark.slow  # every question to both backends, about 30 s: ./dev test runs it, ./dev check leaves it out
async def test_both_backends_give_the_same_answers(tmp_path, pg_url, rows):
    """The same rows in a SQLite file and in PostgreSQL: every question asked of both gets
    the same records in the same order (ids too: both number the rows in the order given),
    including text that SQLite's LIKE takes in its own way (ASCII letters alone fold case;
    % _ and \\ literally)."""
    lite = await filled(SqliteLedger(tmp_path / "q.sqlite3"), rows)
    shared = await filled(shared_ledger(pg_url), rows)
    try:
        since = NOW - timedelta(days=9)
        queries = (
            [
                LinkQuery(profile, mode, sort=sort, descending=descending)
                for profile, mode in (("p1", "test"), ("p2", "live"))
                for sort in SORTS
                for descending in (True, False)
            ]
            + [
                LinkQuery("p1", "test", text=text)
                for text in (
                    "ZOË",
                    "zoë",
                    "Zoë",
                    "\\",
                    "%",
                    "_",
                    "o'b",
                    "ce h",
                    "SHOP-00",
                    "  lov ",
                    "pdk-",
                    "a",
                    "ab",
                    "abc",
                    "@EXAMPLE.COM",
                    "\x1f",
                    "hopper grace",
                    "grace hopper",
                )
            ]
            + [
                LinkQuery(
                    "p1",
                    mode,
                    states=frozenset(states),
                    currencies=frozenset(currencies),
                    created_from=start,
                    created_to=end,
                    origin=origin,
                    sort="amount",
                )
                for mode in ("test", "live")
                for states in ((), ("creating",), ("success", "refunded"))
                for currencies in ((), ("EUR",))
                for start, end in ((None, None), (since, NOW - timedelta(days=2)))
                for origin in (None, "lookup")
            ]
        )
        for query in queries:
            mine = await walk(lite, query, 61)
            assert await walk(shared, query, 61) == mine, query
            assert await walk_back(shared, query, 61) == mine, query
            assert await shared.count(query) == await lite.count(query) == len(mine)
            for anchor_lite, anchor_shared in zip(
                await lite.anchors(query, 50), await shared.anchors(query, 50), strict=True
            ):
                assert (await shared.page(query, after=anchor_shared, limit=50)).records == (
                    await lite.page(query, after=anchor_lite, limit=50)
                ).records
        for profile in ("p1", "p2", None):
            assert await shared.unsettled(profile) == await lite.unsettled(profile)
            for mode in ("test", "live", None):
                for start in (None, since):
                    assert await shared.open_records(profile, mode, since=start, limit=None) == await lite.open_records(
                        profile, mode, since=start, limit=None
                    )
                page = await lite.paid_since(since, profile, mode, limit=10_000)
                assert (await shared.paid_since(since, profile, mode, limit=10_000)).records == page.records
                assert (
                    await shared.count_paid_since(since, profile, mode)
                    == await lite.count_paid_since(since, profile, mode)
                    == len(page.records)
                )
        for day in range(40):
            start = NOW - timedelta(days=day + 1)
            for mode in ("test", "live"):
                assert await shared.day_summary("p1", mode, start, start + timedelta(days=1)) == await lite.day_summary(
                    "p1", mode, start, start + timedelta(days=1)
                )
        for record in rows[::97]:
            assert await shared.by_reference("p1", record.reference) == await lite.by_reference("p1", record.reference)
            assert await shared.get("p1", record.tx_ref) == await lite.get("p1", record.tx_ref)
    finally:
        await lite.close()
        await shared.close()
