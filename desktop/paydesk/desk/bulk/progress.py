"""How far a batch of bulk links got, in the words the window and the status bar show."""

from __future__ import annotations

from ...ledger.batch import BatchFigures


def report(figures: BatchFigures, how: str) -> str:
    """"Finished: 4 of 5 links created, 1 skipped"; ``how``: "Finished", "Cancelled"..."""
    f = figures
    parts = [f"{f.created + f.paid + f.failed} of {f.rows} links created"]
    if f.refused:
        parts.append(f"{f.refused} refused")
    if f.creating:
        parts.append(f"{f.creating} waiting for the service's answer")
    if f.waiting:
        parts.append(f"{f.waiting} not sent")
    if f.skipped:
        parts.append(f"{f.skipped} skipped")
    return f"{how}: " + ", ".join(parts)
