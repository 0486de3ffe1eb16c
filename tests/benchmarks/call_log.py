"""The sandbox's call log of one merchant's key, kept whole for a benchmark: the sandbox keeps
only the newest 1,000 calls, so a process of its own (not the measured one) reads it every
quarter second and writes every call it saw when told to stop.

``log = CallLog(base, key, out)`` starts it; ``log.stop()`` ends it and reads what it saw.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx


class CallLog:
    """The sandbox's call log of the merchant's test key, read every quarter second by a
    process of its own (the log keeps the newest 1,000 calls and 10,000 creates pass through;
    reading it here would take the GUI thread's time that is being measured)."""

    def __init__(self, base: str, key: str, out: Path):
        self.out = out
        self._proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), base, key, str(out)])
        self.calls: list[dict] = []
        self.missed = False

    def stop(self) -> None:
        self._proc.send_signal(signal.SIGTERM)
        self._proc.wait(60)
        said = json.loads(self.out.read_text())
        self.calls, self.missed = said["calls"], said["missed"]

    def creates(self) -> dict[object, int]:
        """The creates (POST …/api/payment) by the status answered (None: no answer sent)."""
        counts: dict[object, int] = {}
        for call in self.calls:
            if call["method"] == "POST" and call["path"].endswith("/api/payment"):
                counts[call["status"]] = counts.get(call["status"], 0) + 1
        return counts

    def lookups(self) -> int:
        return sum(1 for call in self.calls if call["method"] == "GET")


def read_call_log(base: str, key: str, out: Path) -> None:
    """The call log's reader (its own process): every call seen, until SIGTERM."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    calls: dict[tuple[str, str, str], dict] = {}
    missed = False
    with httpx.Client(
        base_url=base.rstrip("/") + "/", headers={"Authorization": f"Bearer {key}"}, timeout=10
    ) as client:
        while True:
            last = stop.is_set()
            try:
                answer = client.get("_sandbox/requests")
                answer.raise_for_status()
                seen = answer.json()["data"]
            except httpx.HTTPError:
                seen = []
            if calls and len(seen) >= 1000 and (seen[0]["at"], seen[0]["method"], seen[0]["path"]) not in calls:
                missed = True  # the oldest call kept was not seen before: some went unseen
            for call in seen:
                calls[(call["at"], call["method"], call["path"])] = call  # status filled later
            if last:
                break
            stop.wait(0.25)
    out.write_text(json.dumps({"calls": list(calls.values()), "missed": missed}))


if __name__ == "__main__":
    read_call_log(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
