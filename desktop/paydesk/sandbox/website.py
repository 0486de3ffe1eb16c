"""What a merchant's website uses: the form post and the inline checkout script."""

from __future__ import annotations

from importlib import resources

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .bodies import media_type, parse_json
from .checkout import page
from .context import authenticate, sandbox_of
from .envelope import ApiError
from .payments import create_payment

_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


async def ext_transfer(request: Request) -> Response:
    """The seed's website form: hidden inputs, answered with 303 to checkout."""
    sb = sandbox_of(request)
    try:
        fields = await _form_fields(request)
        owner = authenticate(request, kinds=("public", "secret"), key=fields.get("secret_key", ""))
        body: dict = {k: fields.get(k) for k in (
            "tx_ref", "amount", "currency", "email", "first_name", "last_name",
            "callback_url", "return_url")}
        body["customization"] = {k: fields[k] for k in ("title", "description", "logo")
                                 if fields.get(k)}
        raw_meta = fields.get("meta", "").strip()
        if raw_meta:
            body["meta"] = parse_json(raw_meta, "meta")
        url = create_payment(sb, owner, body, sb.base_url(request), "FORM")
    except ApiError as err:
        problems = [m for msgs in (err.errors or {}).values() for m in msgs] or [err.message]
        return page(sb, "message.html", err.status, heading="This payment could not start",
                    text="The shop's payment form has problems:", problems=problems, test=False)
    return RedirectResponse(url, 303)


async def _form_fields(request: Request) -> dict[str, str]:
    """The posted form's fields (a body that is not a form has none)."""
    kind = media_type(request)
    if kind not in _FORM_TYPES:
        if kind or await request.body():
            raise ApiError(415, "The form must be posted as application/x-www-form-urlencoded "
                                "or multipart/form-data")
        return {}
    try:
        form = await request.form(max_files=0, max_fields=100)
    except HTTPException as exc:  # a malformed multipart body
        raise ApiError(400, f"The form could not be read: {exc.detail}") from None
    return {k: v for k, v in form.items() if isinstance(v, str)}


def _script() -> str:
    return resources.files("paydesk.sandbox").joinpath("static/payment.js").read_text("utf-8")


async def payment_js(request: Request) -> Response:
    return Response(_script(), media_type="application/javascript", headers={
        "Cache-Control": "public, max-age=300",
        "Access-Control-Allow-Origin": "*",
    })
