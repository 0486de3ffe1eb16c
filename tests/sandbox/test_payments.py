"""Payment creation and validation over real HTTP: both modes, merchants, base paths."""

from decimal import Decimal

import httpx
import pytest

from tests.helpers import payment


def test_create_then_validate_pending(sandbox):
    with sandbox.client() as c:
        r = c.post("/api/payment", json=payment("ORDER-1"))
        assert r.status_code == 201
        assert r.headers["content-type"] == "application/json"
        body = r.json()
        assert body["status"] == "success" and body["message"] == "Payment link created"
        url = body["data"]["checkout_url"]
        assert url.startswith(sandbox.base_url + "/payment/PDK-")
        reference = url.rsplit("/", 1)[1]
        assert len(reference.removeprefix("PDK-")) == 32  # 128 random bits, hex

        r = c.get("/api/transaction/ORDER-1")
        assert r.status_code == 200
        body = r.json()
        assert body["message"] == "Payment details"
        tx = body["data"]
        assert tx["status"] == "pending" and tx["mode"] == "test" and tx["type"] == "API"
        assert tx["amount"] == "1,000.00"
        assert tx["charge"] == "14.20"  # 1.4% + 0.20
        assert tx["reference"] == reference and tx["tx_ref"] == "ORDER-1"
        assert tx["customization"] == {"title": "Coffee", "description": "Two flat whites"}
        assert tx["meta"] == {"till": "3"}
        assert tx["created_at"].endswith("Z") and "." in tx["created_at"]


@pytest.mark.parametrize("amount,charge", [("1", "0.21"), ("10000000", "140000.20"), ("37", "0.72")])
def test_fee_is_percent_plus_fixed(sandbox, amount, charge):
    with sandbox.client() as c:
        c.post("/api/payment", json=payment("F" + amount, amount=amount)).raise_for_status()
        tx = c.get(f"/api/transaction/F{amount}").json()["data"]
        assert tx["charge"] == charge
        assert Decimal(tx["amount"].replace(",", "")) == Decimal(amount)


def test_live_and_test_data_are_apart(sandbox):
    with sandbox.client("live") as live, sandbox.client("test") as test:
        assert live.post("/api/payment", json=payment("LIVE-1")).status_code == 201
        tx = live.get("/api/transaction/LIVE-1").json()["data"]
        assert tx["mode"] == "live"
        r = test.get("/api/transaction/LIVE-1")
        assert r.status_code == 400
        assert r.json()["message"] == "test secret keys can't be used to verify a live transaction"
        # tx_ref is unique per merchant across modes
        r = test.post("/api/payment", json=payment("LIVE-1"))
        assert r.status_code == 409


def test_one_merchant_never_sees_another(sandbox):
    with sandbox.client(merchant=0) as a, sandbox.client(merchant=1) as b:
        a.post("/api/payment", json=payment("SHARED-1")).raise_for_status()
        r = b.get("/api/transaction/SHARED-1")
        assert r.status_code == 404 and r.json()["message"] == "Invalid transaction"
        # the same tx_ref is free for the other merchant
        assert b.post("/api/payment", json=payment("SHARED-1")).status_code == 201
        ref_a = a.get("/api/transaction/SHARED-1").json()["data"]["reference"]
        ref_b = b.get("/api/transaction/SHARED-1").json()["data"]["reference"]
        assert ref_a != ref_b
        # B cannot pay A's link through the control API
        r = b.post(f"/_sandbox/pay/{ref_a}", json={"outcome": "success"})
        assert r.status_code == 404
        assert a.get("/api/transaction/SHARED-1").json()["data"]["status"] == "pending"


def test_lookup_without_reference_and_unknown(sandbox):
    with sandbox.client() as c:
        for path in ("/api/transaction/", "/api/transaction"):
            r = c.get(path)
            assert r.status_code == 400
            assert r.json() == {
                "status": "failed",
                "message": "tx_ref is required",
                "data": None,
                "errors": {"tx_ref": ["tx_ref is required"]},
            }
        r = c.get("/api/transaction/NOPE")
        assert r.status_code == 404 and r.json()["message"] == "Invalid transaction"


@pytest.mark.parametrize("base_path", ["/pay", "/pay/", "pay", "/", "/deep/er/"])
def test_base_path_with_and_without_trailing_slash(make_sandbox, base_path):
    sb = make_sandbox(base_path=base_path)
    expected = "/" + base_path.strip("/") if base_path.strip("/") else ""
    assert sb.base_url.endswith(f"{expected}") and not sb.base_url.endswith("/")
    with sb.client() as c:
        r = c.post("/api/payment", json=payment("BP-1"))
        assert r.status_code == 201
        assert r.json()["data"]["checkout_url"].startswith(sb.base_url + "/payment/")
        assert c.get("/api/transaction/BP-1").json()["data"]["tx_ref"] == "BP-1"
        if expected:
            # outside the deployment's path segment there is nothing
            root = httpx.get(sb.base_url.removesuffix(expected) + "/api/transaction/BP-1", headers=c.headers)
            assert root.status_code == 404


def test_no_cards_deployment_takes_eur(make_sandbox):
    sb = make_sandbox(deployment="no-cards")
    with sb.client() as c:
        assert c.post("/api/payment", json=payment("EUR-1", currency="EUR")).status_code == 201
    cards = make_sandbox("cards", deployment="cards")
    with cards.client() as c:
        r = c.post("/api/payment", json=payment("EUR-1", currency="EUR"))
        assert r.status_code == 400
        assert r.json()["message"] == "Invalid currency, EUR is not supported"


def test_state_survives_restart(tmp_path):
    from tests.helpers import start_sandbox

    first = start_sandbox(tmp_path / "d", base_path="/pay")
    keys = first.merchants
    with first.client() as c:
        c.post("/api/payment", json=payment("KEEP-1")).raise_for_status()
        ref = c.get("/api/transaction/KEEP-1").json()["data"]["reference"]
        c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"}).raise_for_status()
    first.stop()
    second = start_sandbox(tmp_path / "d", base_path="/pay")
    assert second.merchants == keys
    with second.client() as c:
        tx = c.get("/api/transaction/KEEP-1").json()["data"]
        assert tx["status"] == "success" and tx["reference"] == ref
        assert c.post("/api/payment", json=payment("KEEP-1")).status_code == 409
    second.stop()
