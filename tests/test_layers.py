"""The ledger is one interface: SQL lives only inside ``paydesk/ledger`` (and in the
sandbox, which is the service's own store), so that a second backend changes no UI code."""

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "desktop" / "paydesk"
SQL = re.compile(
    r"^\s*(import sqlite3|from sqlite3|import aiosqlite|from \.+ledger\.sqlite )|"
    r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b",
    re.M,
)


def offenders(root: Path) -> list[str]:
    out = []
    for path in sorted(root.rglob("*.py")):
        part = path.relative_to(root).parts[0]
        if part in ("ledger", "sandbox"):
            continue
        for match in SQL.finditer(path.read_text("utf-8")):
            out.append(f"{path.relative_to(root)}: {match.group(0).strip()}")
    return out


def test_sql_only_inside_the_ledger():
    assert offenders(PACKAGE) == []


def test_the_layer_check_can_fail(tmp_path):
    (tmp_path / "ui").mkdir()
    (tmp_path / "ui" / "tab.py").write_text('rows = db.execute("SELECT * FROM links")\n')
    (tmp_path / "ledger").mkdir()
    (tmp_path / "ledger" / "sqlite.py").write_text("import sqlite3\n")
    assert offenders(tmp_path) == ["ui/tab.py: SELECT"]
