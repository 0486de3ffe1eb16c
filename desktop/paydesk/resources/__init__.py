"""Icons and other files shipped with PayDesk."""

from importlib import resources
from pathlib import Path


def path(name: str) -> Path:
    return Path(str(resources.files(__name__).joinpath(name)))
