"""The OpenAPI document: it matches the routes the server serves, both ways, states the
rules the sandbox checks by, and an outside fuzzer finds nothing it gets wrong."""

import json
import re

import httpx
import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paydesk.sandbox import rules
from paydesk.sandbox.openapi import document
from paydesk.sandbox.routes import public_routes
from paydesk.sandbox.validation import Checker, check_payment

# Not an operation: the seed's answer to a lookup without a reference ("tx_ref is
# required"), described under GET /api/transaction/{tx_ref}.
UNDOCUMENTED = {"/api/transaction"}
EXTRA = {"/api/js_transfer": {"options"}}  # the CORS preflight, answered before routing


def _served(has_cards):
    out = {}
    for route in public_routes(has_cards):
        path = re.sub(r"\{(\w+)(:\w+)?\}", r"{\1}", route.path)
        if path not in UNDOCUMENTED:
            out.setdefault(path, set()).update(m.lower() for m in route.methods if m != "HEAD")
    for path, methods in EXTRA.items():
        out[path] |= methods
    return out


@pytest.mark.parametrize("deployment", ["cards", "no-cards"])
def test_document_matches_routes(make_sandbox, deployment):
    """Item 16: every served operation is documented and every documented one served
    (the seed's reference-less lookup aside; the CORS preflight included)."""
    sb = make_sandbox(deployment=deployment, base_path="/pay")
    doc = httpx.get(sb.base_url + "/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    assert doc["servers"] == [{"url": "/pay"}]
    documented = {path: set(ops) for path, ops in doc["paths"].items()}
    assert documented == _served(deployment == "cards")


def test_documented_routes_answer_as_documented(sandbox):
    """Each documented JSON operation answers one of its documented codes, with the envelope."""
    doc = httpx.get(sandbox.base_url + "/openapi.json").json()
    with sandbox.client() as c:
        for path, ops in doc["paths"].items():
            concrete = path.replace("{tx_ref}", "X").replace("{card_hash}", "ch_x").replace("{reference}", "PDK-x")
            for method, op in ops.items():
                r = c.request(method.upper(), concrete, json={} if method == "post" else None, follow_redirects=False)
                assert str(r.status_code) in op["responses"], (method, path, r.status_code)
                if path.startswith("/api/") and method != "options":
                    assert set(r.json()) >= {"status", "message", "data"}


# -- the document's rules are the sandbox's rules -------------------------------------------

_TRICKY = st.sampled_from(
    list('aZ09 .-_~:@/?#+%"\\{}[],')
    + [
        "\u0000",
        "\t",
        "\n",
        "\r",
        "\u001b",
        "\u007f",
        "\u0085",
        "\u00a0",
        "\u2028",
        "\u3000",
        "\u00e9",
        "\U0001f600",
        "http://",
        "https://x.example",
        "@example.com",
        "0",
        "1",
        "ch_",
    ]
)
_TEXTS = st.lists(_TRICKY, max_size=12).map("".join) | st.text(max_size=30)
_PAYMENT = document(True, "/")["paths"]["/api/payment"]["post"]["requestBody"]["content"]["application/json"]["schema"]


def _accepted_by_schema(body) -> bool:
    return jsonschema_rs.validator_for(_PAYMENT).is_valid(body)


@settings(max_examples=400, deadline=None)
@given(
    field=st.sampled_from(
        ["amount", "email", "first_name", "tx_ref", "callback_url", "title", "description", "meta-name", "meta-value"]
    ),
    text=_TEXTS,
)
def test_the_document_and_the_checker_agree_on_every_field(field, text):
    """Item 16: a request is valid by the document exactly when the sandbox accepts it,
    field by field, for tricky text (controls, Unicode spaces, line separators, escapes)."""
    body = {
        "amount": "25",
        "currency": "GBP",
        "email": "ada@example.com",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "tx_ref": "T-1",
    }
    if field in ("title", "description"):
        body["customization"] = {field: text}
    elif field == "meta-name":
        body["meta"] = {text: "v"}
    elif field == "meta-value":
        body["meta"] = {"k": text}
    else:
        body[field] = text
    checked = check_payment(body, ("GBP", "USD"))
    assert (not checked.errors) == _accepted_by_schema(body), (body, checked.errors)


@settings(max_examples=300, deadline=None)
@given(text=st.from_regex(re.compile(rules.META_JSON[1:-1]), fullmatch=True))
def test_form_meta_valid_by_the_document_is_a_meta_the_sandbox_takes(text):
    """Item 16: the website form's meta is JSON as text, so the document states it as a
    pattern (the sandbox checks the same one first); whatever matches parses to a meta
    within meta's rules."""
    value = json.loads(text) if text.strip(" ") else {}
    checker = Checker({})
    checker.meta(value)
    assert isinstance(value, dict) and not checker.errors, (text, checker.errors)


def test_the_document_names_verify_payment(sandbox):
    """Every client of the family looks payments up at verify-payment: the document says the
    sandbox answers there as at /api/transaction."""
    doc = httpx.get(sandbox.base_url + "/openapi.json").json()
    op = doc["paths"]["/api/verify-payment/{tx_ref}"]["get"]
    assert op["operationId"] == "verifyPayment"
    assert op["responses"].keys() == doc["paths"]["/api/transaction/{tx_ref}"]["get"]["responses"].keys()
    assert "verifyPayment" in doc["paths"]["/api/payment"]["post"]["responses"]["201"]["links"]
    form = doc["paths"]["/ext_transfer"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"][
        "schema"
    ]
    assert "public_key" in form["properties"]


def test_the_family_document_matches_the_family_routes(make_sandbox):
    sb = make_sandbox("family-doc", family=True, base_path="/pay")
    doc = httpx.get(sb.base_url + "/openapi.json").json()
    assert "--family" in doc["info"]["description"]
    family_routes = sb.server.app.sandbox.dialect.routes(True)
    served = {}
    for route in family_routes:
        path = re.sub(r"\{(\w+)(:\w+)?\}", r"{\1}", route.path)
        served.setdefault(path, set()).update(m.lower() for m in route.methods if m != "HEAD")
    for path, methods in EXTRA.items():
        served[path] |= methods
    assert {path: set(ops) for path, ops in doc["paths"].items()} == served
    assert "/api/transaction/{tx_ref}" not in doc["paths"]
    links = json.dumps(doc)
    assert "validateTransaction" not in links
