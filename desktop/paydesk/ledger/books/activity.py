"""The activity book (``ledger.activity.ActivityBook``) in SQL, once for both backends:
schema v12 of the file, migration 14 of the shared ledger (``actor_schema``). A page is a
seek along the primary key, newest first."""

from __future__ import annotations

from ..activity import Activity, ActivityBook
from ..actor_schema import ACTIONS
from ..dialect import Conn, Dialect, Row, Runner
from ..errors import LedgerError

_SELECT = "SELECT id, at, actor, action, profile_id, mode, detail FROM activity"


class SqlActivityBook(ActivityBook):
    """The book on ``engine``, in ``dialect``'s SQL."""

    def __init__(self, engine: Runner, dialect: Dialect):
        self._engine = engine
        self._d = dialect

    def _entry(self, row: Row) -> Activity:
        return Activity(
            id=int(row["id"]),
            at=self._d.when(row["at"]),
            actor=row["actor"],
            action=row["action"],
            profile_id=row["profile_id"],
            mode=row["mode"],
            detail=row["detail"],
        )

    async def note(
        self, action: str, actor: str | None, *, profile_id: str = "", mode: str = "", detail: str = ""
    ) -> Activity:
        if action not in ACTIONS:
            raise ValueError(f"not an activity: {action!r}")

        def write(conn: Conn) -> Activity:
            made = self._d.new_id(
                conn,
                "INSERT INTO activity (at, actor, action, profile_id, mode, detail) VALUES ({now}, ?, ?, ?, ?, ?)",
                (actor, action, profile_id, mode, detail),
            )
            row = self._d.one(conn, f"{_SELECT} WHERE id = ?", (made,))
            if row is None:  # pragma: no cover - written in this transaction
                raise LedgerError("the activity just written is not there")
            return self._entry(row)

        return await self._engine.write(write)

    async def page(self, before: int | None = None, limit: int = 100) -> list[Activity]:
        where, args = ("WHERE id < ?", (before,)) if before is not None else ("", ())
        sql = f"{_SELECT} {where} ORDER BY id DESC LIMIT {int(limit)}"
        rows = await self._engine.read(lambda conn: self._d.all(conn, sql, args))
        return [self._entry(r) for r in rows]

    async def count(self) -> int:
        row = await self._engine.read(lambda conn: self._d.one(conn, "SELECT COUNT(*) AS n FROM activity"))
        return 0 if row is None else int(row["n"])


__all__ = ["SqlActivityBook"]
