"""What both backends' inbox SQL shares (``books/inbox.py``): an
``InboxQuery`` as conditions (only the parameter mark, the case-blind LIKE and how a time
is written differ), the headers as kept, and what may be decided."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from .inbox import PENDING, VERDICTS, InboxQuery
from .query import like


def headers_json(headers: Mapping[str, str]) -> str:
    """The headers as kept: names lower-cased, JSON text."""
    return json.dumps({str(k).lower(): str(v) for k, v in headers.items()}, sort_keys=True)


def check_decision(verdict: str) -> None:
    """``decide`` writes a verdict of the list, never "pending" again."""
    if verdict not in VERDICTS or verdict == PENDING:
        raise ValueError(f"not a decision: {verdict!r}")


def conditions(
    query: InboxQuery, before: int | None, *, mark: str, ilike: str, when: Callable[[datetime], Any]
) -> tuple[str, list[Any]]:
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
