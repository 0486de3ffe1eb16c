"""This computer's counter: its name and where the customer display goes (Qt-free).

``counter.json`` in the data folder, read and written off the loop's thread, written whole
and atomically (a temporary file, then replaced). The counter goes by its desk's name
(``name`` "": config/desk_name.py, told apart from another desk's on a shared ledger) until
the staff renames the counter (desk/counter.py allows it only while the open shift has no
sales); a name written by an earlier PayDesk that is merely the computer's is the desk's
too. ``screen`` is the customer display's screen by name ("" = this screen, the customer's
view beside the amount box). ``keyless`` (set by the shop's administrator, on a shared
ledger): this computer holds no secret key, and its sales go through the shop's key holder
(desk/counter_keyless.py, docs/COUNTER.md). ``idle_lock_minutes``: when staff sign in, the
window locks after this many minutes without a key or a click (0: never), set per computer
(desk/sign_in.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import socket
from dataclasses import asdict, dataclass
from pathlib import Path

from .paths import Paths

log = logging.getLogger("paydesk.counter")
FILE = "counter.json"
NAME_MOST = 40  # characters: printed on the shift report, shown in finance's list
IDLE_LOCK_MINUTES = 5  # the default
IDLE_LOCK_MOST = 240  # minutes
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def default_name() -> str:
    """The computer's name (``socket.gethostname()``), else "Counter"."""
    try:
        name = socket.gethostname().strip()
    except OSError:  # pragma: no cover - a host with no name at all
        name = ""
    return name[:NAME_MOST] or "Counter"


def name_problem(name: str) -> str | None:
    """What is wrong with a counter's name as typed, or None."""
    text = name.strip()
    if not text:
        return "Give the counter a name, e.g. Till 1"
    if len(text) > NAME_MOST:
        return f"At most {NAME_MOST} characters"
    if _CONTROL.search(text):
        return "One line of text, without control characters"
    return None


def _file(paths: Paths) -> Path:
    return paths.data / FILE


@dataclass(frozen=True)
class CounterSettings:
    name: str = ""  # this counter's own name ("Till 1"); "": its desk's name
    screen: str = ""  # the customer display's screen by name; "": this screen
    idle_lock_minutes: int = IDLE_LOCK_MINUTES  # staff signed in: lock after this idle time (0: never)
    keyless: bool = False  # sales through the shop's key holder (a shared ledger's counter)

    @classmethod
    async def load(cls, paths: Paths) -> CounterSettings:
        """``counter.json`` (off the loop's thread); the defaults when it is missing or
        unreadable (said in the log: a counter is never stopped by its settings file)."""
        return await asyncio.to_thread(cls._read, _file(paths))

    @classmethod
    def _read(cls, path: Path) -> CounterSettings:
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as error:
            log.warning("%s unreadable, the counter's defaults are used: %s", path, error)
            return cls()
        if not isinstance(data, dict):
            return cls()
        name = data.get("name")
        screen = data.get("screen")
        own = name.strip() if isinstance(name, str) and not name_problem(name) else ""
        idle = data.get("idle_lock_minutes")
        if not isinstance(idle, int) or isinstance(idle, bool) or not 0 <= idle <= IDLE_LOCK_MOST:
            idle = IDLE_LOCK_MINUTES
        return cls(
            name="" if own == default_name() else own,
            screen=screen if isinstance(screen, str) else "",
            keyless=data.get("keyless") is True,
            idle_lock_minutes=idle,
        )

    async def save(self, paths: Paths) -> None:
        """Write ``counter.json`` whole and atomically, off the loop's thread."""
        await asyncio.to_thread(self._write, _file(paths))

    def _write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        data = asdict(self)
        if not self.keyless:  # set by the shop's administrator only: not written otherwise
            del data["keyless"]
        tmp.write_text(json.dumps(data, indent=2), "utf-8")
        os.replace(tmp, path)
