"""How cards read on screen: state badges, money in the card's currency (through the profile's
currency code map), expiry, and what each operation's outcome says. One table for every
card view."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import NamedTuple

from ...config.profiles import Profile
from ...i18n import ENGLISH, N_, NP_, Words, _, pgettext, staff
from ...ledger.cards import CardOperation, CardRecord
from ..formats import money_in, time_in
from ..texts import ledger_words

# Where a card's events go when neither the person nor the profile names a place (the
# family's servers refuse a card without a callback_url): a name under ``.invalid``, which
# never resolves (RFC 6761), so nothing is ever delivered and no one else hears of the card
NO_CARD_NOTIFICATIONS = "https://paydesk.invalid/no-card-notifications"


class Badge(NamedTuple):
    words: str
    colour: str


STATES = {1: Badge(N_("Active"), "#1b7f3b"), 2: Badge(N_("Blocked"), "#8a5a00"), 0: Badge(N_("Terminated"), "#5c6675")}
STATE_FILTERS: tuple[tuple[str, frozenset[int]], ...] = (
    (N_("All states"), frozenset()),
    (N_("Active"), frozenset({1})),
    (N_("Blocked"), frozenset({2})),
    (N_("Terminated"), frozenset({0})),
)
VERBS = {
    "create": N_("Create card"),
    "fund": N_("Fund"),
    "withdraw": N_("Withdraw"),
    "block": N_("Block"),
    "unblock": N_("Unblock"),
    "terminate": N_("Terminate"),
}
DONE = {
    "create": N_("Card created."),
    "fund": N_("Card funded."),
    "withdraw": N_("Withdrawn from the card."),
    "block": N_("Card blocked."),
    "unblock": N_("Card unblocked."),
    "terminate": N_("Card terminated."),
}


# each operation's name in the audit log and the status line: the ledger and the audit's
# export keep the key ("fund", "copy number"), whatever the language
OPERATIONS = {
    "create": NP_("card operation", "create"),
    "fund": NP_("card operation", "fund"),
    "withdraw": NP_("card operation", "withdraw"),
    "block": NP_("card operation", "block"),
    "unblock": NP_("card operation", "unblock"),
    "terminate": NP_("card operation", "terminate"),
    "reveal": NP_("card operation", "reveal"),
    "copy number": NP_("card operation", "copy number"),
}
# what a card operation's result and its audit line's detail say, kept in the ledger in
# English whatever the staff's language (shown translated: texts.ledger_words)
LEDGER = Words(ENGLISH)
CREATED, DONE_DETAIL = N_("Card created"), N_("Done")
NO_CARD_MADE, NO_LONGER_KNOWN = N_("The service lists no card made by it"), N_("The service no longer knows the card")
# what an audit line says came of it (the ledger's and the export's word, shown translated)
SENT, DONE_WORD = NP_("audit result", "sent"), NP_("audit result", "done")
REFUSED, FAILED = NP_("audit result", "refused"), NP_("audit result", "failed")
ANSWER_LOST = NP_("audit result", "answer lost")
CHECKED_DONE, CHECKED_NOT_DONE = NP_("audit result", "checked: done"), NP_("audit result", "checked: not done")
LATE_DONE = NP_("audit result", "done (its answer came after it was judged not done)")
RESULTS = (SENT, DONE_WORD, REFUSED, FAILED, ANSWER_LOST, CHECKED_DONE, CHECKED_NOT_DONE)


def operation(kind: str) -> str:
    """An operation's name in the staff's language (a kind not listed: as it is)."""
    return pgettext("card operation", kind) if kind in OPERATIONS else kind


def result(word: str) -> str:
    """An audit line's result in the staff's language (a word not listed: as it is)."""
    return pgettext("audit result", word) if word in (*RESULTS, LATE_DONE) else word


# a card whose state the service has not said (the family's create answers none, and
# reading it back failed): its buttons wait until it is read
NOT_READ = N_("Not read yet")
NOT_READ_HINT = N_(
    "The service has not said this card's state yet: Refresh card reads it (until then it "
    "cannot be funded, blocked or terminated here)."
)
NO_FEE = N_("the fee is not given by this service")
# a card the service no longer has (the family's deletes a terminated card, not its
# transactions)
GONE = N_(
    "The service no longer has this card (a terminated card is deleted there): shown as "
    "PayDesk last read it, with the transactions the service still lists for it."
)
# a service whose cards are not split by mode (config.profiles.Profile.test_cards)
NO_TEST_CARDS = N_(
    "This service keeps no test cards: its cards are not split by mode. A card made with the "
    "test key would be a real card, paid from your live balance, and both keys list the same "
    "cards. Switch to live mode to see and use them."
)


def badge(state: int | None, words: Words | None = None) -> Badge:
    """Active, Blocked, Terminated; any other number as the service said it (in the staff's
    language, or ``words``': the ledger's English)."""
    words = words or staff()
    if state in STATES:
        return Badge(words.gettext(STATES[state].words), STATES[state].colour)
    said = words.gettext(NOT_READ) if state is None else words.gettext("state {state}").format(state=state)
    return Badge(said, "#5c6675")


def state_refusal(kind: str, state: int | None) -> str | None:
    """Why block, unblock or terminate is not sent to a card in ``state`` (as the ledger
    knows it), or None when it may be."""
    if state == 0:
        return _("The card is terminated: nothing more can be done with it")
    if state is None:
        return _("The card's state is not known yet: Refresh card reads it first")
    if kind == "block" and state == 2:
        return _("The card is already blocked")
    if kind == "unblock" and state != 2:
        return _("The card is not blocked")
    return None


def currency_of(profile: Profile | None, code: str | None) -> str | None:
    """The ISO code for the service's currency code, or None when the map does not know it."""
    if not code:
        return None
    known = profile.card_currencies if profile else {}
    if code in known:
        return known[code]
    return code if code.isalpha() and len(code) == 3 else None


def unknown_code_hint(code: str | None) -> str:
    return _(
        "The service's currency code {code!r} is not in this profile's card currency map: add it "
        "in Edit profile (Ctrl+,)"
    ).format(code=code)


def money(profile: Profile | None, code: str | None, amount: Decimal | None, words: Words | None = None) -> str:
    """``GBP 70.00``; with a code the map does not know, the amount and the code as they are
    (as the staff's language writes it, or ``words``': the ledger's English)."""
    if amount is None:
        return "—"
    words = words or staff()
    iso = currency_of(profile, code)
    if iso:
        return money_in(amount, iso, words)
    plain = money_in(amount, "", words).strip()  # the amount alone, as the language writes it
    return words.gettext("{amount} (code {code})").format(amount=plain, code=code) if code else plain


def card_money(profile: Profile | None, record: CardRecord, amount: Decimal | None) -> str:
    return money(profile, record.currency_code, amount)


def issued(profile: Profile | None, record: CardRecord) -> str:
    """What the card was issued with, its fee and what was paid in all, as far as the
    service says: the family's card hides its fee (and says what it was issued with only
    in the create's answer)."""
    amount = card_money(profile, record, record.amount) if record.amount is not None else _("not given by this service")
    paid = card_money(profile, record, record.paid)
    if record.charge is not None:
        return _("{amount} (fee {fee}, paid {paid})").format(
            amount=amount, fee=card_money(profile, record, record.charge), paid=paid
        )
    if record.paid is not None:
        return _("{amount} (paid {paid} in all; {no_fee})").format(amount=amount, paid=paid, no_fee=_(NO_FEE))
    return amount


def created(profile: Profile | None, record: CardRecord) -> str:
    """What the dialog says of a card just created: its number, amount, fee and total."""
    card, amount = record.masked, card_money(profile, record, record.amount)
    paid = card_money(profile, record, record.paid)
    if record.charge is not None:
        return _("Card created: {card}, {amount}. Fee {fee}; total paid {paid}.").format(
            card=card, amount=amount, fee=card_money(profile, record, record.charge), paid=paid
        )
    if record.paid is not None:
        return _("Card created: {card}, {amount}. Total paid {paid}; {no_fee}.").format(
            card=card, amount=amount, paid=paid, no_fee=_(NO_FEE)
        )
    return _("Card created: {card}, {amount}. The service did not say its fee or the total paid.").format(
        card=card, amount=amount
    )


def callback(url: str | None) -> str:
    """The card's notification URL as the page shows it."""
    if url == NO_CARD_NOTIFICATIONS:
        return _("none given: PayDesk gave the service {url}, which receives nothing").format(url=url)
    return url or "—"


def expiry(record: CardRecord, today: date | None = None) -> tuple[str, bool]:
    """``05/2029``, and whether the card has expired."""
    text = record.expiration or "—"
    if record.expiration and "-" in record.expiration:
        year, _unused, month = record.expiration.partition("-")
        text = f"{month[:2]}/{year}"
    expired = record.expired(today or date.today())
    return (_("{date} (expired)").format(date=text) if expired else text), expired


def when(moment: datetime | None, *, seconds: bool = False) -> str:
    """A moment in local time, as the staff's language writes it (to the second with
    ``seconds``)."""
    if moment is None:
        return "—"
    words = staff()
    if not seconds:
        return time_in(moment, words)
    return time_in(moment, words, seconds=True)


def outcome(op: CardOperation) -> str:
    """What the user is told about an operation, in a sentence."""
    what = _(VERBS[op.kind]).lower()
    if op.amount is not None:
        what += " " + (money_in(op.amount, op.currency, staff()) if op.currency else money(None, None, op.amount))
    if op.state == "sending":
        return _("Sending: {what}…").format(what=what)
    if op.state == "lost":
        return _(
            "The answer to {what} was lost. PayDesk is checking with the service whether it happened; "
            "nothing is sent again."
        ).format(what=what)
    if op.state == "done":
        lead = _("The answer was lost; checked with the service: it was done.") if op.settled else _("Done.")
        return f"{lead} {_(DONE[op.kind])}"
    if op.settled:
        return _(
            "The answer was lost; checked with the service: {what} was NOT done ({result}). You may try again."
        ).format(what=what, result=ledger_words(op.result))
    return _("Not done: {result}").format(result=ledger_words(op.result))
