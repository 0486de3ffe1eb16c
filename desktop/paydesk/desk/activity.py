"""Who did what that leaves no record of its own: an export, a profile's keys saved, a
switch to live mode, written to the ledger's activity book (``ledger/activity.py``) with the
person who did it (``session.staff.actor``, read where they acted; None without staff).
Everything else a person writes carries its actor in its own record. Qt-free."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ledger.activity import EXPORT, KEYS_SAVED, SWITCHED_TO_LIVE, Activity

if TYPE_CHECKING:
    from .session import Session

__all__ = ["EXPORT", "KEYS_SAVED", "SWITCHED_TO_LIVE", "note", "plural"]


async def note(
    session: Session, action: str, actor: str | None, *, profile_id: str = "", mode: str = "", detail: str = ""
) -> Activity | None:
    """Write one entry (None when the desk has no activity book); a ledger out of reach
    raises its LedgerError, as any write does."""
    if session.activity is None:
        return None
    return await session.activity.note(action, actor, profile_id=profile_id, mode=mode, detail=detail)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
