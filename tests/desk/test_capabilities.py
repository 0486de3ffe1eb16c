"""Who may do what, refused by the desk itself (no window): every controller method that acts
for a person refuses, in one plain sentence and before anything is written or sent, a person
whose role lacks its capability, and a locked desk; the same methods let a person with it
through. A shop without staff is the rest of tests/desk, unchanged.

The arguments are real (a link, a card, a batch, a sale made before the staff were set up):
a refusal comes first, so the person learns nothing from the service and nothing is kept."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from paydesk.desk.bulk import mail
from paydesk.desk.export import export_audit
from paydesk.desk.ledger_choice import save_shared_ledger, use_own_ledger
from paydesk.desk.staff import Capability, NotAllowed, Role
from paydesk.ledger import LinkQuery
from paydesk.ledger.cards import AuditQuery, CardRecord
from paydesk.service.models import PaymentRequest
from tests.desk.bulk.files import write_csv
from tests.desk.bulk.test_runner import HEADERS, line, load

PINS = {Role.ADMIN: "1234", Role.FINANCE: "2345", Role.COUNTER: "3456"}
NAMES = {Role.ADMIN: "Ana", Role.FINANCE: "Fay", Role.COUNTER: "Bo"}


def request(ref: str) -> PaymentRequest:
    return PaymentRequest(
        amount=Decimal(12),
        currency="GBP",
        email="kim@example.com",
        first_name="Kim",
        last_name="Lee",
        tx_ref=ref,
        title="Tea",
    )


class Shop:
    """A desk with two profiles, a link, a counter sale, a batch and a card made while no
    staff were set up; then Ana (Admin), Fay (Finance) and Bo (Counter)."""

    def __init__(self, desk, tmp_path):
        self.desk = desk
        self.tmp_path = tmp_path
        self.people = {}

    async def make(self, add_profile):
        desk = self.desk
        self.other = await add_profile(name="Other shop", activate=False)
        self.profile = await add_profile(shop_email="till@example.com")
        self.record = await desk.links.create(request("SHOP-CAP-1"))
        self.sale = await desk.counter.sell("7", "GBP")
        self.shift = await desk.counter.shift()
        path = write_csv(self.tmp_path / "fees.csv", [line(1)], headers=HEADERS)
        self.batch = await load(desk, path)
        self.batch_path = path
        self.card = CardRecord(
            self.profile.id, "test", "c0ffee", "4111 **** 1111", "Kim Lee", "GBP", Decimal(0), 1, None, None,
            datetime.now(UTC),
        )  # fmt: skip
        for role in (Role.ADMIN, Role.FINANCE, Role.COUNTER):
            self.people[role] = await desk.sign_in.add_person(NAMES[role], role, PINS[role])

    async def as_(self, role: Role | None):
        """``role``'s person signed in (None: the desk locked)."""
        if role is None:
            self.desk.sign_in.lock()
        else:
            await self.desk.sign_in.switch(self.people[role].id, PINS[role])


@pytest.fixture
async def shop(desk, add_profile, tmp_path):
    made = Shop(desk, tmp_path)
    await made.make(add_profile)
    return made


def acts(shop: Shop):
    """Every person's act of the desk, by the capability it needs: (name, capability,
    a function of the shop that starts it)."""
    d = shop.desk
    s = d.session
    query = LinkQuery(shop.profile.id, "test")
    out = shop.tmp_path / "out.csv"
    return [
        ("create a link", Capability.LINKS, lambda: d.links.create(request("SHOP-CAP-2"))),
        (
            "e-mail a batch",
            Capability.BULK_LINKS,
            lambda: mail.mail_batch(d.batches, shop.batch.id, shop.profile, mail.SmtpSettings(), None, staff=s.staff),
        ),  # fmt: skip
        ("keep a batch", Capability.BULK_LINKS, lambda: d.bulk.keep(shop.batch_path, [], "skip")),
        ("start a batch", Capability.BULK_LINKS, lambda: d.bulk.start(shop.batch)),
        ("pause a batch", Capability.BULK_LINKS, lambda: _now(d.bulk.pause, shop.batch.id)),
        ("resume a batch", Capability.BULK_LINKS, lambda: _now(d.bulk.resume, shop.batch.id)),
        ("cancel a batch", Capability.BULK_LINKS, lambda: d.bulk.cancel(shop.batch.id)),
        ("export", Capability.EXPORT, lambda: d.transactions.export(query, out)),
        ("receipt", Capability.RECEIPTS, lambda: _now(d.transactions.receipt, shop.record, "Shop")),
        ("day's figures", Capability.END_OF_DAY, lambda: d.transactions.day_summary(date.today())),
        ("day read again", Capability.END_OF_DAY, lambda: d.transactions.recheck_day(date.today())),
        ("check all open", Capability.CHECK_ALL_OPEN, lambda: d.transactions.reconcile(None)),
        ("a batch's open", Capability.CHECK_ALL_OPEN, lambda: d.bulk.check_all_open(shop.batch.id)),
        ("cards listed", Capability.CARDS, lambda: d.cards.refresh(shop.profile, "test")),
        ("a card read", Capability.CARDS, lambda: d.cards.load_card(shop.profile, "test", "c0ffee")),
        ("a card revealed", Capability.CARDS, lambda: d.cards.reveal(shop.card)),
        ("a card noted", Capability.CARDS, lambda: d.cards.note(shop.card, "copy number", "done")),
        ("a card made", Capability.CARDS, lambda: d.cards.create(shop.profile, "test", Decimal(5), "GBP", None)),
        ("a card funded", Capability.CARDS, lambda: d.cards.fund(shop.card, Decimal(5))),
        ("a card blocked", Capability.CARDS, lambda: d.cards.block(shop.card)),
        ("a card terminated", Capability.CARDS, lambda: d.cards.terminate(shop.card)),
        (
            "card audit export",
            Capability.CARDS,
            lambda: export_audit(d.session.card_ledger, AuditQuery(shop.profile.id, "test"), out, staff=s.staff),
        ),  # fmt: skip
        ("a profile saved", Capability.PROFILES, lambda: s.save_profile(shop.profile, {})),
        ("a profile deleted", Capability.PROFILES, lambda: s.delete_profile(shop.other.id)),
        ("a profile switched", Capability.PROFILES, lambda: s.switch_profile(shop.other.id)),
        ("a profile found out", Capability.PROFILES, lambda: s.discover(shop.profile, "sk")),
        ("a secret key shown", Capability.PROFILES, lambda: s.key("test", "secret")),
        ("notification test", Capability.PROFILES, lambda: d.notify_test.run()),
        ("the till renamed", Capability.PROFILES, lambda: d.counter.rename("Till 9")),
        ("the shop's e-mail", Capability.PROFILES, lambda: d.counter.set_shop_email("a@example.com")),
        ("live mode", Capability.GO_LIVE, lambda: s.set_mode("live")),
        ("ledger address", Capability.SHARED_LEDGER, lambda: s.save_ledger_url(None)),
        ("a shared ledger", Capability.SHARED_LEDGER, lambda: save_shared_ledger(s, "postgresql://h/db", "pw")),
        ("own ledger again", Capability.SHARED_LEDGER, lambda: use_own_ledger(s)),
        ("the desk renamed", Capability.SHARED_LEDGER, lambda: d.naming.rename("Back office")),
        ("a sale", Capability.SELL, lambda: d.counter.sell("8", "GBP")),
        ("a new sale", Capability.SELL, lambda: d.counter.new_sale()),
        ("the display's screen", Capability.SELL, lambda: d.counter.set_screen("HDMI-1")),
        ("a void", Capability.VOID_OWN_SALE, lambda: d.counter.void(shop.sale)),
        ("a decision", Capability.VOID_OWN_SALE, lambda: d.counter.decide(shop.sale, "keep")),
        ("a shift closed", Capability.CLOSE_SHIFT, lambda: d.counter.close_shift(shop.shift.id)),
        ("a person added", Capability.STAFF, lambda: d.sign_in.add_person("Gus", Role.COUNTER, "1111")),
        ("idle minutes", Capability.STAFF, lambda: d.sign_in.set_idle_lock_minutes(30)),
    ]


async def _now(fn, *args):
    """A plain method, called as the window calls it (the refusal is raised at once)."""
    return fn(*args)


def lacking(capability: Capability) -> Role:
    """A role without ``capability``: a Counter for finance's and admin's, Finance else."""
    return (
        Role.FINANCE
        if capability in (Capability.SELL, Capability.VOID_OWN_SALE, Capability.CLOSE_SHIFT)
        else Role.COUNTER
    )


async def facts(shop: Shop):
    """What a refused act must leave as it was."""
    d = shop.desk
    s = d.session
    return (
        await s.ledger.count(LinkQuery(shop.profile.id, "test")),
        [x.key for x in await d.counter.today()],
        (s.profile.id, s.mode, s.settings.ledger_url, s.settings.desk_name),
        [p.name for p in s.settings.profiles],
        d.counter.settings,
        (await d.batches.figures(shop.batch.id)),
        [p.name for p in await d.sign_in.people()],
        (shop.tmp_path / "out.csv").exists(),
    )


async def test_every_act_is_refused_to_a_role_without_its_capability_and_nothing_is_kept(shop):
    for name, capability, act in acts(shop):
        role = lacking(capability)
        await shop.as_(role)
        before = await facts(shop)
        person = shop.people[role]
        with pytest.raises(NotAllowed) as refused:
            await act()
        said = f"{person.name} ({role.title}) may not use {capability.value}."
        assert (name, refused.value.message) == (name, said)
        assert (name, await facts(shop)) == (name, before)
        await shop.as_(None)  # locked: refused to nobody in particular
        with pytest.raises(NotAllowed, match=r"^Sign in first: this desk is locked\.$"):
            await act()
        assert (name, await facts(shop)) == (name, before)


async def test_a_look_up_refused_is_a_sentence_not_a_call(shop, service):
    await shop.as_(Role.COUNTER)
    calls = len(service.calls())
    for found in (await shop.desk.transactions.lookup("SHOP-CAP-1"), await shop.desk.transactions.check("SHOP-CAP-1")):
        assert (found.record, found.message, found.asked) == (None, "Bo (Counter) may not use transactions.", False)
    assert len(service.calls()) == calls  # the service was not asked


async def test_each_role_is_let_through_what_it_may_do(shop):
    """The capability table: an act is never refused to a role that has its capability."""
    shop.desk.notify_test.wait = 0.5  # its payment's notification is not what is asked here
    for role in (Role.ADMIN, Role.FINANCE, Role.COUNTER):
        await shop.as_(role)
        if role is Role.COUNTER:  # a Counter voids and decides only what they sold
            shop.sale = await shop.desk.counter.sell("6", "GBP")
        for name, capability, act in acts(shop):
            if not shop.people[role].may(capability):
                continue
            try:
                await act()
            except NotAllowed as refused:  # pragma: no cover - the failure said
                pytest.fail(f"{role.title} refused {name}: {refused.message}")
            except Exception:  # noqa: BLE001 - the service or the ledger's own answer: not ours
                pass
            if name == "a profile switched":
                await shop.desk.session.switch_profile(shop.profile.id)
            if name == "live mode":
                await shop.desk.session.set_mode("test")


async def test_background_work_is_nobodys_and_never_refused(shop, service, tmp_path):
    """A batch Fay started runs on when the desk locks; the scheduler's checks and settling,
    the receiver's re-reads and the cards' settling are not a person's."""
    desk = shop.desk
    await shop.as_(Role.FINANCE)
    path = write_csv(tmp_path / "more.csv", [line(n) for n in range(2, 6)], headers=HEADERS)
    batch = await load(desk, path)
    await desk.bulk.start(batch)
    shop.desk.sign_in.lock()  # Fay walks away
    assert await desk.bulk.wait(batch.id) == "Finished: 4 of 4 links created"
    assert all(service.payments(r.tx_ref) == 1 for r in await desk.batches.rows(batch.id))
    checked = await desk.links.check(shop.record)  # the scheduler's (and the poller's) check
    assert checked.tx_ref == shop.record.tx_ref
    looked, _ = await desk.links.look_up(shop.profile, "test", shop.record.tx_ref, learned_by="notification")
    assert looked.tx_ref == shop.record.tx_ref  # the receiver's re-read of a notification
    await desk.cards.settle_open()  # the card operations a previous run left open
    assert desk.session.staff.person is None


async def test_a_counter_voids_only_a_sale_they_made(shop):
    """desk/counter.py's void and decide ask require_own with the sale's maker (as the ledger
    names them): Bo may void his own sale, not Ana's."""
    desk = shop.desk
    await desk.counter.new_sale()  # the shop's own sale, made before anyone signed in, put by
    await shop.as_(Role.COUNTER)
    bos = await desk.counter.sell("4", "GBP")
    voided = await desk.counter.void(bos)
    assert voided.voided and voided.voided_actor == "Bo"
    await desk.counter.new_sale()
    await shop.as_(Role.ADMIN)
    anas = await desk.counter.sell("5", "GBP")
    await shop.as_(Role.COUNTER)
    with pytest.raises(NotAllowed, match=r"^Bo may void only their own sales: this one was made by Ana\.$"):
        await desk.counter.void(anas)
    with pytest.raises(NotAllowed, match=r"made by Ana"):
        await desk.counter.new_sale()  # Escape at the till voids the sale on screen: not Ana's
    assert [x.voided for x in await desk.counter.today() if x.key == anas.key] == [False]
