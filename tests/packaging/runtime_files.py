"""What the running PayDesk reads from its own package, derived from a source tree (this
working tree, or the clean checkout a build was made from), for the wheel and bundle checks.

Two views, so that a check built on them can fail:
- ``package_files``: every data file of the package as the source tree lays it out, i.e.
  the non-Python files under desktop/paydesk/ and resources/ (the package
  ``paydesk.resources``, its ``__init__.py`` included, which ``resource()`` lives in), as
  paths inside an installed tree ("paydesk/sandbox/templates/base.html"). A new template,
  script or icon joins it by being added to the source; the wheel and bundle must follow.
- ``read_by_the_app``: what the code names when it reads one (``resource("paydesk.svg")``,
  ``resources.files(...).joinpath(...)``, Jinja's ``PackageLoader``), found by reading the
  code, with every module that reaches for package files at all accounted for."""

from __future__ import annotations

import re
from pathlib import Path

# In resources/ but neither read by the app nor installed: software centres fetch the
# metainfo's screenshot from its URL (<image> in the metainfo).
NOT_SHIPPED = ("screenshots/",)

READ_PATTERNS = {
    # paydesk.resources.path, imported as `resource`: a file of resources/
    r'\bresource\(\s*f?"([^"{}]+)"\s*\)': lambda m: [f"paydesk/resources/{m[1]}"],
    # importlib.resources.files("paydesk.x").joinpath("a/b")
    r'\bfiles\(\s*"([\w.]+)"\s*\)\.joinpath\(\s*"([^"]+)"\s*\)': lambda m: [m[1].replace(".", "/") + "/" + m[2]],
    # paydesk/i18n.py's catalogues, found beside the module: the whole folder
    r'\bLOCALE_DIR = Path\(__file__\)\.with_name\(\s*"([^"]+)"\s*\)': lambda m: [f"paydesk/{m[1]}/"],
    # jinja2.PackageLoader("paydesk.x", "templates"): the whole folder
    r'\bPackageLoader\(\s*"([\w.]+)"\s*,\s*"([^"]+)"\s*\)': lambda m: [m[1].replace(".", "/") + "/" + m[2] + "/"],
}
# any of these in a module means it reads files of its own package
READS_PACKAGE_FILES = re.compile(
    r"importlib\.resources|from importlib import resources|"
    r"PackageLoader|\.resources import|__file__|pkgutil\.get_data"
)


def package_files(source: Path) -> set[str]:
    """Every file the package carries besides its compiled code, from the source tree."""
    found = set()
    code = source / "desktop" / "paydesk"
    for path in code.rglob("*"):
        rel = path.relative_to(code).as_posix()
        # the catalogues' sources (.po, .pot) are the translators'; the app reads the .mo
        if path.is_file() and "__pycache__" not in rel and path.suffix not in (".py", ".pyc", ".po", ".pot"):
            found.add(f"paydesk/{rel}")
    resources = source / "resources"
    for path in resources.rglob("*"):
        rel = path.relative_to(resources).as_posix()
        if path.is_file() and "__pycache__" not in rel and path.suffix != ".pyc" and not rel.startswith(NOT_SHIPPED):
            found.add(f"paydesk/resources/{rel}")
    return found


def read_by_the_app(source: Path) -> tuple[set[str], list[str]]:
    """(what the code reads: files, or folders ending in "/"; modules that reach for package
    files in a way none of READ_PATTERNS recognises)."""
    reads, unexplained = set(), []
    code = source / "desktop" / "paydesk"
    for module in sorted(code.rglob("*.py")):
        text = module.read_text("utf-8")
        named = [
            p for pattern, to_paths in READ_PATTERNS.items() for m in re.finditer(pattern, text) for p in to_paths(m)
        ]
        reads.update(named)
        if READS_PACKAGE_FILES.search(text) and not named:
            unexplained.append(module.relative_to(source).as_posix())
    return reads, unexplained


def missing(reads: set[str], files: set[str]) -> list[str]:
    """What the app reads that ``files`` does not hold: a file, or a folder with nothing in it."""

    def held(read: str) -> bool:
        return any(f.startswith(read) for f in files) if read.endswith("/") else read in files

    return sorted(r for r in reads if not held(r))
