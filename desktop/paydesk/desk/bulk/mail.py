"""Each customer of a batch sent their link by e-mail, through the merchant's own SMTP server
(issue 20 §3), Qt-free.

The settings are per profile (host, port, user, how the connection is secured, the sender),
kept in ``smtp.json`` in the data folder, read and written off the loop's thread; the
password only in the keyring (entry ``<profile>/any/smtp``), never in the file, a log or an
error's text. ``message_for`` is the message a row gets (the window previews it);
``send_test`` sends one to the user; ``send_links`` sends a batch's rows on one connection,
a few a second, each row's result told as it is known (sent, or failed and why). smtplib
runs on a worker thread: the window never waits on the server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import smtplib
import socket
import ssl
import threading
import time
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import asdict, dataclass, replace
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import TYPE_CHECKING

from ...config.paths import Paths
from ...config.profiles import Profile
from ...ledger.batch import CREATED, SENT, BatchBook, BatchRow
from ...service.money import format_amount

if TYPE_CHECKING:
    from ...config.secrets import KeyStore

log = logging.getLogger("paydesk.mail")
FILE = "smtp.json"
SECURITY = ("starttls", "tls", "none")  # STARTTLS on 587, TLS from the start on 465, neither
KEY_MODE, KEY_KIND = "any", "smtp"  # the password's keyring entry: <profile>/any/smtp
TIMEOUT = 30.0  # seconds a connection or a command may take
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class MailError(Exception):
    """What stopped the mail as a whole (the server, the settings, the password), said so the
    user can fix it. Never holds the password."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class SmtpSettings:
    host: str = ""
    port: int = 587
    user: str = ""  # "" : the server takes mail without logging in
    security: str = "starttls"  # one of SECURITY
    sender: str = ""  # the From address ("billing@shop.example")
    sender_name: str = ""  # shown with it ("" : the profile's merchant name)
    per_second: float = 2.0  # at most this many messages a second

    def problems(self) -> dict[str, str]:
        """What is wrong with the settings as typed, by field (empty: fine)."""
        found: dict[str, str] = {}
        if not self.host.strip() or _CONTROL.search(self.host) or " " in self.host.strip():
            found["host"] = "Enter the SMTP server's name, e.g. smtp.example.com"
        if not 1 <= self.port <= 65535:
            found["port"] = "A port between 1 and 65535 (587 for STARTTLS, 465 for TLS)"
        if self.security not in SECURITY:
            found["security"] = "STARTTLS, TLS or none"
        if not _address(self.sender):
            found["sender"] = "Enter the address the e-mails come from"
        if _CONTROL.search(self.user) or _CONTROL.search(self.sender_name):
            found["user" if _CONTROL.search(self.user) else "sender_name"] = \
                "One line of text, without control characters"
        if not 0 < self.per_second <= 50:
            found["per_second"] = "Between 0.1 and 50 messages a second"
        return found

    @classmethod
    def from_json(cls, data: object) -> SmtpSettings:
        if not isinstance(data, dict):
            return cls()
        texts = ("host", "user", "security", "sender", "sender_name")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__
                 and (isinstance(v, str) if k in texts else isinstance(v, int | float))}
        try:
            settings = cls(**known)
            return replace(settings, port=int(settings.port),
                           per_second=float(settings.per_second))
        except (TypeError, ValueError):
            return cls()


def _address(text: str) -> Address | None:
    text = text.strip()
    if not text or _CONTROL.search(text) or text.count("@") != 1:
        return None
    user, domain = text.split("@")
    try:
        return Address(username=user, domain=domain)
    except (ValueError, IndexError):
        return None


def _file(paths: Paths) -> Path:
    return paths.data / FILE


def _read_all(path: Path) -> dict:
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("%s unreadable, no SMTP settings: %s", path, error)
        return {}
    return data if isinstance(data, dict) else {}


async def load_settings(paths: Paths, profile_id: str) -> SmtpSettings:
    """The profile's SMTP settings (the defaults when it has none yet)."""
    data = await asyncio.to_thread(_read_all, _file(paths))
    return SmtpSettings.from_json(data.get(profile_id))


def _write(path: Path, profile_id: str, settings: SmtpSettings | None) -> None:
    data = _read_all(path)
    if settings is None:
        data.pop(profile_id, None)
    else:
        data[profile_id] = asdict(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2), "utf-8")
    os.replace(tmp, path)


async def save_settings(paths: Paths, profile_id: str, settings: SmtpSettings) -> None:
    """Keep the profile's settings (the file written whole and atomically, off the loop)."""
    await asyncio.to_thread(_write, _file(paths), profile_id, settings)


async def forget_settings(paths: Paths, keys: KeyStore, profile_id: str) -> None:
    """A profile deleted: its settings and its password go."""
    await asyncio.to_thread(_write, _file(paths), profile_id, None)
    await keys.set(profile_id, KEY_MODE, KEY_KIND, "")


async def load_password(keys: KeyStore, profile_id: str) -> str | None:
    return await keys.get(profile_id, KEY_MODE, KEY_KIND)


async def save_password(keys: KeyStore, profile_id: str, password: str) -> bool:
    """True when the system keyring keeps it; False when it is kept for this session only."""
    return await keys.set(profile_id, KEY_MODE, KEY_KIND, password)


def _one_line(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


def _sender(settings: SmtpSettings, profile: Profile) -> Address:
    address = _address(settings.sender)
    if address is None:
        raise MailError("Enter the address the e-mails come from")
    name = _one_line(settings.sender_name or profile.shown_name)
    return Address(display_name=name, username=address.username, domain=address.domain)


def message_for(row: BatchRow, profile: Profile, settings: SmtpSettings) -> EmailMessage:
    """The e-mail a row's customer gets: who asks, what for, how much, the link, the
    reference. Raises MailError when the row has no link or no usable address."""
    values = row.values
    url = row.record.checkout_url if row.record is not None else None
    if not url:
        raise MailError("This row has no payment link yet")
    to = _address(values.get("email", ""))
    if to is None:
        raise MailError("This row has no usable e-mail address")
    first = _one_line(values.get("first_name", ""))
    last = _one_line(values.get("last_name", ""))
    title = _one_line(values.get("title", "")) or "Payment request"
    merchant = _one_line(profile.shown_name)
    record = row.record
    assert record is not None
    amount = f"{record.currency} {format_amount(record.amount)}"
    message = EmailMessage()
    message["Subject"] = f"{title}: {amount} to {merchant}"
    message["From"] = _sender(settings, profile)
    message["To"] = Address(display_name=f"{first} {last}".strip(), username=to.username,
                            domain=to.domain)
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = make_msgid(domain=message["From"].addresses[0].domain)
    description = values.get("description", "").strip()
    lines = [f"Dear {first or 'customer'},", "",
             f"{merchant} asks you to pay {amount} for: {title}."]
    if description:
        lines += ["", description]
    lines += ["", "Pay securely here:", url, "",
              f"Reference: {row.tx_ref}", "",
              "If you have paid already, thank you: please ignore this message.", "",
              merchant]
    message.set_content("\n".join(lines))
    return message


def preview(row: BatchRow, profile: Profile, settings: SmtpSettings) -> str:
    """The message as the customer reads it: its headers and text (the window shows it)."""
    message = message_for(row, profile, settings)
    heads = "\n".join(f"{name}: {message[name]}" for name in ("From", "To", "Subject"))
    body = message.get_content()
    return f"{heads}\n\n{body}"


def test_message(settings: SmtpSettings, profile: Profile, to: str) -> EmailMessage:
    address = _address(to)
    if address is None:
        raise MailError("Enter the address the test goes to")
    message = EmailMessage()
    message["Subject"] = f"PayDesk: a test from {_one_line(profile.shown_name)}"
    message["From"] = _sender(settings, profile)
    message["To"] = address
    message["Date"] = formatdate(localtime=True)
    message.set_content("This test came through your SMTP server: PayDesk can send your "
                        "customers their payment links.\n")
    return message


class _Connection:
    """One SMTP connection, opened, secured and logged in on first use (on a worker thread)."""

    def __init__(self, settings: SmtpSettings, password: str | None):
        self.settings = settings
        self._password = password
        self._smtp: smtplib.SMTP | None = None
        self._lock = threading.Lock()  # a close waits for the message under way

    def _open(self) -> smtplib.SMTP:
        s = self.settings
        context = ssl.create_default_context()
        try:
            if s.security == "tls":
                smtp: smtplib.SMTP = smtplib.SMTP_SSL(s.host, s.port, timeout=TIMEOUT,
                                                      context=context)
            else:
                smtp = smtplib.SMTP(s.host, s.port, timeout=TIMEOUT)
            try:
                smtp.ehlo()
                if s.security == "starttls":
                    if not smtp.has_extn("starttls"):
                        raise MailError(f"{s.host} does not offer STARTTLS: choose another "
                                        "port or TLS")
                    smtp.starttls(context=context)
                    smtp.ehlo()
                if s.user:
                    smtp.login(s.user, self._password or "")
            except BaseException:
                smtp.close()
                raise
        except MailError:
            raise
        except smtplib.SMTPAuthenticationError as error:
            raise MailError(f"{s.host} refused the user name or password "
                            f"({error.smtp_code})") from None
        except smtplib.SMTPNotSupportedError:
            raise MailError(f"{s.host} does not take a login on this connection: check the "
                            "security setting") from None
        except ssl.SSLError as error:
            raise MailError(f"The secure connection to {s.host} failed: "
                            f"{error.reason or type(error).__name__}") from None
        except (smtplib.SMTPException, OSError) as error:
            raise MailError(f"Could not reach {s.host}:{s.port}: {_why(error)}") from None
        return smtp

    def send(self, message: EmailMessage) -> None:
        """Send one message; a connection the server closed meanwhile is opened again once."""
        with self._lock:
            self._send(message)

    def _send(self, message: EmailMessage) -> None:
        for attempt in (1, 2):
            if self._smtp is None:
                self._smtp = self._open()
            try:
                self._smtp.send_message(message)
                return
            except smtplib.SMTPServerDisconnected:
                self._smtp = None
                if attempt == 2:
                    raise MailError(f"{self.settings.host} closed the connection") from None

    def close(self) -> None:
        with self._lock:
            if self._smtp is not None:
                try:
                    self._smtp.quit()
                except (smtplib.SMTPException, OSError):
                    self._smtp.close()
                self._smtp = None


def _why(error: BaseException) -> str:
    if isinstance(error, socket.timeout | TimeoutError):
        return "no answer in time"
    if isinstance(error, socket.gaierror):
        return "no such server"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, smtplib.SMTPResponseException):
        text = error.smtp_error.decode("utf-8", "replace") if isinstance(error.smtp_error, bytes) \
            else str(error.smtp_error)
        return f"{error.smtp_code} {_one_line(text)}"
    return _one_line(str(error)) or type(error).__name__


def _row_failure(error: smtplib.SMTPException) -> str | None:
    """The words for a refusal that is the row's own (its address refused, its message
    refused), or None when it is the server's or the connection's (stop)."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        said = [_why(smtplib.SMTPResponseException(code, text))
                for code, text in error.recipients.values()]
        return "The server refused the address: " + "; ".join(said)
    if isinstance(error, smtplib.SMTPSenderRefused):
        return None  # the sender: every row would fail alike
    if isinstance(error, smtplib.SMTPDataError | smtplib.SMTPResponseException) and \
            400 <= error.smtp_code < 600:
        return f"The server refused the message: {_why(error)}"
    return None


async def send_test(settings: SmtpSettings, password: str | None, profile: Profile,
                    to: str) -> None:
    """Send one test message to ``to``; raises MailError with what to fix."""
    wrong = settings.problems()
    if wrong:
        raise MailError(next(iter(wrong.values())))
    message = test_message(settings, profile, to)
    connection = _Connection(settings, password)

    def send() -> None:
        try:
            connection.send(message)
        except smtplib.SMTPException as error:
            raise MailError(f"The test was not sent: {_why(error)}") from None
        finally:
            connection.close()

    await asyncio.to_thread(send)


OnResult = Callable[[BatchRow, bool, str | None], Awaitable[object]]


async def send_links(settings: SmtpSettings, password: str | None, profile: Profile,
                     rows: AsyncIterable[BatchRow] | Iterable[BatchRow],
                     on_result: OnResult) -> tuple[int, int]:
    """Send each row its link, on one connection, at most ``settings.per_second`` a second.
    ``on_result(row, ok, error)`` is awaited for each row as its result is known (the caller
    notes it in the ledger). A row the server refuses fails alone; a failure of the server
    or the connection raises MailError (the rows not tried yet are left unsent). Returns
    (sent, failed). Cancelled, it stops before the next message; the one under way is
    finished and its result told first."""
    wrong = settings.problems()
    if wrong:
        raise MailError(next(iter(wrong.values())))
    connection = _Connection(settings, password)
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


async def _send_one(connection: _Connection, message: EmailMessage, row: BatchRow,
                    on_result: OnResult) -> str | None:
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
        why = _row_failure(error)
        if why is None:
            raise MailError(f"{connection.settings.host} stopped the sending: "
                            f"{_why(error)}") from None
        return why
    return None


async def mail_batch(book: BatchBook, batch_id: int, profile: Profile, settings: SmtpSettings,
                     password: str | None, *, again: bool = False,
                     on_result: OnResult | None = None) -> tuple[int, int]:
    """E-mail every row of a batch whose link is open for payment (CREATED), except those
    sent already (unless ``again``), and note each result in the book (the row's e-mail
    column: sent, or failed and why). Rows are read page by page as the sending goes."""

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
