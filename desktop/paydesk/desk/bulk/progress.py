"""How far a batch of bulk links got, in the words the window and the status bar show.

A run is measured against the batch as it found it (``before``): a corrected file joining
its batch, or a resumed batch, says what this run created and what was created before it
("Done: 2 created now, 5 before"), never the batch's whole count as if it made them all."""

from __future__ import annotations

from ...i18n import N_, _, ngettext
from ...ledger.batch import BatchFigures

# how a run ended, as ``report`` begins ("Finished: ..."): marked here, translated there
FINISHED = N_("Finished")
CANCELLED = N_("Cancelled")


def _made(f: BatchFigures) -> int:
    """Rows with a link at the service (created, paid since, or its payment failed)."""
    return f.created + f.paid + f.failed


def split(figures: BatchFigures, before: BatchFigures | None) -> tuple[int, int]:
    """(links created by this run, links created before it)."""
    earlier = min(_made(before), _made(figures)) if before is not None else 0
    return _made(figures) - earlier, earlier


def report(figures: BatchFigures, how: str, before: BatchFigures | None = None) -> str:
    """ "Finished: 4 of 5 links created, 1 skipped"; ``how``: FINISHED or CANCELLED (in
    English; said in the staff's language); "(2 now, 2 before)" after the count when the run
    found links made already."""
    f = figures
    now, earlier = split(f, before)
    parts = [
        _("{made} of {rows} links created").format(made=_made(f), rows=f.rows)
        + (_(" ({now} now, {earlier} before)").format(now=now, earlier=earlier) if earlier else "")
    ]
    if f.refused:
        parts.append(ngettext("{refused} refused", "{refused} refused", f.refused).format(refused=f.refused))
    if f.creating:
        parts.append(_("{creating} waiting for the service's answer").format(creating=f.creating))
    if f.waiting:
        parts.append(_("{waiting} not sent").format(waiting=f.waiting))
    if f.skipped:
        parts.append(ngettext("{skipped} skipped", "{skipped} skipped", f.skipped).format(skipped=f.skipped))
    return _("{how}: {parts}").format(how=_(how), parts=", ".join(parts))


def outcome(figures: BatchFigures, *, cancelled: bool, before: BatchFigures | None) -> str:
    """What the Bulk links window says when a run ends (``before``: the batch's figures when
    the run started; None when not known)."""
    f = figures
    now, earlier = split(f, before)
    made = f.created + f.paid
    if cancelled:
        so_far = (
            _("{now:,} created now, {earlier:,} before").format(now=now, earlier=earlier)
            if earlier
            else _("{made:,} created").format(made=made)
        )
        text = _("Cancelled: {so_far}, {refused:,} refused, {waiting:,} not sent. Resume sends the rest.").format(
            so_far=so_far, refused=f.refused, waiting=f.waiting
        )
    elif f.waiting:
        text = _("Stopped with {waiting:,} rows not sent. Resume sends them.").format(waiting=f.waiting)
    else:
        created = (
            _("{now:,} created now, {earlier:,} before").format(now=now, earlier=earlier)
            if earlier
            else ngettext("{made:,} link created", "{made:,} links created", made).format(made=made)
        )
        text = _("Done: {created}, {refused:,} refused by the service").format(created=created, refused=f.refused)
        if f.failed:
            text = _("{done}, {failed:,} failed").format(done=text, failed=f.failed)
    if f.creating:
        text += _(
            " {creating:,} sent, their answer not in yet: PayDesk settles them with the service by their reference."
        ).format(creating=f.creating)
    return text
