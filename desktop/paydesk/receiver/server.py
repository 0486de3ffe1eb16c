"""The receiver's HTTP side: ``POST /`` and ``POST /notifications``, nothing else.

Refused before any work (nothing kept): another method (405), a content type other than
``application/json`` (415), a body over ``LIMIT`` bytes (413: said by its Content-Length
before it is read, or cut while it streams). Then the signature is checked over the raw
bytes. A body no key verifies is answered 401 and only traced (``Inbox.refuse``: its time,
peer, size, hash and first bytes, a few a minute per peer, the rest counted), never kept
whole: anyone may send them, as fast as they like. A verified notification is kept in the
inbox (durably, BEFORE the answer), and answered: 200 (a duplicate too: the sender need
not send it again), 503 when the inbox could not keep it (the sender may try again). The
re-read is queued after the answer is sent: of a fresh original, or of the original a
duplicate repeats when that one is still pending (its re-read gave up: the service was out
of reach).

The peer is the TCP peer, or, from a proxy on this computer (127.0.0.1, ::1), the address
its ``X-Forwarded-For`` names (``serve.py`` tells uvicorn which proxies it trusts).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..desk.events import Hub
from ..ledger.inbox import BAD_SIGNATURE, LIMIT, NO_SIGNATURE, PENDING, Inbox, InboxEntry
from . import payload
from .signature import Keys

log = logging.getLogger("paydesk.receiver")
PATHS = ("/", "/notifications")
NOT_KEPT = frozenset({"authorization", "proxy-authorization", "cookie"})  # never in the inbox


def _answer(status: int, message: str, **more: object) -> JSONResponse:
    headers = {"Connection": "close"} if status == 413 else None
    return JSONResponse({"message": message, **more}, status_code=status, headers=headers)


def build_app(inbox: Inbox, keys: Keys, hub: Hub, reread: Callable[[InboxEntry], None]) -> Starlette:
    """The Starlette app of one receiver: kept in ``inbox``, verified with ``keys``, told on
    ``hub`` (``notification_changed``), handed to ``reread`` after the answer."""

    async def queued(entry: InboxEntry) -> None:
        # a coroutine, so Starlette runs it on the loop: a plain function would be run on
        # a worker thread, whose put into the worker's queue never wakes qasync's loop
        reread(entry)

    async def _still_pending(duplicate: InboxEntry) -> InboxEntry | None:
        """The original of a verified ``duplicate`` when it is still pending (not re-read
        yet, or its re-read gave up); None otherwise, or when it cannot be read now."""
        if duplicate.duplicate_of is None:
            return None
        try:
            original = await inbox.get(duplicate.duplicate_of)
        except Exception:  # the rescan takes it up later
            log.exception("the original of notification %d could not be read", duplicate.id)
            return None
        return original if original is not None and original.verdict == PENDING else None

    async def _refused(raw: bytes, remote: str, reason: str) -> None:
        """Trace (or count) a refused request; said on the hub, and in the log when it is
        news (a trace, or a peer's first request counted this minute), so a flood is a few
        lines a minute, not one a request."""
        try:
            trace = await inbox.refuse(raw, remote, reason=reason)
        except Exception:  # nothing to keep for the sender: it is refused all the same
            log.exception("a refused request from %s could not be traced", remote or "?")
            return
        hub.refused_changed.emit(trace.remote)  # (a window here counts them again)
        if not trace.news:
            return
        if trace.counted:
            log.warning(
                "refused from %s: more than its traces this minute, counted from now on (%s)", trace.remote, reason
            )
        else:
            log.warning("refused from %s: %s (%d bytes, SHA-256 %s)", trace.remote, reason, trace.size, trace.body_hash)

    async def notification(request: Request) -> JSONResponse:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return _answer(415, "Send the notification as application/json")
        length = request.headers.get("content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > LIMIT):
            return _answer(413, f"A notification is at most {LIMIT} bytes")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > LIMIT:
                return _answer(413, f"A notification is at most {LIMIT} bytes")
        raw = bytes(body)
        signature = request.headers.get("signature")
        candidate = await keys.verify(raw, signature)
        remote = request.client.host if request.client else ""
        if candidate is None:  # never parsed, never kept whole: traced, or only counted
            await _refused(raw, remote, BAD_SIGNATURE if signature else NO_SIGNATURE)
            return _answer(401, "The signature does not verify")
        notice = payload.read(raw)
        headers = {k.lower(): v for k, v in request.headers.items() if k.lower() not in NOT_KEPT}
        try:
            entry, fresh = await inbox.receive(
                raw,
                headers,
                remote,
                profile_id=candidate.profile_id,
                mode=candidate.mode,
                tx_ref=notice.tx_ref,
                event=notice.event,
            )
        except Exception:  # not kept: the sender is told to try again
            log.exception("a notification could not be kept in the inbox")
            return _answer(503, "The notification could not be kept: send it again later")
        hub.notification_changed.emit(entry)
        if not fresh:
            original = await _still_pending(entry)
            if original is not None:  # its re-read gave up: the sender says look again
                return JSONResponse(
                    {"message": "Received before: looking it up again", "id": entry.id, "verdict": entry.verdict},
                    background=BackgroundTask(queued, original),
                )
            return _answer(200, "Received before: nothing to do", id=entry.id, verdict=entry.verdict)
        return JSONResponse(
            {"message": "Received", "id": entry.id, "verdict": entry.verdict}, background=BackgroundTask(queued, entry)
        )

    routes = [Route(path, notification, methods=["POST"]) for path in PATHS]
    return Starlette(routes=routes)
