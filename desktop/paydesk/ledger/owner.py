"""Which running PayDesk wrote a record: its host, process id and the process's start, so a
later run can tell an operation another live window has in flight from one a killed run
left behind."""

from __future__ import annotations

import os
import socket
import sys
from functools import lru_cache


def _started(pid: int) -> str | None:
    """When process ``pid`` started (Linux: clock ticks since boot), or None if unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


@lru_cache(maxsize=1)
def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{_started(os.getpid()) or ''}"


def gone(owner: str | None) -> bool:
    """True only when the process that wrote ``owner`` has surely ended: it ran on this
    host, and no process with its id (and start) runs now. Anything else (another host, an
    older record with no owner, a platform that cannot tell) is not known to be gone."""
    if not owner:
        return False
    host, _, rest = owner.partition(":")
    pid_text, _, started = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if owner == this_process():
        return False
    if sys.platform.startswith("linux"):
        now = _started(pid)
        return now is None or (bool(started) and now != started)
    if os.name == "posix":
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        return False
    return False
