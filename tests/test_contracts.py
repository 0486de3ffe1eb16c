"""The import contracts of pyproject.toml ([tool.importlinter], checked by ``lint-imports``
in ./dev lint) name every top-level module of paydesk, so a new one cannot slip past them;
and the tree has no import cycle at all, between modules at any depth."""

from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "desktop" / "paydesk"
LAYERS = ["app", "ui", "receiver", "desk", "ledger", "config", "service"]
APART = {"__main__", "logs", "sandbox", "i18n"}  # python -m paydesk; the log file; the service itself; the words
QT_ALLOWED = {"paydesk.app", "paydesk.ui", "paydesk.__main__"}  # __main__ is app.main
ALL_CONTRACTS = {"layers", "qt-only-in-ui", "sandbox-apart", "service-alone", "no-cycles"}


def contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def top_level_modules(package: Path = PACKAGE) -> set[str]:
    names = {path.stem for path in package.glob("*.py") if path.stem != "__init__"}
    names |= {path.parent.name for path in package.glob("*/__init__.py")}
    return {f"paydesk.{name}" for name in names}


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of more than one
    module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, imported = work[-1]
            for other in imported:
                if other not in index:
                    index[other] = low[other] = len(index)
                    stack.append(other)
                    on_stack.add(other)
                    work.append((other, iter(sorted(graph.find_modules_directly_imported_by(other)))))
                    break
                if other in on_stack:
                    low[module] = min(low[module], index[other])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == module:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_contracts_are_all_there():
    assert set(contracts()) == ALL_CONTRACTS


def test_every_top_level_module_has_its_place():
    """The layers contract is exhaustive (import-linter fails on a module it does not name);
    this says which modules stand apart, so that list cannot grow unseen."""
    layers = contracts()["layers"]
    assert layers["layers"] == LAYERS and layers["exhaustive"] is True
    assert set(layers["exhaustive_ignores"]) == APART
    assert top_level_modules() == {f"paydesk.{name}" for name in [*LAYERS, *APART]}


def test_qt_is_forbidden_to_every_module_but_the_ui_and_the_app():
    everything = top_level_modules()
    assert set(contracts()["qt-only-in-ui"]["source_modules"]) == everything - QT_ALLOWED


def test_the_sandbox_stands_apart():
    everything = top_level_modules()
    assert contracts()["sandbox-apart"]["source_modules"] == ["paydesk.sandbox"]
    assert set(contracts()["sandbox-apart"]["forbidden_modules"]) == everything - {"paydesk.sandbox"}


def test_the_resources_import_only_the_standard_library():
    """paydesk.resources lives in resources/ (mapped by package-dir), out of import-linter's
    sight: it is held to the same rule here."""
    tree = ast.parse((ROOT / "resources" / "__init__.py").read_text("utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "." for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 0}
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level]
    assert {name.partition(".")[0] for name in imported} <= sys.stdlib_module_names


def test_no_import_cycles():
    assert cycles(grimp.build_graph("paydesk", cache_dir=None)) == []


def test_the_cycle_count_can_fail():
    graph = grimp.ImportGraph()
    for importer, imported in (
        ("p.a", "p.b"),
        ("p.b", "p.c"),
        ("p.c", "p.a"),
        ("p.d", "p.a"),
        ("p.e", "p.f"),
        ("p.f", "p.e"),
    ):
        graph.add_import(importer=importer, imported=imported)
    assert cycles(graph) == [["p.a", "p.b", "p.c"], ["p.e", "p.f"]]


def test_the_module_list_sees_modules_and_packages(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "app.py").write_text("")
    (tmp_path / "ui").mkdir()
    (tmp_path / "ui" / "__init__.py").write_text("")
    (tmp_path / "static").mkdir()
    assert top_level_modules(tmp_path) == {"paydesk.app", "paydesk.ui"}
