"""The counter's controller (desk/counter.py) on a desk built as the app builds it, its book
beside the desk's own ledger, against the real sandbox: one link for a double Enter (the
sandbox's call log), a payment after a void that waits for a decision, a shift's figures
frozen at its close and the next shift at zero, a rename refused while the shift has sales,
a lost answer settled with the same reference, and bad input refused before anything is
written."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import pytest

from paydesk.config.counter import CounterSettings
from paydesk.config.paths import Paths
from paydesk.config.secrets import KeyStore
from paydesk.desk import leases
from paydesk.desk.build import build_desk
from paydesk.desk.counter import CounterSetupMissing, RenameRefused, SaleUnderWay
from paydesk.ledger.counter import (
    FAILED,
    KEEP,
    OPEN,
    PAID,
    PAID_AFTER_VOID,
    VOIDED,
    Sale,
    SaleQuery,
    ShiftClosed,
)
from paydesk.service.errors import ValidationError
from paydesk.service.models import PaymentRequest, Transaction, TransactionState
from tests import profiles
from tests.helpers import MemoryKeyring

SHOP = "till@example.com"


@pytest.fixture
def short_create_deadline(monkeypatch):
    """A person waits 30 s for a create before PayDesk leaves it to the background; these
    tests wait 3 s (the same rule, sooner)."""
    monkeypatch.setattr(leases, "CREATE_DEADLINE", 3.0)


@pytest.fixture
def heard(desk):
    """What the desk's hub said of sales and shifts."""
    said = {"sales": [], "shifts": []}
    desk.hub.sale_changed.connect(said["sales"].append)
    desk.hub.shift_changed.connect(said["shifts"].append)
    return said


async def settled(ledger, profile_id, mode, tx_ref, state):
    """The link's state written in the ledger as a check writes it, with nothing said on the
    hub (as another desk's check on a shared ledger, before its event is heard)."""
    tx = Transaction(tx_ref=tx_ref, status=TransactionState.read(state), status_raw=state, raw={"status": state})
    record, _ = await ledger.record_lookup(profile_id, mode, tx)
    return record


def creates(service) -> list[dict]:
    """The payment creates the service received (its call log: method and path)."""
    with service.sb.client("test") as client:
        answer = client.get("/_sandbox/requests")
        answer.raise_for_status()
    return [c for c in answer.json()["data"] if c["method"] == "POST" and c["path"].endswith("/api/payment")]


async def test_a_double_enter_makes_one_link(desk, add_profile, service, heard):
    await add_profile(shop_email=SHOP)
    counter = desk.counter
    assert await counter.next_title() == "Sale 0001"
    results = await asyncio.gather(counter.sell("7", "GBP"), counter.sell("7", "GBP"), return_exceptions=True)
    sales = [r for r in results if isinstance(r, Sale)]
    assert len(sales) == 1 and isinstance(results[1], SaleUnderWay)
    sale = sales[0]
    assert sale.kind == OPEN and sale.number == 1 and sale.counter == counter.name
    assert sale.record is not None and sale.record.state == "pending"
    assert (sale.record.title, sale.record.first_name, sale.record.last_name, sale.record.email) == (
        "Sale 0001",
        "Walk-in",
        "customer",
        SHOP,
    )
    assert counter.current == sale and counter.payable() and not counter.selling
    # while its code can be paid, Enter does nothing either
    with pytest.raises(SaleUnderWay):
        await counter.sell("8", "GBP")
    assert len(creates(service)) == 1 and service.payments(sale.tx_ref) == 1
    assert await counter.next_title() == "Sale 0002"
    assert [s.key for s in await counter.today()] == [sale.key]
    assert sale.key in [s.key for s in heard["sales"]]
    assert [s.counter for s in heard["shifts"]] == [counter.name]  # the shift opened


async def test_bad_input_and_a_missing_shop_email_write_nothing(desk, add_profile, service):
    await add_profile()  # no shop e-mail
    counter = desk.counter
    with pytest.raises(ValidationError) as bad:
        await counter.sell("7.50", "GBP")
    assert list(bad.value.errors) == ["amount"]
    with pytest.raises(ValidationError) as bad:
        await counter.sell("7", "GBP", email="kim@")
    assert list(bad.value.errors) == ["email"]
    with pytest.raises(CounterSetupMissing) as missing:
        await counter.sell("7", "GBP")
    assert missing.value.field == "shop_email" and "e-mail" in missing.value.message
    assert await counter.today() == [] and creates(service) == [] and not counter.selling
    sale = await counter.sell("7", "GBP", note="Flat white", email="kim@example.com")
    assert (sale.record.title, sale.record.email) == ("Flat white", "kim@example.com")


async def test_a_refusal_fails_the_sale_and_clears_the_screens(desk, add_profile):
    await add_profile(shop_email="shop@localhost")  # the service wants a dotted domain
    counter = desk.counter
    with pytest.raises(ValidationError):
        await counter.sell("7", "GBP")
    assert counter.current is None and not counter.payable()
    [sale] = await counter.today()
    assert sale.kind == FAILED and sale.record.state == "rejected"
    assert (await counter.today_figures()).failed == 1


async def test_a_payment_after_a_void_waits_for_a_decision(desk, add_profile, service, heard, until):
    await add_profile(shop_email=SHOP)
    counter = desk.counter
    sale = await counter.sell("12", "GBP")
    voided = await counter.new_sale()  # the staff said "Void sale"
    assert voided.key == sale.key and voided.kind == VOIDED and voided.voided_by == counter.user
    assert counter.current is None and not counter.payable()
    assert await counter.new_sale() is None  # a blank counter: nothing to void
    # the customer had scanned it: paid anyway, and the desk checks it (as its scheduler does)
    service.control(f"pay/{sale.record.reference}", {"outcome": "success"})
    await desk.links.check(sale.record)
    await until(
        lambda: any(s.key == sale.key and s.kind == PAID_AFTER_VOID for s in heard["sales"]),
        message="paid after void heard",
    )
    [undecided] = await counter.undecided()
    assert undecided.key == sale.key and undecided.needs_decision
    figures = await counter.today_figures()
    assert figures.paid_after_void == 1 and figures.currencies["GBP"].paid_after_void == 12
    kept = await counter.decide(undecided, KEEP)
    assert kept.decision == KEEP and kept.decided_by == counter.user and not kept.needs_decision
    assert await counter.undecided() == [] and heard["sales"][-1] == kept
    # the counter sells again
    assert (await counter.sell("3", "GBP")).kind == OPEN


async def test_a_sale_paid_while_the_staff_were_asked_is_not_voided(desk, add_profile, service, heard):
    """The customer pays while the confirm box is open: the ledger holds the link paid, the
    controller's ``current`` (re-read in a task) still says open. The void is refused in
    the ledger, nothing is voided, and the sale stays on the screens as PAID."""
    await add_profile(shop_email=SHOP)
    counter = desk.counter
    sale = await counter.sell("12", "GBP")
    service.control(f"pay/{sale.record.reference}", {"outcome": "success"})
    # checked and written by another desk of a shared ledger (or a check whose news has
    # not reached the hub yet): in the ledger, not heard here
    await settled(desk.session.ledger, sale.profile_id, sale.mode, sale.tx_ref, "success")
    assert counter.payable()  # the screens still say open
    assert await counter.new_sale() is None  # the staff said "Void sale"
    assert counter.current.key == sale.key and counter.current.kind == PAID
    assert not counter.payable() and heard["sales"][-1].kind == PAID
    booked = await desk.book.sale(sale.profile_id, sale.tx_ref)
    assert booked.kind == PAID and not booked.voided
    assert await counter.undecided() == []
    assert (await counter.today_figures()).paid_after_void == 0
    assert (await counter.sell("3", "GBP")).kind == OPEN  # the counter sells again


async def test_a_closed_shift_is_frozen_and_the_next_starts_at_zero(desk, add_profile, service, heard, until):
    await add_profile(shop_email=SHOP)
    counter = desk.counter
    first = await counter.sell("5", "GBP")
    with pytest.raises(RenameRefused) as refused:
        await counter.rename("Till 2")
    assert "close the shift" in refused.value.message
    closed = await counter.close_shift(first.shift_id)
    assert closed.id == first.shift_id and closed.closed and closed.closed_by == counter.user
    assert (closed.figures.made, closed.figures.open) == (1, 1)
    assert closed.figures.currencies["GBP"].open == 5
    # paid after the close: the sale is paid, the closed count is not changed
    service.control(f"pay/{first.record.reference}", {"outcome": "success"})
    await desk.links.check(first.record)
    await until(
        lambda: counter.current is not None and counter.current.kind == PAID, message="the sale on the screens paid"
    )
    assert not counter.payable()
    assert (await desk.book.shift(closed.id)).figures == closed.figures
    # no shift with sales is open: the counter can be renamed, and keeps its name
    await counter.rename("Till 2")
    assert counter.name == "Till 2"
    assert (await CounterSettings.load(desk.paths)).name == "Till 2"
    second = await counter.sell("6", "GBP")
    assert second.shift_id != closed.id and second.counter == "Till 2"
    assert second.record.title == "Sale 0001"  # the new counter's own sequence
    now = await desk.book.figures(SaleQuery(shift_id=second.shift_id))
    assert (now.made, now.paid, now.open) == (1, 0, 1)
    assert [(s.id, s.closed) for s in heard["shifts"]] == [
        (closed.id, False),
        (closed.id, True),
        (second.shift_id, False),
    ]


@pytest.mark.sockets
async def test_a_lost_answer_is_settled_with_the_same_reference(
    desk, add_profile, service, until, short_create_deadline
):
    await add_profile(shop_email=SHOP)
    counter = desk.counter
    desk.start_background()
    service.faults(drop_after_commit_rate=1.0)
    sale = await asyncio.wait_for(counter.sell("9", "GBP"), 120)  # not raised: it is known
    assert sale.kind == OPEN and sale.record.state == "creating" and counter.current == sale
    with pytest.raises(SaleUnderWay):  # its code may still come: one sale at a time
        await counter.sell("9", "GBP")
    service.faults()
    await until(
        lambda: counter.current.record.state == "pending", timeout=60, message="the desk's scheduler to settle it"
    )
    assert counter.current.tx_ref == sale.tx_ref and counter.current.record.checkout_url
    assert service.payments(sale.tx_ref) == 1


async def test_a_link_that_is_no_sale_is_read_as_one_once(desk, add_profile, until, monkeypatch):
    """Every checked record is said on the hub; the counter reads it as a sale once, and a
    record that is none (a link of the Links tab) is not read again at its next checks."""
    profile = await add_profile(shop_email=SHOP)
    asked = []
    original = desk.book.sale

    async def counting(profile_id, tx_ref):  # a spy: the real read runs
        asked.append(tx_ref)
        return await original(profile_id, tx_ref)

    monkeypatch.setattr(desk.book, "sale", counting)
    reference = await desk.links.next_reference(profile)
    record = await desk.links.create(
        PaymentRequest(
            amount=Decimal(3),
            currency="GBP",
            email="kim@example.com",
            first_name="Kim",
            last_name="Lee",
            tx_ref=reference,
            title="Tea",
        )
    )
    await until(lambda: reference in asked, message="the record read as a sale")
    await asyncio.sleep(0.1)
    read = asked.count(reference)
    await desk.links.check(record)
    await desk.links.check(record)
    await asyncio.sleep(0.1)
    assert asked.count(reference) == read
    sale = await desk.counter.sell("5", "GBP")
    await desk.links.check(sale.record)
    await until(lambda: asked.count(sale.tx_ref) >= 2, message="a sale read at each change")


async def test_a_switch_of_mode_leaves_the_other_modes_sale_off_the_screens(desk, add_profile):
    await add_profile(shop_email=SHOP)
    counter = desk.counter
    sale = await counter.sell("5", "GBP")
    await desk.session.set_mode("live")
    assert counter.current is None and not counter.payable()  # Enter sells again (live)
    await desk.session.set_mode("test")
    [kept] = await counter.today()  # not voided: still open in its own book
    assert kept.key == sale.key and kept.kind == OPEN


async def test_close_shift_closes_the_shift_confirmed_and_never_opens_one(desk, add_profile, heard):
    """The staff confirmed shift N; by the close, the mode was switched (the active mode's
    shift is another, or none) or another window closed N. The close is N's or nothing: no
    empty shift is opened to be closed."""
    await add_profile(shop_email=SHOP)
    counter = desk.counter
    sale = await counter.sell("5", "GBP")
    await desk.session.set_mode("live")  # between the confirm and the close
    closed = await counter.close_shift(sale.shift_id)
    assert closed.id == sale.shift_id and closed.mode == "test" and closed.figures.made == 1
    assert await desk.book.current_shift(counter.name, sale.profile_id, "live") is None
    assert heard["shifts"][-1] == closed
    # closed meanwhile (another window on the same data folder): refused, nothing written
    shifts = await desk.book.shifts()
    with pytest.raises(ShiftClosed):
        await counter.close_shift(sale.shift_id)
    assert await desk.book.shifts() == shifts
    assert (await desk.book.shift(sale.shift_id)).closed_by == counter.user


async def test_the_desk_opens_with_the_counters_saved_name(paths, keys):
    await CounterSettings(name="Front till", screen="HDMI-1").save(paths)
    desk = build_desk(paths, keys)
    try:
        await desk.open()
        assert (desk.counter.name, desk.counter.settings.screen) == ("Front till", "HDMI-1")
    finally:
        await desk.close()


async def test_another_counters_sales_and_shifts_are_heard_on_a_shared_ledger(
    pg_url, tmp_path, sandbox, service, until
):
    """Two desks of a shop on one PostgreSQL ledger: the till's sale, void and shift close
    are said on the office's hub (finance's window follows them), read from the book."""
    desks = []
    try:
        for name in ("till", "office"):
            paths = Paths(data=tmp_path / name, sandbox=tmp_path / f"{name}-sandbox").ensure()
            desk = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=pg_url)
            await desk.open()
            desks.append(desk)
            if name == "till":
                await profiles.add_profile(desk.session, sandbox, txref_prefix="SHOP", shop_email=SHOP)
            else:  # the shop's merchant, seen by every desk: only its keys are added here
                await until(lambda d=desk: d.session.profile is not None, message="the shop's profile at the office")
                await desk.session.save_profile(desk.session.profile, profiles.keys_of(sandbox))
        till, office = desks
        heard = {"sales": [], "shifts": []}
        office.hub.sale_changed.connect(heard["sales"].append)
        office.hub.shift_changed.connect(heard["shifts"].append)
        for desk in desks:
            desk.start_background()
        await till.counter.rename("Till 1")
        sale = await till.counter.sell("4", "GBP")
        assert sale.counter == "Till 1" and sale.record.state == "pending"
        await until(
            lambda: any(s.key == sale.key for s in heard["sales"]), message="the till's sale heard at the office"
        )
        await until(
            lambda: any(s.id == sale.shift_id and not s.closed for s in heard["shifts"]),
            message="the till's shift opening heard at the office",
        )
        await till.counter.new_sale()  # voided
        await until(
            lambda: any(s.key == sale.key and s.kind == VOIDED for s in heard["sales"]),
            message="the void heard at the office",
        )
        closed = await till.counter.close_shift(sale.shift_id)
        await until(
            lambda: any(s.id == closed.id and s.closed for s in heard["shifts"]),
            message="the close heard at the office",
        )
        [seen] = [s for s in heard["shifts"] if s.closed]
        assert seen.figures == closed.figures and seen.figures.voided == 1
        assert len(creates(service)) == 1
    finally:
        for desk in desks:
            await desk.close()


async def test_a_payment_of_the_sale_on_the_screens_ends_it_at_once(desk, add_profile, service):
    """The link's change, heard on the hub, makes the sale on the screens no longer payable
    at once (not after the book's read): the next sale goes ahead, and New sale voids
    nothing paid."""
    await add_profile(shop_email=SHOP)
    counter = desk.counter
    sale = await counter.sell("9", "GBP")
    assert counter.payable()
    service.control(f"pay/{sale.record.reference}", {"outcome": "success"})
    await desk.links.check(sale.record)  # announces the record: success
    assert not counter.payable() and counter.current.kind == PAID  # no await in between
    assert await counter.new_sale() is None  # nothing to void
    assert (await counter.sell("4", "GBP")).kind == OPEN


async def test_a_profile_switched_during_a_sale_leaves_the_sale_and_its_link_in_one_profile(
    desk, add_profile, session, sandbox, service
):
    """The staff press Enter, and the profile is switched (the toolbar, another window) while
    the sale is being written: the sale, its shift and its link stay with the profile the sale
    began in, made with that profile's key, reference prefix and shop e-mail."""
    other = await profiles.add_profile(
        session,
        sandbox,
        merchant=1,
        name="Other shop",
        txref_prefix="OTHR",
        shop_email="other@example.com",
        keys=profiles.SECRET_KEYS,
    )
    shop = await add_profile(shop_email=SHOP)  # made active
    selling = asyncio.ensure_future(desk.counter.sell("7", "GBP"))
    await asyncio.sleep(0)  # the sale has begun: it waits on its first call
    await session.switch_profile(other.id)
    sale = await selling
    assert sale.profile_id == shop.id and sale.tx_ref.startswith("SHOP-")
    assert sale.record is not None and (sale.record.profile_id, sale.record.email) == (shop.id, SHOP)
    shift = await desk.counter.book.shift(sale.shift_id)
    assert shift is not None and shift.profile_id == shop.id
    assert await desk.session.ledger.get(shop.id, sale.tx_ref) is not None
    assert await desk.session.ledger.get(other.id, sale.tx_ref) is None
    assert service.payments(sale.tx_ref) == 1
    assert not [path for path in service.calls(merchant=1) if path.endswith("/api/payment")]
