"""Days in local time, as the Transactions tab reads them: the date ranges its filters offer,
and the end of day's figures as words (counted, printed and exported the same way). Qt-free.
"""

from __future__ import annotations

import csv
import os
from datetime import date, datetime, time, timedelta
from pathlib import Path

from ..i18n import N_, Words, _, ngettext, staff
from ..ledger import CurrencyTotal, DaySummary
from .formats import amount_in, day_in, number_in
from .texts import mode_word

# the date ranges the filters offer: each its key (compared) and its words (shown through _())
RANGES = (N_("All dates"), N_("Today"), N_("Yesterday"), N_("Last 7 days"), N_("This month"), N_("Custom…"))
CUSTOM = RANGES[-1]  # the range whose days are chosen
_OPEN = ("pending", "creating", "unknown")
# (label, the states counted (None: every link), which of them: True the sales voided at a
# counter, False the others, None all). Each label is the words the Transactions tab shows
# on those rows, and the lines but the first add up to it.
COUNTS: tuple[tuple[str, tuple[str, ...] | None, bool | None], ...] = (
    (N_("Links made"), None, None),
    (N_("Paid"), ("success",), False),
    (N_("Paid after void"), ("success",), True),
    (N_("Failed"), ("failed",), None),
    (N_("Cancelled"), ("cancelled",), None),
    (N_("Refunded or reversed"), ("refunded", "reversed"), None),
    (N_("Still open"), _OPEN, False),
    (N_("Voided at counter"), _OPEN, True),
    (N_("Not created"), ("rejected",), None),
)


def local_midnight(day: date) -> datetime:
    """The day's first moment in local time (aware)."""
    return datetime.combine(day, time.min).astimezone()


def date_range(
    choice: str, first: date, last: date, today: date | None = None
) -> tuple[datetime | None, datetime | None]:
    """[from, to) in aware local time for a range's key in ``RANGES`` (never its shown words,
    which follow the staff's language; ``first``/``last`` for ``CUSTOM``)."""
    today = today or date.today()
    if choice == "Today":
        return local_midnight(today), local_midnight(today + timedelta(days=1))
    if choice == "Yesterday":
        return local_midnight(today - timedelta(days=1)), local_midnight(today)
    if choice == "Last 7 days":
        return local_midnight(today - timedelta(days=6)), local_midnight(today + timedelta(days=1))
    if choice == "This month":
        return local_midnight(today.replace(day=1)), local_midnight(today + timedelta(days=1))
    if choice == CUSTOM:
        return local_midnight(first), local_midnight(last + timedelta(days=1))
    return None, None


def counts(summary: DaySummary) -> list[tuple[str, int]]:
    """How many links of the day are in each of ``COUNTS``' states, with its label: a sale
    voided at a counter is never "Still open" (nor "Paid": "Paid after void")."""

    def n(states: tuple[str, ...] | None, voided: bool | None) -> int:
        if states is None:
            return summary.created
        every = sum(summary.states[s] for s in states)
        apart = sum(summary.voided[s] for s in states)
        return every if voided is None else apart if voided else every - apart

    return [(label, n(states, voided)) for label, states, voided in COUNTS]


def fees_text(total: CurrencyTotal) -> str:
    """The fees, saying when the service has not told all of them yet."""
    words = staff()
    text = amount_in(total.fees, words)
    if total.fees_known < total.fees_of:
        text += _(" (known for {fees_known} of {fees_of})").format(
            fees_known=number_in(total.fees_known, words), fees_of=number_in(total.fees_of, words)
        )
    return text


def refunds_text(total: CurrencyTotal) -> str:
    """What was given back, and from how many payments: "45.00 (1 payment)"."""
    words = staff()
    if not total.refunded:
        return amount_in(total.refunded_amount, words)
    return ngettext("{amount} ({count} payment)", "{amount} ({count} payments)", total.refunded).format(
        amount=amount_in(total.refunded_amount, words), count=number_in(total.refunded, words)
    )


def heading(profile_name: str, mode: str, day: date, words: Words | None = None) -> str:
    """What the end of day counts, the day in full: in the staff's language, or in
    ``words``' (the CSV's title: English, as the rest of the export)."""
    words = words or staff()
    zone = datetime.now().astimezone().strftime("%Z (UTC%z)")
    return words.gettext(
        "{profile}, {mode} mode: links made on {day}, local time {zone}, and what has become of them"
    ).format(profile=profile_name, mode=mode_word(mode, words), day=day_in(day, words), zone=zone)


def summary_rows(summary: DaySummary) -> list[list[str]]:
    """The figures as rows of the end of day's CSV (section, currency, what, count, amount,
    fees): machine-readable whatever the staff's language, so its words are the English
    keys (``COUNTS``' labels) and its amounts plain decimals."""
    rows = [["summary", "", label, str(n), "", ""] for label, n in counts(summary)]
    for t in summary.totals:
        rows += [
            [
                "collected",
                t.currency,
                "paid",
                str(t.paid),
                f"{t.collected:.2f}",
                f"{t.fees:.2f}" + ("" if t.fees_known == t.fees_of else f" (known for {t.fees_known} of {t.fees_of})"),
            ],
            ["refunded", t.currency, "refunded or reversed", str(t.refunded), f"{t.refunded_amount:.2f}", ""],
            ["net", t.currency, "collected less fees", "", f"{t.net:.2f}", ""],
        ]
    return rows


def printed_lines(day: date, title: str, summary: DaySummary) -> list[str]:
    """The end of day as printed, in the staff's language: one line each."""
    words = staff()
    lines = [_("End of day {day}").format(day=day_in(day, words)), title, ""]
    lines += [_("{what}: {value}").format(what=_(label), value=number_in(n, words)) for label, n in counts(summary)] + [
        ""
    ]
    lines += [
        _(
            "{currency}: {paid} paid, collected {collected}, fees {fees}, refunded or reversed {refunded}, net {net}"
        ).format(
            currency=t.currency,
            paid=number_in(t.paid, words),
            collected=amount_in(t.collected, words),
            fees=fees_text(t),
            refunded=refunds_text(t),
            net=amount_in(t.net, words),
        )
        for t in summary.totals
    ]
    return lines


def write_day_csv(path: Path, title: str, summary: DaySummary, rows_path: Path) -> None:
    """One CSV: what it is, the summary, an empty line, then the rows already written to
    ``rows_path`` (removed after). Written beside the target, put in place when whole.
    Blocking: run it on a worker thread."""
    partial = path.with_name(path.name + ".part")
    with open(partial, "w", encoding="utf-8-sig", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["section", "currency", "what", "count", "amount", "fees"])
        writer.writerow(["title", "", title, "", "", ""])
        writer.writerows(summary_rows(summary))
        writer.writerow([])
        out.write(rows_path.read_text("utf-8-sig"))
    os.replace(partial, path)
    rows_path.unlink()
