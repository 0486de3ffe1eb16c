"""Who did what that leaves no record of its own: an export, a profile's keys saved, a
switch to live mode, written to the ledger's activity book (``ledger/activity.py``) with the
person who did it (``session.staff.actor``, read where they acted; None without staff).
Everything else a person writes carries its actor in its own record. Qt-free."""

from __future__ import annotations

from ..ledger.activity import EXPORT, KEYS_SAVED, SWITCHED_TO_LIVE, Activity, ActivityBook

__all__ = ["EXPORT", "KEYS_SAVED", "SWITCHED_TO_LIVE", "note"]


async def note(
    book: ActivityBook | None,
    action: str,
    actor: str | None,
    *,
    profile_id: str = "",
    mode: str = "",
    detail: str = "",
) -> Activity | None:
    """Write one entry in ``book`` (the session's; None: the desk has none); a ledger out of
    reach raises its LedgerError, as any write does."""
    if book is None:
        return None
    return await book.note(action, actor, profile_id=profile_id, mode=mode, detail=detail)
