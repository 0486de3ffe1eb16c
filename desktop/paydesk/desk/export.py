"""Exports of the ledger for an accountant: CSV (UTF-8 with a BOM, so Excel reads it right)
and XLSX (openpyxl, write-only: a row at a time, whatever the size); and the card audit log
as CSV. Qt-free; the writing runs on a worker thread, page by page, so the window keeps
painting and can show progress.
"""

from __future__ import annotations

import asyncio
import csv
import os
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import ENGLISH, Words
from ..ledger import LinkRecord
from ..ledger.cards import AuditEntry, AuditQuery, CardLedger
from ..ledger.counter import PAID_AFTER_VOID, PAID_STATES, VOIDED
from ..service.models import TransactionState
from . import activity
from .staff import Capability, Staff
from .states import state_words

if TYPE_CHECKING:
    from .session import Session

# the words the service itself uses for a state (PayDesk's own "creating" and "rejected" are
# not the service's: nothing there, or nothing said)
_SERVICE_WORDS = frozenset(s.value for s in TransactionState if s is not TransactionState.UNKNOWN)

# an export's words are PayDesk's own (its English), whatever language the staff read: a
# spreadsheet or an accountant's script reads the same file whoever exported it
EXPORT_WORDS = Words(ENGLISH)

# "state" is the words PayDesk shows (in English), "service_state" the service's own word; a sale voided
# at a counter says so in "counter_void" ("voided", or "paid after void" once its link was
# paid anyway: the counter book's kinds) with when; "by" is the person signed in who made
# the link or sale ("" without staff, or for a payment looked up); each added last, so
# the columns before keep their places
HEADER = (
    "tx_ref",
    "service_reference",
    "state",
    "service_state",
    "first_name",
    "last_name",
    "email",
    "amount",
    "fee",
    "currency",
    "mode",
    "made",
    "created_utc",
    "created_local",
    "updated_utc",
    "last_checked_utc",
    "title",
    "description",
    "checkout_url",
    "error",
    "counter_void",
    "counter_voided_utc",
    "by",
)


def _iso(when: datetime | None) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if when else ""


def _local(when: datetime | None) -> str:
    return when.astimezone().strftime("%Y-%m-%d %H:%M:%S") if when else ""


def _decimal(value: Decimal | None) -> str:
    return f"{value:.2f}" if value is not None else ""


def spreadsheet_safe(value: str) -> str:
    """Text as text: a spreadsheet would run a cell starting = + - @ (or a tab or CR) as a
    formula, and a customer's name comes from the internet (the website form), a card
    operation's detail from the service."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def service_state(r: LinkRecord) -> str:
    """The service's own word for the state, as it said it ("" when it has said none)."""
    if r.state_raw:
        return r.state_raw
    return r.state if r.state in _SERVICE_WORDS else ""


def counter_void(r: LinkRecord) -> str:
    """What a counter's void made of the sale, in the counter book's words ("" if none)."""
    if r.voided_at is None:
        return ""
    return PAID_AFTER_VOID if r.state in PAID_STATES else VOIDED


def row_of(r: LinkRecord, guard: bool = True) -> tuple[str, ...]:
    """One record as a row of text. ``guard``: text that a spreadsheet would take for a
    formula starts with an apostrophe (CSV); an XLSX marks its cells as text instead."""
    t = spreadsheet_safe if guard else str
    known = bool(r.currency)  # a payment made elsewhere, not paid yet: amount not known
    return (
        t(r.tx_ref),
        t(r.reference or ""),
        state_words(r, EXPORT_WORDS).words,
        t(service_state(r)),
        t(r.first_name),
        t(r.last_name),
        t(r.email),
        _decimal(r.amount) if known else "",
        _decimal(r.fee),
        r.currency,
        r.mode,
        "here" if r.origin == "link" else "looked up",
        _iso(r.created_at),
        _local(r.created_at),
        _iso(r.updated_at),
        _iso(r.checked_at),
        t(r.customization.get("title") or ""),
        t(r.customization.get("description") or ""),
        t(r.checkout_url or ""),
        t(r.error or ""),
        counter_void(r),
        _iso(r.voided_at),
        t(r.actor or ""),
    )


class CsvWriter:
    """Writes beside the target and puts the file in place only when it is complete, so a
    cancelled or failed export leaves the previous file as it was."""

    def __init__(self, path: Path):
        self.path = path
        self.partial = path.with_name(path.name + ".part")
        self._file = open(self.partial, "w", encoding="utf-8-sig", newline="")
        self._csv = csv.writer(self._file)
        self._csv.writerow(HEADER)

    def write(self, records: Iterable[LinkRecord]) -> None:
        self._csv.writerows(row_of(r) for r in records)

    def close(self, complete: bool = True) -> None:
        self._file.close()
        if complete:
            os.replace(self.partial, self.path)
        else:
            self.partial.unlink(missing_ok=True)


class XlsxWriter:
    """Amounts as numbers with two decimals, times as real (local) times beside UTC text."""

    def __init__(self, path: Path):
        from openpyxl import Workbook  # only when an XLSX is asked for

        self.path = path
        self.partial = path.with_name(path.name + ".part")
        self._book = Workbook(write_only=True)
        self._sheet = self._book.create_sheet("Transactions")
        self._sheet.append(HEADER)

    def write(self, records: Iterable[LinkRecord]) -> None:
        from openpyxl.cell import WriteOnlyCell

        for r in records:
            row: list = [WriteOnlyCell(self._sheet, value=v) for v in row_of(r, guard=False)]
            for cell in row:  # text stays text: never a formula
                if isinstance(cell.value, str) and cell.value:
                    cell.data_type = "s"
            for index in (7, 8):  # amount, fee: numbers
                if row[index].value:
                    cell = WriteOnlyCell(self._sheet, value=Decimal(row[index].value))
                    cell.number_format = "#,##0.00"
                    row[index] = cell
            local = WriteOnlyCell(self._sheet, value=r.created_at.astimezone().replace(tzinfo=None))
            local.number_format = "yyyy-mm-dd hh:mm:ss"
            row[13] = local
            self._sheet.append(row)

    def close(self, complete: bool = True) -> None:
        if complete:
            self._book.save(self.partial)
            os.replace(self.partial, self.path)


def writer_for(path: Path) -> CsvWriter | XlsxWriter:
    return XlsxWriter(path) if path.suffix.lower() == ".xlsx" else CsvWriter(path)


# "By": the person signed in ("" without staff, or for what PayDesk did by itself); "User"
# the computer's login name
# the amount a plain decimal with its currency in a column of its own, as in the transactions'
AUDIT_HEADER = ("When", "User", "Profile", "Mode", "Card", "Action", "Amount", "Currency", "Result", "Detail", "By")


def audit_cells(entry: AuditEntry) -> list[str]:
    """One entry of the card audit log as text, in the columns of ``AUDIT_HEADER``."""
    return [
        entry.at.astimezone().isoformat(timespec="seconds"),
        entry.user,
        entry.profile_name,
        entry.mode,
        entry.masked,
        entry.action,
        _decimal(entry.amount),
        entry.currency or "" if entry.amount is not None else "",
        entry.result,
        entry.detail,
        entry.actor or "",
    ]


async def export_audit(
    ledger: CardLedger, query: AuditQuery, path: Path, session: Session | None = None, *, staff: Staff | None = None
) -> Path:
    """Every entry ``query`` selects, newest first, read page by page and written to a CSV
    on a worker thread, beside ``path`` and put in place only when complete: an export cut
    off (the ledger out of reach on the way) leaves the previous file as it was. Refused
    (NotAllowed) unless the person signed in (``session``'s, else ``staff``) may use the
    cards and export. With ``session``, the export is noted in the activity book with the
    person who asked."""
    staff = session.staff if session is not None else staff
    assert staff is not None  # the session's, or the one given
    staff.require(Capability.CARDS)
    staff.require(Capability.EXPORT)
    actor = staff.actor
    lines = 0
    partial = path.with_name(path.name + ".part")
    handle = await asyncio.to_thread(open, partial, "w", newline="", encoding="utf-8")
    complete = False
    try:
        writer = csv.writer(handle)
        await asyncio.to_thread(writer.writerow, AUDIT_HEADER)
        before = None
        while True:
            entries, more = await ledger.audit_page(query, before=before, limit=1000)
            rows = [[spreadsheet_safe(c) for c in audit_cells(e)] for e in entries]
            await asyncio.to_thread(writer.writerows, rows)
            lines += len(rows)
            if not more or not entries:
                break
            before = entries[-1].id
        complete = True
    finally:
        await asyncio.to_thread(handle.close)
        if complete:
            await asyncio.to_thread(os.replace, partial, path)
        else:
            await asyncio.to_thread(partial.unlink, True)
    if session is not None:
        detail = EXPORT_WORDS.ngettext(  # the activity book's words: English, as the ledger keeps them
            "Card audit: {n} line to {file}", "Card audit: {n} lines to {file}", lines
        ).format(n=lines, file=path.name)
        await activity.note(
            session.activity, activity.EXPORT, actor, profile_id=query.profile_id, mode=query.mode, detail=detail
        )
    return path
