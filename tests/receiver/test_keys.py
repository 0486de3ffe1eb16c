"""Where the receiver's keys come from: a key file (its shape, refused when others may read
it), the environment, else the system keyring; read through KeyStore like the keyring."""

from __future__ import annotations

import json
import os

import pytest

from paydesk.config.secrets import KeyStore
from paydesk.config.shared_ledger import password_entry
from paydesk.receiver import keysource
from paydesk.receiver.keysource import KeySourceError


def _file(tmp_path, document, mode=0o600):
    path = tmp_path / "keys.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    path.chmod(mode)
    return path


async def test_a_key_file_is_read_as_a_keyring(tmp_path):
    path = _file(
        tmp_path,
        {
            "profiles": {"p1": {"test": "sk_t", "live": "sk_l", "webhook": "wh"}, "p2": {"test": " "}},
            "ledger_password": "pw",
        },
    )
    keys = KeyStore(keysource.choose(str(path), environ={}))
    assert await keys.get("p1", "test", "secret") == "sk_t"
    assert await keys.get("p1", "live", "secret") == "sk_l"
    assert await keys.get("p1", "test", "webhook") == "wh"
    assert await keys.get("p2", "test", "secret") is None
    assert await keys.get_secret(password_entry("postgresql://shop@db/paydesk")) == "pw"
    assert await keys.set("p1", "test", "secret", "other") is False  # read-only: this run only
    assert "keys.json" in keys.backend_name


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_a_key_file_others_may_read_is_refused_with_what_to_do(tmp_path):
    path = _file(tmp_path, {"profiles": {}}, 0o640)
    with pytest.raises(KeySourceError, match=r"may be read by others \(mode 0640\).*chmod 600"):
        keysource.from_file(path)


# systemd's credential (LoadCredential=) on a filesystem with ACLs: written 0400, opened to
# the service's user by an ACL entry, so stat shows the ACL's mask in the group bits (0440)
ACL = "system.posix_acl_access"
USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
NO_ID = 0xFFFFFFFF


def _acl(*named):
    """An ACL as systemd leaves a credential: the owner may read, the named entries as
    given (sorted as the kernel wants them), the owning group and others nothing."""
    import struct

    entries = [(USER_OBJ, 4, NO_ID), *sorted(named), (GROUP_OBJ, 0, NO_ID), (MASK, 4, NO_ID), (OTHER, 0, NO_ID)]
    entries.sort(key=lambda e: (e[0], e[2]))
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


@pytest.fixture
def credentials(monkeypatch):
    """``credential(*named)``: a key file in a credentials directory on tmpfs (/dev/shm,
    where ACLs work), mode 0400 with an ACL naming ``named``; $CREDENTIALS_DIRECTORY set."""
    import shutil
    import tempfile
    from pathlib import Path

    if not hasattr(os, "setxattr") or not Path("/dev/shm").is_dir():
        pytest.skip("POSIX ACLs on tmpfs (Linux)")
    directory = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="paydesk-credentials-"))
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(directory))

    def credential(*named, acl=True):
        path = directory / "keys.json"
        path.unlink(missing_ok=True)
        path.write_text(json.dumps({"profiles": {"p1": {"test": "sk_t"}}}))
        path.chmod(0o400 if acl else 0o440)
        if acl:
            try:
                os.setxattr(path, ACL, _acl(*named))
            except OSError as error:
                pytest.skip(f"no POSIX ACLs on /dev/shm here: {error}")
            assert oct(os.stat(path).st_mode & 0o777) == oct(0o440)  # as systemd leaves it
        return path

    yield credential
    shutil.rmtree(directory)


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
async def test_a_systemd_credential_opened_to_this_user_by_an_acl_is_read(credentials, monkeypatch):
    path = credentials((USER, 4, os.geteuid()))
    keys = KeyStore(keysource.from_file(path))
    assert await keys.get("p1", "test", "secret") == "sk_t"
    monkeypatch.delenv("CREDENTIALS_DIRECTORY")  # the same file, not a credential: refused
    with pytest.raises(KeySourceError, match=r"may be read by others \(mode 0440\)"):
        keysource.from_file(path)


@pytest.mark.parametrize(
    "named",
    [
        [(GROUP, 4, 0)],  # a named group may read it
        [(USER, 4, "me"), (USER, 4, "another")],  # another user may
        None,  # no ACL at all: the group bits are the owning group's, who may read it
    ],
    ids=["named group", "another user", "no ACL"],
)
def test_a_credential_others_may_read_is_refused(credentials, named):
    me = os.geteuid()
    ids = {"me": me, "another": 65534 if me != 65534 else 65533}
    if named is None:
        path = credentials(acl=False)
    else:
        path = credentials(*[(tag, perm, ids.get(who, who)) for tag, perm, who in named])
    with pytest.raises(KeySourceError, match=r"may be read by others \(mode 0440\)"):
        keysource.from_file(path)


@pytest.mark.parametrize(
    "document, problem",
    [
        ("{not json", "not JSON"),
        ("[]", "expected a JSON object"),
        ({"profiles": []}, "must map profile ids"),
        ({"profiles": {"p1": "sk"}}, "must be an object"),
        ({"profiles": {"p1": {"secret": "sk"}}}, "unknown key 'secret'"),
        ({"profiles": {"p1": {"test": 5}}}, "must be a string"),
        ({"ledger_password": 5}, "must be a string"),
    ],
)
def test_a_key_file_of_another_shape_is_refused_saying_why(tmp_path, document, problem):
    with pytest.raises(KeySourceError, match=problem) as caught:
        keysource.from_file(_file(tmp_path, document))
    assert "sk" not in str(caught.value).replace("keys.json", "")  # no key in the message


def test_a_missing_key_file_is_said(tmp_path):
    with pytest.raises(KeySourceError, match="No such file"):
        keysource.from_file(tmp_path / "absent.json")


async def test_the_environment_when_no_file_is_given(tmp_path):
    environ = {keysource.KEYS: json.dumps({"profiles": {"p1": {"live": "sk_l"}}}), keysource.LEDGER_PASSWORD: "pw"}
    keys = KeyStore(keysource.choose(None, environ))
    assert await keys.get("p1", "live", "secret") == "sk_l"
    assert await keys.get_secret("shared-ledger/shop@db:5432/paydesk") == "pw"
    assert keys.backend_name == "the environment"
    # the file's variable wins over the keys in the environment
    path = _file(tmp_path, {"profiles": {"p1": {"live": "from the file"}}})
    keys = KeyStore(keysource.choose(None, {**environ, keysource.KEYS_FILE: str(path)}))
    assert await keys.get("p1", "live", "secret") == "from the file"
    # nothing given: the system keyring, as the desk uses it
    assert keysource.choose(None, {}) is None
