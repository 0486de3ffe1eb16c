"""The one bridge from the desk's events to Qt signals (``ui/signals.py``): every event of
the hub is bridged to a signal that carries its arguments, one bridge per hub, and a
widget's slot ends with the widget."""

import sys

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, Signal
from PySide6.QtWidgets import QWidget

from paydesk.desk.events import Hub
from paydesk.ui.signals import DeskSignals, signals_of

# a value to send for each type a bridged signal carries
SAMPLES = {"QString": "p_shop", "bool": True, "int": 7, "PyObject": object()}


def tell(hub, event_name, *args):
    """The desk says ``event_name`` (as its session or a controller would): not a press."""
    getattr(hub, event_name).emit(*args)


def arguments_of(signal_name):
    """Sample arguments of the types ``DeskSignals.<signal_name>`` carries."""
    meta = DeskSignals.staticMetaObject
    for i in range(meta.methodCount()):
        method = meta.method(i)
        if bytes(method.name().data()).decode() == signal_name:
            return tuple(SAMPLES[bytes(t.data()).decode()] for t in method.parameterTypes())
    raise AssertionError(f"DeskSignals has no signal {signal_name}")


class Listening(QWidget):
    """A widget whose bound method listens to a bridged signal, as a tab's do."""

    def __init__(self, heard):
        super().__init__()
        self.heard = heard

    def hear(self, *args):
        self.heard.append(args)


@pytest.fixture
def excepthook(monkeypatch):
    """What reached ``sys.excepthook`` (a receiver that raised, as the hub reports it)."""
    raised = []
    monkeypatch.setattr(sys, "excepthook", lambda *info: raised.append(info))
    return raised


def test_every_event_is_bridged():
    assert set(Hub().events()) == set(DeskSignals.BRIDGE)
    for signal_name in DeskSignals.BRIDGE.values():
        assert isinstance(getattr(DeskSignals, signal_name), Signal), signal_name


def test_each_signal_carries_its_events_arguments(qapp, excepthook):
    hub = Hub()
    bridge = signals_of(hub)
    for event_name, signal_name in DeskSignals.BRIDGE.items():
        heard = []
        receiver = Listening(heard)  # a Qt receiver
        getattr(bridge, signal_name).connect(receiver.hear)
        args = arguments_of(signal_name)
        tell(hub, event_name, *args)
        assert heard == [args], (event_name, signal_name)
        receiver.deleteLater()
    assert excepthook == []


def test_one_bridge_per_hub(qapp):
    hub = Hub()
    assert signals_of(hub) is signals_of(hub)
    assert signals_of(Hub()) is not signals_of(hub)


def test_a_destroyed_widgets_slot_is_not_called(qapp, excepthook):
    hub = Hub()
    heard = []
    widget = Listening(heard)
    signals_of(hub).linkChanged.connect(widget.hear)
    tell(hub, "record_changed", "first")
    assert heard == [("first",)]
    widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()
    assert not shiboken6.isValid(widget)
    tell(hub, "record_changed", "after")
    QCoreApplication.processEvents()
    assert heard == [("first",)]
    assert excepthook == []
