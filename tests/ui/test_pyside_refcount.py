"""Guards the PySide6 pin: PySide6 6.12.0 drops a reference to True on every event-loop
pass, so a long-running PayDesk would abort ("bool_dealloc"). Run the loop many times in a
fresh interpreter and check it exits cleanly."""

import subprocess
import sys
import textwrap


def test_event_loop_passes_do_not_corrupt_the_interpreter():
    code = textwrap.dedent("""
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6.QtWidgets import QApplication
        app = QApplication([])
        before = sys.getrefcount(True)
        for _ in range(30000):
            app.processEvents()
        print(before - sys.getrefcount(True))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-500:]
    assert abs(int(result.stdout.strip())) < 100
