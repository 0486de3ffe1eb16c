"""Where PayDesk keeps things: one data folder per installation (overridable)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path


def _platform_data_root() -> Path:
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


@dataclass(frozen=True)
class Paths:
    data: Path  # profiles, ledger, window state
    sandbox: Path  # the embedded sandbox's own data (it is the service: it holds its keys)

    @property
    def logs(self) -> Path:
        return self.data / "logs"

    @property
    def profiles(self) -> Path:
        return self.data / "profiles.json"

    @property
    def window_state(self) -> Path:
        return self.data / "window.ini"

    def ensure(self) -> Paths:
        for folder in (self.data, self.logs):
            folder.mkdir(parents=True, exist_ok=True)
            try:
                folder.chmod(0o700)
            except OSError:
                pass
        return self


def default_paths(data: str | Path | None = None, sandbox: str | Path | None = None) -> Paths:
    root = _platform_data_root()
    data_dir = Path(data or os.environ.get("PAYDESK_HOME") or root / "paydesk")
    sandbox_dir = Path(sandbox or os.environ.get("PAYDESK_SANDBOX_HOME") or root / "paydesk-sandbox")
    return Paths(data=data_dir, sandbox=sandbox_dir)
