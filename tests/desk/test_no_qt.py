"""The desk's tests run without Qt: with pytest-qt off, nothing they import (the desk layer,
the ledger, the service's client, the sandbox, these tests and their conftests) loads
PySide6, shiboken6, qasync or pytest-qt. Moved to the end of the run (tests/desk/conftest.py),
so it sees what every test before it imported.

pytest-qt's plugin is named ``pytest-qt`` (its entry point): ``-p no:pytest-qt`` turns it
off; ``-p no:pytestqt`` does not (with pytest 9.2 it still loads, and imports PySide6)."""

import sys

import pytest

QT = ("PySide6", "shiboken6", "qasync", "pytestqt")


def test_no_qt_was_loaded(request):
    plugins = request.config.pluginmanager
    if plugins.has_plugin("pytest-qt") or plugins.has_plugin("pytestqt"):
        pytest.skip("pytest-qt is loaded and imports PySide6 itself: run with -p no:pytest-qt")
    others = sorted({str(item.path.parent) for item in request.session.items
                     if "desk" not in item.path.parts[-3:]})
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in QT)
    assert not loaded, f"Qt was imported by this run ({', '.join(loaded[:5])}…); " \
        f"folders collected beside tests/desk: {others or 'none'}"
