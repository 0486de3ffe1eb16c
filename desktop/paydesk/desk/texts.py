"""How times and money read in the Transactions tab: local time on screen, UTC on hover."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from ..service.money import format_amount


def local_time(when: datetime | None) -> str:
    return when.astimezone().strftime("%d %b %Y %H:%M") if when else ""


def utc_time(when: datetime | None) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S UTC") if when else ""


def money_text(amount: Decimal | None) -> str:
    return format_amount(amount) if amount is not None else ""
