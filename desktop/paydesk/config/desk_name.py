"""A desk's name: how the shop's other desks and its counters' shifts name this installation
(Qt-free).

By default a desk goes by its computer's name; on a shared ledger where another desk of
the shop goes by that name already (two computers called alike), by the computer's name
and its installation's id (``default_names``: the ledger's ``desks`` table says which is
free). A person may name the desk (Settings → Shared ledger…): the name is kept in this
installation's settings file, and on a shared ledger it is the shop's only desk of that name.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator

NAME_MOST = 40  # characters: said in status bars, printed on shift reports
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def computer_name() -> str:
    """This computer's name (``socket.gethostname()``), else "Desk"."""
    try:
        name = socket.gethostname().strip()
    except OSError:  # pragma: no cover - a host with no name at all
        name = ""
    return name[:NAME_MOST] or "Desk"


def default_names(computer: str, installation: str) -> Iterator[str]:
    """The names a desk goes by unless named, first free first: the computer's name, then
    with the installation's id ("vm (K7QM4X)"), then numbered."""
    yield computer
    yield f"{computer} ({installation})"
    number = 2
    while True:
        yield f"{computer} ({installation}) {number}"
        number += 1


def name_problem(name: str) -> str | None:
    """What is wrong with a desk's name as typed (empty: the default name), or None."""
    text = name.strip()
    if len(text) > NAME_MOST:
        return f"At most {NAME_MOST} characters"
    if _CONTROL.search(text):
        return "One line of text, without control characters"
    return None
