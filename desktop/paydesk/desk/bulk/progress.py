"""How far a batch of bulk links got, in the words the window and the status bar show.

A run is measured against the batch as it found it (``before``): a corrected file joining
its batch, or a resumed batch, says what this run created and what was created before it
("Done: 2 created now, 5 before"), never the batch's whole count as if it made them all."""

from __future__ import annotations

from ...i18n import N_, _, ngettext, staff
from ...ledger.batch import BatchFigures
from ..formats import number_in

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
    w = staff()
    now, earlier = split(f, before)
    made = _made(f)
    if earlier:
        parts = [
            ngettext(
                "{made} of {rows} links created ({now} now, {earlier} before)",
                "{made} of {rows} links created ({now} now, {earlier} before)",
                made,
            ).format(
                made=number_in(made, w), rows=number_in(f.rows, w), now=number_in(now, w), earlier=number_in(earlier, w)
            )
        ]
    else:
        parts = [
            ngettext("{made} of {rows} links created", "{made} of {rows} links created", made).format(
                made=number_in(made, w), rows=number_in(f.rows, w)
            )
        ]
    if f.refused:
        parts.append(_refused(f.refused))
    if f.creating:
        parts.append(
            ngettext(
                "{creating} waiting for the service's answer", "{creating} waiting for the service's answer", f.creating
            ).format(creating=number_in(f.creating, w))
        )
    if f.waiting:
        parts.append(_not_sent(f.waiting))
    if f.skipped:
        parts.append(
            ngettext("{skipped} skipped", "{skipped} skipped", f.skipped).format(skipped=number_in(f.skipped, w))
        )
    return _("{how}: {parts}").format(how=_(how), parts=", ".join(parts))


def _refused(n: int) -> str:
    return ngettext("{refused} refused", "{refused} refused", n).format(refused=number_in(n, staff()))


def _not_sent(n: int) -> str:
    return ngettext("{waiting} not sent", "{waiting} not sent", n).format(waiting=number_in(n, staff()))


def _so_far(now: int, earlier: int) -> str:
    return ngettext("{now} created now, {earlier} before", "{now} created now, {earlier} before", now).format(
        now=number_in(now, staff()), earlier=number_in(earlier, staff())
    )


def outcome(figures: BatchFigures, *, cancelled: bool, before: BatchFigures | None) -> str:
    """What the Bulk links window says when a run ends (``before``: the batch's figures when
    the run started; None when not known)."""
    f = figures
    w = staff()
    now, earlier = split(f, before)
    made = f.created + f.paid
    if cancelled:
        so_far = (
            _so_far(now, earlier)
            if earlier
            else ngettext("{made} created", "{made} created", made).format(made=number_in(made, w))
        )
        text = _("Cancelled: {so_far}, {refused}, {waiting}. Resume sends the rest.").format(
            so_far=so_far, refused=_refused(f.refused), waiting=_not_sent(f.waiting)
        )
    elif f.waiting:
        text = ngettext(
            "Stopped with {waiting} row not sent. Resume sends it.",
            "Stopped with {waiting} rows not sent. Resume sends them.",
            f.waiting,
        ).format(waiting=number_in(f.waiting, w))
    else:
        created = (
            _so_far(now, earlier)
            if earlier
            else ngettext("{made} link created", "{made} links created", made).format(made=number_in(made, w))
        )
        text = ngettext(
            "Done: {created}, {refused} refused by the service",
            "Done: {created}, {refused} refused by the service",
            f.refused,
        ).format(created=created, refused=number_in(f.refused, w))
        if f.failed:
            text = ngettext("{done}, {failed} failed", "{done}, {failed} failed", f.failed).format(
                done=text, failed=number_in(f.failed, w)
            )
    if f.creating:
        text = ngettext(
            "{text} {creating} sent, its answer not in yet: PayDesk settles it with the service by its reference.",
            "{text} {creating} sent, their answer not in yet: "
            "PayDesk settles them with the service by their reference.",
            f.creating,
        ).format(text=text, creating=number_in(f.creating, w))
    return text
