"""Code for a merchant's website: the form post and the inline checkout page.

Every value is escaped for where it lands (an HTML attribute, a JS string); a
secret key is refused, because a web page is public.
"""

from __future__ import annotations

import html
import json
from typing import Any

from .models import PaymentRequest
from .redact import looks_secret


class SecretKeyInSnippet(ValueError):
    def __init__(self) -> None:
        super().__init__("A web page is public: use the public key (pub-...), never the secret key")


def _check_key(public_key: str, secret_key: str | None) -> None:
    if not public_key or looks_secret(public_key) or (secret_key and public_key == secret_key):
        raise SecretKeyInSnippet()


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def _js(value: Any) -> str:
    """A JSON value safe inside a <script> element."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    for raw, escaped in (
        ("&", "\\u0026"),
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def form_fields(request: PaymentRequest, public_key: str) -> dict[str, str]:
    body = request.to_json()
    custom = body.get("customization", {})
    fields = {"secret_key": public_key}
    for name in ("callback_url", "return_url", "tx_ref", "amount", "currency", "email", "first_name", "last_name"):
        if body.get(name) is not None:
            fields[name] = str(body[name])
    for name in ("title", "description", "logo"):
        if custom.get(name):
            fields[name] = custom[name]
    if body.get("meta"):
        fields["meta"] = json.dumps(body["meta"], ensure_ascii=False)
    return fields


def html_form(
    request: PaymentRequest, public_key: str, base_url: str, secret_key: str | None = None, button: str = "Pay now"
) -> str:
    """The seed's website form: hidden inputs posted to ``{base_url}/ext_transfer``."""
    _check_key(public_key, secret_key)
    lines = [f'<form method="post" action="{_attr(base_url.rstrip("/") + "/ext_transfer")}">']
    for name, value in form_fields(request, public_key).items():
        lines.append(f'  <input type="hidden" name="{_attr(name)}" value="{_attr(value)}">')
    lines.append(f'  <button type="submit">{html.escape(button)}</button>')
    lines.append("</form>")
    return "\n".join(lines) + "\n"


def inline_checkout(
    request: PaymentRequest, public_key: str, base_url: str, secret_key: str | None = None, button: str = "Pay now"
) -> str:
    """A page fragment loading ``/js/payment.js`` and calling ``ServiceCheckout(config)``."""
    _check_key(public_key, secret_key)
    body = request.to_json()
    config = {
        "secret_key": public_key,
        "tx_ref": body["tx_ref"],
        "amount": body["amount"],
        "currency": body["currency"],
        "customer": {"email": body["email"], "first_name": body["first_name"], "last_name": body["last_name"]},
    }
    for name in ("callback_url", "return_url", "customization", "meta"):
        if body.get(name):
            config[name] = body[name]
    script = _attr(base_url.rstrip("/") + "/js/payment.js")
    return (
        f'<script src="{script}"></script>\n'
        f'<button type="button" id="paydesk-pay">{html.escape(button)}</button>\n'
        "<script>\n"
        f"  var paydeskCheckout = {_js(config)};\n"
        "  paydeskCheckout.onerror = function (message) { alert(message); };\n"
        '  document.getElementById("paydesk-pay").addEventListener("click", function () {\n'
        "    ServiceCheckout(paydeskCheckout);\n"
        "  });\n"
        "</script>\n"
    )
