"""No notification to a link-local or private address (a cloud's metadata address, 10/8, ...):
checked on the addresses actually connected to, so a host name is judged by what it resolves
to; loopback only while the sandbox itself listens on loopback. A refused attempt is a row of
``GET _sandbox/notifications`` ("refused: ... is a private address"), never retried.

The sandbox's own loopback case (PayDesk's receiver on 127.0.0.1) is what every other
notification test does: tests/sandbox/test_notifications.py, test_family_webhook.py."""

import ipaddress
import socket
import time

import httpx
import pytest

from paydesk.sandbox.outbound import listens_on_loopback, why_refused
from tests.helpers import payment
from tests.waiting import until

PRIVATE = [
    "169.254.169.254",
    "10.0.0.1",
    "192.168.1.1",
    "172.16.0.1",
    "100.64.0.1",
    "[fd00::1]",
    "[fe80::1]",
    "[::ffff:10.0.0.1]",
    "0.0.0.0",
]


def _pay(c, tx_ref, **over):
    url = c.post("/api/payment", json=payment(tx_ref, **over)).json()["data"]["checkout_url"]
    c.post(f"/_sandbox/pay/{url.rsplit('/', 1)[1]}", json={"outcome": "success"}).raise_for_status()


def _refused_once(c):
    """The one logged attempt of the one notification, after room for a retry."""
    until(lambda: c.get("/_sandbox/notifications").json()["data"], what="the attempt logged")
    time.sleep(0.4)  # the tests' backoff is 0.05 s: a retry would be logged by now
    (attempt,) = c.get("/_sandbox/notifications").json()["data"]
    assert attempt["status_code"] is None and attempt["attempt"] == 1
    return attempt["error"]


@pytest.mark.parametrize("host", PRIVATE)
def test_the_document_notifies_no_private_address(sandbox, host):
    with sandbox.client() as c:
        c.put("/_sandbox/webhook", json={"url": f"http://{host}:8080/hooks"}).raise_for_status()
        _pay(c, "PRIV-1")
        error = _refused_once(c)
    assert error.startswith(f"refused: {host.strip('[]')} is a private address"), error


@pytest.mark.parametrize("host", ["169.254.169.254", "[fd00::1]", "10.0.0.1"])
def test_the_family_notifies_no_private_address(make_sandbox, host):
    sb = make_sandbox("fam", family=True, webhook_url=f"http://{host}/hooks")
    with sb.client() as c:
        _pay(c, "PRIV-F")
        error = _refused_once(c)
    assert error.startswith(f"refused: {host.strip('[]')} is a private address"), error


def test_a_callback_url_to_the_metadata_address_is_refused_and_the_webhook_still_sent(sandbox, listener):
    with sandbox.client() as c:
        c.put("/_sandbox/webhook", json={"url": listener.url}).raise_for_status()
        _pay(c, "PRIV-2", callback_url="http://169.254.169.254/latest/meta-data/")
        until(lambda: len(c.get("/_sandbox/notifications").json()["data"]) == 2, what="both attempts logged")
        log = {n["url"]: n for n in c.get("/_sandbox/notifications").json()["data"]}
    refused = log["http://169.254.169.254/latest/meta-data/"]
    assert refused["error"] == "refused: 169.254.169.254 is a private address (link-local)"
    assert log[listener.url]["status_code"] == 200 and len(listener.received) == 1


def _non_loopback_address() -> str:
    """The machine's address on its default route (a UDP socket's connect sends nothing),
    else every address (0.0.0.0): a sandbox listening there does not listen on loopback."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
    except OSError:
        return "0.0.0.0"
    return "0.0.0.0" if ipaddress.ip_address(address).is_loopback else address


def test_a_name_resolving_to_loopback_is_refused_when_the_sandbox_is_not_on_loopback(make_sandbox, listener):
    host = _non_loopback_address()
    sb = make_sandbox("public", host=host)
    assert not listens_on_loopback(host)
    # "localhost" resolves to 127.0.0.1 only when connected to: the name itself is no address
    hook = listener.url.replace("127.0.0.1", "localhost")
    reach = sb.base_url.replace("0.0.0.0", "127.0.0.1")
    headers = {"Authorization": f"Bearer {sb.key()}", "Accept": "application/json"}
    with httpx.Client(base_url=reach, headers=headers, timeout=10) as c:
        c.put("/_sandbox/webhook", json={"url": hook}).raise_for_status()
        _pay(c, "PRIV-3", callback_url=listener.url)  # and 127.0.0.1 itself
        until(lambda: len(c.get("/_sandbox/notifications").json()["data"]) == 2, what="both attempts logged")
        time.sleep(0.4)
        errors = sorted(n["error"] for n in c.get("/_sandbox/notifications").json()["data"])
    loopback = "a private address (loopback, while the sandbox does not listen on loopback)"
    assert errors == [f"refused: 127.0.0.1 is {loopback}", f"refused: localhost (127.0.0.1) is {loopback}"]
    assert listener.received == []


@pytest.mark.parametrize(
    "address, loopback_ok",
    [
        ("169.254.169.254", False),
        ("10.0.0.1", False),
        ("172.31.255.255", False),
        ("192.168.1.1", False),
        ("100.64.0.1", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("240.0.0.1", False),
        ("255.255.255.255", False),
        ("198.18.0.1", False),
        ("fd00::1", False),
        ("fe80::1", False),
        ("fec0::1", False),
        ("::", False),
        ("ff02::1", False),
        ("::ffff:10.0.0.1", False),
        ("::ffff:169.254.169.254", False),
        ("64:ff9b::a00:1", False),  # NAT64 of 10.0.0.1
        ("2002:a00:1::", False),  # 6to4 of 10.0.0.1
        ("127.0.0.1", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("127.0.0.2", True),
    ],
)
def test_the_rule_on_each_kind_of_address(address, loopback_ok):
    ip = ipaddress.ip_address(address)
    assert why_refused(ip, allow_loopback=False)
    assert (why_refused(ip, allow_loopback=True) is None) == loopback_ok


@pytest.mark.parametrize("address", ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "::ffff:1.1.1.1"])
def test_public_addresses_are_notified(address):
    assert why_refused(ipaddress.ip_address(address), allow_loopback=False) is None


@pytest.mark.parametrize(
    "host, loopback",
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.0.2.2", False),
        ("shop.example", False),
    ],
)
def test_what_listening_on_loopback_means(host, loopback):
    assert listens_on_loopback(host) is loopback


def test_a_name_is_connected_to_by_the_address_it_was_judged_on(sandbox, listener):
    """On loopback (the embedded case) "localhost" may be notified: the backend resolved it,
    judged 127.0.0.1 and connected to that number, while the request still names the host
    it was sent to (Host header; for https, the name the certificate is checked against)."""
    port = listener.url.split(":")[2].split("/")[0]
    with sandbox.client() as c:
        c.put("/_sandbox/webhook", json={"url": listener.url.replace("127.0.0.1", "localhost")}).raise_for_status()
        _pay(c, "PRIV-4")
    until(lambda: listener.received, what="the notification")
    assert listener.received[0]["headers"]["Host"] == f"localhost:{port}"
