"""Customer receipts: an RFC 5322 file in DIR/outbox/, and over SMTP when asked."""

from __future__ import annotations

import asyncio
import logging
import smtplib
import sqlite3
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

from .store import Store
from .validation import money

log = logging.getLogger("paydesk.sandbox.mail")
SENDER = "receipts@sandbox.paydesk.invalid"


class Mailer:
    def __init__(self, store: Store, outbox: Path, smtp: str | None):
        self.store = store
        self.outbox = outbox
        self.smtp = smtp
        outbox.mkdir(parents=True, exist_ok=True)

    def compose(self, row: sqlite3.Row, merchant_name: str) -> EmailMessage:
        paid = row["status"] == "success"
        msg = EmailMessage()
        msg["From"] = f"{merchant_name} <{SENDER}>"
        msg["To"] = row["email"]
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = make_msgid(domain="sandbox.paydesk.invalid")
        prefix = "[TEST] " if row["mode"] == "test" else ""
        what = "Receipt" if paid else "Payment failed"
        msg["Subject"] = f"{prefix}{what}: {row['currency']} {money(row['amount'])} to {merchant_name}"
        lines = [
            f"Dear {row['first_name']} {row['last_name']},",
            "",
            (
                f"your payment of {row['currency']} {money(row['amount'])} to {merchant_name} succeeded."
                if paid
                else f"your payment of {row['currency']} {money(row['amount'])} to {merchant_name} did not go through."
            ),
            "",
            f"Reference: {row['reference']}",
            f"Merchant reference: {row['tx_ref']}",
        ]
        if row["mode"] == "test":
            lines += ["", "This is a test-mode payment: no money moved."]
        msg.set_content("\n".join(lines) + "\n")
        return msg

    async def receipt(self, row: sqlite3.Row, merchant_name: str) -> None:
        """Write (and send) the receipt of a settled payment. It runs after the payment's
        commit: a receipt that cannot be written is logged, and the payment stands."""
        name = f"{row['updated_at'].replace(':', '')}-{row['reference']}-{row['status']}.eml"
        try:
            msg = self.compose(row, merchant_name)
            (self.outbox / name).write_bytes(bytes(msg))
            self.store.log_email(row["merchant_id"], row["mode"], row["email"], msg["Subject"], name)
        except Exception:
            log.exception("the receipt %s could not be written; the payment stands", name)
            return
        if self.smtp:
            try:
                await asyncio.to_thread(self._send_smtp, msg)
            except (OSError, smtplib.SMTPException) as exc:
                log.warning("SMTP delivery of %s failed: %s", name, exc)

    def _send_smtp(self, msg: EmailMessage) -> None:
        host, _, port = self.smtp.rpartition(":")
        with smtplib.SMTP(host, int(port), timeout=5) as smtp:
            smtp.send_message(msg)
