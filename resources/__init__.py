"""Files PayDesk reads at run time and its desktop integration: the icon (SVG, and PNGs at the
freedesktop sizes in icons/), the desktop entry and the AppStream metainfo.

This folder is the package ``paydesk.resources`` (mapped by pyproject.toml), so the wheel
and the PyInstaller bundle carry it; the .deb also installs its files where the desktop
looks for them."""

from importlib import resources
from pathlib import Path


def path(name: str) -> Path:
    """The file ``name`` (e.g. "paydesk.svg" or "icons/48x48/paydesk.png") on disk."""
    return Path(str(resources.files(__name__).joinpath(name)))
