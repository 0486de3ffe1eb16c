"""What both backends' refusals share (``books/inbox.py``): whether a
refused request is traced or counted, and how a row reads back."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from .inbox import OTHERS, REFUSED_ALL_PER_MINUTE, REFUSED_PER_MINUTE, Refusal, RefusedGroup

COLUMNS = "id, received_at, last_at, remote, reason, size, count, body_hash, head, counter"


def counted_by(remote: str, traced_by_peer: int, traced_by_all: int) -> str | None:
    """None when a refusal is traced (its peer, and all peers together, left fewer traces
    this minute than they may); else the peer of the counter row that counts it: its own,
    or ``OTHERS`` when it is all peers together that are past their limit."""
    if traced_by_peer >= REFUSED_PER_MINUTE:
        return remote
    if traced_by_all >= REFUSED_ALL_PER_MINUTE:
        return OTHERS
    return None


def refusal(row: Mapping[str, Any], when: Callable[[Any], datetime]) -> Refusal:
    """A row of ``COLUMNS`` (``when``: a time as the backend gives it, as an aware time)."""
    return Refusal(
        id=int(row["id"]),
        received_at=when(row["received_at"]),
        last_at=when(row["last_at"]),
        remote=row["remote"],
        reason=row["reason"],
        size=int(row["size"]),
        count=int(row["count"]),
        body_hash=row["body_hash"],
        head=bytes(row["head"] or b""),
        counted=row["counter"] is not None,
    )


def group(row: Mapping[str, Any], when: Callable[[Any], datetime]) -> RefusedGroup:
    return RefusedGroup(
        remote=row["remote"],
        count=int(row["n"]),
        size=int(row["bytes"]),
        first_at=when(row["first_at"]),
        last_at=when(row["last_at"]),
    )


GROUPS = (
    "SELECT remote, sum(count) AS n, sum(size) AS bytes, min(received_at) AS first_at,"
    " max(last_at) AS last_at FROM refused WHERE last_at >= {mark} GROUP BY remote"
    " ORDER BY n DESC, remote LIMIT {limit}"
)
