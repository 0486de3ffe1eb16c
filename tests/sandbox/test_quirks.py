"""--quirks answers the way the family of services does (SERVICE.md section 1)."""

from tests.helpers import payment


def test_quirks_dialect(make_sandbox):
    sb = make_sandbox(quirks=True, base_path="/pay")
    with sb.client() as c:
        r = c.post("/api/payment", json=payment("Q-1"))
        assert r.status_code == 201 and r.json()["status"] == "success"
        # the unpaid lookup
        r = c.get("/api/transaction/Q-1")
        assert r.status_code == 404
        assert r.json() == {"status": "null", "message": "Payment not submitted", "data": "null"}
        # a validation failure: 400, message as the error bag, data the string "null"
        r = c.post("/api/payment", json=payment("Q-2", amount="x", currency="NGN"))
        assert r.status_code == 400
        body = r.json()
        assert body["data"] == "null" and body["status"] == "failed"
        assert body["message"]["currency"] == ["Invalid currency, NGN is not supported"]
        assert "amount" in body["message"]
        # duplicates and auth failures: 400 too
        assert c.post("/api/payment", json=payment("Q-1")).status_code == 400
        assert c.get("/api/transaction/NOPE").json()["message"] == "Invalid transaction"
        # paid: a lookup answers 201 with the transaction
        ref = c.post("/api/payment", json=payment("Q-3")).json()["data"]["checkout_url"].rsplit("/", 1)[1]
        assert c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"}).status_code == 201
        r = c.get("/api/transaction/Q-3")
        assert r.status_code == 201 and r.json()["data"]["status"] == "success"
    with sb.client(kind="public") as pub:
        assert pub.post("/api/payment", json=payment("Q-4")).status_code == 400


def test_quirks_cards(make_sandbox):
    sb = make_sandbox(quirks=True)
    with sb.client() as c:
        card = c.post("/api/virtual_card/create", json={"amount": "50", "currency": "GBP"}).json()["data"]
        h = card["card_hash"]
        r = c.post("/api/virtual_card/withdraw", json={"amount": "10", "card_hash": h})
        assert r.status_code == 201 and r.json()["status"] == "suucess"
        assert c.get(f"/api/virtual_card/terminate/{h}").status_code == 201
        assert c.get("/api/virtual_card/all").json()["data"] == []
        r = c.get("/api/virtual_card/block/ch_unknown")
        assert r.status_code == 400 and r.json()["data"] == "null"
