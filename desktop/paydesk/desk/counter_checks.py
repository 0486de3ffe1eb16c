"""What a counter sale needs before anything is written (Qt-free): what the staff typed (an
amount in whole units, one of the profile's currencies, a note short enough to be a title,
an e-mail that is one) and what the profile gives a walk-in customer (the shop's e-mail
when the customer gives none, the walk-in name)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ..config.profiles import Profile
from ..i18n import _, customer
from ..ledger.counter import Sale
from ..service.errors import ValidationError
from ..service.models import PaymentRequest
from . import checks

TITLE_MOST = 100  # characters of a note (the link's title)


class CounterSetupMissing(Exception):
    """The profile lacks what a counter sale needs (the shop's e-mail, the walk-in name)."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.message = message
        self.field = field  # "shop_email" | "walk_in_name": the profile editor's field


class BadSale(ValidationError):
    """What the staff typed is not a sale (said before anything is written): ``errors`` (also
    ``fields``) maps "amount", "currency", "note" or "email" to what is wrong."""

    def __init__(self, errors: dict[str, list[str]]):
        said = "; ".join(m for ms in errors.values() for m in ms)
        super().__init__(_("Check the sale: {problems}").format(problems=said), errors)

    @property
    def fields(self) -> dict[str, list[str]]:
        return self.errors


def check_setup(profile: Profile, email: str) -> None:
    """CounterSetupMissing when ``profile`` cannot sell to a customer who gave ``email``
    (""), as it is: no shop e-mail to use instead, or no walk-in name."""
    if not email.strip() and not profile.shop_email.strip():
        raise CounterSetupMissing(
            _(
                "Set the shop's e-mail in the profile (Edit profile…, Counter), or type the "
                "customer's: the service needs one for every payment"
            ),
            "shop_email",
        )
    if checks.name(profile.walk_in_name, "name"):
        raise CounterSetupMissing(
            _("Set the walk-in customer name in the profile (Edit profile…, Counter)"), "walk_in_name"
        )


def setup_missing(profile: Profile) -> CounterSetupMissing | None:
    """What ``profile`` lacks for a sale to a customer who gives no e-mail; None: nothing."""
    try:
        check_setup(profile, "")
    except CounterSetupMissing as missing:
        return missing
    return None


def checked_shop_email(email: str) -> str:
    """The shop's e-mail as typed, trimmed; ValidationError on "shop_email" when it is not
    one."""
    text = email.strip()
    problem = checks.email(text) if text else _("Enter the shop's e-mail")
    if problem:
        raise ValidationError(problem, {"shop_email": [problem]})
    return text


@dataclass(frozen=True)
class CheckedSale:
    """What the staff typed, checked and read: the amount parsed, the texts trimmed, the
    e-mail the customer's or else the shop's."""

    amount: Decimal
    currency: str
    note: str
    email: str

    def fields(self, made_by: str, actor: str | None = None) -> dict[str, object]:
        """As a key-less counter's sale request carries it (desk/counter_keyless.py):
        ``made_by`` the computer's login, ``actor`` the person signed in."""
        return {
            "actor": actor,
            "amount": self.amount,
            "currency": self.currency,
            "note": self.note,
            "email": self.email,
            "made_by": made_by,
        }


def split_name(walk_in: str) -> tuple[str, str]:
    """ "Walk-in customer" -> ("Walk-in", "customer"): the first word is the first name, the
    rest the last name (one word: both)."""
    words = walk_in.split()
    if not words:
        return "", ""
    return words[0], " ".join(words[1:]) or words[0]


def sale_title(profile: Profile | None, number: int) -> str:
    """ "Sale 0042": the title of a sale without a note, in the words of the customer, who
    reads it when paying (the profile's customer language)."""
    words = customer(profile.customer_language if profile is not None else None)
    return words.gettext("Sale {number:04d}").format(number=number)


def counter_payment(
    profile: Profile, amount: Decimal, currency: str, email: str, note: str, sale: Sale
) -> PaymentRequest:
    """The payment a counter sale asks of the service (at the counter, or at the key holder
    for a key-less counter): titled by the note or "Sale 0042", to the walk-in customer (the
    title and the description in the customer's language)."""
    first, last = split_name(profile.walk_in_name)
    words = customer(profile.customer_language)
    return PaymentRequest(
        amount=amount,
        currency=currency,
        email=email,
        first_name=first,
        last_name=last,
        tx_ref=sale.tx_ref,
        title=note or sale_title(profile, sale.number),
        # the family's servers require a description as well as a title
        description=words.gettext("Counter sale at {shop}").format(shop=profile.shown_name)[:255],
        callback_url=profile.callback_url or None,
        return_url=profile.return_url or None,
    )


def check_sale(profile: Profile, amount: str, currency: str, note: str, email: str) -> CheckedSale:
    """The sale as typed, read once: BadSale for what was typed wrong, then
    CounterSetupMissing for what the profile lacks."""
    errors: dict[str, list[str]] = {}
    for field, problem in (
        ("amount", checks.amount(amount)),
        (
            "currency",
            None
            if currency in profile.currencies
            else _("Not one of this profile's currencies ({currencies})").format(
                currencies=", ".join(profile.currencies)
            ),
        ),
        ("note", checks.limit(note, TITLE_MOST)),
        ("email", checks.email(email) if email.strip() else None),
    ):
        if problem:
            errors[field] = [problem]
    if errors:
        raise BadSale(errors)
    check_setup(profile, email)
    return CheckedSale(
        amount=Decimal(int(amount.strip())),
        currency=currency,
        note=note.strip(),
        email=email.strip() or profile.shop_email.strip(),
    )
