"""What a merchant's website uses: the form post and the inline checkout script."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from importlib import resources

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from . import rules
from .bodies import parse_json, read_form
from .checkout import page
from .context import authenticate, sandbox_of
from .envelope import ApiError
from .payments import create_payment


async def ext_transfer(request: Request) -> Response:
    """The seed's website form: hidden inputs, answered with 303 to checkout."""
    sb = sandbox_of(request)
    try:
        fields = await read_form(request)
        owner = authenticate(request, kinds=sb.dialect.form_key_kinds, key=sb.dialect.form_key(fields))
        body: dict = {
            k: fields[k]
            for k in (  # a field left out is not sent as null
                "tx_ref",
                "amount",
                "currency",
                "email",
                "first_name",
                "last_name",
                "callback_url",
                "return_url",
            )
            if k in fields
        }
        body["customization"] = {k: fields[k] for k in ("title", "description", "logo") if fields.get(k)}
        raw_meta = fields.get("meta", "")
        if not rules.matches(rules.META_JSON, raw_meta):
            raise ApiError(
                400,
                "meta must be a JSON object of strings",
                {
                    "meta": [
                        f"meta must be a JSON object of at most {rules.META_MEMBERS} strings, names of 1 "
                        f"to {rules.META_NAME} characters, values of at most {rules.META_VALUE}"
                    ]
                },
            )
        if raw_meta.strip(" "):
            body["meta"] = parse_json(raw_meta, "meta")
        url = create_payment(sb, owner, body, sb.base_url(request), "FORM")
    except ApiError as err:
        problems = [m for msgs in (err.errors or {}).values() for m in msgs] or [err.message]
        return page(
            sb,
            "message.html",
            err.status,
            heading="This payment could not start",
            text="The shop's payment form has problems:",
            problems=problems,
            test=False,
        )
    return RedirectResponse(url, 303)


def _script() -> str:
    return resources.files("paydesk.sandbox").joinpath("static/payment.js").read_text("utf-8")


KEY_FIELDS = re.compile(r"/\*KEY_FIELDS\*/.*?/\*END_KEY_FIELDS\*/", re.DOTALL)


def with_key_fields(script: str, fields: Sequence[str]) -> str:
    """``script`` reading the key from ``fields``: the list between its KEY_FIELDS markers
    is replaced (as JSON). A script without exactly one such list is an error, never
    served as it is (it would read the key from members the dialect does not use)."""
    found = KEY_FIELDS.findall(script)
    if len(found) != 1:
        raise ValueError(f"payment.js has {len(found)} KEY_FIELDS lists; it needs exactly one")
    return KEY_FIELDS.sub(lambda _m: json.dumps(list(fields)), script)


async def payment_js(request: Request) -> Response:
    """The script, reading the key from the config members the dialect's script reads."""
    script = with_key_fields(_script(), sandbox_of(request).dialect.script_key_fields)
    return Response(
        script,
        media_type="application/javascript",
        headers={
            "Cache-Control": "public, max-age=300",
            "Access-Control-Allow-Origin": "*",
        },
    )
