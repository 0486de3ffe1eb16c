"""Virtual cards: the nine operations, balances and fees, states and their rules."""

import pytest

from tests.helpers import payment


def _balance(c, currency="USD"):
    return c.get("/_sandbox/balance").json()["data"][currency]


def _create(c, amount="100", currency="USD", **extra):
    r = c.post("/api/virtual_card/create", json={"amount": amount, "currency": currency, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def test_create_card_deducts_amount_and_fee(sandbox):
    with sandbox.client() as c:
        assert _balance(c) == "100000.00"
        body = _create(c, "100", callback_url="https://merchant.example/hooks")
        assert body["message"] == "Payment link created"
        card = body["data"]
        assert card["status"] == 1 and card["card_type"] == "visa"
        assert card["currency"] == "11"  # the service's code for USD
        assert card["amount"] == "100" and card["charge"] == "2.00" and card["paid"] == "102.00"
        assert len(card["card_pan"]) == 16 and card["masked_card"].count("*") == 6
        assert card["masked_card"][:6] == card["card_pan"][:6]
        assert card["masked_card"][-4:] == card["card_pan"][-4:]
        assert card["city"] is None and card["zip_code"] is None
        assert card["callback"] == "https://merchant.example/hooks"
        assert len(card["expiration"]) == 7 and card["expiration"][4] == "-"
        assert _balance(c) == "99898.00"
        gbp = _create(c, "10", "GBP")["data"]
        assert gbp["currency"] == "12" and gbp["charge"] == "1.10"


def test_fund_withdraw_and_card_transactions(sandbox):
    with sandbox.client() as c:
        card = _create(c, "100")["data"]
        h = card["card_hash"]
        r = c.post("/api/virtual_card/fund", json={"amount": "50", "card_hash": h})
        assert r.json() == {"status": "success", "message": "Card Funding successful", "data": {}}
        assert _balance(c) == "99848.00"
        r = c.post("/api/virtual_card/withdraw", json={"amount": "30", "card_hash": h})
        assert r.json() == {"status": "success", "message": "Card Withdrawal successful", "data": {}}
        assert _balance(c) == "99878.00"
        r = c.post("/api/virtual_card/withdraw", json={"amount": "121", "card_hash": h})
        assert r.status_code == 409 and r.json()["message"] == "Insufficient card balance"
        got = c.get(f"/api/virtual_card/card/{h}").json()
        assert got["message"] == "All Cards" and got["data"]["balance"] == "120.00"
        r = c.get(f"/api/virtual_card/transactions/{h}")
        assert r.json()["message"] == "Card Transactions"
        records = r.json()["data"]
        assert [(t["type"], t["amount"]) for t in records] == [
            ("Credit", "100.00"),
            ("Credit", "50.00"),
            ("Debit", "30.00"),
        ]
        assert set(records[0]) == {"id", "card_hash", "type", "amount", "description", "status", "created_at"}


def test_block_unblock_terminate_rules(sandbox):
    """What the card's state refuses is a 409 conflict (issue 9 item 16: a request valid by
    the document is never a 400)."""
    with sandbox.client() as c:
        h = _create(c, "100")["data"]["card_hash"]
        assert c.get(f"/api/virtual_card/block/{h}").json()["message"] == "Card Blocked"
        assert c.get(f"/api/virtual_card/card/{h}").json()["data"]["status"] == 2
        for op in ("fund", "withdraw"):
            r = c.post(f"/api/virtual_card/{op}", json={"amount": "1", "card_hash": h})
            assert r.status_code == 409 and r.json()["message"] == "Card is blocked"
        assert c.get(f"/api/virtual_card/block/{h}").json()["message"] == "Card is already blocked"
        assert c.get(f"/api/virtual_card/unblock/{h}").json()["message"] == "Card Unblocked"
        assert c.get(f"/api/virtual_card/unblock/{h}").json()["message"] == "Card is not blocked"
        before = _balance(c)
        assert c.get(f"/api/virtual_card/terminate/{h}").json()["message"] == "Card Terminated"
        assert _balance(c) == f"{float(before) + 100:.2f}"  # the balance is refunded
        card = c.get(f"/api/virtual_card/card/{h}").json()["data"]
        assert card["status"] == 0 and card["balance"] == "0.00"
        listed = c.get("/api/virtual_card/all").json()
        assert listed["message"] == "All Cards"
        assert [x["status"] for x in listed["data"] if x["card_hash"] == h] == [0]
        for path in ("block", "unblock", "terminate"):
            r = c.get(f"/api/virtual_card/{path}/{h}")
            assert r.status_code == 409 and r.json()["message"] == "Card is terminated"
        r = c.post("/api/virtual_card/fund", json={"amount": "1", "card_hash": h})
        assert r.json()["message"] == "Card is terminated"


def test_insufficient_funds_and_live_balance(sandbox):
    with sandbox.client() as c:
        r = c.post("/api/virtual_card/create", json={"amount": "100000", "currency": "USD"})
        assert r.status_code == 409  # valid, but the balance's state refuses it
        assert r.json()["message"] == "Insufficient Funds, please fund your account"
        assert _balance(c) == "100000.00"
    with sandbox.client("live") as live:
        assert _balance(live) == "0.00"
        r = live.post("/api/virtual_card/create", json={"amount": "1", "currency": "USD"})
        assert r.json()["message"] == "Insufficient Funds, please fund your account"
        live.post("/_sandbox/balance", json={"currency": "USD", "amount": "500"}).raise_for_status()
        card = _create(live, "100")["data"]
        assert _balance(live) == "398.00"
        with sandbox.client("test") as test:
            r = test.get(f"/api/virtual_card/card/{card['card_hash']}")
            assert r.status_code == 400
            assert r.json()["message"] == "test secret keys can't be used to use a live card"
            assert card["card_hash"] not in [x["card_hash"] for x in test.get("/api/virtual_card/all").json()["data"]]


def test_other_merchants_cards_are_invisible(sandbox):
    with sandbox.client(merchant=0) as a, sandbox.client(merchant=1) as b:
        h = _create(a, "10")["data"]["card_hash"]
        for r in (
            b.get(f"/api/virtual_card/card/{h}"),
            b.get(f"/api/virtual_card/block/{h}"),
            b.get(f"/api/virtual_card/terminate/{h}"),
            b.get(f"/api/virtual_card/transactions/{h}"),
            b.post("/api/virtual_card/fund", json={"amount": "1", "card_hash": h}),
        ):
            assert r.status_code == 404 and r.json()["message"] == "Card not found"
        assert b.get("/api/virtual_card/all").json()["data"] == []
        assert a.get(f"/api/virtual_card/card/{h}").json()["data"]["status"] == 1


@pytest.mark.parametrize(
    "body,field",
    [
        ({"amount": "1.5", "currency": "USD"}, "amount"),
        ({"amount": "10", "currency": "EUR"}, "currency"),
        ({"amount": "10", "currency": "USD", "callback_url": "javascript:x"}, "callback_url"),
        ({"currency": "USD"}, "amount"),
    ],
)
def test_card_create_validation(sandbox, body, field):
    with sandbox.client() as c:
        r = c.post("/api/virtual_card/create", json=body)
        assert r.status_code == 400 and field in r.json()["errors"]
        assert c.get("/api/virtual_card/all").json()["data"] == []
        assert _balance(c) == "100000.00"


def test_fund_needs_amount_and_card(sandbox):
    with sandbox.client() as c:
        r = c.post("/api/virtual_card/fund", json={"amount": "5"})
        assert r.status_code == 400 and r.json()["errors"] == {"card_hash": ["card_hash is required"]}
        r = c.post("/api/virtual_card/fund", json={"amount": "5", "card_hash": "ch_nope"})
        assert r.status_code == 404


def test_purchase_through_control(sandbox):
    with sandbox.client() as c:
        h = _create(c, "100")["data"]["card_hash"]
        r = c.post(f"/_sandbox/cards/{h}/purchase", json={"amount": "25", "description": "Books"})
        assert r.status_code == 201 and r.json()["data"]["type"] == "Debit"
        assert c.get(f"/api/virtual_card/card/{h}").json()["data"]["balance"] == "75.00"
        r = c.post(f"/_sandbox/cards/{h}/purchase", json={"amount": "76", "description": "Too much"})
        assert r.json()["message"] == "Insufficient card balance"


def test_no_cards_deployment_answers_404_envelope(make_sandbox):
    sb = make_sandbox(deployment="no-cards", base_path="/pay")
    with sb.client() as c:
        for method, path in [
            ("POST", "create"),
            ("POST", "fund"),
            ("POST", "withdraw"),
            ("GET", "block/x"),
            ("GET", "unblock/x"),
            ("GET", "terminate/x"),
            ("GET", "transactions/x"),
            ("GET", "all"),
            ("GET", "card/x"),
        ]:
            r = c.request(method, f"/api/virtual_card/{path}", json={} if method == "POST" else None)
            assert r.status_code == 404, path
            assert r.headers["content-type"] == "application/json"
            assert r.json() == {"status": "failed", "message": "Not found", "data": None}
        assert c.post("/api/payment", json=payment("NC-1", currency="EUR")).status_code == 201


@pytest.mark.parametrize("quirks", [False, True], ids=["strict", "quirks"])
def test_the_name_on_the_card_is_the_cardholders_when_sent(make_sandbox, quirks):
    """first_name and last_name, when sent, are the name on the card as issuers print it;
    the merchant's name only when neither is (both dialects used the merchant's always)."""
    sb = make_sandbox("names", quirks=quirks)
    with sb.client() as c:
        named = _create(c, "10", first_name="Grace", last_name="Hopper")["data"]
        assert named["name_on_card"] == "GRACE HOPPER"
        assert _create(c, "10", first_name="Ada")["data"]["name_on_card"] == "ADA"
        merchant = sb.merchants[0]["name"].upper()
        assert _create(c, "10")["data"]["name_on_card"] == merchant
        r = c.post("/api/virtual_card/create", json={"amount": "10", "currency": "USD", "first_name": "Gr\x07ce"})
        assert r.status_code in (400, 422) and "first_name" in r.text
        r = c.post("/api/virtual_card/create", json={"amount": "10", "currency": "USD", "last_name": " "})
        assert r.status_code in (400, 422) and "last_name" in r.text  # sent: not blank
