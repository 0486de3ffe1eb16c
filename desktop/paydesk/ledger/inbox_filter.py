"""An ``InboxQuery`` as SQL conditions, the same on both backends (only the parameter mark,
the case-blind LIKE and how a time is written differ)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from .inbox import VERDICTS, InboxQuery
from .search import like


def conditions(query: InboxQuery, before: int | None, *, mark: str, ilike: str,
               when: Callable[[datetime], Any]) -> tuple[str, list[Any]]:
    """``WHERE`` text (never empty) and its arguments. ``mark``: the parameter mark ("?" or
    "%s"); ``ilike``: a LIKE that ignores case; ``when``: a time as the table holds it."""
    parts: list[str] = ["TRUE"]
    args: list[Any] = []
    if query.verdict is not None:
        if query.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {query.verdict!r}")
        parts.append(f"verdict = {mark}")
        args.append(query.verdict)
    for column, value in (("profile_id", query.profile_id), ("mode", query.mode)):
        if value is not None:
            parts.append(f"{column} = {mark}")
            args.append(value)
    text = query.text.strip()
    if text:
        pattern = like(text)
        parts.append(f"(tx_ref {ilike} {mark} ESCAPE '\\' OR event {ilike} {mark} ESCAPE '\\')")
        args += [pattern, pattern]
    if query.since is not None:
        parts.append(f"received_at >= {mark}")
        args.append(when(query.since))
    if before is not None:
        parts.append(f"id < {mark}")
        args.append(before)
    return " AND ".join(parts), args
