"""User-visible literals outside ``_()`` in desk/ and ui/, found in the source (an AST walk).

A literal counts when it reads like words a person is shown: two words or more, or one
capitalised word of three letters or more (a mnemonic's ``&`` aside: "&Amount"); not a
docstring, not inside ``_()``, ``N_()``, ``gettext()`` or ``ngettext()``, not a module's
``__all__``, not a log line, an object name, a style sheet, a key sequence or a format of
dates. An f-string counts once.

    .venv/bin/python -m tests.i18n.literals            the literals per module, most first
    .venv/bin/python -m tests.i18n.literals --kept     write tests/i18n/not_words.json again
                                                       (the reasons already given are kept)

Every literal found is either translated or listed in tests/i18n/not_words.json with why no
person reads it as words (an export's column names, a font's family, a programmer's error):
test_literals.py fails on a literal that is neither, and on a listed one no longer there.
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
KEPT = Path(__file__).with_name("not_words.json")
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


def found() -> dict[str, list[str]]:
    """Each module's literals that read like words, once each, in order."""
    out: dict[str, list[str]] = {}
    for folder in FOLDERS:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            texts = list(dict.fromkeys(text for _line, text in literals(path)))
            if texts:
                out[path.relative_to(PACKAGE).as_posix()] = texts
    return out


def kept() -> dict[str, dict]:
    """tests/i18n/not_words.json: per module, ``why`` and the ``literals`` kept as they are."""
    return json.loads(KEPT.read_text("utf-8")) if KEPT.exists() else {}


def main(argv: list[str]) -> int:
    now = found()
    if "--kept" in argv:
        before = kept()
        listed = {
            name: {"why": before.get(name, {}).get("why", "TO SAY"), "literals": texts}
            for name, texts in sorted(now.items())
        }
        KEPT.write_text(json.dumps(listed, indent=1, ensure_ascii=False) + "\n", "utf-8")
    for name, texts in sorted(now.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(texts):5d}  {name}")
    print(f"{sum(len(t) for t in now.values()):5d}  in all, in {len(now)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
