"""Every call each merchant made to the service's /api/, per mode: what a test asks to prove
that something was, or was not, sent (``GET _sandbox/requests``). In memory, the newest
1,000 per merchant and mode; the key itself is never kept."""

from __future__ import annotations

import threading
from collections import deque
from datetime import UTC, datetime


class CallLog:
    def __init__(self, keep: int = 1000) -> None:
        self._keep = keep
        self._calls: dict[tuple[str, str], deque] = {}
        self._lock = threading.Lock()

    def note(self, merchant_id: str, mode: str, method: str, path: str) -> dict:
        """Notes a call as it arrives; its ``status`` is filled in when it is answered (None:
        no answer was sent, e.g. an answer dropped on purpose)."""
        stamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        call = {"method": method, "path": path, "at": stamp, "status": None}
        with self._lock:
            calls = self._calls.setdefault((merchant_id, mode), deque(maxlen=self._keep))
            calls.append(call)
        return call

    def of(self, merchant_id: str, mode: str) -> list[dict]:
        with self._lock:
            return [dict(call) for call in self._calls.get((merchant_id, mode), ())]
