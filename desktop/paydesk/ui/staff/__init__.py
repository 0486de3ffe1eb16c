"""The window's side of staff: the sign-in screen, Lock and the idle lock (gate.py), what
the person may see (rights.py), Settings → Staff… (dialog.py, person.py)."""

from __future__ import annotations

from typing import Any, TypeAlias

# The main window as this package sees it: ``main_window.py`` imports this package, not
# the other way round; a QMainWindow with the attributes this package names (``desk``,
# ``session``, ``tabs``, ``status``, its menus and actions).
StaffWindow: TypeAlias = Any
