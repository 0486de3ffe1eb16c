"""The Counter tab's voids and decisions (``tab.py``'s CounterTab takes them from
``Voids``): *New sale* voiding a sale that can still be paid once the staff said so, and a
payment after a void refunded or kept."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from ...i18n import N_, _
from ...ledger import LedgerError
from ...ledger.counter import REFUND, Sale
from ...service.errors import ServiceError
from .confirm_sale import confirm_sale

PAID_MEANWHILE = N_("The customer paid meanwhile: nothing was voided")
ENDED_MEANWHILE = N_("The sale ended meanwhile: nothing was voided")


if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from PySide6.QtWidgets import QLineEdit, QWidget

    from ...desk.counter import CounterController
    from ...desk.session import Session
    from ..field_message import FieldMessage
    from .after_void import AfterVoidBanner
    from .entry import SaleEntry
    from .mirror import StaffMirror

    _Tab = QWidget
else:
    _Tab = object


class Voids(_Tab):
    """CounterTab's *New sale* (``new_sale``) and decisions after a void (``decide``)."""

    # what they use of the tab, made in tab.py's CounterTab
    session: Session
    controller: CounterController
    entry: SaleEntry
    amount: QLineEdit
    message: FieldMessage
    mirror: StaffMirror
    banner: AfterVoidBanner

    if TYPE_CHECKING:  # the tab's methods they call, defined in tab.py

        def show_sale(self, sale: Sale | None) -> None: ...

        def say_refused(self, failure: Exception) -> None: ...

        def _back_to_amount(self) -> None: ...

        async def _refresh(self) -> None: ...

        async def _quietly(self, work: Callable[[], Awaitable[object]]) -> None: ...

    def _refused_now(self) -> bool:
        """Refused before the staff is asked anything (the shared ledger out of reach)."""
        try:
            self.session.refuse_while_down()
        except LedgerError as refused:
            self.say_refused(refused)
            return True
        return False

    async def new_sale(self) -> Sale | None:
        """*New sale*: the sale shown voided first (once the staff said so) when it can still
        be paid; then both screens blank for the next customer."""
        if self.controller.payable():
            if self._refused_now():  # a void could not be written: not asked
                return None
            ok = await confirm_sale(
                self,
                _("Void this sale?"),
                _("Void this sale and start a new one?"),
                self.controller.current,
                _(
                    "The customer's code stops being shown. PayDesk keeps watching the link: if "
                    "it is paid anyway it is shown in red, to refund or keep."
                ),
                _("Void sale"),
                _("Keep waiting"),
                object_name="confirm-void",
            )
            if not ok:
                return None
            if not self.controller.payable():  # paid while the box was open
                self._paid_meanwhile()
                return None
        try:
            voided = await self.controller.new_sale()
        except (LedgerError, ServiceError) as failure:
            self.say_refused(failure)
            return None
        if self.controller.current is not None:  # paid meanwhile (SalePaid): PAID stays shown
            self.message.say(_(PAID_MEANWHILE), ok=True)
            return None
        self.entry.clear()
        self.show_sale(None)
        self.amount.setFocus(Qt.FocusReason.OtherFocusReason)
        return voided

    def _paid_meanwhile(self) -> None:
        """*Void sale* pressed on a sale the customer had paid meanwhile: nothing voided;
        both screens show how it ended (PAID), the next Escape clears them."""
        settled = self.controller.current or self.mirror.sale
        self.show_sale(settled)
        state = settled.record.state if settled is not None and settled.record else ""
        self.message.say(_(PAID_MEANWHILE) if state == "success" else _(ENDED_MEANWHILE), ok=True)
        self._back_to_amount()

    async def decide(self, sale: Sale, decision: str) -> Sale | None:
        """A payment after a void: refunded (once the staff confirmed) or kept."""
        if self._refused_now():  # a decision could not be written: not asked
            return None
        if decision == REFUND:
            ok = await confirm_sale(
                self,
                _("Refund this payment?"),
                _("Refund the payment that came after the void?"),
                sale,
                _(
                    "Give this amount back from the service's dashboard: PayDesk cannot refund "
                    "it. PayDesk records that it is to be refunded, who decided and when."
                ),
                _("Record refund"),
                _("Cancel"),
                object_name="confirm-refund",
            )
            if not ok:
                return None
        self.banner.set_busy(True)
        try:
            decided = await self.controller.decide(sale, decision)
        except LedgerError as failure:
            self.say_refused(failure)
            return None
        finally:
            self.banner.set_busy(False)
        await self._quietly(self._refresh)
        return decided
