"""What a release is called and when it was made, from PayDesk's one version source
(``paydesk.__version__``) and the newest release in the AppStream metainfo, which must agree."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import paydesk

ROOT = Path(__file__).resolve().parent.parent
METAINFO = next((ROOT / "resources").glob("*.metainfo.xml"))


@dataclass(frozen=True)
class Release:
    version: str
    date: datetime
    notes: list[str]
    homepage: str
    metainfo: Path


def current(metainfo: Path = METAINFO) -> Release:
    tree = ET.parse(metainfo).getroot()
    newest = tree.find("releases/release")
    if newest is None or newest.get("version") != paydesk.__version__:
        raise SystemExit(
            f"{metainfo.name}: the newest <release> is "
            f"{None if newest is None else newest.get('version')!r}, but paydesk.__version__ is "
            f"{paydesk.__version__!r}: add a <release> for it before packaging"
        )
    date = datetime.fromisoformat(newest.get("date")).replace(tzinfo=UTC)
    notes = [" ".join(p.text.split()) for p in newest.iterfind("description/p") if p.text]
    return Release(
        version=paydesk.__version__,
        date=date,
        notes=notes,
        homepage=tree.findtext("url[@type='homepage']", ""),
        metainfo=metainfo,
    )
