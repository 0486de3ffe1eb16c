"""User-visible literals outside ``_()`` in desk/ and ui/, found in the source (an AST walk).

A literal counts when it reads like words a person is shown: two words or more, or one
capitalised word of three letters or more (a mnemonic's ``&`` aside: "&Amount"); not a
docstring, not inside ``_()``, ``N_()``, ``gettext()`` or ``ngettext()``, not a module's
``__all__``, not a log line, an object name, a style sheet, a key sequence or a format of
dates. An f-string counts once.

    .venv/bin/python -m tests.i18n.literals            the count per module, most first
    .venv/bin/python -m tests.i18n.literals --baseline write tests/i18n/untranslated.json

The baseline is what is left to translate: test_literals.py fails when a module holds more
than its line there (a module not listed holds none), so the count only goes down.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "desktop" / "paydesk"
FOLDERS = ("desk", "ui")
BASELINE = Path(__file__).with_name("untranslated.json")
MARKERS = {"_", "N_", "NP_", "gettext", "ngettext", "pgettext"}
# calls whose text arguments are not shown to a person
NOT_SHOWN = {
    "debug",
    "info",
    "warning",
    "error",
    "exception",
    "critical",
    "getLogger",
    "setObjectName",
    "setStyleSheet",
    "QKeySequence",
    "strftime",
    "strptime",
    "setDisplayFormat",
    "toString",
    "startswith",
    "endswith",
    "replace",
    "split",
    "compile",
    "match",
    "search",
    "sub",
    "fullmatch",
    "execute",
    "Signal",
    "setProperty",
    "property",
    "findChild",
    "findChildren",
    "environ",
    "getenv",
    "spawn",
    "child",
    "isoformat",
    "fromisoformat",
    "encode",
    "decode",
    "setFamily",
    "QFont",
    "setFamilies",
    "format_datetime",
    "format_decimal",
    "format_date",
    "format_time",
    "TypeVar",
    "NewType",
    "cast",
    "getattr",
    "hasattr",
    "setattr",
}
WORDS = re.compile(r"[A-Za-z]{2,}[^\n]*\s[^\n]*[A-Za-z]{2,}|^[A-Z][a-z]{2,}")


def _name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _reads_like_words(text: str) -> bool:
    text = text.strip()
    if "&" in text and "&&" not in text:
        text = text.replace("&", "", 1)  # a label's mnemonic ("&Amount", "Re&ference")
    if not text or "\n" in text and text.count("\n") > 3:
        return False
    if re.fullmatch(r"[\w.\-/:%{}()\[\]#*]+", text) and not re.fullmatch(r"[A-Z][a-z]{2,}\W?", text):
        return False  # an identifier, a path, a format
    if re.search(r"(^|[;{])\s*[\w-]+\s*:\s*[^;]*;", text) or re.search(r"[;{]\s*[\w-]+\s*:", text):
        return False  # a style sheet
    if re.match(r"(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH)\b", text):
        return False
    return bool(WORDS.search(text))


def literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text("utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip.add(id(first.value))
        if isinstance(node, ast.Call) and (_name(node) in MARKERS or _name(node) in NOT_SHOWN):
            for inner in ast.walk(node):
                if inner is not node.func:
                    skip.add(id(inner))
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            for inner in ast.walk(node.value):  # a module's public names, not words
                skip.add(id(inner))
        if isinstance(node, ast.Compare) or isinstance(node, ast.Subscript):
            for inner in ast.walk(node):
                skip.add(id(inner))
        if isinstance(node, ast.Dict):
            for key in node.keys:
                if key is not None:
                    skip.add(id(key))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if _reads_like_words(text):
                found.append((node.lineno, text))
            for inner in ast.walk(node):
                skip.add(id(inner))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _reads_like_words(node.value):
            found.append((node.lineno, node.value))
    return found


def counts() -> dict[str, int]:
    out: dict[str, int] = {}
    for folder in FOLDERS:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            n = len(literals(path))
            if n:
                out[path.relative_to(PACKAGE).as_posix()] = n
    return out


def main(argv: list[str]) -> int:
    now = counts()
    if "--baseline" in argv:
        BASELINE.write_text(json.dumps(dict(sorted(now.items())), indent=1) + "\n", "utf-8")
    for name, n in sorted(now.items(), key=lambda kv: -kv[1]):
        print(f"{n:5d}  {name}")
    print(f"{sum(now.values()):5d}  in all, in {len(now)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
