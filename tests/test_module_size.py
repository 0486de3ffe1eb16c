"""No module under desktop/ is over 400 lines (issue 31: a module that would pass it is split
by what it holds). Qt-free, reads files only; the failure names each file and its count."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DESKTOP = ROOT / "desktop"
LIMIT = 400


def line_count(path: Path) -> int:
    return len(path.read_text("utf-8").splitlines())


def oversized(root: Path, limit: int = LIMIT) -> list[str]:
    """'path: N lines' for each .py under root longer than limit, in path order."""
    return [
        f"{path.relative_to(root).as_posix()}: {count} lines"
        for path in sorted(root.rglob("*.py"))
        if (count := line_count(path)) > limit
    ]


def test_no_module_over_400_lines():
    assert DESKTOP.is_dir(), DESKTOP
    too_long = oversized(DESKTOP)
    assert not too_long, f"over {LIMIT} lines (split by what they hold):\n" + "\n".join(too_long)


def test_the_size_check_can_fail(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * (LIMIT + 1))
    (tmp_path / "pkg" / "at_limit.py").write_text("x = 1\n" * LIMIT)
    (tmp_path / "notes.txt").write_text("x\n" * 1000)
    assert oversized(tmp_path) == [f"pkg/long.py: {LIMIT + 1} lines"]
