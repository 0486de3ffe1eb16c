"""The tests that must not run side by side on ./dev test's workers, and the scheduler that
keeps each group on one worker, one test after the other.

A group is named here with the folders or files its tests are in. pytest-xdist's own
``xdist_group`` mark cannot say it with the pytest this suite runs on: xdist 3.8 adds the
group to a test's ``_nodeid``, which pytest 9.2 no longer reads for ``nodeid``, so every
test reached the workers ungrouped. The scheduler reads the test's address instead, which the
controller has (it never collects, so it never sees a mark).
"""

from __future__ import annotations

from xdist.scheduler import LoadGroupScheduling

# group: where its tests are (a folder ending in "/", or a file), from the rootdir
GROUPS: dict[str, tuple[str, ...]] = {
    # the bundle is built once for them, and the .deb they install on this computer
    # (apt-get install, then test_removal.py last) is installed and removed by one process
    "packaging": ("tests/packaging/",),
    # a closed shift's report is saved as its PDF in the one "Shift reports" folder of the
    # user's documents, named by counter, shift and day: two of these side by side write
    # (and read back) the same file
    "shift reports": (
        "tests/ui/counter/test_close_shift.py",
        "tests/ui/counter/test_report_pdf.py",
        "tests/ui/counter/test_who_did_it.py",
    ),
}


def group_of(nodeid: str) -> str | None:
    path = nodeid.partition("::")[0]
    for group, places in GROUPS.items():
        if any(path == place or (place.endswith("/") and path.startswith(place)) for place in places):
            return group
    return None


class SideBySide(LoadGroupScheduling):
    """xdist's loadgroup, the group read from where the test is: the largest groups go to
    the workers first, then the other tests one at a time in collection order."""

    def _split_scope(self, nodeid: str) -> str:
        group = group_of(nodeid)
        return f"group:{group}" if group else super()._split_scope(nodeid)
