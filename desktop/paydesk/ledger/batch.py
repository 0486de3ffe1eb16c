"""The batches' book: the bulk links made from one spreadsheet (issue 20), each row of the file
kept with the reference it maps to, so the same file row always makes the same link.

A *batch* is one file loaded for one profile and mode (its name, the file's name, who and
when, the policy chosen: "skip" the rows with problems, or "all" or nothing) and the
*prefix* drawn for it once (the profile's reference prefix and six random characters): a row
without a reference of its own is created as ``f"{prefix}-{number:05d}"`` (``row_ref``).
A corrected file of the same name joins the newest batch of that name (``find``), and only
its rows not created yet are made (``add_rows``).

What a row *is* now is derived when read, from its link (the ledger's ``links`` row of the
same profile and tx_ref), as the counter's sales are: WAITING (no link yet), CREATING,
CREATED (pending or unknown: the customer may pay), PAID (success, refunded, reversed),
REFUSED (the service refused it), FAILED (failed or cancelled), SKIPPED (a row with problems
under "skip", never sent). The e-mails sent with a row's link are noted row by row,
append-only; the latest note wins.

``BatchBook`` is the interface; ``SqliteBatchBook`` (beside a desk's SQLite ledger) and
``PostgresBatchBook`` (on a shop's shared ledger) implement it.
"""

from __future__ import annotations

import abc
import secrets
from dataclasses import dataclass
from datetime import datetime

from .records import LinkRecord

# What a row is now (derived when read, from its link's state, in this order of rules):
WAITING = "waiting"  # not sent yet (no link)
CREATING = "creating"  # its intent is written, the service's answer not known yet
CREATED = "created"  # the link exists (pending or unknown): the customer may pay
PAID = "paid"  # success, refunded or reversed
REFUSED = "refused"  # the service refused it (rejected): nothing exists there
FAILED = "failed"  # the payment failed or was cancelled
SKIPPED = "skipped"  # a row with problems under the "skip" policy: never sent
STATES = (WAITING, CREATING, CREATED, PAID, REFUSED, FAILED, SKIPPED)
LINK_STATES: dict[str, tuple[str, ...]] = {  # the link states each row state is made of
    CREATING: ("creating",),
    CREATED: ("pending", "unknown"),
    PAID: ("success", "refunded", "reversed"),
    REFUSED: ("rejected",),
    FAILED: ("failed", "cancelled"),
}

SKIP, ALL = "skip", "all"  # create the valid rows and skip the rest / all or nothing
POLICIES = (SKIP, ALL)
SENT, NOT_SENT = "sent", "failed"  # a row's e-mail

PREFIX_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # base32, no I L O U (read aloud)

# a row given to the book: (its number in the file, its reference or "" for the batch's
# own, its values by field, skipped)
NewRow = tuple[int, str, dict[str, str], bool]


def new_prefix(txref_prefix: str) -> str:
    """A batch's prefix: the profile's reference prefix and six random characters."""
    drawn = "".join(secrets.choice(PREFIX_ALPHABET) for _ in range(6))
    return f"{txref_prefix or 'PAY'}-{drawn}"


def row_ref(prefix: str, number: int) -> str:
    """The reference of a batch's row that has none of its own: ``PAY-K7QM4X-00042``."""
    return f"{prefix}-{number:05d}"


def check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise ValueError(f"not a policy: {policy!r}")


def check_states(states: tuple[str, ...] | list[str]) -> None:
    unknown = set(states) - set(STATES)
    if unknown:
        raise ValueError(f"unknown row states {sorted(unknown)!r}")


@dataclass(frozen=True)
class Batch:
    id: int
    profile_id: str
    mode: str
    name: str  # what the user called it (by default the file's name)
    file_name: str  # the file's name, without its folder: a corrected file joins by it
    made_at: datetime
    made_by: str  # the computer's user who loaded it
    rows: int  # how many rows of the file the batch holds (skipped ones too)
    policy: str  # SKIP or ALL
    prefix: str  # drawn once: a row without a reference is f"{prefix}-{number:05d}"

    def ref(self, number: int) -> str:
        return row_ref(self.prefix, number)


@dataclass(frozen=True)
class BatchRow:
    batch_id: int
    number: int  # the file's row number as a spreadsheet shows it (header: 1)
    tx_ref: str  # "" for a skipped row (it holds no reference until made valid)
    values: dict[str, str]  # by field ("amount", "email"..., extra fields as "meta.<name>")
    state: str  # one of STATES, derived when read
    record: LinkRecord | None = None  # its link as the ledger holds it (None: not sent)
    email_state: str | None = None  # SENT or NOT_SENT (the latest note), None: not sent
    email_error: str | None = None
    email_at: datetime | None = None  # when the latest note was made (UTC), None: not sent

    @property
    def skipped(self) -> bool:
        return self.state == SKIPPED


@dataclass(frozen=True)
class BatchFigures:
    """How many rows of a batch are in each state (counted in SQL)."""

    rows: int = 0
    waiting: int = 0
    creating: int = 0
    created: int = 0
    paid: int = 0
    refused: int = 0
    failed: int = 0
    skipped: int = 0

    @property
    def left(self) -> int:
        """Rows still to send (waiting), and those whose answer is not in (creating)."""
        return self.waiting + self.creating

    @property
    def done(self) -> int:
        """Rows the service has answered for (created, paid, refused, failed)."""
        return self.created + self.paid + self.refused + self.failed

    @classmethod
    def of(cls, counts: dict[str, int]) -> BatchFigures:
        return cls(rows=sum(counts.values()), **{state: int(counts.get(state, 0)) for state in STATES})


class BatchBook(abc.ABC):
    """The batches of one ledger (a desk's file, or a shop's shared database). Writes are
    durable when they return; every write is one transaction."""

    @abc.abstractmethod
    async def add_batch(
        self,
        profile_id: str,
        mode: str,
        name: str,
        file_name: str,
        policy: str,
        by: str,
        rows: list[NewRow],
        *,
        txref_prefix: str = "PAY",
    ) -> Batch:
        """A new batch with its rows, in one transaction; its prefix drawn now
        (``new_prefix(txref_prefix)``). A row's reference "" is the batch's own
        (``row_ref``). Raises ValueError on an unknown policy."""

    @abc.abstractmethod
    async def batch(self, batch_id: int) -> Batch | None: ...

    @abc.abstractmethod
    async def batches(self, profile_id: str, mode: str, before: int | None = None, limit: int = 100) -> list[Batch]:
        """The batches of a profile and mode, newest first (id descending), id < ``before``."""

    @abc.abstractmethod
    async def find(self, profile_id: str, mode: str, file_name: str) -> Batch | None:
        """The newest batch of that file name (a corrected file joins it), or None."""

    @abc.abstractmethod
    async def add_rows(self, batch_id: int, rows: list[NewRow]) -> int:
        """A corrected file's rows, in one transaction: a row whose number the batch lacks is
        added; a row the batch has that was never sent (waiting or skipped: no link) takes
        the new values and skipped flag, keeping its reference if it has one (a skipped row
        has none: made valid, it takes the corrected file's reference, else the batch's); a
        row sent already stays as it is. Returns how many rows were added or changed. Raises LedgerError when the
        batch is not in the book."""

    @abc.abstractmethod
    async def rows(
        self, batch_id: int, after: int | None = None, limit: int = 200, states: tuple[str, ...] = ()
    ) -> list[BatchRow]:
        """The batch's rows by number, those with number > ``after``, in ``states`` (empty:
        all), each with its link's record and its latest e-mail note."""

    @abc.abstractmethod
    async def row(self, batch_id: int, number: int) -> BatchRow | None: ...

    @abc.abstractmethod
    async def figures(self, batch_id: int) -> BatchFigures:
        """How many of the batch's rows are in each state, counted in SQL."""

    @abc.abstractmethod
    async def note_email(self, batch_id: int, number: int, ok: bool, error: str | None = None) -> None:
        """The e-mail with the row's link was sent (``ok``) or failed (``error``). Appended:
        the latest note is the row's e-mail state."""

    @abc.abstractmethod
    async def batch_of(self, profile_id: str, tx_ref: str) -> int | None:
        """The newest batch with a row of that reference (a link's change shown live in the
        batch's figures), or None."""

    @abc.abstractmethod
    async def unfinished(self, profile_id: str, mode: str) -> list[Batch]:
        """The batches of a profile and mode with rows still waiting (not sent, not
        skipped), newest first: offered to be resumed, never resumed silently."""
