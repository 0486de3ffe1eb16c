"""How far a batch of bulk links got, in the words the window and the status bar show.

A run is measured against the batch as it found it (``before``): a corrected file joining
its batch, or a resumed batch, says what this run created and what was created before it
("Done: 2 created now, 5 before"), never the batch's whole count as if it made them all."""

from __future__ import annotations

from ...ledger.batch import BatchFigures


def _made(f: BatchFigures) -> int:
    """Rows with a link at the service (created, paid since, or its payment failed)."""
    return f.created + f.paid + f.failed


def split(figures: BatchFigures, before: BatchFigures | None) -> tuple[int, int]:
    """(links created by this run, links created before it)."""
    earlier = min(_made(before), _made(figures)) if before is not None else 0
    return _made(figures) - earlier, earlier


def report(figures: BatchFigures, how: str, before: BatchFigures | None = None) -> str:
    """ "Finished: 4 of 5 links created, 1 skipped"; ``how``: "Finished", "Cancelled"...;
    "(2 now, 2 before)" after the count when the run found links made already."""
    f = figures
    now, earlier = split(f, before)
    parts = [f"{_made(f)} of {f.rows} links created" + (f" ({now} now, {earlier} before)" if earlier else "")]
    if f.refused:
        parts.append(f"{f.refused} refused")
    if f.creating:
        parts.append(f"{f.creating} waiting for the service's answer")
    if f.waiting:
        parts.append(f"{f.waiting} not sent")
    if f.skipped:
        parts.append(f"{f.skipped} skipped")
    return f"{how}: " + ", ".join(parts)


def outcome(figures: BatchFigures, *, cancelled: bool, before: BatchFigures | None) -> str:
    """What the Bulk links window says when a run ends (``before``: the batch's figures when
    the run started; None when not known)."""
    f = figures
    now, earlier = split(f, before)
    made = f.created + f.paid
    if cancelled:
        so_far = f"{now:,} created now, {earlier:,} before" if earlier else f"{made:,} created"
        text = f"Cancelled: {so_far}, {f.refused:,} refused, {f.waiting:,} not sent. Resume sends the rest."
    elif f.waiting:
        text = f"Stopped with {f.waiting:,} rows not sent. Resume sends them."
    else:
        created = (
            f"{now:,} created now, {earlier:,} before"
            if earlier
            else f"{made:,} link{'s' if made != 1 else ''} created"
        )
        text = f"Done: {created}, {f.refused:,} refused by the service"
        if f.failed:
            text += f", {f.failed:,} failed"
    if f.creating:
        text += (
            f" {f.creating:,} sent, their answer not in yet: PayDesk settles them with the service by their reference."
        )
    return text
