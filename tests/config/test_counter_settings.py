"""This computer's counter settings (counter.json, Qt-free): defaults, kept, and never in the
way of a sale when the file is damaged."""

import json
import socket
from dataclasses import replace

from paydesk.config.counter import FILE, CounterSettings, default_name, name_problem


async def test_a_new_counter_goes_by_its_desks_name(paths):
    settings = await CounterSettings.load(paths)
    assert settings.name == ""  # the desk's name (desk/counter.py), told apart on a shared ledger
    assert settings.screen == ""
    assert not (paths.data / FILE).exists()  # nothing written until something is chosen
    # the computer's name, as an earlier PayDesk wrote it with the screen: the desk's name too
    assert default_name() == (socket.gethostname().strip()[:40] or "Counter")
    (paths.data / FILE).write_text(json.dumps({"name": default_name(), "screen": "HDMI-1"}))
    assert await CounterSettings.load(paths) == CounterSettings(name="", screen="HDMI-1")


async def test_saved_settings_are_read_back_and_written_whole(paths):
    await CounterSettings(name="Till 1", screen="HDMI-1").save(paths)
    assert await CounterSettings.load(paths) == CounterSettings(name="Till 1", screen="HDMI-1")
    assert json.loads((paths.data / FILE).read_text("utf-8")) == {
        "name": "Till 1",
        "screen": "HDMI-1",
        "idle_lock_minutes": 5,
    }
    assert not list(paths.data.glob("*.tmp"))  # written through a temporary file, replaced


async def test_a_key_less_counter_is_said_in_its_file_and_kept_when_renamed(paths):
    (paths.data / FILE).write_text(json.dumps({"name": "Till 1", "keyless": True}), "utf-8")
    settings = await CounterSettings.load(paths)
    assert settings.keyless
    await replace(settings, name="Till 2").save(paths)
    assert json.loads((paths.data / FILE).read_text("utf-8")) == {
        "name": "Till 2",
        "screen": "",
        "keyless": True,
        "idle_lock_minutes": 5,
    }
    (paths.data / FILE).write_text(json.dumps({"keyless": "yes"}), "utf-8")
    assert not (await CounterSettings.load(paths)).keyless  # only true itself


async def test_a_damaged_file_gives_the_defaults(paths):
    (paths.data / FILE).write_text("{not json", "utf-8")
    assert await CounterSettings.load(paths) == CounterSettings()
    (paths.data / FILE).write_text(json.dumps({"name": "\n", "screen": 3}), "utf-8")
    assert await CounterSettings.load(paths) == CounterSettings(name="", screen="")
    for idle in (-1, 241, "5", True, 2.5):  # the idle lock's minutes: 0 (never) to 240
        (paths.data / FILE).write_text(json.dumps({"idle_lock_minutes": idle}), "utf-8")
        assert (await CounterSettings.load(paths)).idle_lock_minutes == 5
    (paths.data / FILE).write_text(json.dumps({"idle_lock_minutes": 0}), "utf-8")
    assert (await CounterSettings.load(paths)).idle_lock_minutes == 0


def test_a_counters_name_is_one_short_line():
    assert name_problem("Till 1") is None
    assert name_problem("  ") == "Give the counter a name, e.g. Till 1"
    assert name_problem("x" * 41) == "At most 40 characters"
    assert name_problem("Till\n1") == "One line of text, without control characters"
