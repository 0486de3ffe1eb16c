"""The staff book (``ledger.staff.StaffBook``) in SQL, once for both backends: schema v13 of
the file (``staff_schema``), migration 13 of the shared ledger (``postgres/staff_schema``).

Adding, changing and removing people is the same SQL on both, run by the store's owner (a
desk's file; a finance desk's role on a shared ledger), each one transaction under the
dialect's lock on the staff list, so two desks cannot both demote the last two Admins. The
PIN's salt, its check and the list without hashes are what a counter's role must reach on a
shared ledger without reading the table: there they are ``SECURITY DEFINER`` functions
(``PostgresStaffBook``); in a desk's file they are this class's Python, by the same rules.
"""

from __future__ import annotations

import hmac
import secrets
import uuid
from datetime import UTC, datetime, timedelta

from ..dialect import Conn, Dialect, Row, Runner
from ..staff import (
    COST,
    SALT_BYTES,
    LastAdmin,
    NameTaken,
    NoSuchPerson,
    Person,
    PinAnswer,
    PinCost,
    PinRefused,
    PinSalt,
    Role,
    StaffBook,
    name_key,
    name_problem,
    pin_hash,
    wait_after,
)

_LOCK = "paydesk staff"
_PEOPLE = "SELECT id, name, role FROM staff ORDER BY name_key, id"
_PERSON = "SELECT id, name, role FROM staff WHERE id = ?"
_SALT = "SELECT salt, time_cost, memory_cost, parallelism FROM staff WHERE id = ?"
_OTHER_ADMINS = "SELECT count(*) AS n FROM staff WHERE role = 'admin' AND id <> ?"


def person_of(row: Row) -> Person:
    return Person(id=str(row["id"]), name=str(row["name"]), role=Role(row["role"]))


def salt_of(row: Row) -> PinSalt:
    cost = PinCost(int(row["time_cost"]), int(row["memory_cost"]), int(row["parallelism"]))
    return PinSalt(bytes(row["salt"]), cost)


def _clean_name(name: str) -> str:
    problem = name_problem(name)
    if problem:
        raise PinRefused(problem)
    return name.strip()


class SqlStaffBook(StaffBook):
    """The book on ``engine``, in ``dialect``'s SQL."""

    def __init__(self, engine: Runner, dialect: Dialect):
        self._engine = engine
        self._d = dialect

    # -- what a counter's role reaches through the functions on a shared ledger -----------

    async def people(self) -> list[Person]:
        return await self._engine.read(lambda conn: [person_of(r) for r in self._d.all(conn, _PEOPLE)])

    async def salt(self, person_id: str) -> PinSalt | None:
        row = await self._engine.read(lambda conn: self._d.one(conn, _SALT, (person_id,)))
        return None if row is None else salt_of(row)

    async def check(self, person_id: str, digest: bytes) -> PinAnswer:
        return await self._engine.write(lambda conn: self._check(conn, person_id, digest))

    def _check(self, conn: Conn, person_id: str, digest: bytes) -> PinAnswer:
        row = self._d.one(conn, f"SELECT * FROM staff WHERE id = ?{self._d.lock}", (person_id,))
        if row is None:
            raise NoSuchPerson()
        now = datetime.now(UTC)
        until = self._d.maybe(row["wait_until"])
        if until is not None and until > now:
            return PinAnswer(False, None, (until - now).total_seconds(), waiting=True)
        if hmac.compare_digest(bytes(row["hash"]), digest):
            self._d.run(conn, "UPDATE staff SET failures = 0, wait_until = NULL WHERE id = ?", (person_id,))
            return PinAnswer(True, person_of(row), 0.0)
        failures = int(row["failures"]) + 1
        wait = wait_after(failures)
        until = now + timedelta(seconds=wait) if wait else None
        self._d.run(
            conn,
            "UPDATE staff SET failures = ?, wait_until = ? WHERE id = ?",
            (failures, None if until is None else self._d.time(until), person_id),
        )
        return PinAnswer(False, None, float(wait))

    # -- the owner's -------------------------------------------------------------------------

    async def add(self, name: str, role: Role, pin: str) -> Person:
        name = _clean_name(name)
        salt = secrets.token_bytes(SALT_BYTES)
        digest = await pin_hash(pin, salt, COST)
        person = Person(uuid.uuid4().hex, name, role)

        def write(conn: Conn) -> Person:
            self._d.serialize(conn, _LOCK)
            self._refuse_taken(conn, name, person.id)
            self._d.run(
                conn,
                """INSERT INTO staff (id, name, name_key, role, salt, time_cost, memory_cost, parallelism,
                    hash, added_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, {now})""",
                (person.id, name, name_key(name), role.value, salt, *_cost(COST), digest),
            )
            return person

        return await self._engine.write(write)

    async def change(
        self, person_id: str, *, name: str | None = None, role: Role | None = None, pin: str | None = None
    ) -> Person:
        name = None if name is None else _clean_name(name)
        salt = secrets.token_bytes(SALT_BYTES)
        digest = None if pin is None else await pin_hash(pin, salt, COST)

        def write(conn: Conn) -> Person:
            self._d.serialize(conn, _LOCK)
            before = self._person(conn, person_id)
            if role is not None and role is not Role.ADMIN:
                self._keep_an_admin(conn, before)
            if name is not None:
                self._refuse_taken(conn, name, person_id)
                self._d.run(
                    conn, "UPDATE staff SET name = ?, name_key = ? WHERE id = ?", (name, name_key(name), person_id)
                )
            if role is not None:
                self._d.run(conn, "UPDATE staff SET role = ? WHERE id = ?", (role.value, person_id))
            if digest is not None:  # a new PIN: the wait of the old one ends with it
                self._d.run(
                    conn,
                    """UPDATE staff SET salt = ?, time_cost = ?, memory_cost = ?, parallelism = ?, hash = ?,
                        failures = 0, wait_until = NULL WHERE id = ?""",
                    (salt, *_cost(COST), digest, person_id),
                )
            return self._person(conn, person_id)

        return await self._engine.write(write)

    async def remove(self, person_id: str) -> None:
        def write(conn: Conn) -> None:
            self._d.serialize(conn, _LOCK)
            self._keep_an_admin(conn, self._person(conn, person_id))
            self._d.run(conn, "DELETE FROM staff WHERE id = ?", (person_id,))

        await self._engine.write(write)

    def _person(self, conn: Conn, person_id: str) -> Person:
        row = self._d.one(conn, _PERSON, (person_id,))
        if row is None:
            raise NoSuchPerson()
        return person_of(row)

    def _keep_an_admin(self, conn: Conn, person: Person) -> None:
        if person.role is not Role.ADMIN:
            return
        row = self._d.one(conn, _OTHER_ADMINS, (person.id,))
        if row is None or int(row["n"]) == 0:
            raise LastAdmin()

    def _refuse_taken(self, conn: Conn, name: str, person_id: str) -> None:
        row = self._d.one(conn, "SELECT id FROM staff WHERE name_key = ? AND id <> ?", (name_key(name), person_id))
        if row is not None:
            raise NameTaken(name)


def _cost(cost: PinCost) -> tuple[int, int, int]:
    return cost.time_cost, cost.memory_cost, cost.parallelism


__all__ = ["SqlStaffBook", "person_of", "salt_of"]
