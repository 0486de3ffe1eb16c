"""What a session says for the screens (``Session`` has it): its refusal of a write while
its shared ledger is out of reach (nothing is sent to the service that could not be written
first), and the status bar's word on the active profile's connection."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..config.profiles import Profile
from .health import ConnectionHealth
from .profile_store import ProfileStore

PAID_BY_NOTIFICATION = "PAID by notification"  # the connection's word while notifications come


class SessionWords:
    """``ledger_down`` (set by ``build.build_desk`` on a shared ledger: desk/live.py) raises
    while the ledger is out of reach; ``checked_elsewhere`` and ``notified_lately`` say who
    checks payments (desk/live.py, desk/notified.py); ``store`` keeps the profiles."""

    ledger_down: Callable[[], Exception | None]
    checked_elsewhere: Callable[[], bool]
    notified_lately: Callable[[str, str], bool]
    store: ProfileStore
    health: ConnectionHealth

    if TYPE_CHECKING:  # the session's

        @property
        def profile(self) -> Profile | None: ...

        @property
        def mode(self) -> str: ...

    def refuse_while_down(self) -> None:
        """Raise (a LedgerError saying since when) while a shared ledger is out of reach, so
        that nothing is sent that could not be written first. Every write a person starts
        asks this first (a controller's entry, or a view before it opens a file dialog)."""
        error = self.ledger_down()
        if error is not None:
            raise error

    def refusal(self) -> str | None:
        """The one sentence that refuses a write now ("Shared ledger unreachable since
        14:02, retrying", or a newer PayDesk's ledger), None while writes can go: a view
        disables what would be refused and says this beside it."""
        error = self.ledger_down()
        return None if error is None else str(error)

    def profile_refusal(self, profile: Profile | None) -> str | None:
        """Why ``profile`` (None: a new one) cannot be saved now: the shop's merchants are on
        a shared ledger out of reach (the embedded sandbox's profile is this computer's)."""
        if not self.store.shared or (profile is not None and profile.embedded_sandbox):
            return None
        return self.refusal()

    def connection_words(self) -> str:
        """The status bar's word on the active profile's connection: "Checked 12 s ago",
        "Offline since 14:02, retrying", what is wrong with its keys; but while another desk
        or the shop's receiver checks payments, nothing (the shared ledger's own words say
        who), and while notifications bring its payments, "PAID by notification": never an
        ageing "Checked 13 min ago" for checks this desk has no need to make."""
        profile = self.profile
        if profile is None:
            return ""
        health = self.health.get(profile.id, self.mode)
        if health.offline_since is None and not health.problem:
            if self.checked_elsewhere():
                return ""
            if self.notified_lately(profile.id, self.mode):
                return PAID_BY_NOTIFICATION
        return health.text()


__all__ = ["PAID_BY_NOTIFICATION", "SessionWords"]
