"""Real browser (Debian's chromium, driven by Playwright): pay, 3-D Secure, website form, inline checkout."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.helpers import need_system, payment

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class MerchantSite:
    """A merchant's website on another loopback origin (127.0.0.2): pages and a landing page."""

    def __init__(self):
        self.pages: dict[str, str] = {}
        self.landings: list[dict] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                parts = urlsplit(self.path)
                if parts.path in site.pages:
                    body = site.pages[parts.path].encode()
                else:
                    site.landings.append({"path": parts.path, "query": parse_qs(parts.query)})
                    body = b"<html><body><h1 id='thanks'>Back at the shop</h1></body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):  # the server-to-server notification
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.2", 0), Handler)
        self.origin = f"http://127.0.0.2:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    executable = need_system("chromium", "chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    pg = context.new_page()
    pg.set_default_timeout(15_000)
    yield pg
    context.close()


@pytest.fixture
def shop():
    site = MerchantSite()
    yield site
    site.close()


def _status(sandbox, tx_ref):
    with sandbox.client() as c:
        return c.get(f"/api/transaction/{tx_ref}").json()["data"]["status"]


def _pay(page, card, code=None):
    page.fill("#card_number", card)
    page.fill("#expiry", "12/30")
    page.fill("#cvc", "123")
    page.click("#pay")
    if code is not None:
        page.wait_for_selector("#code")
        page.fill("#code", code)
        page.click("#confirm")


@pytest.mark.parametrize(
    "card,code,expected",
    [
        ("4242 4242 4242 4242", None, "success"),
        ("4000 0000 0000 0002", None, "failed"),
        ("4000 0000 0000 3220", "123456", "success"),
        ("4000 0000 0000 3220", "654321", "failed"),
    ],
)
def test_pay_each_test_card(sandbox, shop, page, card, code, expected):
    tx_ref = f"B-{card[-4:]}-{code or 'none'}"
    with sandbox.client() as c:
        url = c.post("/api/payment", json=payment(tx_ref, callback_url=shop.origin + "/paid?basket=7")).json()["data"][
            "checkout_url"
        ]
    page.goto(url)
    assert page.inner_text("#amount") == "USD 1,000.00"
    assert "TEST MODE" in page.inner_text("body")
    _pay(page, card, code)
    page.wait_for_selector("#thanks")
    landing = urlsplit(page.url)
    assert f"{landing.scheme}://{landing.netloc}" == shop.origin and landing.path == "/paid"
    query = parse_qs(landing.query)
    assert query == {"basket": ["7"], "tx_ref": [tx_ref], "status": [expected]}
    assert _status(sandbox, tx_ref) == expected


def test_cancel_in_browser(sandbox, shop, page):
    with sandbox.client() as c:
        url = c.post("/api/payment", json=payment("B-cancel", return_url=shop.origin + "/back")).json()["data"][
            "checkout_url"
        ]
    page.goto(url)
    page.click("#cancel")
    page.wait_for_selector("#thanks")
    assert urlsplit(page.url).path == "/back"
    assert _status(sandbox, "B-cancel") == "cancelled"


def test_website_form_from_another_origin(sandbox, shop, page):
    fields = {
        "secret_key": sandbox.key(kind="public"),
        "tx_ref": "B-form",
        "amount": "42",
        "currency": "GBP",
        "email": "eve@example.com",
        "first_name": "Eve",
        "last_name": "Moss",
        "title": "Bakery",
        "description": "Bread",
        "logo": "",
        "meta": json.dumps({"basket": "9"}),
        "callback_url": shop.origin + "/form-done",
        "return_url": shop.origin + "/r",
    }
    inputs = "".join(
        f'<input type="hidden" name="{k}" value="{v.replace(chr(34), "&quot;")}">' for k, v in fields.items()
    )
    shop.pages["/checkout"] = (
        f'<html><body><form method="post" action="{sandbox.base_url}/ext_transfer">'
        f'{inputs}<button id="go" type="submit">Pay now</button></form></body></html>'
    )
    page.goto(shop.origin + "/checkout")
    page.click("#go")
    page.wait_for_selector("#card-form")
    assert page.inner_text("#amount") == "GBP 42.00" and page.inner_text("#title") == "Bakery"
    _pay(page, "4242424242424242")
    page.wait_for_selector("#thanks")
    assert parse_qs(urlsplit(page.url).query)["tx_ref"] == ["B-form"]
    assert _status(sandbox, "B-form") == "success"


def test_inline_checkout_from_another_origin(sandbox, shop, page):
    config = {
        "secret_key": sandbox.key(kind="public"),
        "tx_ref": "B-inline",
        "amount": "15",
        "currency": "USD",
        "callback_url": shop.origin + "/inline-done",
        "customer": {"email": "ian@example.com", "first_name": "Ian", "last_name": "Hart"},
        "customization": {"title": "Tea shop", "description": "Green tea"},
        "meta": {"table": "4"},
    }
    shop.pages["/inline"] = f"""<html><body>
      <script src="{sandbox.base_url}/js/payment.js"></script>
      <p id="err"></p>
      <button id="go" onclick='var c = {json.dumps(config)};
        c.onerror = function (m) {{ document.getElementById("err").textContent = m; }};
        ServiceCheckout(c);'>Pay</button>
      <button id="bad" onclick='ServiceCheckout({{secret_key: {json.dumps(config["secret_key"])},
        tx_ref: "B-bad", amount: "0", currency: "NGN",
        onerror: function (m) {{ document.getElementById("err").textContent = m; }} }});'>Bad</button>
    </body></html>"""
    page.goto(shop.origin + "/inline")
    page.click("#bad")
    page.wait_for_function("document.getElementById('err').textContent.length > 0")
    assert page.inner_text("#err")  # the service's message reached the page
    page.click("#go")
    page.wait_for_selector("#card-form")
    assert page.inner_text("#title") == "Tea shop"
    _pay(page, "4242424242424242")
    page.wait_for_selector("#thanks")
    assert parse_qs(urlsplit(page.url).query) == {"tx_ref": ["B-inline"], "status": ["success"]}
    with sandbox.client() as c:
        tx = c.get("/api/transaction/B-inline").json()["data"]
    assert tx["type"] == "INLINE" and tx["status"] == "success" and tx["meta"] == {"table": "4"}


@pytest.fixture
def family(make_sandbox):
    return make_sandbox("family-browser", family=True, base_path="/pay")


def test_family_website_form_with_public_key(family, shop, page):
    """--family: the form carries the key in ``public_key``; after paying, the browser
    lands on ``callback_url + "?tx_ref=" + tx_ref`` (no status)."""
    fields = {
        "public_key": family.key(kind="public"),
        "tx_ref": "FB-form",
        "amount": "42",
        "currency": "GBP",
        "email": "cy@example.com",
        "first_name": "Cy",
        "last_name": "Jones",
        "title": "Bakery",
        "description": "Sourdough",
        "callback_url": shop.origin + "/form-done",
        "return_url": shop.origin + "/r",
    }
    inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
    shop.pages["/checkout"] = (
        f'<html><body><form method="post" action="{family.base_url}'
        f'/ext_transfer">{inputs}<button id="go" type="submit">Pay now'
        "</button></form></body></html>"
    )
    page.goto(shop.origin + "/checkout")
    page.click("#go")
    page.wait_for_selector("#card-form")
    assert page.inner_text("#title") == "Bakery"
    _pay(page, "4242424242424242")
    page.wait_for_selector("#thanks")
    assert page.url == shop.origin + "/form-done?tx_ref=FB-form"
    with family.client() as c:
        assert c.get("/api/verify-payment/FB-form").json()["status"] == "success"


@pytest.mark.parametrize("dialect", ["family", "strict"])
def test_inline_checkout_reads_config_public_key(make_sandbox, shop, page, dialect):
    """The family's inline script reads ``config.public_key``; the document's reads it too
    (besides ``secret_key``)."""
    sb = make_sandbox(f"inline-{dialect}", family=dialect == "family")
    amount = 15 if dialect == "family" else "15"  # the family takes an integer too
    config = {
        "public_key": sb.key(kind="public"),
        "tx_ref": "FB-inline",
        "amount": amount,
        "currency": "USD",
        "callback_url": shop.origin + "/inline-done",
        "customer": {"email": "ian@example.com", "first_name": "Ian", "last_name": "Hart"},
        "customization": {"title": "Tea shop", "description": "Green tea"},
    }
    shop.pages["/inline"] = f"""<html><body>
      <script src="{sb.base_url}/js/payment.js"></script>
      <p id="err"></p>
      <button id="go" onclick='var c = {json.dumps(config)};
        c.onerror = function (m) {{ document.getElementById("err").textContent = m; }};
        ServiceCheckout(c);'>Pay</button>
    </body></html>"""
    page.goto(shop.origin + "/inline")
    page.click("#go")
    page.wait_for_selector("#card-form")
    _pay(page, "4242424242424242")
    page.wait_for_selector("#thanks")
    query = parse_qs(urlsplit(page.url).query)
    if dialect == "family":
        assert page.url == shop.origin + "/inline-done?tx_ref=FB-inline"
    else:
        assert query == {"tx_ref": ["FB-inline"], "status": ["success"]}
    with sb.client() as c:
        r = c.get("/api/verify-payment/FB-inline").json()
    assert r["data"]["type"] == "INLINE" and r["data"]["status"] == "success"
