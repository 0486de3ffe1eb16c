"""The merchant's own SMTP server (issue 20 §3), Qt-free: its settings per profile and the
connection PayDesk sends the links on.

The settings (host, port, user, how the connection is secured, the sender) are kept in
``smtp.json`` in the data folder, read and written whole off the loop's thread; the password
only in the keyring (entry ``<profile>/any/smtp``), never in the file, a log or an error's
text. ``Connection`` is one SMTP connection (smtplib, used on a worker thread), opened,
secured and logged in on first use; what goes wrong is said in words the user can act on
(``MailError``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import os
import re
import smtplib
import socket
import ssl
import threading
from dataclasses import asdict, dataclass, replace
from email.headerregistry import Address
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

from ...config.paths import Paths
from ...i18n import N_, _

if TYPE_CHECKING:
    from ...config.secrets import KeyStore

log = logging.getLogger("paydesk.mail")
FILE = "smtp.json"
SECURITY = ("starttls", "tls", "none")  # STARTTLS on 587, TLS from the start on 465, neither
KEY_MODE, KEY_KIND = "any", "smtp"  # the password's keyring entry: <profile>/any/smtp
TIMEOUT = 30.0  # seconds a connection or a command may take
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
IN_CLEAR = N_(
    "A password is only sent over a secure connection: choose STARTTLS or TLS (a login without "
    "either only to a server on this computer)"
)


def loopback(host: str) -> bool:
    """The host is this computer (its name or a loopback address; no look-up)."""
    host = host.strip().strip("[]").lower().rstrip(".")
    if host in ("localhost", "localhost.localdomain") or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
            found["host"] = _("Enter the SMTP server's name, e.g. smtp.example.com")
        if not 1 <= self.port <= 65535:
            found["port"] = _("A port between 1 and 65535 (587 for STARTTLS, 465 for TLS)")
        if self.security not in SECURITY:
            found["security"] = _("STARTTLS, TLS or none")
        elif self.in_clear():
            found["security"] = _(IN_CLEAR)
        if not address_of(self.sender):
            found["sender"] = _("Enter the address the e-mails come from")
        if _CONTROL.search(self.user) or _CONTROL.search(self.sender_name):
            found["user" if _CONTROL.search(self.user) else "sender_name"] = _(
                "One line of text, without control characters"
            )
        if not 0 < self.per_second <= 50:
            found["per_second"] = _("Between 0.1 and 50 messages a second")
        return found

    def in_clear(self) -> bool:
        """A login over plain TCP to another computer: the password would travel readable."""
        return self.security == "none" and bool(self.user.strip()) and not loopback(self.host)

    @classmethod
    def from_json(cls, data: object) -> SmtpSettings:
        if not isinstance(data, dict):
            return cls()
        texts = ("host", "user", "security", "sender", "sender_name")
        known = {
            k: v
            for k, v in data.items()
            if k in cls.__dataclass_fields__ and (isinstance(v, str) if k in texts else isinstance(v, int | float))
        }
        try:
            settings = cls(**known)
            return replace(settings, port=int(settings.port), per_second=float(settings.per_second))
        except (TypeError, ValueError):
            return cls()


def address_of(text: str) -> Address | None:
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


def one_line(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


class Connection:
    """One SMTP connection, opened, secured and logged in on first use (on a worker thread)."""

    def __init__(self, settings: SmtpSettings, password: str | None):
        self.settings = settings
        self._password = password
        self._smtp: smtplib.SMTP | None = None
        self._lock = threading.Lock()  # a close waits for the message under way

    def _open(self) -> smtplib.SMTP:
        s = self.settings
        if s.in_clear():  # refused before any connection, whatever the caller checked
            raise MailError(_(IN_CLEAR))
        context = ssl.create_default_context()
        try:
            if s.security == "tls":
                smtp: smtplib.SMTP = smtplib.SMTP_SSL(s.host, s.port, timeout=TIMEOUT, context=context)
            else:
                smtp = smtplib.SMTP(s.host, s.port, timeout=TIMEOUT)
            try:
                smtp.ehlo()
                if s.security == "starttls":
                    if not smtp.has_extn("starttls"):
                        raise MailError(
                            _("{host} does not offer STARTTLS: choose another port or TLS").format(host=s.host)
                        )
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
            raise MailError(
                _("{host} refused the user name or password ({smtp_code})").format(
                    host=s.host, smtp_code=error.smtp_code
                )
            ) from None
        except smtplib.SMTPNotSupportedError:
            raise MailError(
                _("{host} does not take a login on this connection: check the security setting").format(host=s.host)
            ) from None
        except ssl.SSLError as error:
            raise MailError(
                _("The secure connection to {host} failed: {why}").format(
                    host=s.host, why=error.reason or type(error).__name__
                )
            ) from None
        except (smtplib.SMTPException, OSError) as error:
            raise MailError(
                _("Could not reach {host}:{port}: {why}").format(host=s.host, port=s.port, why=why_words(error))
            ) from None
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
                    raise MailError(_("{host} closed the connection").format(host=self.settings.host)) from None

    def close(self) -> None:
        with self._lock:
            if self._smtp is not None:
                try:
                    self._smtp.quit()
                except (smtplib.SMTPException, OSError):
                    self._smtp.close()
                self._smtp = None


def why_words(error: BaseException) -> str:
    if isinstance(error, socket.timeout | TimeoutError):
        return _("no answer in time")
    if isinstance(error, socket.gaierror):
        return _("no such server")
    if isinstance(error, ConnectionRefusedError):
        return _("connection refused")
    if isinstance(error, smtplib.SMTPResponseException):
        text = (
            error.smtp_error.decode("utf-8", "replace")
            if isinstance(error.smtp_error, bytes)
            else str(error.smtp_error)
        )
        return f"{error.smtp_code} {one_line(text)}"
    return one_line(str(error)) or type(error).__name__


def row_failure(error: smtplib.SMTPException) -> str | None:
    """The words for a refusal that is the row's own (its address refused, its message
    refused), or None when it is the server's or the connection's (stop)."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        said = [why_words(smtplib.SMTPResponseException(code, text)) for code, text in error.recipients.values()]
        return _("The server refused the address: {why}").format(why="; ".join(said))
    if isinstance(error, smtplib.SMTPSenderRefused):
        return None  # the sender: every row would fail alike
    if isinstance(error, smtplib.SMTPDataError | smtplib.SMTPResponseException) and 400 <= error.smtp_code < 600:
        return _("The server refused the message: {why}").format(why=why_words(error))
    return None
