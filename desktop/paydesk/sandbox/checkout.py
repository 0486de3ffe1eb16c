"""The hosted checkout page a customer pays on, with the 3-D Secure step."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from . import rules
from .bodies import read_form
from .context import Sandbox, sandbox_of
from .payments import settle
from .validation import money

SUCCEEDS, DECLINED, THREE_DS = rules.TEST_CARDS
THREE_DS_CODE = "123456"
# A live link stands for real money: no test card may settle it (PayDesk would show it PAID
# with nothing paid). In the sandbox, the control API with the live secret key pays it.
LIVE_REFUSAL = "This is a live payment: test cards cannot pay it."


def page(sb: Sandbox, template: str, code: int = 200, **values) -> HTMLResponse:
    html = sb.templates.get_template(template).render(**values)
    return HTMLResponse(
        html,
        status_code=code,
        headers={
            "Content-Security-Policy": (
                "default-src 'self'; img-src * data:; style-src 'self' 'unsafe-inline'; form-action *"
            ),
            "X-Frame-Options": "DENY",
            "Cache-Control": "no-store",
        },
    )


def _view(sb: Sandbox, row) -> dict:
    custom = json.loads(row["customization"])
    return {
        "reference": row["reference"],
        "merchant": sb.keys.name_of(row["merchant_id"]),
        "title": custom.get("title") or sb.keys.name_of(row["merchant_id"]),
        "description": custom.get("description", ""),
        "logo": custom.get("logo"),
        "amount": f"{row['currency']} {money(row['amount'])}",
        "test": row["mode"] == "test",
        "status": row["status"],
        "tx_ref": row["tx_ref"],
        "base": sb.config.base_path,
    }


def _find(request: Request):
    sb = sandbox_of(request)
    row = sb.store.transaction_by_reference(request.path_params["reference"])
    return sb, row


def _not_found(sb: Sandbox) -> HTMLResponse:
    return page(
        sb,
        "message.html",
        404,
        heading="Payment not found",
        text="This payment link does not exist. Check the address you were given.",
        test=False,
    )


def _closed(sb: Sandbox, row) -> HTMLResponse:
    return page(sb, "closed.html", 409, **_view(sb, row))


async def show(request: Request) -> Response:
    sb, row = _find(request)
    if row is None:
        return _not_found(sb)
    if row["status"] != "pending":
        return _closed(sb, row)
    if row["threeds_pending"]:
        return RedirectResponse(f"{sb.base_url(request)}/payment/{row['reference']}/3ds", 303)
    return page(sb, "checkout.html", **_view(sb, row), error=None)


async def submit_card(request: Request) -> Response:
    sb, row = _find(request)
    if row is None:
        return _not_found(sb)
    if row["status"] != "pending":
        return _closed(sb, row)
    if row["mode"] == "live":
        return page(sb, "checkout.html", 409, **_view(sb, row), error=LIVE_REFUSAL)
    form = await read_form(request)
    typed = form.get("card_number", "")
    problem = None
    if not rules.matches(rules.TEST_CARD, typed):
        problem = (
            "This sandbox only takes its test cards: 4242 4242 4242 4242, 4000 0000 0000 0002 or 4000 0000 0000 3220."
        )
    elif not rules.matches(rules.EXPIRY, form.get("expiry", "")):
        problem = "Enter the expiry date as MM/YY."
    elif not rules.matches(rules.CVC, form.get("cvc", "")):
        problem = "Enter the 3 or 4 digit security code."
    if problem:
        return page(sb, "checkout.html", 400, **_view(sb, row), error=problem)
    number = typed.replace(" ", "").replace("-", "")
    base = sb.base_url(request)
    if number == THREE_DS:
        sb.store.set_transaction_status(row["reference"], "pending", only_if=("pending",), threeds_pending=1)
        return RedirectResponse(f"{base}/payment/{row['reference']}/3ds", 303)
    await settle(sb, row["reference"], "success" if number == SUCCEEDS else "failed")
    return RedirectResponse(sb.dialect.after_payment(sb.store.transaction_by_reference(row["reference"]), base), 303)


async def show_3ds(request: Request) -> Response:
    sb, row = _find(request)
    if row is None:
        return _not_found(sb)
    if row["status"] != "pending":
        return _closed(sb, row)
    if not row["threeds_pending"]:
        return RedirectResponse(f"{sb.base_url(request)}/payment/{row['reference']}", 303)
    return page(sb, "threeds.html", **_view(sb, row))


async def submit_3ds(request: Request) -> Response:
    sb, row = _find(request)
    if row is None:
        return _not_found(sb)
    if row["status"] != "pending":
        return _closed(sb, row)
    if row["mode"] == "live":
        return page(sb, "checkout.html", 409, **_view(sb, row), error=LIVE_REFUSAL)
    code = (await read_form(request)).get("code", "")
    if not rules.matches(rules.THREE_DS_CODE, code):
        return page(sb, "threeds.html", 400, **_view(sb, row), error="Enter the 6-digit code sent to your phone.")
    if not row["threeds_pending"]:  # no card asked for a code: back to the card form
        return RedirectResponse(f"{sb.base_url(request)}/payment/{row['reference']}", 303)
    passed = code.strip() == THREE_DS_CODE
    await settle(sb, row["reference"], "success" if passed else "failed")
    return RedirectResponse(
        sb.dialect.after_payment(sb.store.transaction_by_reference(row["reference"]), sb.base_url(request)), 303
    )


async def cancel(request: Request) -> Response:
    sb, row = _find(request)
    if row is None:
        return _not_found(sb)
    if row["status"] != "pending":
        return _closed(sb, row)
    await settle(sb, row["reference"], "cancelled")
    row = sb.store.transaction_by_reference(row["reference"])
    return RedirectResponse(sb.dialect.after_cancel(row, sb.base_url(request)), 303)


async def receipt(request: Request) -> Response:
    sb, row = _find(request)
    if row is None:
        return _not_found(sb)
    return page(sb, "receipt.html", **_view(sb, row))
