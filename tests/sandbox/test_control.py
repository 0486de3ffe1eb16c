"""The sandbox control API and fault injection."""

import time

import httpx
import pytest

from tests.helpers import payment


def _ref(c, tx_ref):
    return c.post("/api/payment", json=payment(tx_ref)).json()["data"]["checkout_url"].rsplit("/", 1)[1]


def test_pay_outcomes_and_final_states(sandbox):
    with sandbox.client() as c:
        for outcome in ("success", "failed", "cancelled"):
            ref = _ref(c, f"P-{outcome}")
            r = c.post(f"/_sandbox/pay/{ref}", json={"outcome": outcome})
            assert r.status_code == 200 and r.json()["data"]["status"] == outcome
            again = c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"})
            assert again.status_code == 409
            assert c.get(f"/api/transaction/P-{outcome}").json()["data"]["status"] == outcome
        r = c.post(f"/_sandbox/pay/{_ref(c, 'P-x')}", json={"outcome": "maybe"})
        assert r.status_code == 400 and "outcome" in r.json()["errors"]


def test_refund_and_reverse(sandbox):
    with sandbox.client() as c:
        ref = _ref(c, "R-1")
        r = c.post(f"/_sandbox/transactions/{ref}/status", json={"status": "refunded"})
        assert r.status_code == 409  # only a paid one
        c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"})
        r = c.post(f"/_sandbox/transactions/{ref}/status", json={"status": "refunded"})
        assert r.json()["data"]["status"] == "refunded"
        assert c.get("/api/transaction/R-1").json()["data"]["status"] == "refunded"
        ref2 = _ref(c, "R-2")
        c.post(f"/_sandbox/pay/{ref2}", json={"outcome": "success"})
        assert (
            c.post(f"/_sandbox/transactions/{ref2}/status", json={"status": "reversed"}).json()["data"]["status"]
            == "reversed"
        )


def test_control_needs_the_owning_key(sandbox):
    with sandbox.client() as c:
        ref = _ref(c, "O-1")
    with sandbox.client("live") as live:
        assert live.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"}).status_code == 400
    assert httpx.post(sandbox.base_url + f"/_sandbox/pay/{ref}", json={"outcome": "success"}).status_code == 401
    with sandbox.client() as c:
        assert c.get("/api/transaction/O-1").json()["data"]["status"] == "pending"


def test_faults_validate_and_reset(sandbox):
    with sandbox.client() as c:
        r = c.put("/_sandbox/faults", json={"error_rate": 2, "nonsense": 1})
        assert r.status_code == 400 and set(r.json()["errors"]) == {"error_rate", "nonsense"}
        r = c.put("/_sandbox/faults", json={"latency_ms": 5, "seed": 7})
        assert r.json()["data"]["latency_ms"] == 5
        assert c.delete("/_sandbox/faults").json()["data"]["latency_ms"] == 0


def test_latency(sandbox):
    with sandbox.client() as c:
        c.put("/_sandbox/faults", json={"latency_ms": 300}).raise_for_status()
        start = time.monotonic()
        c.get("/api/transaction/none")
        slow = time.monotonic() - start
        c.delete("/_sandbox/faults")
    assert slow >= 0.3


def test_error_rate_answers_503_and_changes_nothing(sandbox):
    with sandbox.client() as c:
        c.put("/_sandbox/faults", json={"error_rate": 1.0}).raise_for_status()
        r = c.post("/api/payment", json=payment("F-1"))
        assert r.status_code == 503 and r.json()["status"] == "failed"
        c.delete("/_sandbox/faults")
        assert c.get("/api/transaction/F-1").status_code == 404


def test_drop_after_commit_commits_then_cuts(sandbox):
    with sandbox.client() as c:
        c.put("/_sandbox/faults", json={"drop_after_commit_rate": 1.0}).raise_for_status()
        with pytest.raises(httpx.TransportError):
            c.post("/api/payment", json=payment("D-1"))
        c.delete("/_sandbox/faults")
        tx = c.get("/api/transaction/D-1").json()["data"]
        assert tx["tx_ref"] == "D-1" and tx["status"] == "pending"


def test_error_rate_is_seeded(sandbox):
    def pattern():
        with sandbox.client() as c:
            c.put("/_sandbox/faults", json={"error_rate": 0.5, "seed": 42}).raise_for_status()
            codes = [c.get("/api/transaction/x").status_code for _ in range(20)]
            c.delete("/_sandbox/faults")
            return codes

    first = pattern()
    assert 503 in first and 404 in first
    assert pattern() == first


def test_rate_limit_429_with_retry_after(sandbox):
    with sandbox.client() as c:
        c.put("/_sandbox/faults", json={"rate_limit_per_s": 5}).raise_for_status()
        codes = [c.get("/api/transaction/x") for _ in range(12)]
        c.delete("/_sandbox/faults")
    limited = [r for r in codes if r.status_code == 429]
    assert limited and len(limited) <= 12 - 5
    assert int(limited[0].headers["retry-after"]) >= 1
    assert limited[0].json()["status"] == "failed"


@pytest.mark.parametrize(
    "setter",
    [(1, "test"), (1, "live"), (0, "live")],
    ids=["other-merchant-test", "other-merchant-live", "same-merchant-live"],
)
def test_faults_hit_only_the_merchant_and_mode_that_set_them(sandbox, setter):
    """Item 2: merchant B's key switched on errors, drops and rate limits that hit
    merchant A. Faults (and the rate-limit bucket) belong to the merchant and mode whose
    key set them."""
    merchant, mode = setter
    with sandbox.client(mode, merchant=merchant) as other:
        other.put(
            "/_sandbox/faults", json={"error_rate": 1.0, "rate_limit_per_s": 1, "drop_after_commit_rate": 1.0}
        ).raise_for_status()
        assert other.post("/api/payment", json=payment("B-1")).status_code in (429, 503)
        with sandbox.client() as mine:  # merchant A, test mode
            assert mine.get("/_sandbox/faults").json()["data"]["error_rate"] == 0
            for i in range(5):
                assert mine.post("/api/payment", json=payment(f"A-{i}")).status_code == 201
                assert mine.get(f"/api/transaction/A-{i}").status_code == 200
        with sandbox.client(kind="public") as public:  # A's inline checkout too
            body = {**payment("A-js"), "customer": {"email": "a@example.com", "first_name": "A", "last_name": "B"}}
            assert public.post("/api/js_transfer", json=body).status_code == 201
        other.delete("/_sandbox/faults").raise_for_status()


def test_the_call_log_shows_each_merchants_own_calls(sandbox):
    """What was, and was not, sent: each merchant and mode sees only its own /api/ calls."""
    with sandbox.client() as c:
        c.get("/api/transaction/LOGGED-1")
        calls = c.get("/_sandbox/requests").json()["data"]
    assert [(x["method"], x["path"].rsplit("/", 1)[-1], x["status"]) for x in calls] == [
        ("GET", "LOGGED-1", 404)
    ]  # unknown reference: answered 404
    with sandbox.client("live") as live:
        assert live.get("/_sandbox/requests").json()["data"] == []
    with sandbox.client(merchant=1) as other:
        assert other.get("/_sandbox/requests").json()["data"] == []
    assert all(sandbox.key() not in str(x) for x in calls)


def test_the_call_log_says_what_each_call_was_answered(sandbox):
    """A limited call says 429, a dropped answer says none: what a client saw, or did not."""
    with sandbox.client() as c:
        c.put("/_sandbox/faults", json={"drop_after_commit_rate": 1.0}).raise_for_status()
        with pytest.raises(httpx.TransportError):
            c.post("/api/payment", json=payment("DROPPED-1"))
        c.put("/_sandbox/faults", json={"rate_limit_per_s": 1}).raise_for_status()
        answered = [c.get("/api/transaction/DROPPED-1").status_code for _ in range(3)]
        c.delete("/_sandbox/faults").raise_for_status()
        calls = c.get("/_sandbox/requests").json()["data"]
    assert calls[0]["path"].endswith("/api/payment") and calls[0]["status"] is None
    assert [x["status"] for x in calls[1:]] == answered and 429 in answered


def test_pay_takes_the_merchants_own_reference_too(sandbox):
    """PayDesk shows the merchant's reference (the tx_ref: PAY-…, SHOP-…), not the service's
    PDK-…: the control API takes either, for the calling merchant only."""
    with sandbox.client() as c:
        _ref(c, "PAY-20260101-0001")
        r = c.post("/_sandbox/pay/PAY-20260101-0001", json={"outcome": "success"})
        assert r.status_code == 200 and r.json()["data"]["status"] == "success"
        assert c.get("/api/transaction/PAY-20260101-0001").json()["data"]["status"] == "success"
        r = c.post("/_sandbox/transactions/PAY-20260101-0001/status", json={"status": "refunded"})
        assert r.status_code == 200 and r.json()["data"]["status"] == "refunded"
        assert c.post("/_sandbox/pay/PAY-none-such", json={"outcome": "success"}).status_code == 404
    # another merchant's reference is no reference of this one's
    with sandbox.client(merchant=1) as other:
        r = other.post("/_sandbox/pay/PAY-20260101-0001", json={"outcome": "success"})
        assert r.status_code == 404
