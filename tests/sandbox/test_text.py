"""Text no field should hold: control characters in one-line fields, and text that is not
valid Unicode, refused with a field error on every way in (API, inline checkout, form)."""

import json

import httpx
import pytest

from tests.helpers import payment

HEADER_INJECTION = "Ada\u0000\r\nBcc: x@evil.example"
CONTROLS = ["\u0000", "\u0007", "\u001b", "\r\n", "\n", "\t", "\u007f", "\u0085", "\u2028"]


def _api(sb, body):
    with sb.client() as c:
        return c.post("/api/payment", content=json.dumps(body), headers={"Content-Type": "application/json"})


def _inline(sb, body):
    body = {**body, "customer": {k: body.pop(k) for k in ("email", "first_name", "last_name")}}
    with sb.client(kind="public") as c:
        return c.post("/api/js_transfer", content=json.dumps(body), headers={"Content-Type": "application/json"})


def _form(sb, body):
    fields = {k: v for k, v in body.items() if isinstance(v, str)}
    fields.update(body.get("customization", {}))
    if "meta" in body:
        fields["meta"] = json.dumps(body["meta"])
    fields["secret_key"] = sb.key(kind="public")
    return httpx.post(sb.base_url + "/ext_transfer", data=fields)


WAYS_IN = {"api": _api, "inline": _inline, "form": _form}


def _refused(r, field: str, fragment: str) -> None:
    assert r.status_code == 400, r.text
    if r.headers["content-type"].startswith("text/html"):
        assert fragment in r.text and f"{field} " in r.text
    else:
        assert fragment in " ".join(r.json()["errors"][field])


def _nothing_created(sb, tx_ref):
    with sb.client() as c:
        assert c.get(f"/api/transaction/{tx_ref}").status_code == 404


@pytest.mark.parametrize("way", WAYS_IN)
def test_header_injection_in_a_name_is_refused(sandbox, way):
    """Item 3: the adversarial suite's NUL + CR/LF + "Bcc:" name gave 201 and reached
    the receipt e-mail; it is a field error now, on every way in."""
    r = WAYS_IN[way](sandbox, payment("CTRL-1", first_name=HEADER_INJECTION))
    field = "customer.first_name" if way == "inline" else "first_name"
    _refused(r, field, "one line without control characters")
    _nothing_created(sandbox, "CTRL-1")


@pytest.mark.parametrize("control", CONTROLS, ids=[f"U+{ord(c[-1]):04X}" for c in CONTROLS])
@pytest.mark.parametrize("field", ["first_name", "last_name", "email", "callback_url", "title"])
def test_one_line_fields_refuse_control_characters(sandbox, field, control):
    """Item 3: NUL, BEL, ESC, CR/LF, LF, tab, DEL, NEL and the line separator."""
    body = payment("CTRL-2", callback_url="https://shop.example/cb")
    if field == "title":
        body["customization"] = {"title": f"Coffee{control}x"}
        field = "customization.title"
    else:
        body[field] = body[field][:3] + control + body[field][3:]
    _refused(_api(sandbox, body), field, "one line without control characters")
    _nothing_created(sandbox, "CTRL-2")


def test_descriptions_keep_line_breaks_but_no_other_controls(sandbox):
    """Item 3: a description may span lines; a NUL or ESC in it is still refused."""
    text = "Two flat whites\r\nOne croissant\n\tto take away"
    assert _api(sandbox, payment("DESC-1", customization={"description": text})).status_code == 201
    with sandbox.client() as c:
        got = c.get("/api/transaction/DESC-1").json()["data"]["customization"]["description"]
    assert got == text
    r = _api(sandbox, payment("DESC-2", customization={"description": "a\u0000b"}))
    _refused(r, "customization.description", "must not contain control characters")
    r = _inline(sandbox, payment("DESC-3", meta={"note": "\u001b[31mred"}))
    _refused(r, "meta", "meta.note must not contain control characters")


@pytest.mark.parametrize("way", ["api", "inline"])
def test_a_lone_surrogate_is_refused_at_the_door(sandbox, way):
    """Item 4: ``"title": "x\\ud800"`` (possible with the public key alone) was stored,
    and the record answered 500 for ever after; it is a field error now."""
    r = WAYS_IN[way](sandbox, payment("SURR-1", customization={"title": "x\ud800"}))
    _refused(r, "customization.title", "must be valid Unicode text")
    _nothing_created(sandbox, "SURR-1")


@pytest.mark.parametrize(
    "body",
    [
        payment("SURR-2", meta={"k\udfff": "v"}),
        payment("SURR-2", meta={"k": "\udc80"}),
        payment("SURR-2", extra="\ud83d"),
        payment("SURR-2", last_name="B\ud800yron"),
    ],
    ids=["meta-name", "meta-value", "unknown-field", "name"],
)
def test_no_text_that_is_not_unicode_gets_in(sandbox, body):
    """Item 4: anywhere in the body, even in a member the sandbox would ignore."""
    r = _api(sandbox, body)
    assert r.status_code == 400 and "must be valid Unicode text" in r.json()["message"], r.text
    _nothing_created(sandbox, "SURR-2")


def test_a_lone_surrogate_in_the_forms_meta_is_an_html_400(sandbox):
    """Item 4: the website form's ``meta`` is JSON text, so it could carry one too (as a
    ``\\ud800`` escape): the form's meta takes no escapes but \\n \\r \\t \\" \\\\ \\/."""
    r = _form(sandbox, payment("SURR-3", meta={"k": "\ud800"}))
    assert r.status_code == 400 and "text/html" in r.headers["content-type"]
    assert "meta must be a JSON object of at most 20 strings" in r.text
    _nothing_created(sandbox, "SURR-3")


def test_after_refusals_every_read_still_answers(sandbox):
    """Item 4: lookups, the checkout page and the notifications list keep working (they
    answered 500 for ever once such a record was stored and paid)."""
    _api(sandbox, payment("SURR-4", customization={"title": "x\ud800"}, callback_url="https://shop.example/cb"))
    r = _api(sandbox, payment("OK-1", callback_url="https://shop.example/cb"))
    ref = r.json()["data"]["checkout_url"].rsplit("/", 1)[1]
    with sandbox.client() as c:
        assert c.get("/api/transaction/SURR-4").status_code == 404
        assert c.post(f"/_sandbox/pay/{ref}", json={"outcome": "success"}).status_code == 200
        assert c.get("/api/transaction/OK-1").status_code == 200
        assert c.get("/_sandbox/notifications").status_code == 200
    assert httpx.get(f"{sandbox.base_url}/payment/{ref}/receipt").status_code == 200
