"""--family's virtual cards (SERVICE.md section 1b): the card as stored (its balance in
``amount``, the holder's names, ``paid`` and ``currency`` as numbers, no ``status`` on
create), 201 with the issuer's words, the card on fund and withdraw, ``suucess``, the
short-balance fund as 201 "success", create requiring the cardholder's name and a
callback_url, block, unblock and terminate answering ``data: null`` whatever the state,
cards not split by mode (the live balance), card transactions only from a purchase and
kept after terminate, and the framework's 500 for an action on a card that is not
there."""

import re
from decimal import Decimal

import httpx
import pytest

from paydesk.sandbox.family import cards as issuer


@pytest.fixture
def family(make_sandbox):
    sb = make_sandbox("family-cards", family=True)
    # cards draw on the merchant's live balance, whichever key (live starts at 0)
    for currency in ("GBP", "USD"):
        sb.control("balance", {"currency": currency, "amount": "100000"}, mode="live")
    return sb


def _create(c, amount="50", currency="GBP", **over):
    body = {
        "amount": amount,
        "currency": currency,
        "first_name": "Ada",
        "last_name": "Lovelace",
        "callback_url": "https://shop.example/cards",
        **over,
    }
    r = c.post("/api/virtual_card/create", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def _balances(c):
    return c.get("/_sandbox/balance").json()["data"]


def _card(c, card_hash):
    return c.get(f"/api/virtual_card/card/{card_hash}").json()["data"]


def test_create_requires_the_cardholders_name_and_a_callback_url(family):
    with family.client() as c:
        r = c.post("/api/virtual_card/create", json={"amount": "50", "currency": "GBP"})
        assert r.status_code == 400
        assert r.json() == {
            "status": "failed",
            "data": None,
            "message": {
                "first_name": ["first_name is required"],
                "last_name": ["last_name is required"],
                "callback_url": ["callback_url is required"],
            },
        }
        r = c.post(
            "/api/virtual_card/create",
            json={"amount": "50", "currency": "GBP", "first_name": "Ada", "last_name": "Lovelace"},
        )
        assert r.status_code == 400 and set(r.json()["message"]) == {"callback_url"}
        # the unsupported currency first, as text
        r = c.post("/api/virtual_card/create", json={"amount": "50", "currency": "NGN"})
        assert r.status_code == 400
        assert r.json()["message"] == "Invalid currency, NGN is not supported"
        assert c.get("/api/virtual_card/all").json()["data"] == []
    with family.client("live") as live:
        assert _balances(live) == {"GBP": "100000.00", "USD": "100000.00"}


def test_the_card_as_stored(family):
    with family.client() as c:
        body = _create(c, amount=50)  # an integer amount is taken
        assert body["status"] == "success" and body["message"] == "Card created"
        card = body["data"]
        assert "status" not in card  # create answers none
        assert card["amount"] == "50.00" and "balance" not in card  # the balance is amount
        assert (card["first_name"], card["last_name"]) == ("Ada", "Lovelace")
        assert card["name_on_card"] == "ADA LOVELACE"
        assert card["paid"] == 51.5 and card["currency"] == 12  # numbers: 50 and 1% + 1.00
        assert "user_id" not in card and "charge" not in card
        assert re.fullmatch(r"(0[1-9]|1[0-2])/[0-9]{2}", card["expiration"])
        read = _card(c, card["card_hash"])
        assert read["status"] == 1 and read["amount"] == "50.00" and "balance" not in read
        assert read["paid"] == 51.5 and read["currency"] == 12 and read["first_name"] == "Ada"
        assert c.get("/api/virtual_card/all").json()["data"] == [read]


def test_cards_are_not_split_by_mode(family):
    """Create checks the live balance with either key; either key lists the merchant's
    cards; the test balance is never touched."""
    with family.client() as c:
        test_before = _balances(c)
        h = _create(c)["data"]["card_hash"]
        assert _balances(c) == test_before
    with family.client("live") as live:
        assert _balances(live)["GBP"] == "99948.50"
        assert [x["card_hash"] for x in live.get("/api/virtual_card/all").json()["data"]] == [h]
        other = _create(live, amount="10", currency="USD")["data"]["card_hash"]
        r = live.post("/api/virtual_card/fund", json={"amount": "5", "card_hash": h})
        assert r.status_code == 201 and r.json()["data"]["amount"] == "55.00"
    with family.client() as c:
        assert [x["card_hash"] for x in c.get("/api/virtual_card/all").json()["data"]] == [h, other]
        assert _card(c, other)["amount"] == "10.00"
    # a merchant whose live balance is short cannot make one with its test key
    with family.client(merchant=1) as poor:
        r = poor.post(
            "/api/virtual_card/create",
            json={
                "amount": "50",
                "currency": "GBP",
                "first_name": "A",
                "last_name": "B",
                "callback_url": "https://shop.example/cards",
            },
        )
        assert r.status_code == 400
        assert r.json() == {"status": "failed", "data": None, "message": "Insufficient Funds, please fund your account"}
        assert _balances(poor)["GBP"] == "100000.00"  # its test balance is there, unused


def test_fund_and_withdraw_answer_the_card_in_the_issuers_words(family):
    with family.client() as c:
        h = _create(c)["data"]["card_hash"]
        r = c.post("/api/virtual_card/fund", json={"amount": 20, "card_hash": h})
        assert r.status_code == 201
        body = r.json()
        assert body["status"] == "success" and body["message"] == issuer.FUNDED
        assert body["data"]["card_hash"] == h and body["data"]["amount"] == "70.00"
        r = c.post("/api/virtual_card/withdraw", json={"amount": "30", "card_hash": h})
        assert r.status_code == 201
        body = r.json()
        assert body["status"] == "suucess" and body["message"] == issuer.WITHDRAWN
        assert body["data"]["card_hash"] == h and body["data"]["amount"] == "40.00"
        # more than the card holds: a refusal, 400
        r = c.post("/api/virtual_card/withdraw", json={"amount": "41", "card_hash": h})
        assert r.status_code == 400 and r.json()["data"] is None
        assert _card(c, h)["amount"] == "40.00"
    with family.client("live") as live:  # 100,000 - 51.50 - 20 + 30
        assert _balances(live)["GBP"] == "99958.50"


def test_a_fund_with_too_little_balance_is_a_refusal_dressed_as_success(make_sandbox):
    sb = make_sandbox("family-short", family=True)
    with sb.client("live") as live:
        live.post("/_sandbox/balance", json={"currency": "USD", "amount": "100"}).raise_for_status()
        h = _create(live, amount="50", currency="USD")["data"]["card_hash"]
        before = _balances(live)
        r = live.post("/api/virtual_card/fund", json={"amount": "1000", "card_hash": h})
        assert r.status_code == 201
        assert r.json() == {
            "status": "success",
            "data": None,
            "message": "Insufficient Funds, please fund your account",
        }
        # nothing changed
        assert _balances(live) == before and _card(live, h)["amount"] == "50.00"


def test_block_unblock_answer_null_whatever_the_state(family):
    with family.client() as c:
        h = _create(c)["data"]["card_hash"]
        for _ in range(2):  # blocking a blocked card succeeds
            r = c.get(f"/api/virtual_card/block/{h}")
            assert r.status_code == 201
            assert r.json() == {"status": "success", "message": issuer.BLOCKED, "data": None}
            assert _card(c, h)["status"] == 2
        r = c.post("/api/virtual_card/fund", json={"amount": "5", "card_hash": h})
        assert r.status_code == 400 and r.json()["message"] == "Card is blocked"
        for _ in range(2):  # and unblocking an active one
            r = c.get(f"/api/virtual_card/unblock/{h}")
            assert r.status_code == 201
            assert r.json() == {"status": "success", "message": issuer.UNBLOCKED, "data": None}
            assert _card(c, h)["status"] == 1


def test_card_transactions_come_only_from_purchases_and_stay_after_terminate(family):
    with family.client() as c:
        h = _create(c, amount="80")["data"]["card_hash"]
        kept = _create(c, amount="10")["data"]["card_hash"]
        c.post("/api/virtual_card/fund", json={"amount": "20", "card_hash": h}).raise_for_status()
        c.post("/api/virtual_card/withdraw", json={"amount": "5", "card_hash": h}).raise_for_status()
        assert c.get(f"/api/virtual_card/transactions/{h}").json()["data"] == []
        r = c.post(f"/_sandbox/cards/{h}/purchase", json={"amount": "7", "description": "Cafe"})
        assert r.status_code == 201
        spent = c.get(f"/api/virtual_card/transactions/{h}").json()["data"]
        assert [(t["type"], t["amount"], t["description"]) for t in spent] == [("Debit", "7.00", "Cafe")]
        assert _card(c, h)["amount"] == "88.00"
    with family.client("live") as live:
        before = Decimal(_balances(live)["GBP"])
        r = live.get(f"/api/virtual_card/terminate/{h}")  # either key: the merchant's card
        assert r.status_code == 201
        assert r.json() == {"status": "success", "message": issuer.TERMINATED, "data": None}
        assert Decimal(_balances(live)["GBP"]) == before + 88
    with family.client() as c:
        assert [x["card_hash"] for x in c.get("/api/virtual_card/all").json()["data"]] == [kept]
        r = c.get(f"/api/virtual_card/card/{h}")
        assert r.status_code == 201 and r.json()["data"] is None
        assert c.get(f"/api/virtual_card/transactions/{h}").json()["data"] == spent
        # an action on it finds nothing: the framework's 500
        r = c.get(f"/api/virtual_card/terminate/{h}")
        assert r.status_code == 500 and r.json() == {"message": "Server Error"}
        assert c.post(f"/_sandbox/cards/{h}/purchase", json={"amount": "1", "description": "x"}).status_code == 400
    with family.client("live") as live:
        assert Decimal(_balances(live)["GBP"]) == before + 88


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
            ("GET", "/api/virtual_card/terminate/ch_nope", None),
        ):
            r = c.request(method, path, json=body)
            assert r.status_code == 500, path
            assert r.json() == {"message": "Server Error"}  # under Accept: application/json
            # without that header: the framework's HTML page
            r = httpx.request(
                method, family.base_url + path, json=body, headers={"Authorization": c.headers["authorization"]}
            )
            assert r.status_code == 500, path
            assert r.headers["content-type"].startswith("text/html") and "Server Error" in r.text
            with pytest.raises(ValueError):
                r.json()


def test_another_merchants_card_is_not_there_for_this_key(family):
    """Cards are found among the key's merchant's own before anything else (the family's
    code finds them across merchants first: not copied)."""
    with family.client() as c:
        h = _create(c)["data"]["card_hash"]
        c.post(f"/_sandbox/cards/{h}/purchase", json={"amount": "1", "description": "x"}).raise_for_status()
    with family.client(merchant=1) as other:
        assert other.get(f"/api/virtual_card/card/{h}").json()["data"] is None
        assert other.get(f"/api/virtual_card/transactions/{h}").json()["data"] == []
        assert other.get("/api/virtual_card/all").json()["data"] == []
        r = other.post("/api/virtual_card/withdraw", json={"amount": "10", "card_hash": h})
        assert r.status_code == 500
        assert other.get(f"/api/virtual_card/block/{h}").status_code == 500
        assert other.get(f"/api/virtual_card/terminate/{h}").status_code == 500
    with family.client() as c:
        card = _card(c, h)
        assert card["amount"] == "49.00" and card["status"] == 1
