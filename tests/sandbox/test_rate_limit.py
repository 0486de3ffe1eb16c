"""The server's throttle (``--rate-limit N/min``; ``--family``'s 60 a minute): counted per
client address across merchants and modes, on the /api routes only, a fixed window from
the first request, refusals not counted, the real headers and body, and the control API
that reads and resets it. Two client addresses on one machine: the client binds its end of
the connection to 127.0.0.2 (Linux routes all of 127.0.0.0/8 to loopback)."""

import time

import httpx
import pytest

from tests.helpers import payment
from tests.waiting import until


def _from(sb, address="127.0.0.1", mode="test", merchant=0, accept="application/json", kind="secret"):
    """A client of ``sb`` whose connections come from ``address``."""
    headers = {"Authorization": f"Bearer {sb.key(mode, kind, merchant)}"}
    if accept:
        headers["Accept"] = accept
    return httpx.Client(
        base_url=sb.base_url, headers=headers, timeout=10, transport=httpx.HTTPTransport(local_address=address)
    )


def _window(sb, key_of=("test", "secret", 0)):
    mode, kind, merchant = key_of
    r = httpx.get(
        sb.base_url + "/_sandbox/rate-limit",
        timeout=10,
        headers={"Authorization": f"Bearer {sb.key(mode, kind, merchant)}", "Accept": "application/json"},
    )
    assert r.status_code in (200, 201), r.text
    return r.json()["data"]


def test_the_family_allows_60_a_minute_per_client_address(make_sandbox):
    sb = make_sandbox("fam60", family=True, base_path="/pay", rate_limit=None)  # its own
    with _from(sb) as c, _from(sb, mode="live") as live, _from(sb, merchant=1) as other:
        started = time.time()
        seen = []
        for n in range(60):
            # any merchant, any mode, from one address: one window
            client = (c, live, other)[n % 3]
            r = client.get("/api/verify-payment/NOPE")
            if n == 0:  # the window starts at the first hit, between these two moments
                first_answered = time.time()
            assert r.status_code == 404 and r.json()["message"] == "Invalid transaction"
            seen.append((r.headers["X-RateLimit-Limit"], r.headers["X-RateLimit-Remaining"]))
            assert "Retry-After" not in r.headers and "X-RateLimit-Reset" not in r.headers
        assert seen == [("60", str(59 - n)) for n in range(60)]
        r = c.get("/api/verify-payment/NOPE")
        assert r.status_code == 429
        assert r.json() == {"message": "Too Many Attempts."}
        assert r.headers["X-RateLimit-Limit"] == "60" and r.headers["X-RateLimit-Remaining"] == "0"
        wait = int(r.headers["Retry-After"])
        reset = int(r.headers["X-RateLimit-Reset"])
        assert 1 <= wait <= 60
        # (int(started) + 60 fell one short when the first hit crossed a second's edge)
        assert int(started) + 60 <= reset <= int(first_answered) + 60
        assert reset >= int(time.time()) + wait - 1
        # a payment creation is refused the same way, and nothing is made
        assert c.post("/api/payment", json=payment("T-LATE")).status_code == 429
        assert live.get("/api/virtual_card/all").status_code == 429
        # refused requests are not counted: the window still holds 60 hits
        assert _window(sb)["clients"]["127.0.0.1"]["used"] == 60
        # the checkout pages and the sandbox's control routes are not the framework's /api
        r = httpx.get(sb.base_url + "/payment/PDK-" + "0" * 32)
        assert r.status_code == 404 and "X-RateLimit-Limit" not in r.headers
        r = c.get("/_sandbox/requests")
        assert r.status_code == 201 and "X-RateLimit-Limit" not in r.headers
        # a route the family does not have is not counted either (no route, no throttle)
        r = c.get("/api/transaction/NOPE")
        assert r.status_code == 404 and "X-RateLimit-Limit" not in r.headers
    with _from(sb, "127.0.0.2") as elsewhere:  # another client address: its own window
        r = elsewhere.get("/api/verify-payment/NOPE")
        assert r.status_code == 404
        assert r.headers["X-RateLimit-Remaining"] == "59"
    with _from(sb) as c:
        r = c.get("/api/verify-payment/T-LATE")
        assert r.status_code == 429  # still this address's full window


def test_a_forwarded_for_header_is_not_an_address(make_sandbox):
    sb = make_sandbox("xff", family=True, rate_limit=2)
    with _from(sb) as c:
        for n in range(2):
            c.get("/api/verify-payment/X", headers={"X-Forwarded-For": f"10.0.0.{n + 1}"})
        r = c.get("/api/verify-payment/X", headers={"X-Forwarded-For": "10.0.0.9"})
        assert r.status_code == 429
    assert list(_window(sb)["clients"]) == ["127.0.0.1"]


def test_a_fixed_window_from_the_first_request(make_sandbox):
    """Laravel's counter starts at the first hit and expires with its timer: hits late in a
    window do not keep it going (a sliding window would still hold them after it)."""
    sb = make_sandbox("fixed", family=True, rate_limit=3, rate_limit_window=3)
    with _from(sb) as c:
        first = c.get("/api/verify-payment/X")
        assert first.headers["X-RateLimit-Remaining"] == "2"
        resets_at = _window(sb)["clients"]["127.0.0.1"]["resets_at"]
        time.sleep(1.1)
        assert c.get("/api/verify-payment/X").headers["X-RateLimit-Remaining"] == "1"
        assert c.get("/api/verify-payment/X").headers["X-RateLimit-Remaining"] == "0"
        refused = c.get("/api/verify-payment/X")
        assert refused.status_code == 429
        assert int(refused.headers["X-RateLimit-Reset"]) == resets_at
        assert int(refused.headers["Retry-After"]) == resets_at - int(time.time())
        until(lambda: time.time() >= resets_at + 0.05, 5, "the window's end")
        # a new window: the two late hits went with the old one
        after = c.get("/api/verify-payment/X")
        assert after.status_code == 404 and after.headers["X-RateLimit-Remaining"] == "2"
        assert _window(sb)["clients"]["127.0.0.1"]["resets_at"] >= resets_at + 3


def test_refusals_do_not_move_the_window(make_sandbox):
    sb = make_sandbox("refused", family=True, rate_limit=1, rate_limit_window=2)
    with _from(sb) as c:
        assert c.get("/api/verify-payment/X").status_code == 404
        resets_at = _window(sb)["clients"]["127.0.0.1"]["resets_at"]
        statuses = []
        while time.time() < resets_at - 0.3:  # hammering, refused, until the window's end
            statuses.append(c.get("/api/verify-payment/X").status_code)
            time.sleep(0.05)
        assert statuses and set(statuses) == {429}
        until(lambda: time.time() >= resets_at + 0.05, 5, "the window's end")
        assert c.get("/api/verify-payment/X").status_code == 404  # on time


@pytest.mark.parametrize("dialect", ["strict", "quirks"])
def test_any_dialect_takes_a_rate_limit_in_its_own_envelope(make_sandbox, dialect):
    sb = make_sandbox(dialect, quirks=dialect == "quirks", rate_limit=2)
    with _from(sb) as c:
        assert c.post("/api/payment", json=payment("RL-1")).status_code == 201
        r = c.get("/api/transaction/RL-1")
        assert r.status_code in (200, 201, 404)
        assert (r.headers["X-RateLimit-Limit"], r.headers["X-RateLimit-Remaining"]) == ("2", "0")
        r = c.get("/api/transaction/RL-1")
        assert r.status_code == 429
        assert r.json() == {
            "status": "failed",
            "message": "Too Many Attempts.",
            "data": "null" if dialect == "quirks" else None,
        }
        assert r.headers["Retry-After"].isdigit() and r.headers["X-RateLimit-Reset"].isdigit()
        assert r.headers["X-RateLimit-Remaining"] == "0"


def test_strict_and_quirks_are_not_throttled_unless_asked(make_sandbox):
    sb = make_sandbox("plain", rate_limit=None)
    with _from(sb) as c:
        r = c.get("/api/transaction/NOPE")
        assert r.status_code == 404 and "X-RateLimit-Limit" not in r.headers
    assert _window(sb) == {"limit": None, "window_seconds": 60, "clients": {}}


def test_without_accept_json_the_family_answers_its_page(make_sandbox):
    sb = make_sandbox("page", family=True, rate_limit=1)
    with _from(sb, accept=None) as c:
        c.get("/api/verify-payment/X")
        r = c.get("/api/verify-payment/X")
        assert r.status_code == 429 and r.headers["content-type"].startswith("text/html")
        assert "Too Many Requests" in r.text
        assert r.headers["X-RateLimit-Remaining"] == "0" and r.headers["Retry-After"].isdigit()


def test_a_browsers_call_refused_can_still_be_read(make_sandbox):
    """CORS answers before the throttle and on its refusals: a preflight is never counted,
    and a 429 carries Access-Control-Allow-Origin."""
    sb = make_sandbox("cors", family=True, rate_limit=1)
    with _from(sb, kind="public") as browser:
        for _ in range(3):
            r = browser.options(
                "/api/js_transfer", headers={"Origin": "https://shop.example", "Access-Control-Request-Method": "POST"}
            )
            assert r.status_code == 204 and "X-RateLimit-Limit" not in r.headers
        browser.post("/api/js_transfer", json={})
        r = browser.post("/api/js_transfer", json={}, headers={"Origin": "https://shop.example"})
        assert r.status_code == 429 and r.headers["Access-Control-Allow-Origin"] == "*"
    assert _window(sb)["clients"]["127.0.0.1"]["used"] == 1


def test_the_control_api_reads_and_resets_the_window(make_sandbox):
    sb = make_sandbox("control", family=True, rate_limit=5)
    with _from(sb) as one, _from(sb, "127.0.0.2") as two:
        for _ in range(3):
            one.get("/api/verify-payment/X")
        two.get("/api/verify-payment/X")
    # any merchant's secret key, of either mode: the throttle is the server's
    seen = _window(sb, ("live", "secret", 1))
    assert seen["limit"] == 5 and seen["window_seconds"] == 60
    assert {a: (c["used"], c["remaining"]) for a, c in seen["clients"].items()} == {
        "127.0.0.1": (3, 2),
        "127.0.0.2": (1, 4),
    }
    assert all(c["resets_at"] > time.time() for c in seen["clients"].values())
    key = {"Authorization": f"Bearer {sb.key()}", "Accept": "application/json"}
    url = sb.base_url + "/_sandbox/rate-limit"
    r = httpx.delete(url, params={"client": "127.0.0.2"}, headers=key)
    assert list(r.json()["data"]["clients"]) == ["127.0.0.1"]
    r = httpx.delete(url, headers=key)
    assert r.json()["data"]["clients"] == {}
    with _from(sb) as one:
        assert one.get("/api/verify-payment/X").headers["X-RateLimit-Remaining"] == "4"
    # a public key or none: refused
    assert (
        httpx.get(
            url, headers={"Authorization": f"Bearer {sb.key(kind='public')}", "Accept": "application/json"}
        ).status_code
        == 400
    )
    assert httpx.delete(url, headers={"Accept": "application/json"}).status_code == 400
    assert _window(sb)["clients"]["127.0.0.1"]["used"] == 1


def _limit_header(base, secret):
    r = httpx.get(base + "/api/verify-payment/X", headers={"Authorization": f"Bearer {secret}"})
    return r.headers.get("X-RateLimit-Limit")


@pytest.mark.parametrize(
    "args,limit",
    [
        (["--family"], "60"),
        (["--family", "--rate-limit", "off"], None),
        (["--family", "--rate-limit", "0"], None),
        (["--rate-limit", "5/min"], "5"),
        (["--quirks", "--rate-limit", "100/hour"], "100"),
        ([], None),
    ],
)
def test_the_rate_limit_from_the_command_line(tmp_path, args, limit):
    import json

    from tests.sandbox.test_cli import _start, _stop

    proc, base = _start(tmp_path, *args)
    try:
        secret = json.loads((tmp_path / "merchants.json").read_text())[0]["keys"]["test"]["secret"]
        assert _limit_header(base, secret) == limit
    finally:
        _stop(proc)


@pytest.mark.parametrize("value", ["fast", "5/fortnight", "-1", "5/0s"])
def test_a_rate_limit_it_cannot_read_is_refused(tmp_path, value):
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "paydesk.sandbox", "--data-dir", str(tmp_path), "--rate-limit", value],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "--rate-limit" in r.stderr
