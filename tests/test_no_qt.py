"""The fast tier (``./dev check``) runs without Qt: its guard (tests/no_qt.py) is on and
refuses PySide6, shiboken6, qasync and pytest-qt, also when a module of PayDesk asks."""

import importlib
import sys

import pytest

guard = sys.modules["tests.no_qt"]  # collected only under the guard (tests/conftest.py)


@pytest.mark.parametrize("name", ["PySide6", "PySide6.QtCore", "shiboken6", "qasync", "pytestqt"])
def test_qt_cannot_be_imported(name):
    with pytest.raises(ImportError, match="refused in the fast tier"):
        importlib.import_module(name)


def test_nothing_of_qt_is_loaded():
    assert guard.active()
    assert [name for name in sys.modules if guard.refused(name)] == []


def test_a_module_of_paydesk_that_needs_qt_is_refused():
    with pytest.raises(ImportError, match="refused in the fast tier"):
        importlib.import_module("paydesk.ui.signals")
