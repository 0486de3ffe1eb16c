"""The fast tier's guard: a pytest plugin that makes Qt unimportable.

``./dev check`` runs the Qt-free tests with ``pytest -p no:pytest-qt -p tests.no_qt``:
while they run, PySide6, shiboken6, qasync and pytest-qt cannot be imported, so a test
that reaches Qt, directly or through a module of PayDesk, fails with an ImportError that
says so, instead of passing on a machine that happens to have Qt installed.
``tests/test_no_qt.py`` proves the guard is on in that tier.
"""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder

REFUSED = ("PySide6", "shiboken6", "qasync", "pytestqt")


def refused(name: str) -> bool:
    return name.partition(".")[0] in REFUSED


class QtRefused(MetaPathFinder):
    """First on ``sys.meta_path``: refuses every module of REFUSED, finds nothing else."""

    def find_spec(self, fullname, path=None, target=None):
        if refused(fullname):
            raise ImportError(
                f"{fullname} is refused in the fast tier: ./dev check runs the Qt-free tests "
                "with PySide6, shiboken6, qasync and pytest-qt unimportable (tests/no_qt.py); "
                "a test that needs Qt belongs under tests/ui/ and runs in ./dev test",
                name=fullname,
            )
        return None


GUARD = QtRefused()


def active() -> bool:
    return GUARD in sys.meta_path and not any(refused(name) for name in sys.modules)


already = sorted(name for name in sys.modules if refused(name))
if already:  # a plugin loaded before this one brought Qt in: the tier would prove nothing
    raise ImportError(f"the fast tier's guard came too late, Qt is already imported: {already[:5]}")
sys.meta_path.insert(0, GUARD)


def pytest_addoption(parser):
    # pyproject's [tool.pytest.ini_options] sets pytest-qt's option, which is not loaded here
    parser.addini("qt_api", "pytest-qt's Qt binding (unused: the fast tier runs without Qt)")
