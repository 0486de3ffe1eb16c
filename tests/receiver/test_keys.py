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
    path = _file(tmp_path, {"profiles": {"p1": {"test": "sk_t", "live": "sk_l", "webhook": "wh"},
                                         "p2": {"test": " "}},
                            "ledger_password": "pw"})
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


@pytest.mark.parametrize("document, problem", [
    ("{not json", "not JSON"),
    ("[]", "expected a JSON object"),
    ({"profiles": []}, "must map profile ids"),
    ({"profiles": {"p1": "sk"}}, "must be an object"),
    ({"profiles": {"p1": {"secret": "sk"}}}, "unknown key 'secret'"),
    ({"profiles": {"p1": {"test": 5}}}, "must be a string"),
    ({"ledger_password": 5}, "must be a string"),
])
def test_a_key_file_of_another_shape_is_refused_saying_why(tmp_path, document, problem):
    with pytest.raises(KeySourceError, match=problem) as caught:
        keysource.from_file(_file(tmp_path, document))
    assert "sk" not in str(caught.value).replace("keys.json", "")  # no key in the message


def test_a_missing_key_file_is_said(tmp_path):
    with pytest.raises(KeySourceError, match="No such file"):
        keysource.from_file(tmp_path / "absent.json")


async def test_the_environment_when_no_file_is_given(tmp_path):
    environ = {keysource.KEYS: json.dumps({"profiles": {"p1": {"live": "sk_l"}}}),
               keysource.LEDGER_PASSWORD: "pw"}
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
