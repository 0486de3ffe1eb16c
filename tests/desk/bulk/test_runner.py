"""Running a batch of bulk links (desk/bulk/runner.py) against the real sandbox over HTTP: each
row created once (the sandbox's call log and its own database say so), a batch killed half-way
and resumed by another desk on the same ledger with nothing sent twice, a corrected file
creating only the rows that are missing, the service's 429 pausing every worker, cancel,
"all or nothing", a reference the service had before looked up, and Check all open."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.desk.bulk.check import check_rows, known_references, references
from paydesk.desk.bulk.keep import ChangedRows
from paydesk.desk.bulk.mapping import guess_mapping
from paydesk.desk.bulk.progress import outcome
from paydesk.desk.bulk.read import read_sheet
from paydesk.desk.bulk.runner import BatchRefused
from paydesk.ledger import LedgerError
from paydesk.ledger.batch import CREATED, CREATING, PAID, REFUSED, SKIPPED, WAITING
from paydesk.service import ServiceClient
from paydesk.service.models import PaymentRequest
from tests import dialects, profiles
from tests.helpers import MemoryKeyring

from .files import write_csv

HEADERS = ["Amount", "Currency", "E-mail", "First name", "Last name", "Title"]


def line(n: int, **over) -> list[str]:
    """A valid row (no reference of its own: the batch's), customer ``n``."""
    values = {
        "Amount": str(10 + n),
        "Currency": "GBP",
        "E-mail": f"c{n}@example.com",
        "First name": f"Ada{n}",
        "Last name": "Lovelace",
        "Title": "Term fees",
    }
    values.update(over)
    return [values[h] for h in HEADERS]


async def load(desk, path, policy="skip", headers=HEADERS):
    """The file read and checked (as the window does, off the loop's thread; its references
    asked of the ledger) and kept as a batch: a new one, or the batch of a file of the same
    name (a corrected file: that batch's own references left out of those asked)."""
    sheet = await asyncio.to_thread(read_sheet, path)
    profile, mode = desk.session.active()
    mapping = guess_mapping(sheet.headers)
    found = await desk.batches.find(profile.id, mode, path.name)
    own = {r.tx_ref for r in await desk.batches.rows(found.id, limit=10_000)} if found else set()
    known = (
        await known_references(desk.session.ledger, profile.id, references(check_rows(sheet, mapping, profile))) - own
    )
    rows = check_rows(sheet, mapping, profile, known_refs=known)
    batch, _ = await desk.bulk.keep(path, rows, policy)
    return batch


def creates(service) -> list[dict]:
    """The payment creates the service received (its call log), with their answers."""
    with service.sb.client("test") as client:
        answer = client.get("/_sandbox/requests")
        answer.raise_for_status()
    return [c for c in answer.json()["data"] if c["method"] == "POST" and c["path"].endswith("/api/payment")]


def made(service) -> int:
    """Creates the service answered as made (a lost answer's repeat is a "used before")."""
    return sum(1 for c in creates(service) if c["status"] in (200, 201))


async def states(desk, batch):
    return {r.number: r.state for r in await desk.batches.rows(batch.id, limit=1000)}


def each_once(service, refs):
    return {ref: service.payments(ref) for ref in refs if service.payments(ref) != 1}


@pytest.fixture
def heard(desk):
    said = []
    desk.hub.batch_changed.connect(said.append)
    return said


async def test_each_row_is_created_once(desk, add_profile, service, tmp_path, heard):
    await add_profile()
    path = write_csv(
        tmp_path / "fees.csv",
        [line(1), line(2), line(3, **{"E-mail": "nope"}), line(4), line(5), ["", "", "", "", "", ""]],
        headers=HEADERS,
    )
    batch = await load(desk, path)
    assert batch.rows == 5
    assert batch.prefix.startswith(f"SHOP-{desk.session.installation_id}-")
    await desk.bulk.start(batch)
    report = await desk.bulk.wait(batch.id)
    assert await states(desk, batch) == {2: CREATED, 3: CREATED, 4: SKIPPED, 5: CREATED, 6: CREATED}
    assert report == "Finished: 4 of 5 links created, 1 skipped"
    assert desk.bulk.status(batch.id) == report and not desk.bulk.running(batch.id)
    rows = await desk.batches.rows(batch.id)
    assert [r.tx_ref for r in rows] == [batch.ref(n) if n != 4 else "" for n in (2, 3, 4, 5, 6)]
    assert rows[0].record.checkout_url and rows[0].record.amount == 11
    assert rows[0].record.title == "Term fees"
    assert len(creates(service)) == made(service) == 4
    assert each_once(service, [r.tx_ref for r in rows if r.state == CREATED]) == {}
    assert heard and set(heard) == {batch.id}
    assert await desk.bulk.unfinished() == []


async def test_all_or_nothing_sends_nothing_when_a_row_has_problems(desk, add_profile, service, tmp_path):
    await add_profile()
    path = write_csv(tmp_path / "all.csv", [line(1), line(2, Currency="XXX")], headers=HEADERS)
    with pytest.raises(ValueError, match="All or nothing"):
        await load(desk, path, policy="all")
    profile, mode = desk.session.active()
    batch = await desk.batches.add_batch(
        profile.id, mode, "all", "all.csv", "all", "ann", [(2, "", {}, False), (3, "", {}, True)]
    )
    with pytest.raises(BatchRefused, match="All or nothing"):
        await desk.bulk.start(batch)
    assert creates(service) == [] and not desk.bulk.running(batch.id)


@pytest.mark.sockets
async def test_a_batch_killed_half_way_resumes_with_nothing_sent_twice(
    desk, add_profile, service, tmp_path, paths, keys, until
):
    """The runner's task is cancelled mid-way (as a kill leaves it: calls under way cut
    off); another desk on the same ledger offers the batch, resumes it, and the scheduler
    settles the rows that were being created: every row has one payment at the service."""
    await add_profile()
    path = write_csv(tmp_path / "term.csv", [line(n) for n in range(1, 25)], headers=HEADERS)
    batch = await load(desk, path)
    service.faults(latency_ms=150)
    await desk.bulk.start(batch)
    await until(lambda: len(creates(service)) >= 8, message="some rows sent")
    await desk.bulk.tasks.cancel_all()  # killed: the calls under way are cut off
    before = await states(desk, batch)
    assert WAITING in before.values() and CREATED in before.values()
    service.faults()
    again = build_desk(paths, keys)  # the next start, on the same ledger
    await again.open()
    try:
        again.start_background()  # the rows being created are settled by the scheduler
        waiting = (await again.batches.figures(batch.id)).waiting
        await asyncio.sleep(0.5)
        assert (await again.batches.figures(batch.id)).waiting == waiting  # not resumed silently
        assert [b.id for b in await again.bulk.unfinished()] == [batch.id]
        await again.bulk.start(batch)
        await again.bulk.wait(batch.id)
        assert WAITING not in (await states(again, batch)).values()
        await until(lambda: settled(again, batch), timeout=30, message="the rows being created settled")
        rows = await again.batches.rows(batch.id, limit=100)
        assert {r.state for r in rows} == {CREATED}
        assert made(service) == 24  # one payment made per row, however often it was sent
        assert each_once(service, [r.tx_ref for r in rows]) == {}
        assert await again.bulk.unfinished() == []
    finally:
        await again.close()


async def settled(desk, batch):
    figures = await desk.batches.figures(batch.id)
    return figures.creating == 0 and figures.waiting == 0


async def test_a_corrected_file_creates_only_the_rows_missing(desk, add_profile, service, tmp_path):
    await add_profile()
    first = write_csv(
        tmp_path / "fees.csv", [line(1), line(2, **{"E-mail": "c2 at example"}), line(3)], headers=HEADERS
    )
    batch = await load(desk, first)
    await desk.bulk.start(batch)
    await desk.bulk.wait(batch.id)
    assert await states(desk, batch) == {2: CREATED, 3: SKIPPED, 4: CREATED}
    refs = {r.number: r.tx_ref for r in await desk.batches.rows(batch.id)}
    assert made(service) == 2
    fixed = write_csv(tmp_path / "fees.csv", [line(1), line(2), line(3), line(4)], headers=HEADERS)
    joined = await load(desk, fixed)
    assert joined.id == batch.id and joined.rows == 4
    await desk.bulk.start(joined)
    report = await desk.bulk.wait(batch.id)
    assert await states(desk, batch) == {2: CREATED, 3: CREATED, 4: CREATED, 5: CREATED}
    rows = {r.number: r for r in await desk.batches.rows(batch.id)}
    assert refs[3] == "" and rows[3].tx_ref == joined.ref(3)  # a skipped row had none
    assert {n: r.tx_ref for n, r in rows.items() if refs.get(n)} == {
        n: ref for n, ref in refs.items() if ref
    }  # the same references
    assert rows[3].record.email == "c2@example.com"
    assert made(service) == len(creates(service)) == 4  # rows 3 and 5 only
    assert report == "Finished: 4 of 4 links created (2 now, 2 before)"
    before = desk.bulk.before(batch.id)  # the batch as this run found it
    assert (before.created, before.skipped, before.waiting) == (2, 0, 2)
    assert outcome(await desk.batches.figures(batch.id), cancelled=False, before=before) == (
        "Done: 2 created now, 2 before, 0 refused by the service"
    )


async def test_a_corrected_file_whose_rows_moved_is_refused(desk, add_profile, service, tmp_path):
    """The issue's own complaint: the same file with a customer inserted at the top (or
    sorted, or a row deleted) would make file row 2 c9's while row 2 was sent as c1's:
    one customer charged twice, another never. The join is refused before anything is
    written or sent, naming the rows."""
    await add_profile()
    batch = await load(desk, write_csv(tmp_path / "fees.csv", [line(1), line(2), line(3)], headers=HEADERS))
    await desk.bulk.start(batch)
    await desk.bulk.wait(batch.id)
    assert made(service) == 3
    before = {r.number: (r.tx_ref, r.values) for r in await desk.batches.rows(batch.id)}
    for layout in (
        [line(9), line(1), line(2), line(3)],  # a row inserted at the top
        [line(2), line(3)],  # a row deleted
        [line(3), line(1), line(2)],  # sorted
        [line(1, Amount="30"), line(2), line(3)],
    ):  # an amount edited
        with pytest.raises(ChangedRows) as refused:
            await load(desk, write_csv(tmp_path / "fees.csv", layout, headers=HEADERS))
        assert refused.value.message.startswith("Row 2 differs from the row sent before (")
        assert "save the file under another name" in refused.value.message
    assert "amount 11 → 30" in refused.value.message and refused.value.numbers == [2]
    assert {r.number: (r.tx_ref, r.values) for r in await desk.batches.rows(batch.id)} == before
    assert len(creates(service)) == 3  # nothing sent again
    # the same rows again, and one added at the end: only that one is made
    joined = await load(desk, write_csv(tmp_path / "fees.csv", [line(1), line(2), line(3), line(9)], headers=HEADERS))
    await desk.bulk.start(joined)
    await desk.bulk.wait(batch.id)
    emails = [r.record.email for r in await desk.batches.rows(batch.id) if r.record]
    assert sorted(emails) == [f"c{n}@example.com" for n in (1, 2, 3, 9)]
    assert made(service) == len(creates(service)) == 4


async def test_a_reference_set_on_a_row_not_sent_is_not_changed(desk, add_profile, service, tmp_path):
    """A valid row keeps the reference it was given (set once): a corrected file giving it
    another is refused, naming the row; nothing is written or sent."""
    await add_profile()
    headers = [*HEADERS, "Reference"]
    path = tmp_path / "r.csv"
    batch = await load(desk, write_csv(path, [[*line(1), "INV-1"], [*line(2), ""]], headers=headers))
    for fixed, said in (
        ([[*line(1), "INV-9"], [*line(2), ""]], "reference INV-1 → INV-9"),
        ([[*line(1), "INV-1"], [*line(2), "INV-2"]], f"reference {batch.ref(3)} → INV-2"),
    ):
        with pytest.raises(ChangedRows) as refused:
            await load(desk, write_csv(path, fixed, headers=headers))
        assert said in refused.value.message
    assert [r.tx_ref for r in await desk.batches.rows(batch.id)] == ["INV-1", batch.ref(3)]
    assert creates(service) == []


async def test_skipped_rows_hold_no_reference_until_corrected(desk, add_profile, service, tmp_path):
    """A row skipped because its reference is another payment's (in the ledger, or Excel's
    1.23E+15 twice) never reads that payment's link; fixed in a corrected file, each is sent
    once with its fixed reference (the sandbox's call log)."""
    await add_profile()
    headers = [*HEADERS, "Reference"]
    first = await load(desk, write_csv(tmp_path / "a.csv", [[*line(1), "INV-1"]], headers=headers))
    await desk.bulk.start(first)
    await desk.bulk.wait(first.id)
    damaged = "1.23E+15"
    sheet = [[*line(2), "INV-1"], [*line(3), damaged], [*line(4), damaged]]
    batch = await load(desk, write_csv(tmp_path / "b.csv", sheet, headers=headers))
    await desk.bulk.start(batch)
    await desk.bulk.wait(batch.id)
    got = await desk.batches.rows(batch.id)
    assert [(r.state, r.record, r.tx_ref) for r in got] == [(SKIPPED, None, "")] * 3
    assert await desk.batches.rows(batch.id, states=(CREATED,)) == []  # nothing to e-mail
    assert made(service) == 1
    fixed = [[*line(2), "INV-2"], [*line(3), "1230000000000003"], [*line(4), "1230000000000004"]]
    joined = await load(desk, write_csv(tmp_path / "b.csv", fixed, headers=headers))
    await desk.bulk.start(joined)
    await desk.bulk.wait(batch.id)
    got = await desk.batches.rows(batch.id)
    assert [(r.state, r.tx_ref, r.record.email) for r in got] == [
        (CREATED, "INV-2", "c2@example.com"),
        (CREATED, "1230000000000003", "c3@example.com"),
        (CREATED, "1230000000000004", "c4@example.com"),
    ]
    refs = ["INV-1", "INV-2", "1230000000000003", "1230000000000004"]
    assert each_once(service, refs) == {} and service.payments(damaged) == 0
    assert made(service) == len(creates(service)) == 4


@pytest.mark.sockets
async def test_a_corrected_file_loaded_while_paused_is_what_is_sent(desk, add_profile, service, tmp_path, until):
    """The runner reads each row again just before sending it: a corrected file joined while
    the batch is paused (its rows already paged in) is what goes out, and a row it skips is
    not sent (the sandbox's call log and payments)."""
    await add_profile()
    path = write_csv(tmp_path / "p.csv", [line(n) for n in range(1, 21)], headers=HEADERS)
    batch = await load(desk, path)
    service.faults(latency_ms=300)
    await desk.bulk.start(batch)
    await until(lambda: len(creates(service)) >= 2, message="some sent")
    desk.bulk.pause(batch.id)
    await until(lambda: desk.bulk.under_way(batch.id) == 0, message="the calls finished")
    service.faults()
    sent = {r.number for r in await desk.batches.rows(batch.id, limit=100) if r.record}
    fixed = [line(n, Amount="500") for n in range(1, 21)]
    fixed[19] = line(20, **{"E-mail": "not an address"})  # row 21 now has a problem
    for n in sent:  # the rows sent stay as they were (else the join is refused)
        fixed[n - 2] = line(n - 1)
    joined = await load(desk, write_csv(tmp_path / "p.csv", fixed, headers=HEADERS))
    assert joined.id == batch.id and desk.bulk.paused(batch.id)
    await desk.bulk.start(joined)  # what Create does on a running batch: resume
    await desk.bulk.wait(batch.id)
    got = {r.number: r for r in await desk.batches.rows(batch.id, limit=100)}
    stale = [n for n, r in got.items() if r.record and n not in sent and r.record.amount != 500]
    assert stale == [] and 21 not in sent
    assert got[21].state == SKIPPED and got[21].record is None
    assert service.payments(batch.ref(21)) == 0
    assert made(service) == len(creates(service)) == 19
    assert each_once(service, [r.tx_ref for r in got.values() if r.record]) == {}


class _LedgerBlips:
    """The desk's real batches' book whose first ``n`` row reads fail as a shared ledger out
    of reach does (a real PostgreSQL blip cannot be timed from a test: said here)."""

    def __init__(self, book, n):
        self.book, self.left = book, n

    def __getattr__(self, name):
        return getattr(self.book, name)

    async def _blip(self):
        if self.left > 0:
            self.left -= 1
            raise LedgerError("the shared ledger cannot be reached")

    async def rows(self, *args, **kwargs):
        await self._blip()
        return await self.book.rows(*args, **kwargs)

    async def row(self, *args, **kwargs):
        await self._blip()
        return await self.book.row(*args, **kwargs)


async def test_a_ledger_blip_while_reading_rows_is_waited_out(desk, add_profile, service, tmp_path, caplog):
    """A ledger error while the runner reads its rows backs off and goes on: the run does
    not end asking for a Resume, and every row is made once (the sandbox's call log)."""
    await add_profile()
    batch = await load(desk, write_csv(tmp_path / "b.csv", [line(n) for n in range(1, 4)], headers=HEADERS))
    desk.bulk.sender.batches = _LedgerBlips(desk.batches, 3)  # the page read, then row reads
    await desk.bulk.start(batch)
    report = await desk.bulk.wait(batch.id)
    assert report == "Finished: 3 of 3 links created"
    assert desk.bulk.sender.batches.left == 0
    assert "the ledger did not answer" in caplog.text
    assert made(service) == len(creates(service)) == 3
    assert each_once(service, [batch.ref(n) for n in (2, 3, 4)]) == {}


@pytest.mark.sockets
@pytest.mark.slow  # waits out a Retry-After, about 6 s: ./dev test runs it, ./dev check leaves it out
async def test_a_429_pauses_every_worker_for_the_asked_time(desk, add_profile, service, tmp_path, until):
    await add_profile()
    batch = await load(desk, write_csv(tmp_path / "slow.csv", [line(n) for n in range(1, 4)], headers=HEADERS))
    service.faults(rate_limit_per_s=0.15)  # a Retry-After of seconds
    await desk.bulk.start(batch)
    await until(
        lambda: desk.bulk.status(batch.id).startswith("Paused by the service for"), message="the service's pause shown"
    )
    assert desk.bulk.service_pause(batch.id) >= 2 and desk.bulk.running(batch.id)

    async def all_waiting():  # each row's intent written; the budget holds their sends
        rows = await desk.batches.rows(batch.id)
        return all(r.state == CREATING for r in rows)

    await until(all_waiting, message="every row's intent written")
    # a 429 paused the service's budget, so every worker waits (issue 30: one budget, a
    # 429 pauses all). The calls already under way when it came were answered 429 too: one
    # when nothing was heard from the service before (one call at a time until an answer
    # tells), up to one per row when the profile's first question was answered without
    # rate-limit headers (a service that says no limit is not held back)
    refused = [c["status"] for c in creates(service)]
    assert set(refused) == {429} and 1 <= len(refused) <= 3
    service.faults()  # the service would take them now; the batch still waits its time
    await asyncio.sleep(1)
    assert len(creates(service)) == len(refused)  # nothing sent during the pause
    await desk.bulk.wait(batch.id)
    assert set((await states(desk, batch)).values()) == {CREATED}
    assert made(service) == 3
    assert each_once(service, [r.tx_ref for r in await desk.batches.rows(batch.id)]) == {}


@pytest.mark.sockets
async def test_cancel_stops_the_batch_and_says_how_far_it_got(desk, add_profile, service, tmp_path, until):
    await add_profile()
    batch = await load(desk, write_csv(tmp_path / "many.csv", [line(n) for n in range(1, 41)], headers=HEADERS))
    service.faults(latency_ms=200)
    await desk.bulk.start(batch)
    await until(lambda: len(creates(service)) >= 4, message="some rows sent")
    report = await desk.bulk.cancel(batch.id)
    await desk.bulk.wait(batch.id)  # the calls under way finish
    sent = len(creates(service))
    await asyncio.sleep(0.5)
    assert len(creates(service)) == sent  # no new call started after cancel
    figures = await desk.batches.figures(batch.id)
    assert figures.waiting > 0 and figures.creating == 0
    assert report.startswith("Cancelled: ") and f"{figures.waiting} not sent" in report
    assert desk.bulk.status(batch.id).startswith("Cancelled: ")
    assert [b.id for b in await desk.bulk.unfinished()] == [batch.id]  # offered again


@pytest.mark.sockets
async def test_pause_and_resume(desk, add_profile, service, tmp_path, until):
    await add_profile()
    batch = await load(desk, write_csv(tmp_path / "p.csv", [line(n) for n in range(1, 13)], headers=HEADERS))
    service.faults(latency_ms=100)
    await desk.bulk.start(batch)
    await until(lambda: len(creates(service)) >= 2, message="some rows sent")
    desk.bulk.pause(batch.id)
    assert desk.bulk.paused(batch.id) and desk.bulk.status(batch.id) == "Paused"
    await until(lambda: desk.bulk.under_way(batch.id) == 0, message="the calls under way")
    sent = len(creates(service))
    await asyncio.sleep(0.5)
    assert len(creates(service)) == sent < 12
    desk.bulk.resume(batch.id)
    await desk.bulk.wait(batch.id)
    assert made(service) == 12


@pytest.mark.parametrize("dialect", dialects.params("strict", "family"))
async def test_a_reference_the_service_had_is_looked_up(desk, add_profile, service, tmp_path, dialect):
    """The batch's own reference already at the service with this row's payment (sent once,
    the answer and the intent lost): the row takes it. A file's reference the service has
    for another payment is refused."""
    await add_profile()
    headers = [*HEADERS, "Description", "Reference"]  # the family's service wants one
    path = write_csv(
        tmp_path / "dup.csv", [[*line(1), "Autumn", ""], [*line(2), "Autumn", "THEIRS-1"]], headers=headers
    )
    batch = await load(desk, path, headers=headers)
    ours = batch.ref(2)
    async with ServiceClient(service.sb.base_url, service.sb.key("test")) as client:
        for ref, amount, email in ((ours, "11", "c1@example.com"), ("THEIRS-1", "99", "other@example.com")):
            await client.create_payment(
                PaymentRequest(
                    amount=Decimal(amount),
                    currency="GBP",
                    email=email,
                    first_name="Ada1",
                    last_name="Lovelace",
                    tx_ref=ref,
                    title="Term fees",
                    description="Autumn",
                )
            )
    assert made(service) == 2
    await desk.bulk.start(batch)
    await desk.bulk.wait(batch.id)
    rows = {r.number: r for r in await desk.batches.rows(batch.id)}
    assert rows[2].state == CREATED and service.payments(ours) == 1
    assert rows[3].state == REFUSED and rows[3].tx_ref == "THEIRS-1"
    assert service.payments("THEIRS-1") == 1 and made(service) == 2


async def test_check_all_open_reads_the_batches_links_again(desk, add_profile, service, tmp_path):
    await add_profile()
    batch = await load(desk, write_csv(tmp_path / "c.csv", [line(1), line(2)], headers=HEADERS))
    await desk.bulk.start(batch)
    await desk.bulk.wait(batch.id)
    row = (await desk.batches.rows(batch.id))[0]
    service.control(f"pay/{row.record.reference}", {"outcome": "success"})
    progress = await desk.bulk.check_all_open(batch.id)
    assert progress.checked == 2
    assert (await desk.batches.row(batch.id, 2)).state == PAID
    assert (await desk.batches.row(batch.id, 3)).state == CREATED
    assert CREATING not in (await states(desk, batch)).values()


async def test_another_profile_active_refuses_the_batch(desk, add_profile, service, tmp_path):
    await add_profile()
    batch = await load(desk, write_csv(tmp_path / "x.csv", [line(1)], headers=HEADERS))
    await add_profile(name="Other shop", merchant=1)
    with pytest.raises(BatchRefused, match="another profile"):
        await desk.bulk.start(batch)
    assert creates(service) == []


@pytest.mark.sockets
async def test_on_a_shared_ledger_another_desk_hears_the_batch_and_resumes_it(
    pg_url, tmp_path, sandbox, service, until
):
    """Two desks of a shop on one PostgreSQL ledger: the office hears the till's batch
    (``batch_changed``, from the "batch" events and the links'), the till is stopped half-way
    and the office resumes it: every row one payment."""
    desks = []
    try:
        for name in ("till", "office"):
            paths = Paths(data=tmp_path / name, sandbox=tmp_path / f"{name}-sandbox").ensure()
            one = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=pg_url)
            await one.open()
            desks.append(one)
            if name == "till":
                await profiles.add_profile(one.session, sandbox, txref_prefix="SHOP")
            else:  # the shop's merchant, seen by every desk: only its keys are added here
                await until(lambda d=one: d.session.profile is not None, message="the shop's profile at the office")
                await one.session.save_profile(one.session.profile, profiles.keys_of(sandbox))
        till, office = desks
        heard = []
        office.hub.batch_changed.connect(heard.append)
        for one in desks:
            one.start_background()
        path = write_csv(tmp_path / "shop.csv", [line(n) for n in range(1, 13)], headers=HEADERS)
        batch = await load(till, path)
        await until(lambda: batch.id in heard, message="the batch heard at the office")
        service.faults(latency_ms=150)
        await till.bulk.start(batch)
        await until(lambda: len(creates(service)) >= 3, message="some rows sent")
        await till.bulk.tasks.cancel_all()  # the till goes away half-way
        service.faults()
        assert [b.id for b in await office.bulk.unfinished()] == [batch.id]
        await office.bulk.start(await office.batches.batch(batch.id))
        await office.bulk.wait(batch.id)
        await until(lambda: settled(office, batch), timeout=30, message="the rows being created settled")
        rows = await office.batches.rows(batch.id)
        assert {r.state for r in rows} == {CREATED}
        assert made(service) == 12
        assert each_once(service, [r.tx_ref for r in rows]) == {}
    finally:
        for one in desks:
            await one.close()


@pytest.mark.sockets
async def test_another_profile_made_active_pauses_the_batch(desk, add_profile, service, tmp_path, until):
    """Links are sent with the active profile's key: a switch mid-way pauses the batch (no
    row goes out under the other merchant); back on its profile, Resume goes on."""
    shop = await add_profile()
    batch = await load(desk, write_csv(tmp_path / "s.csv", [line(n) for n in range(1, 11)], headers=HEADERS))
    other = await add_profile(name="Other shop", merchant=1)
    await desk.session.switch_profile(shop.id)
    service.faults(latency_ms=150)
    await desk.bulk.start(batch)
    await until(lambda: len(creates(service)) >= 2, message="some rows sent")
    await desk.session.switch_profile(other.id)
    await until(lambda: desk.bulk.status(batch.id).startswith("Paused: This batch is for"), message="the batch paused")
    await until(lambda: desk.bulk.under_way(batch.id) == 0, message="the calls under way")
    sent = len(creates(service))
    await asyncio.sleep(0.5)
    assert len(creates(service)) == sent < 10 and service.calls(merchant=1) == []
    with pytest.raises(BatchRefused):
        desk.bulk.resume(batch.id)  # still on the other profile
    await desk.session.switch_profile(shop.id)
    desk.bulk.resume(batch.id)
    await desk.bulk.wait(batch.id)
    assert set((await states(desk, batch)).values()) == {CREATED}
    assert made(service) == 10


async def test_a_batchs_links_are_made_by_the_person_who_started_it(desk, add_profile, tmp_path):
    """Ana starts the batch and the counter locks (or Ben signs in) while its rows are sent:
    every link is still Ana's, as each was asked for when she pressed Start."""
    from paydesk.desk.staff import Person, Role

    await add_profile()
    path = write_csv(tmp_path / "who.csv", [line(n) for n in range(1, 7)], headers=HEADERS)
    batch = await load(desk, path)
    desk.session.staff.signed_in(Person("p-ana", "Ana", Role.FINANCE))
    await desk.bulk.start(batch)
    desk.session.staff.signed_in(Person("p-ben", "Ben", Role.FINANCE))
    await desk.bulk.wait(batch.id)
    rows = await desk.batches.rows(batch.id)
    assert [r.state for r in rows] == [CREATED] * 6
    assert {r.record.actor for r in rows} == {"Ana"}
