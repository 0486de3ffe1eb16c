"""The card wallet's operations (each written before its call) and its append-only audit log,
in SQL once for both backends: the half of ``books.cards.SqlCardLedger`` that is not the
cards.

A second open operation on a card (or a second open create) is refused by a partial unique
index (``INSERT ... ON CONFLICT DO NOTHING`` adds nothing: ``OperationUnderWay``), on a
desk's file and at any desk of a shared ledger; finishing or losing an operation locks its
row first (``Dialect.lock``), so two desks settling the same operation finish it once, with
one audit line. Every write emits its events ("operation", "audit") in its transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..amounts import card_decimal, card_minor
from ..card_schema import OPEN_OPERATION_STATES, OPERATION_STATES
from ..cards import AuditDraft, AuditEntry, AuditQuery, CardOperation, OperationDraft, OperationUnderWay, mask
from ..dialect import Conn, Dialect, Row, Runner
from ..errors import LedgerError
from ..owner import this_process
from ..query import like

_OPERATION_COLUMNS = (
    "id, profile_id, mode, kind, card_hash, masked, amount_minor, currency,"
    " callback_url, state, started_at, finished_at, result, evidence, settled,"
    " owner, actor"
)
_OPEN = "state IN (" + ", ".join(f"'{s}'" for s in OPEN_OPERATION_STATES) + ")"
_AUDIT_COLUMNS = (
    'id, at, "user", profile_id, profile_name, mode, card_hash, masked, action,'
    " amount_minor, currency, result, detail, operation_id, actor"
)


class SqlCardOperations:
    """Operations and audit of ``CardLedger`` on an engine, in a dialect's SQL;
    ``SqlCardLedger`` adds the cards and their transactions."""

    _engine: Runner
    _d: Dialect

    def _operation(self, row: Row) -> CardOperation:
        return CardOperation(
            id=row["id"],
            profile_id=row["profile_id"],
            mode=row["mode"],
            kind=row["kind"],
            card_hash=row["card_hash"],
            masked=row["masked"],
            amount=card_decimal(row["amount_minor"]),
            currency=row["currency"],
            callback_url=row["callback_url"],
            state=row["state"],
            started_at=self._d.when(row["started_at"]),
            finished_at=self._d.maybe(row["finished_at"]),
            result=row["result"],
            evidence=row["evidence"],
            settled=bool(row["settled"]),
            owner=row["owner"],
            actor=row["actor"],
        )

    def _must_operation(self, conn: Conn, operation_id: int, *, lock: bool = False) -> CardOperation:
        """The operation; with ``lock``, its row held until the transaction ends (another
        desk finishing it waits, then sees it finished)."""
        row = self._d.one(
            conn,
            f"SELECT {_OPERATION_COLUMNS} FROM card_operations WHERE id = ?" + (self._d.lock if lock else ""),
            (operation_id,),
        )
        if row is None:
            raise LedgerError(f"card operation {operation_id} is not in the ledger")
        return self._operation(row)

    def _audit(self, conn: Conn, draft: AuditDraft, operation_id: int | None = None) -> Row:
        """Adds one line (and its event); returns it as stored."""
        row = self._d.one(
            conn,
            'INSERT INTO card_audit (at, "user", profile_id, profile_name, mode, card_hash,'
            " masked, action, amount_minor, currency, result, detail, operation_id, actor)"
            " VALUES ({now}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            f" RETURNING {_AUDIT_COLUMNS}",
            (
                draft.user,
                draft.profile_id,
                draft.profile_name,
                draft.mode,
                draft.card_hash,
                mask(draft.masked),
                draft.action,
                card_minor(draft.amount),
                draft.currency,
                draft.result,
                draft.detail,
                operation_id if operation_id is not None else draft.operation_id,
                draft.actor,
            ),
        )
        if row is None:
            raise LedgerError("the ledger did not say which audit line it added")
        self._d.event(conn, "audit", draft.profile_id, draft.mode, str(row["id"]))
        return row

    def _audit_entry(self, row: Row) -> AuditEntry:
        return AuditEntry(
            id=row["id"],
            at=self._d.when(row["at"]),
            user=row["user"],
            profile_id=row["profile_id"],
            profile_name=row["profile_name"],
            mode=row["mode"],
            card_hash=row["card_hash"],
            masked=row["masked"],
            action=row["action"],
            amount=card_decimal(row["amount_minor"]),
            currency=row["currency"],
            result=row["result"],
            detail=row["detail"],
            operation_id=row["operation_id"],
            actor=row["actor"],
        )

    def _audit_where(self, query: AuditQuery) -> tuple[str, list[Any]]:
        where, args = "profile_id = ? AND mode = ?", [query.profile_id, query.mode]
        if query.action:
            where += " AND action = ?"
            args.append(query.action)
        if query.result:
            where += " AND result = ?"
            args.append(query.result)
        term = query.text.strip()
        if term:  # any case (ASCII letters)
            ilike = self._d.ilike
            where += (
                f" AND (masked {ilike} ? ESCAPE '\\' OR \"user\" {ilike} ? ESCAPE '\\' OR detail {ilike} ? ESCAPE '\\'"
                f" OR COALESCE(actor, '') {ilike} ? ESCAPE '\\')"
            )
            args += [like(term)] * 4
        return where, args

    def _changed(self, conn: Conn, operation: CardOperation) -> CardOperation:
        self._d.event(conn, "operation", operation.profile_id, operation.mode, str(operation.id))
        return operation

    # -- operations ---------------------------------------------------------------------

    async def begin_operation(self, draft: OperationDraft, audit: AuditDraft) -> CardOperation:
        def write(conn: Conn) -> CardOperation:
            # an open operation of the card (or an open create) makes this one conflict (on
            # a shared ledger it waits for the other desk's transaction), and it adds nothing
            row = self._d.one(
                conn,
                "INSERT INTO card_operations (profile_id, mode, kind, card_hash, masked,"
                " amount_minor, currency, callback_url, state, started_at, owner, actor)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'sending', {now}, ?, ?)"
                " ON CONFLICT DO NOTHING RETURNING id",
                (
                    draft.profile_id,
                    draft.mode,
                    draft.kind,
                    draft.card_hash,
                    mask(draft.masked),
                    card_minor(draft.amount),
                    draft.currency,
                    draft.callback_url,
                    this_process(),
                    draft.actor,
                ),
            )
            if row is None:
                what = (
                    "Another card creation"
                    if draft.kind == "create"
                    else f"Another operation on card {draft.masked or draft.card_hash}"
                )
                raise OperationUnderWay(what)
            self._audit(conn, audit, row["id"])
            return self._changed(conn, self._must_operation(conn, row["id"]))

        return await self._engine.write(write)

    async def finish_operation(
        self,
        operation_id: int,
        state: str,
        result: str,
        audit: AuditDraft,
        *,
        evidence: str | None = None,
        card_hash: str | None = None,
        masked: str | None = None,
        settled: bool = False,
        answered: bool = False,
    ) -> CardOperation:
        if state not in OPERATION_STATES or state in OPEN_OPERATION_STATES:
            raise ValueError(f"an operation finishes done or not-done, not {state!r}")

        def write(conn: Conn) -> CardOperation:
            before = self._must_operation(conn, operation_id, lock=True)
            late = (
                answered and state == "done" and before.state == "not-done" and before.settled
            )  # the service's own answer outranks reading back
            if not before.open and not late:
                return before
            self._d.run(
                conn,
                "UPDATE card_operations SET state = ?, result = ?,"
                " finished_at = {now}, evidence = COALESCE(?, evidence),"
                " card_hash = COALESCE(?, card_hash), masked = COALESCE(?, masked),"
                " settled = ? WHERE id = ?",
                (state, result, evidence, card_hash, None if masked is None else mask(masked), settled, operation_id),
            )
            self._audit(conn, audit, operation_id)
            return self._changed(conn, self._must_operation(conn, operation_id))

        return await self._engine.write(write)

    async def mark_lost(self, operation_id: int, result: str, audit: AuditDraft) -> CardOperation:
        def write(conn: Conn) -> CardOperation:
            before = self._must_operation(conn, operation_id, lock=True)
            if before.state != "sending":
                return before
            self._d.run(
                conn, "UPDATE card_operations SET state = 'lost', result = ? WHERE id = ?", (result, operation_id)
            )
            self._audit(conn, audit, operation_id)
            return self._changed(conn, self._must_operation(conn, operation_id))

        return await self._engine.write(write)

    async def service_words(self, profile_id: str, mode: str, kind: str) -> set[str]:
        rows = await self._engine.read(
            lambda conn: self._d.all(
                conn,
                "SELECT DISTINCT t.description FROM card_operations o JOIN card_transactions t"
                " ON t.profile_id = o.profile_id AND t.mode = o.mode AND t.card_hash = o.card_hash"
                " AND t.tx_id = o.evidence WHERE o.profile_id = ? AND o.mode = ? AND o.kind = ?"
                " AND o.state = 'done' AND NOT o.settled AND t.description <> ''",
                (profile_id, mode, kind),
            )
        )
        return {row["description"] for row in rows}

    async def attach_evidence(self, operation_id: int, evidence: str) -> None:
        def write(conn: Conn) -> None:
            row = self._d.one(
                conn,
                "UPDATE card_operations SET evidence = ? WHERE id = ? AND evidence IS NULL RETURNING profile_id, mode",
                (evidence, operation_id),
            )
            if row is not None:
                self._d.event(conn, "operation", row["profile_id"], row["mode"], str(operation_id))

        await self._engine.write(write)

    async def operation(self, operation_id: int) -> CardOperation | None:
        def read(conn: Conn) -> CardOperation | None:
            try:
                return self._must_operation(conn, operation_id)
            except LedgerError:
                return None

        return await self._engine.read(read)

    async def _operations(self, where: str, args: list[Any], tail: str) -> list[CardOperation]:
        rows = await self._engine.read(
            lambda conn: self._d.all(
                conn, f"SELECT {_OPERATION_COLUMNS} FROM card_operations WHERE {where} {tail}", args
            )
        )
        return [self._operation(r) for r in rows]

    async def open_operations(self, profile_id: str | None = None) -> list[CardOperation]:
        where, args = _OPEN, []
        if profile_id:
            where += " AND profile_id = ?"
            args.append(profile_id)
        return await self._operations(where, args, "ORDER BY id")

    async def operations(
        self, profile_id: str, mode: str, card_hash: str | None = None, kinds: Sequence[str] = (), limit: int = 200
    ) -> list[CardOperation]:
        where = "profile_id = ? AND mode = ?"
        args: list[Any] = [profile_id, mode]
        if card_hash is not None:
            where += " AND card_hash = ?"
            args.append(card_hash)
        if kinds:
            where += f" AND kind IN ({', '.join('?' for _ in kinds)})"
            args += list(kinds)
        return await self._operations(where, [*args, limit], "ORDER BY id DESC LIMIT ?")

    # -- audit --------------------------------------------------------------------------

    async def append_audit(self, draft: AuditDraft) -> AuditEntry:
        return await self._engine.write(lambda conn: self._audit_entry(self._audit(conn, draft)))

    async def audit_page(
        self, query: AuditQuery, before: int | None = None, limit: int = 200
    ) -> tuple[list[AuditEntry], bool]:
        where, args = self._audit_where(query)
        if before is not None:
            where += " AND id < ?"
            args.append(before)
        rows = await self._engine.read(
            lambda conn: self._d.all(
                conn,
                f"SELECT {_AUDIT_COLUMNS} FROM card_audit WHERE {where} ORDER BY id DESC LIMIT ?",
                (*args, limit + 1),
            )
        )
        return [self._audit_entry(r) for r in rows[:limit]], len(rows) > limit

    async def audit_count(self, query: AuditQuery) -> int:
        where, args = self._audit_where(query)
        row = await self._engine.read(
            lambda conn: self._d.one(conn, f"SELECT count(*) AS n FROM card_audit WHERE {where}", args)
        )
        return int(row["n"]) if row else 0


__all__ = ["SqlCardOperations"]
