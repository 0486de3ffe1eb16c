"""The Counter tab's voids and decisions (``tab.py``): *New sale* voiding a sale that can
still be paid once the staff said so, and a payment after a void refunded or kept."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from ...ledger import LedgerError
from ...ledger.counter import REFUND, Sale
from ...service.errors import ServiceError
from .confirm_sale import confirm_sale

if TYPE_CHECKING:
    from .tab import CounterTab

PAID_MEANWHILE = "The customer paid meanwhile: nothing was voided"
ENDED_MEANWHILE = "The sale ended meanwhile: nothing was voided"


def refused_now(tab: CounterTab) -> bool:
    """Refused before the staff is asked anything (the shared ledger out of reach)."""
    try:
        tab.session.refuse_while_down()
    except LedgerError as refused:
        tab.say_refused(refused)
        return True
    return False


async def new_sale(tab: CounterTab) -> Sale | None:
    """*New sale*: the sale shown voided first (once the staff said so) when it can still
    be paid; then both screens blank for the next customer."""
    if tab.controller.payable():
        if refused_now(tab):  # a void could not be written: not asked
            return None
        ok = await confirm_sale(
            tab, "Void this sale?", "Void this sale and start a new one?",
            tab.controller.current,
            "The customer's code stops being shown. PayDesk keeps watching the link: if "
            "it is paid anyway it is shown in red, to refund or keep.",
            "Void sale", "Keep waiting", object_name="confirm-void")
        if not ok:
            return None
        if not tab.controller.payable():  # paid while the box was open
            paid_meanwhile(tab)
            return None
    try:
        voided = await tab.controller.new_sale()
    except (LedgerError, ServiceError) as failure:
        tab.say_refused(failure)
        return None
    if tab.controller.current is not None:  # paid meanwhile (SalePaid): PAID stays shown
        return tab.message.say(PAID_MEANWHILE, ok=True)
    tab.entry.clear()
    tab.show_sale(None)
    tab.amount.setFocus(Qt.FocusReason.OtherFocusReason)
    return voided


def paid_meanwhile(tab: CounterTab) -> None:
    """*Void sale* pressed on a sale the customer had paid meanwhile: nothing voided;
    both screens show how it ended (PAID), the next Escape clears them."""
    settled = tab.controller.current or tab.mirror.sale
    tab.show_sale(settled)
    state = settled.record.state if settled is not None and settled.record else ""
    tab.message.say(PAID_MEANWHILE if state == "success" else ENDED_MEANWHILE, ok=True)
    tab._back_to_amount()


async def decide(tab: CounterTab, sale: Sale, decision: str) -> Sale | None:
    """A payment after a void: refunded (once the staff confirmed) or kept."""
    if refused_now(tab):  # a decision could not be written: not asked
        return None
    if decision == REFUND:
        ok = await confirm_sale(
            tab, "Refund this payment?", "Refund the payment that came after the void?",
            sale,
            "Give this amount back from the service's dashboard: PayDesk cannot refund "
            "it. PayDesk records that it is to be refunded, who decided and when.",
            "Record refund", "Cancel", object_name="confirm-refund")
        if not ok:
            return None
    tab.banner.set_busy(True)
    try:
        decided = await tab.controller.decide(sale, decision)
    except LedgerError as failure:
        tab.say_refused(failure)
        return None
    finally:
        tab.banner.set_busy(False)
    await tab._quietly(tab._refresh)
    return decided
