"""Sale requests on the shared ledger (migration 12, ``requests_schema``): what a key-less
counter writes instead of calling the service, and what the shop's key holder answers.

Every write is one transaction on the engine's writer and writes an event "request" (key:
the request's id) in it, so the key holder hears a new request, and the counter hears its
answer, as every desk hears the others' changes (the NOTIFY carries the event's id only).
The answer row is written once (its primary key is the request's id): the key holder's
"taken" and the counter's "withdrawn" race on it, and whichever commits first stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from psycopg import Connection

from .engine import PgEngine
from .events import emit
from .lease import RECEIVER, read_lease

TAKEN, REFUSED, WITHDRAWN = "taken", "refused", "withdrawn"


@dataclass(frozen=True)
class SaleAsk:
    """One sale request, with its answer once it has one (``outcome`` None: not yet)."""

    id: int
    counter: str
    profile_id: str
    mode: str
    amount: Decimal
    currency: str
    email: str
    note: str
    made_at: datetime
    made_by: str
    actor: str | None  # the person signed in at the counter when it was asked
    outcome: str | None = None
    tx_ref: str | None = None
    why: str = ""
    age: float = 0.0  # s since it was made, by the database's clock


@dataclass(frozen=True)
class Limits:
    """A counter's limits (None: no limit of that kind)."""

    largest_sale: Decimal | None = None
    sales_per_hour: int | None = None


_ASK = """INSERT INTO sale_requests (counter, profile_id, mode, amount, currency, email, note, made_by, actor)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id"""
_SELECT = """SELECT r.id, r.counter, r.profile_id, r.mode, r.amount, r.currency, r.email, r.note,
       r.made_at, r.made_by, r.actor, a.outcome, a.tx_ref, coalesce(a.why, '') AS why,
       extract(epoch FROM now() - r.made_at)::float8 AS age
FROM sale_requests r LEFT JOIN sale_request_answers a ON a.request_id = r.id"""
_ANSWER = """INSERT INTO sale_request_answers (request_id, outcome, tx_ref, why) VALUES (%s, %s, %s, %s)
ON CONFLICT (request_id) DO NOTHING"""
# the requests the key holder has still to finish: not answered, or taken and their link
# not written yet or not answered by the service yet (a key holder stopped mid-sale)
_OPEN = f"""{_SELECT} LEFT JOIN links l ON l.profile_id = r.profile_id AND l.tx_ref = a.tx_ref
WHERE r.made_at > now() - interval '1 day'
  AND (a.outcome IS NULL OR (a.outcome = 'taken' AND (l.id IS NULL OR l.state = 'creating')))
ORDER BY r.id"""


def _ask(row: dict[str, Any]) -> SaleAsk:
    return SaleAsk(
        id=int(row["id"]),
        counter=row["counter"],
        profile_id=row["profile_id"],
        mode=row["mode"],
        amount=Decimal(row["amount"]),
        currency=row["currency"],
        email=row["email"],
        note=row["note"],
        made_at=row["made_at"],
        made_by=row["made_by"],
        actor=row["actor"],
        outcome=row["outcome"],
        tx_ref=row["tx_ref"],
        why=row["why"],
        age=float(row["age"] or 0.0),
    )


def ask(conn: Connection[Any], desk: str, counter: str, profile_id: str, mode: str, fields: dict[str, Any]) -> int:
    row = conn.execute(
        _ASK,
        (
            counter,
            profile_id,
            mode,
            fields["amount"],
            fields["currency"],
            fields["email"],
            fields.get("note", ""),
            fields["made_by"],
            fields.get("actor"),
        ),
    ).fetchone()
    assert row is not None
    request_id = int(row["id"])
    emit(conn, desk, "request", profile_id, mode, str(request_id))
    return request_id


def get(conn: Connection[Any], request_id: int) -> SaleAsk | None:
    row = conn.execute(f"{_SELECT} WHERE r.id = %s", (request_id,)).fetchone()
    return None if row is None else _ask(row)


def answer(
    conn: Connection[Any], desk: str, request_id: int, outcome: str, *, tx_ref: str | None = None, why: str = ""
) -> SaleAsk:
    """Answer ``request_id`` unless it has an answer already; the request as it stands then
    (its answer: this one, or the one written first)."""
    if conn.execute(_ANSWER, (request_id, outcome, tx_ref, why)).rowcount:
        found = get(conn, request_id)
        assert found is not None
        emit(conn, desk, "request", found.profile_id, found.mode, str(request_id))
        return found
    found = get(conn, request_id)
    if found is None:
        raise LookupError(f"no sale request {request_id}")
    return found


def still_open(conn: Connection[Any]) -> list[SaleAsk]:
    return [_ask(row) for row in conn.execute(_OPEN).fetchall()]


def limits(conn: Connection[Any], counter: str) -> Limits:
    row = conn.execute(
        "SELECT largest_sale, sales_per_hour FROM counter_limits WHERE counter = %s", (counter,)
    ).fetchone()
    if row is None:
        return Limits()
    largest = row["largest_sale"]
    return Limits(None if largest is None else Decimal(largest), row["sales_per_hour"])


def taken_in_hour(conn: Connection[Any], counter: str) -> tuple[int, float]:
    """How many of ``counter``'s requests were taken in the last hour, and in how many
    seconds the oldest of them leaves the hour."""
    row = conn.execute(
        """SELECT count(*) AS n,
                  coalesce(extract(epoch FROM min(a.answered_at) + interval '1 hour' - now()), 0)::float8 AS s
           FROM sale_request_answers a JOIN sale_requests r ON r.id = a.request_id
           WHERE r.counter = %s AND a.outcome = 'taken' AND a.answered_at > now() - interval '1 hour'""",
        (counter,),
    ).fetchone()
    assert row is not None
    return int(row["n"]), float(row["s"])


def set_limits(conn: Connection[Any], counter: str, largest_sale: Decimal | None, sales_per_hour: int | None) -> None:
    conn.execute(
        """INSERT INTO counter_limits (counter, largest_sale, sales_per_hour) VALUES (%s, %s, %s)
           ON CONFLICT (counter) DO UPDATE SET largest_sale = excluded.largest_sale,
                                               sales_per_hour = excluded.sales_per_hour""",
        (counter, largest_sale, sales_per_hour),
    )


def key_holder_present(conn: Connection[Any]) -> bool:
    """The shop's key holder (paydesk-receiver, at the receiver's priority) holds the lease."""
    state = read_lease(conn)
    return state.holder is not None and state.priority >= RECEIVER


class SaleRequests:
    """The sale requests of the shared ledger behind ``engine``."""

    def __init__(self, engine: PgEngine):
        self.engine = engine

    async def ask(self, counter: str, profile_id: str, mode: str, **fields: Any) -> int:
        desk = self.engine.desk
        return await self.engine.write(lambda conn: ask(conn, desk, counter, profile_id, mode, fields))

    async def get(self, request_id: int) -> SaleAsk | None:
        return await self.engine.read(lambda conn: get(conn, request_id))

    async def answer(self, request_id: int, outcome: str, *, tx_ref: str | None = None, why: str = "") -> SaleAsk:
        desk = self.engine.desk
        return await self.engine.write(lambda conn: answer(conn, desk, request_id, outcome, tx_ref=tx_ref, why=why))

    async def still_open(self) -> list[SaleAsk]:
        return await self.engine.read(still_open)

    async def limits(self, counter: str) -> Limits:
        return await self.engine.read(lambda conn: limits(conn, counter))

    async def taken_in_hour(self, counter: str) -> tuple[int, float]:
        return await self.engine.read(lambda conn: taken_in_hour(conn, counter))

    async def set_limits(self, counter: str, largest_sale: Decimal | None, sales_per_hour: int | None) -> None:
        await self.engine.write(lambda conn: set_limits(conn, counter, largest_sale, sales_per_hour))

    async def key_holder_present(self) -> bool:
        return await self.engine.read(key_holder_present)
