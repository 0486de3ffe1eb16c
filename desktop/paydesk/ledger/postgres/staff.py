"""The staff book on a shop's shared PostgreSQL (migration 13, ``staff_schema``): the list,
the salt and the PIN's check go through the ``SECURITY DEFINER`` functions, so a counter's
database role, which cannot read the table, runs this book as a finance desk does; adding,
changing and removing people are the owner's (``books/staff.py``)."""

from __future__ import annotations

from ..books.staff import SqlStaffBook, person_of, salt_of
from ..staff import NoSuchPerson, Person, PinAnswer, PinSalt, Role
from .dialect import PgDialect
from .engine import PgEngine


class PostgresStaffBook(SqlStaffBook):
    """``PostgresStaffBook(engine)``: the book of a shared ledger."""

    def __init__(self, engine: PgEngine):
        super().__init__(engine, PgDialect(engine))

    async def people(self) -> list[Person]:
        rows = await self._engine.read(lambda conn: self._d.all(conn, "SELECT * FROM staff_people()"))
        return [person_of(r) for r in rows]

    async def salt(self, person_id: str) -> PinSalt | None:
        row = await self._engine.read(lambda conn: self._d.one(conn, "SELECT * FROM staff_salt(?)", (person_id,)))
        return None if row is None else salt_of(row)

    async def check(self, person_id: str, digest: bytes) -> PinAnswer:
        row = await self._engine.write(
            lambda conn: self._d.one(conn, "SELECT * FROM staff_check(?, ?)", (person_id, digest))
        )
        if row is None:
            raise NoSuchPerson()
        if not row["ok"]:
            return PinAnswer(False, None, float(row["wait_s"]), waiting=bool(row["waiting"]))
        return PinAnswer(True, Person(person_id, str(row["name"]), Role(row["role"])), 0.0)


__all__ = ["PostgresStaffBook"]
