"""Each customer of a batch sent their link by e-mail, through the merchant's own SMTP server
(issue 20 §3), Qt-free; the settings, the password and the connection are smtp.py's.

``message_for`` is the message a row gets (the window previews it); ``send_test`` sends one
to the user; ``send_links`` sends a batch's rows on one connection, a few a second, each
row's result told as it is known (sent, or failed and why); ``mail_batch`` does so for a
batch of the book and notes each row's result there. smtplib runs on a worker thread: the
window never waits on the server.
"""

from __future__ import annotations

import asyncio
import smtplib
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from ...config.profiles import Profile
from ...i18n import _, customer
from ...ledger.batch import CREATED, SENT, BatchBook, BatchRow
from ..formats import money_in
from ..staff import Capability, Staff
from .smtp import (
    FILE,
    KEY_KIND,
    KEY_MODE,
    SECURITY,
    Connection,
    MailError,
    SmtpSettings,
    address_of,
    forget_settings,
    load_password,
    load_settings,
    one_line,
    row_failure,
    save_password,
    save_settings,
    why_words,
)

__all__ = [
    "FILE",
    "KEY_KIND",
    "KEY_MODE",
    "SECURITY",
    "MailError",
    "SmtpSettings",
    "forget_settings",
    "load_password",
    "load_settings",
    "mail_batch",
    "message_for",
    "preview",
    "save_password",
    "save_settings",
    "send_links",
    "send_test",
    "test_message",
]


def _sender(settings: SmtpSettings, profile: Profile) -> Address:
    address = address_of(settings.sender)
    if address is None:
        raise MailError(_("Enter the address the e-mails come from"))
    name = one_line(settings.sender_name or profile.shown_name)
    return Address(display_name=name, username=address.username, domain=address.domain)


def message_for(row: BatchRow, profile: Profile, settings: SmtpSettings) -> EmailMessage:
    """The e-mail a row's customer gets: who asks, what for, how much, the link, the
    reference. Raises MailError when the row has no link or no usable address."""
    values = row.values
    url = row.record.checkout_url if row.record is not None else None
    if not url:
        raise MailError(_("This row has no payment link yet"))
    to = address_of(values.get("email", ""))
    if to is None:
        raise MailError(_("This row has no usable e-mail address"))
    words = customer(profile.customer_language)  # the customer reads it: their language
    first = one_line(values.get("first_name", ""))
    last = one_line(values.get("last_name", ""))
    title = one_line(values.get("title", "")) or words.gettext("Payment request")
    merchant = one_line(profile.shown_name)
    record = row.record
    assert record is not None
    amount = money_in(record.amount, record.currency, words)
    message = EmailMessage()
    message["Subject"] = words.gettext("{title}: {amount} to {merchant}").format(
        title=title, amount=amount, merchant=merchant
    )
    message["From"] = _sender(settings, profile)
    message["To"] = Address(display_name=f"{first} {last}".strip(), username=to.username, domain=to.domain)
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = make_msgid(domain=message["From"].addresses[0].domain)
    description = values.get("description", "").strip()
    dear = words.gettext("Dear {name},").format(name=first) if first else words.gettext("Dear customer,")
    asks = words.gettext("{merchant} asks you to pay {amount} for: {title}.")
    lines = [dear, "", asks.format(merchant=merchant, amount=amount, title=title)]
    if description:
        lines += ["", description]
    lines += [
        "",
        words.gettext("Pay securely here:"),
        url,
        "",
        words.gettext("Reference: {reference}").format(reference=row.tx_ref),
        "",
        words.gettext("If you have paid already, thank you: please ignore this message."),
        "",
        merchant,
    ]
    message.set_content("\n".join(lines))
    return message


def preview(row: BatchRow, profile: Profile, settings: SmtpSettings) -> str:
    """The message as the customer reads it: its headers and text (the window shows it; the
    headers' names in the staff's language, as the staff's own mail program names them)."""
    message = message_for(row, profile, settings)
    heads = "\n".join(
        (
            _("From: {sender}").format(sender=message["From"]),
            _("To: {recipient}").format(recipient=message["To"]),
            _("Subject: {subject}").format(subject=message["Subject"]),
        )
    )
    body = message.get_content()
    return f"{heads}\n\n{body}"


def test_message(settings: SmtpSettings, profile: Profile, to: str) -> EmailMessage:
    """The test the user sends themselves: in the staff's language (they read it)."""
    address = address_of(to)
    if address is None:
        raise MailError(_("Enter the address the test goes to"))
    message = EmailMessage()
    message["Subject"] = _("PayDesk: a test from {merchant}").format(merchant=one_line(profile.shown_name))
    message["From"] = _sender(settings, profile)
    message["To"] = address
    message["Date"] = formatdate(localtime=True)
    message.set_content(
        _("This test came through your SMTP server: PayDesk can send your customers their payment links.") + "\n"
    )
    return message


async def send_test(settings: SmtpSettings, password: str | None, profile: Profile, to: str) -> None:
    """Send one test message to ``to``; raises MailError with what to fix."""
    wrong = settings.problems()
    if wrong:
        raise MailError(next(iter(wrong.values())))
    message = test_message(settings, profile, to)
    connection = Connection(settings, password)

    def send() -> None:
        try:
            connection.send(message)
        except smtplib.SMTPException as error:
            raise MailError(_("The test was not sent: {why}").format(why=why_words(error))) from None
        finally:
            connection.close()

    await asyncio.to_thread(send)


OnResult = Callable[[BatchRow, bool, str | None], Awaitable[object]]


async def send_links(
    settings: SmtpSettings,
    password: str | None,
    profile: Profile,
    rows: AsyncIterable[BatchRow] | Iterable[BatchRow],
    on_result: OnResult,
) -> tuple[int, int]:
    """Send each row its link, on one connection, at most ``settings.per_second`` a second.
    ``on_result(row, ok, error)`` is awaited for each row as its result is known (the caller
    notes it in the ledger). A row the server refuses fails alone; a failure of the server
    or the connection raises MailError (the rows not tried yet are left unsent). Returns
    (sent, failed). Cancelled, it stops before the next message; the one under way is
    finished and its result told first."""
    wrong = settings.problems()
    if wrong:
        raise MailError(next(iter(wrong.values())))
    connection = Connection(settings, password)
    gap = 1.0 / settings.per_second
    sent = failed = 0
    next_at = 0.0
    try:
        async for row in _each(rows):
            try:
                message = message_for(row, profile, settings)
            except MailError as error:
                failed += 1
                await on_result(row, False, error.message)
                continue
            wait = next_at - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            next_at = time.monotonic() + gap
            why = await _send_one(connection, message, row, on_result)
            if why is None:
                sent += 1
                await on_result(row, True, None)
            else:
                failed += 1
                await on_result(row, False, why)
    finally:
        await asyncio.to_thread(connection.close)
    return sent, failed


async def _each(rows: AsyncIterable[BatchRow] | Iterable[BatchRow]) -> AsyncIterator[BatchRow]:
    if isinstance(rows, AsyncIterable):
        async for row in rows:
            yield row
    else:
        for row in rows:
            yield row


async def _send_one(connection: Connection, message: EmailMessage, row: BatchRow, on_result: OnResult) -> str | None:
    """None when sent; the row's own failure in words; MailError when the server stops."""
    call = asyncio.ensure_future(asyncio.to_thread(connection.send, message))
    try:
        await asyncio.shield(call)
    except asyncio.CancelledError:
        await asyncio.wait({call})  # on its way: tell its result before stopping
        if not call.cancelled() and call.exception() is None:
            await on_result(row, True, None)
        raise
    except smtplib.SMTPException as error:
        why = row_failure(error)
        if why is None:
            raise MailError(
                _("{host} stopped the sending: {why}").format(host=connection.settings.host, why=why_words(error))
            ) from None
        return why
    return None


async def mail_batch(
    book: BatchBook,
    batch_id: int,
    profile: Profile,
    settings: SmtpSettings,
    password: str | None,
    *,
    again: bool = False,
    on_result: OnResult | None = None,
    staff: Staff,
) -> tuple[int, int]:
    """E-mail every row of a batch whose link is open for payment (CREATED), except those
    sent already (unless ``again``), and note each result in the book (the row's e-mail
    column: sent, or failed and why). Rows are read page by page as the sending goes.
    Refused (NotAllowed) unless the person signed in may make bulk links."""
    staff.require(Capability.BULK_LINKS)

    async def rows() -> AsyncIterator[BatchRow]:
        after = None
        while True:
            page = await book.rows(batch_id, after=after, limit=200, states=(CREATED,))
            for row in page:
                if again or row.email_state != SENT:
                    yield row
            if len(page) < 200:
                return
            after = page[-1].number

    async def noted(row: BatchRow, ok: bool, error: str | None) -> None:
        await book.note_email(batch_id, row.number, ok, error)
        if on_result is not None:
            await on_result(row, ok, error)

    return await send_links(settings, password, profile, rows(), noted)
