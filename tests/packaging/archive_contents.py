"""Run by test_bundle.py with the build environment's Python (which has PyInstaller): every
entry of the bundle's executable archive and of the Python modules archive inside it, and
which of them hold text matching a pattern. Prints JSON: {"entries": [...], "hits": {...}}."""

import json
import re
import sys

from PyInstaller.archive.readers import CArchiveReader

executable, *patterns = sys.argv[1:]
found = [re.compile(p.encode()) for p in patterns]
pkg = CArchiveReader(executable)
entries, hits = [], {}
for name, (*_, typecode) in pkg.toc.items():
    entries.append(name)
    if typecode == "z":  # the PYZ: compiled modules
        pyz = pkg.open_embedded_archive(name)
        for module in pyz.toc:
            entries.append(module)
            data = pyz.extract(module, raw=True)
            hits.update((module, p.pattern.decode()) for p in found if p.search(data or b""))
    elif typecode not in ("o", "d"):  # options and dependencies carry no data
        data = pkg.extract(name)
        hits.update((name, p.pattern.decode()) for p in found if p.search(data or b""))
print(json.dumps({"entries": entries, "hits": hits}))
