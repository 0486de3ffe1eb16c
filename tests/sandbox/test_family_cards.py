"""--family's virtual cards (SERVICE.md section 1b): 201 with the issuer's words, the card
on fund and withdraw, ``suucess``, the short-balance fund as 201 "success", create
requiring the cardholder's name, terminate deleting the card, ``MM/YY``, and the
framework's HTML 500 page for an action on a card that is not there."""

import re
from decimal import Decimal

import httpx
import pytest

from paydesk.sandbox.family import cards as issuer


@pytest.fixture
def family(make_sandbox):
    return make_sandbox("family-cards", family=True)


def _create(c, amount="50", currency="GBP", **over):
    body = {"amount": amount, "currency": currency, "first_name": "Ada", "last_name": "Lovelace",
            **over}
    r = c.post("/api/virtual_card/create", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def _balances(c):
    return c.get("/_sandbox/balance").json()["data"]


def test_create_requires_the_cardholders_name(family):
    with family.client() as c:
        before = _balances(c)
        r = c.post("/api/virtual_card/create", json={"amount": "50", "currency": "GBP"})
        assert r.status_code == 400
        assert r.json() == {"status": "failed", "data": None,
                            "message": {"first_name": ["first_name is required"],
                                        "last_name": ["last_name is required"]}}
        r = c.post("/api/virtual_card/create", json={"amount": "50", "currency": "GBP",
                                                     "first_name": "Ada"})
        assert r.status_code == 400 and set(r.json()["message"]) == {"last_name"}
        # the unsupported currency first, as text
        r = c.post("/api/virtual_card/create", json={"amount": "50", "currency": "NGN"})
        assert r.status_code == 400
        assert r.json()["message"] == "Invalid currency, NGN is not supported"
        assert _balances(c) == before and c.get("/api/virtual_card/all").json()["data"] == []


def test_create_says_card_created_with_mm_yy(family):
    with family.client() as c:
        body = _create(c, amount=50)  # an integer amount is taken
        assert body["status"] == "success" and body["message"] == "Card created"
        card = body["data"]
        assert re.fullmatch(r"(0[1-9]|1[0-2])/[0-9]{2}", card["expiration"])
        assert card["name_on_card"] == "ADA LOVELACE"
        assert card["currency"] == "12" and card["balance"] == "50.00"
        assert _balances(c)["GBP"] == "99948.50"  # 50, and its fee of 1% + 1.00


def test_fund_and_withdraw_answer_the_card_in_the_issuers_words(family):
    with family.client() as c:
        card = _create(c)["data"]
        h = card["card_hash"]
        r = c.post("/api/virtual_card/fund", json={"amount": 20, "card_hash": h})
        assert r.status_code == 201
        body = r.json()
        assert body["status"] == "success" and body["message"] == issuer.FUNDED
        assert body["message"] != "Card Funding successful"  # not the document's words
        assert body["data"]["card_hash"] == h and body["data"]["balance"] == "70.00"
        r = c.post("/api/virtual_card/withdraw", json={"amount": "30", "card_hash": h})
        assert r.status_code == 201
        body = r.json()
        assert body["status"] == "suucess" and body["message"] == issuer.WITHDRAWN
        assert body["message"] != "Card Withdrawal successful"
        assert body["data"]["card_hash"] == h and body["data"]["balance"] == "40.00"
        # more than the card holds: a refusal, 400
        r = c.post("/api/virtual_card/withdraw", json={"amount": "41", "card_hash": h})
        assert r.status_code == 400 and r.json()["data"] is None
        assert c.get(f"/api/virtual_card/card/{h}").json()["data"]["balance"] == "40.00"


def test_a_fund_with_too_little_balance_is_a_refusal_dressed_as_success(family):
    with family.client("live") as live:  # live balances start at 0
        live.post("/_sandbox/balance", json={"currency": "USD", "amount": "100"}
                  ).raise_for_status()
        card = _create(live, amount="50", currency="USD")["data"]
        h = card["card_hash"]
        before = _balances(live)
        r = live.post("/api/virtual_card/fund", json={"amount": "1000", "card_hash": h})
        assert r.status_code == 201
        assert r.json() == {"status": "success", "data": None,
                            "message": "Insufficient Funds, please fund your account"}
        # nothing changed
        assert _balances(live) == before
        assert live.get(f"/api/virtual_card/card/{h}").json()["data"]["balance"] == "50.00"
        records = live.get(f"/api/virtual_card/transactions/{h}").json()["data"]
        assert [t["type"] for t in records] == ["Credit"]


def test_block_unblock_in_the_issuers_words(family):
    with family.client() as c:
        h = _create(c)["data"]["card_hash"]
        r = c.get(f"/api/virtual_card/block/{h}")
        assert r.status_code == 201 and r.json()["message"] == issuer.BLOCKED
        assert c.get(f"/api/virtual_card/card/{h}").json()["data"]["status"] == 2
        r = c.post("/api/virtual_card/fund", json={"amount": "5", "card_hash": h})
        assert r.status_code == 400 and r.json()["message"] == "Card is blocked"
        r = c.get(f"/api/virtual_card/block/{h}")
        assert r.status_code == 400 and "already blocked" in r.json()["message"]
        r = c.get(f"/api/virtual_card/unblock/{h}")
        assert r.status_code == 201 and r.json()["message"] == issuer.UNBLOCKED
        assert c.get(f"/api/virtual_card/card/{h}").json()["data"]["status"] == 1


def test_terminate_refunds_the_balance_and_deletes_the_card(family):
    with family.client() as c:
        h = _create(c, amount="80")["data"]["card_hash"]
        kept = _create(c, amount="10")["data"]["card_hash"]
        before = Decimal(_balances(c)["GBP"])
        r = c.get(f"/api/virtual_card/terminate/{h}")
        assert r.status_code == 201 and r.json()["message"] == issuer.TERMINATED
        assert Decimal(_balances(c)["GBP"]) == before + 80
        assert [card["card_hash"] for card in c.get("/api/virtual_card/all").json()["data"]] == [kept]
        r = c.get(f"/api/virtual_card/card/{h}")
        assert r.status_code == 201 and r.json()["data"] is None
        # an action on it finds nothing: the framework's 500
        r = c.get(f"/api/virtual_card/terminate/{h}")
        assert r.status_code == 500 and r.json() == {"message": "Server Error"}
        assert Decimal(_balances(c)["GBP"]) == before + 80


def test_card_details_and_unknown_cards(family):
    with family.client() as c:
        h = _create(c)["data"]["card_hash"]
        r = c.get(f"/api/virtual_card/card/{h}")
        assert r.status_code == 201 and r.json()["message"] == "Card Details"
        assert r.json()["data"]["card_hash"] == h
        r = c.get("/api/virtual_card/card/ch_" + "0" * 32)
        assert r.status_code == 201
        assert r.json() == {"status": "success", "message": "Card Details", "data": None}
        r = c.get("/api/virtual_card/transactions/ch_unknown")
        assert r.status_code == 201 and r.json()["data"] == []
        r = c.get("/api/virtual_card/all")
        assert r.status_code == 201 and r.json()["message"] == "All Cards"
        for method, path, body in (
                ("POST", "/api/virtual_card/fund", {"amount": "5", "card_hash": "ch_nope"}),
                ("POST", "/api/virtual_card/withdraw", {"amount": "5", "card_hash": "ch_nope"}),
                ("GET", "/api/virtual_card/block/ch_nope", None),
                ("GET", "/api/virtual_card/unblock/ch_nope", None),
                ("GET", "/api/virtual_card/terminate/ch_nope", None)):
            r = c.request(method, path, json=body)
            assert r.status_code == 500, path
            assert r.json() == {"message": "Server Error"}  # under Accept: application/json
            # without that header: the framework's HTML page
            r = httpx.request(method, family.base_url + path, json=body,
                              headers={"Authorization": c.headers["authorization"]})
            assert r.status_code == 500, path
            assert r.headers["content-type"].startswith("text/html") and "Server Error" in r.text
            with pytest.raises(ValueError):
                r.json()


def test_another_merchants_card_is_not_there_for_this_key(family):
    """Cards are found among the key's merchant's own before anything else (the family's
    code finds them across merchants first: not copied)."""
    with family.client() as c:
        h = _create(c)["data"]["card_hash"]
    with family.client(merchant=1) as other:
        assert other.get(f"/api/virtual_card/card/{h}").json()["data"] is None
        assert other.get(f"/api/virtual_card/transactions/{h}").json()["data"] == []
        r = other.post("/api/virtual_card/withdraw", json={"amount": "10", "card_hash": h})
        assert r.status_code == 500
        assert other.get(f"/api/virtual_card/terminate/{h}").status_code == 500
    with family.client() as c:
        card = c.get(f"/api/virtual_card/card/{h}").json()["data"]
        assert card["balance"] == "50.00" and card["status"] == 1
