"""`apt-get remove --purge paydesk` takes away every file the .deb installed. This removes the
package all the other packaging tests use, so conftest.py runs it after every other test of
the session; run alone, it installs the .deb first (the `installed` fixture)."""

from __future__ import annotations

import os

import pytest

from .conftest import package_installed, remove_package

pytestmark = pytest.mark.packaging

OWN_FOLDERS = ("/opt/paydesk", "/usr/share/doc/paydesk")


def test_removal_leaves_no_file_behind(installed):
    files = [f for f in installed.files if not os.path.isdir(f)]
    assert len(files) > 100 and "/usr/bin/paydesk" in files  # what dpkg -L listed at install
    assert all(os.path.lexists(f) for f in ("/usr/bin/paydesk", *OWN_FOLDERS))
    done = remove_package()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not package_installed()
    left = [f for f in files if os.path.lexists(f)]
    left += [d for d in OWN_FOLDERS if os.path.lexists(d)]
    assert left == [], f"left behind by apt-get remove --purge: {left[:20]}"
