"""A real window on a virtual X screen (Xvfb, Qt's xcb platform): it shows, at its size,
and what the X server displays there is not blank."""

import json
import os
import subprocess
import sys

import pytest
from PySide6.QtGui import QImage

from tests.helpers import start_xvfb


@pytest.fixture
def xvfb(tmp_path):
    proc, display = start_xvfb(tmp_path)
    yield display
    proc.terminate()
    proc.wait(10)


def test_window_on_a_real_x_screen(xvfb, tmp_path):
    shot = tmp_path / "paydesk-window.png"
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    env.update(
        DISPLAY=xvfb,
        QT_QPA_PLATFORM="xcb",
        PAYDESK_HOME=str(tmp_path / "data"),
        PAYDESK_SANDBOX_HOME=str(tmp_path / "sandbox"),
    )
    done = subprocess.run(
        [sys.executable, "-m", "tests.ui.xvfb_window", str(shot)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    info = json.loads(done.stdout.strip().splitlines()[-1])
    assert info["platform"] == "xcb" and info["visible"] and info["exposed"]
    assert (info["width"], info["height"]) == (1100, 720)
    assert info["title"] == "PayDesk — Sandbox — TEST"
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1100, 720)
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 20, "the screenshot is blank"
    # the amber test banner is on screen near the top
    amber = sum(
        1
        for x in range(0, image.width(), 5)
        for y in range(30, 120, 3)
        if QImage(image).pixelColor(x, y).name() == "#f5a623"
    )
    assert amber > 50
