"""Who answers at the embedded sandbox's address: this computer's sandbox (its own data,
served by another PayDesk window or by a ``paydesk-sandbox`` started on its own), another
deployment, another program, or nobody. Qt-free, blocking: run it on a worker thread.

The check never sends a secret key. It sends the sandbox's public test key (the key a
merchant publishes on web pages) and, as a control, a made-up key of the same shape, to a
route that takes secret keys only and that every dialect serves (``verify-payment``). The
embedded sandbox knows its public key and refuses it as "the wrong kind of key"; it refuses
the made-up one as unknown. The dialects say so with different statuses (strict: 403 and
401; ``--quirks`` and ``--family``: 400 both), so the two refusals are told apart by their
status or, failing that, by their message. A service that treats the two alike does not
hold this sandbox's merchants: it is another deployment (or another program), and PayDesk's
keys are never sent to it.

Which program serves it is told by ``served-by.json`` in the sandbox's folder: the PayDesk
window that serves the sandbox on its usual port writes it (host, process, port) and removes
it when it stops. A live owner on that port is "another PayDesk window"; anything else
serving this sandbox's data is a ``paydesk-sandbox`` started on its own.
"""

from __future__ import annotations

import json
import secrets
import string
from enum import Enum
from pathlib import Path

from ..ledger.owner import gone, this_process

PROBE_PATH = "/api/verify-payment/PAYDESK-IDENTITY-PROBE"  # served by every dialect
REFUSALS = (400, 401, 403)  # how the dialects refuse a key
OWNER_FILE = "served-by.json"
TIMEOUT = 2.0


class Answer(Enum):
    OURS = "ours"  # this computer's sandbox: it knows the sandbox's own public key
    OTHER_SERVICE = "other-service"  # another deployment: it answers like the service, without our merchant
    OTHER_PROGRAM = "other-program"  # something else listens there (or never answers)
    NOBODY = "nobody"  # nothing listens: connection refused


def public_test_key(sandbox_dir: Path) -> str | None:
    """The sandbox's own public test key (its first merchant's), from its folder."""
    try:
        merchants = json.loads((sandbox_dir / "merchants.json").read_text("utf-8"))
        return merchants[0]["keys"]["test"]["public"]
    except (OSError, ValueError, LookupError, TypeError):
        return None


def _ask(base_url: str, key: str, timeout: float) -> tuple[int, dict | None] | None:
    """The HTTP status and JSON body of the probe with ``key``; None when nothing listens."""
    import urllib.error  # here: not on the way to the window's first paint
    import urllib.request

    request = urllib.request.Request(
        f"{base_url.rstrip('/')}{PROBE_PATH}", headers={"Authorization": f"Bearer {key}", "Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status, body = answer.status, answer.read(65536)
    except urllib.error.HTTPError as answer:
        status, body = answer.code, answer.read(65536)
    except urllib.error.URLError as error:
        if isinstance(error.reason, ConnectionRefusedError):
            return None
        return 0, None
    except ConnectionRefusedError:
        return None
    except (OSError, ValueError):
        return 0, None  # it took the connection but gave no answer we can read
    try:
        parsed = json.loads(body)
    except ValueError:
        return status, None
    return status, parsed if isinstance(parsed, dict) else None


def _made_up_like(key: str) -> str:
    """A key of the same shape as ``key`` that no service can know."""
    head, _, body = key.rpartition("-")
    alphabet = string.ascii_letters + string.digits
    made_up = "".join(secrets.choice(alphabet) for _ in range(max(len(body), 32)))
    return f"{head}-{made_up}" if head else made_up


def identify(base_url: str, public_key: str | None, timeout: float = TIMEOUT) -> Answer:
    """Who answers at ``base_url`` (see the module's text)."""
    if not public_key:
        return Answer.OTHER_PROGRAM  # nothing to recognise it by: never trust it
    ours = _ask(base_url, public_key, timeout)
    if ours is None:
        return Answer.NOBODY
    status, body = ours
    said = _refusal(status, body)
    if not said:
        return Answer.OTHER_PROGRAM
    made_up = _made_up_like(public_key)
    control = _ask(base_url, made_up, timeout)
    control_said = _refusal(*control) if control is not None else None
    if control is not None and control_said:
        mine, made_up = (said.replace(public_key, ""), control_said.replace(made_up, ""))  # an echoed key tells nothing
        if control[0] != status or mine != made_up:
            return Answer.OURS  # it knows our public key from a key it never issued
    return Answer.OTHER_SERVICE


def _refusal(status: int, body: dict | None) -> str | None:
    """The message of a refusal of a key as the service refuses one (a refusal status and a
    message); None when it is not one."""
    if status in REFUSALS and body is not None and isinstance(body.get("message"), str):
        return body["message"] or None
    return None


# -- which program serves it --------------------------------------------------------------


def claim(sandbox_dir: Path, port: int) -> None:
    """This process serves the sandbox on its usual ``port``."""
    path = sandbox_dir / OWNER_FILE
    tmp = path.with_name(f".{OWNER_FILE}.{secrets.token_hex(4)}.tmp")
    tmp.write_text(json.dumps({"owner": this_process(), "port": port}), "utf-8")
    tmp.replace(path)


def release(sandbox_dir: Path) -> None:
    """This process stopped serving it (another's claim is left alone)."""
    path = sandbox_dir / OWNER_FILE
    try:
        if json.loads(path.read_text("utf-8")).get("owner") == this_process():
            path.unlink()
    except (OSError, ValueError, AttributeError):
        pass


def served_by_paydesk(sandbox_dir: Path, port: int) -> bool:
    """Is ``port`` served by another PayDesk window that is still running? (One in this
    very process counts: the claim is released when a window's sandbox stops.)"""
    try:
        served = json.loads((sandbox_dir / OWNER_FILE).read_text("utf-8"))
        owner, claimed = served["owner"], served["port"]
    except (OSError, ValueError, LookupError, TypeError):
        return False
    return claimed == port and not gone(owner)
