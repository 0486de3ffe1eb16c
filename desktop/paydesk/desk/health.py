"""The connection's state per profile and mode, as the user sees it: "Checked 12 s ago",
"Offline since 14:02, retrying". Qt-free: the session feeds it from every call it leases."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..i18n import _


@dataclass
class Health:
    last_ok: datetime | None = None  # the service last answered (UTC)
    offline_since: datetime | None = None  # unreachable since (UTC), until it answers again
    problem: str | None = None  # it answers, but refuses the key

    def text(self, now: datetime | None = None) -> str:
        now = now or datetime.now(UTC)
        if self.offline_since is not None:
            since = self.offline_since.astimezone().strftime("%H:%M")
            return _("Offline since {since}, retrying").format(since=since)
        if self.problem:
            return self.problem
        if self.last_ok is None:
            return _("Not checked yet")
        seconds = max(0, int((now - self.last_ok).total_seconds()))
        if seconds < 60:
            return _("Checked {seconds} s ago").format(seconds=seconds)
        if seconds < 3600:
            return _("Checked {minutes} min ago").format(minutes=seconds // 60)
        return _("Checked at {time:%H:%M}").format(time=self.last_ok.astimezone())


class ConnectionHealth:
    def __init__(self, on_change: Callable[[str, str], None] | None = None):
        self._by: dict[tuple[str, str], Health] = {}
        self.on_change = on_change or (lambda profile_id, mode: None)

    def get(self, profile_id: str, mode: str) -> Health:
        return self._by.setdefault((profile_id, mode), Health())

    def ok(self, profile_id: str, mode: str) -> None:
        health = self.get(profile_id, mode)
        health.last_ok = datetime.now(UTC)
        health.offline_since = None
        health.problem = None
        self.on_change(profile_id, mode)

    def unreachable(self, profile_id: str, mode: str) -> None:
        health = self.get(profile_id, mode)
        if health.offline_since is None:
            health.offline_since = datetime.now(UTC)
        self.on_change(profile_id, mode)

    def keys_changed(self, profile_id: str) -> None:
        """The profile's keys changed (kept, removed, carried over): what was said of them
        ("No test secret key…", a key refused) is no longer the story; the next call says
        what is."""
        for (known, mode), health in list(self._by.items()):
            if known == profile_id and health.problem is not None:
                health.problem = None
                self.on_change(known, mode)

    def refused(self, profile_id: str, mode: str, problem: str) -> None:
        health = self.get(profile_id, mode)
        health.offline_since = None
        health.problem = problem
        self.on_change(profile_id, mode)
