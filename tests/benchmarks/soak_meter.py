"""What bench_soak.py measures, a line every interval: resident memory (VmRSS) and its parts
(anonymous: the heaps; file: libraries and fonts mapped; shared memory: the X server's
shared images of the windows on xcb), malloc's own figures (bytes in use, and bytes free but
kept: growing "free" is fragmentation, growing "in use" a leak), Python's blocks, and
counts: gc objects, Qt's widgets and top-level windows, the main window's QObjects (with
``trace``), asyncio's tasks. With ``trace``: what grew
since the last line (tracemalloc sites, object types, weak references, widgets)."""

from __future__ import annotations

import asyncio
import ctypes
import gc
import sys
import tracemalloc
import weakref
from collections import Counter
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication


def status_mb() -> dict[str, float]:
    """/proc/self/status's memory lines (VmRSS, RssAnon, RssFile, RssShmem), in MB."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
            found[key] = int(value.split()[0]) / 1024
    return found


def rss_mb() -> float:
    return status_mb().get("VmRSS", float("nan"))


def mappings_mb() -> Counter:
    """Resident memory by kind of mapping (/proc/self/smaps), in MB: "[heap]" (malloc's main
    arena), "anon" (other arenas, Python's own, large blocks, thread stacks), "shared" (shared
    memory: the X server's images), and each file mapped, by name."""
    found: Counter = Counter()
    kind = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(None, 5)
        if len(head) >= 5 and "-" in head[0] and not line.endswith(":"):
            path = head[5].strip() if len(head) > 5 else ""
            kind = (
                path
                if path.startswith("[")
                else "shared"
                if head[1].endswith("s") or path.startswith(("/dev/shm", "/SYSV", "/memfd:"))
                else Path(path).name
                if path
                else "anon"
            )
        elif line.startswith("Rss:") and kind is not None:
            found[kind] += int(line.split()[1]) / 1024
    return found


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


try:
    _libc = ctypes.CDLL(None)
    _mallinfo2 = _libc.mallinfo2
    _mallinfo2.restype = _MallInfo2
except (OSError, AttributeError):  # not glibc 2.33+: those columns say "-"
    _libc = _mallinfo2 = None


def malloc_mb() -> tuple[float, float]:
    """(bytes malloc has handed out and not had back, bytes it holds free), in MB, over all
    its arenas (glibc's mallinfo2)."""
    if _mallinfo2 is None:
        return float("nan"), float("nan")
    info = _mallinfo2()
    return (info.uordblks + info.hblkhd) / 2**20, info.fordblks / 2**20


def malloc_trim() -> bool:
    """Give malloc's free pages back to the system (glibc's malloc_trim(0))."""
    return bool(_libc is not None and _libc.malloc_trim(0))


class Meter:
    """One line of figures per interval; with ``trace``, what grew since the last."""

    def __init__(self, window, trace: bool, top: int, maps: bool = False):
        self.window, self.trace, self.top = window, trace, top
        self.maps = maps or trace
        self.rows: list[tuple[float, float]] = []  # (minutes, RSS MB)
        self._snapshot = self._warm_snapshot = None
        self._types: Counter | None = None
        self._weak: Counter | None = None
        self._widgets: Counter | None = None
        self._tasks: Counter = Counter()
        self._mappings: Counter | None = None

    def header(self) -> None:
        print(
            f"  {'when':>9} {'RSS MB':>7} {'anon':>6} {'file':>6} {'shmem':>6} {'malloc':>7} "
            f"{'free':>6} {'heap MB':>8} {'py blocks':>10} {'gc objects':>11} "
            f"{'widgets':>8} {'windows':>8} {'QObjects':>9} {'tasks':>6}  work done",
            flush=True,
        )

    def sample(self, label: str, minutes: float | None, work: str = "") -> float:
        gc.collect()  # garbage waiting for a collection is not growth
        memory = status_mb()
        rss = memory.get("VmRSS", float("nan"))
        used, free = malloc_mb()
        heap = tracemalloc.get_traced_memory()[0] / 2**20 if self.trace else float("nan")
        objects = len(gc.get_objects()) + gc.get_freeze_count()
        widgets = QApplication.allWidgets()
        windows = len(QApplication.topLevelWidgets())
        # PySide makes a Python object for each QObject found, and never learns when a
        # non-widget one (a text document's frame, a layout) is deleted with its parent:
        # counted with --trace only, where that is known to weigh
        qobjects = len(self.window.findChildren(QObject)) if self.trace else -1
        names = Counter(task.get_name() for task in asyncio.all_tasks())
        tasks = sum(names.values())
        heap_text = f"{heap:8.1f}" if self.trace else f"{'-':>8}"
        print(
            f"  {label:>9} {rss:7.1f} {memory.get('RssAnon', 0):6.1f} "
            f"{memory.get('RssFile', 0):6.1f} {memory.get('RssShmem', 0):6.1f} {used:7.1f} {free:6.1f} {heap_text} "
            f"{sys.getallocatedblocks():10,d} {objects:11,d} {len(widgets):8,d} {windows:8,d} "
            f"{qobjects if qobjects >= 0 else '-':>9} {tasks:6d}  {work}",
            flush=True,
        )
        if minutes is not None:
            self.rows.append((minutes, rss))
        self._print_counts(names - self._tasks, "tasks")
        self._tasks = names
        if self.maps:
            self._grown_mappings()
        if self.trace:
            self._grown(widgets)
        return rss

    def trimmed(self) -> None:
        """RSS once malloc has given its free pages back: what it held free was not a leak."""
        before = rss_mb()
        malloc_trim()
        print(f"      malloc_trim(0): RSS {before:.1f} -> {rss_mb():.1f} MB", flush=True)

    def _grown(self, widgets) -> None:
        snapshot = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)])
        objects = gc.get_objects()
        types = Counter(type(o).__name__ for o in objects)
        weak = Counter(type(o()).__name__ for o in objects if isinstance(o, weakref.ref))
        kinds = Counter(type(w).__name__ for w in widgets)
        if self._snapshot is not None:
            self._print_sites(snapshot.compare_to(self._snapshot, "lineno"), "since the last line")
            self._print_counts(types - self._types, "gc objects")
            self._print_counts(weak - self._weak, "weak references (by what they refer to)")
            self._print_counts(kinds - self._widgets, "widgets")
            self._dead_holders(objects, weak["NoneType"] - self._weak["NoneType"])
            self._holders(objects, types - self._types)
        self._snapshot, self._types, self._weak, self._widgets = snapshot, types, weak, kinds

    def _grown_mappings(self) -> None:
        mappings = mappings_mb()
        if self._mappings is not None:
            grown = Counter({k: v for k, v in (mappings - self._mappings).items() if v >= 0.1})
            if grown:
                print(
                    "      resident memory that grew, by mapping: "
                    + ", ".join(f"{name} +{mb:.1f} MB" for name, mb in grown.most_common(self.top))
                )
        self._mappings = mappings

    def warm(self) -> None:
        if self.trace:
            self._warm_snapshot = self._snapshot

    def since_warm(self) -> None:
        if self.trace and self._warm_snapshot is not None and self._snapshot is not None:
            self._print_sites(
                self._snapshot.compare_to(self._warm_snapshot, "traceback"), "since the warm-up", frames=4
            )

    BUILTIN = frozenset(
        (
            "tuple",
            "list",
            "dict",
            "set",
            "frozenset",
            "cell",
            "function",
            "method",
            "ReferenceType",
            "deque",
            "coroutine",
            "Context",
            "frame",
        )
    )

    def _holders(self, objects, grown: Counter) -> None:
        """Who holds the newest objects of the classes of our own that grew the most: the
        path up from one of them (its holder, the holder's holder...), by type and attribute."""
        mine = [name for name, n in grown.most_common() if name not in self.BUILTIN and n >= 5][:2]
        frame_type = type(sys._getframe())
        for name in mine:
            newest = None
            for candidate in reversed(objects):
                if type(candidate).__name__ == name:
                    newest = candidate
                    break
            if newest is None:
                continue
            chain: list[str] = []
            seen = {id(objects), id(chain)}
            at = newest
            for _ in range(6):
                up = []
                for referrer in gc.get_referrers(at):
                    if id(referrer) not in seen and not isinstance(referrer, frame_type):
                        up.append(referrer)
                seen.add(id(up))
                if not up:
                    break
                holder = up[0]
                seen.add(id(holder))
                where = type(holder).__name__
                if isinstance(holder, dict):  # an object's attributes: say which
                    for key, value in holder.items():
                        if value is at:
                            where = f"dict[{key!r}]"
                            break
                elif isinstance(holder, (list, tuple, set, frozenset)):
                    where = f"{type(holder).__name__} of {len(holder)}"
                chain.append(where)
                at = holder
            print(f"      a new {name} is held by: " + " < ".join(chain))
            del newest, at, up

    def _dead_holders(self, objects, grown: int) -> None:
        """Who keeps weak references whose object is gone (when more are kept than before)."""
        if grown <= 0:
            return
        dead = [o for o in objects if isinstance(o, weakref.ref) and o() is None]
        skip = {id(objects), id(dead)}
        holders = [h for h in gc.get_referrers(*dead) if id(h) not in skip]
        kinds = Counter(f"{type(h).__name__}" + (f" of {len(h)}" if hasattr(h, "__len__") else "") for h in holders)
        self._print_counts(kinds, f"holders of {len(dead)} dead weak references")
        skip.add(id(holders))
        for holder in sorted(holders, key=lambda h: -len(h) if hasattr(h, "__len__") else 0)[:3]:
            up = [
                type(u).__name__ + (f" {getattr(u, '__qualname__', '')}" if callable(u) else "")
                for u in gc.get_referrers(holder)
                if id(u) not in skip
            ][:4]
            print(f"        {type(holder).__name__} held by: {', '.join(up)}")
        del dead, holders

    def _print_sites(self, stats, when: str, frames: int = 1) -> None:
        grown = [s for s in stats if s.size_diff > 0][: self.top]
        if not grown:
            return
        print(f"      allocation sites that grew {when}:")
        for stat in grown:  # file and line only: reading the source would fill linecache
            where = [f"{Path(f.filename).name}:{f.lineno}" for f in reversed(stat.traceback)][:frames] or ["?"]
            print(f"        {stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  " + " < ".join(where))

    def _print_counts(self, grown: Counter, what: str) -> None:
        if grown:
            shown = ", ".join(f"{name} +{n}" for name, n in grown.most_common(self.top))
            print(f"      {what} that grew: {shown}")
