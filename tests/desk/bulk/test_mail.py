"""E-mailing a batch's links (issue 20 §3) through a real SMTP server on this machine
(aiosmtpd, in its own thread), the links themselves made on the real sandbox: each row its
own message with its link, a refused address failing alone, STARTTLS with a certificate the
client checks, a login with the password from the keyring (never in a file, a log or an
error), the settings kept per profile."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import ssl
import subprocess
from dataclasses import replace
from decimal import Decimal
from email import message_from_bytes, policy

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from paydesk.desk.bulk import mail
from paydesk.desk.bulk.mail import MailError, SmtpSettings
from paydesk.desk.bulk.smtp import IN_CLEAR, Connection
from paydesk.ledger.batch import CREATED, BatchRow
from paydesk.service.models import PaymentRequest
from tests.helpers import need_system

PASSWORD = "s3cret-Smtp-pw"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Inbox:
    """What the server received; it refuses any address at refused.example."""

    def __init__(self):
        self.messages = []

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address.endswith("@refused.example"):
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(message_from_bytes(envelope.original_content or envelope.content, policy=policy.default))
        return "250 Message accepted"


def check_login(server, session, envelope, mechanism, data):
    ok = data.login == b"shop" and data.password == PASSWORD.encode()
    return AuthResult(success=ok, handled=False)


@pytest.fixture
def smtp_server():
    """``start(**options)``: a server on localhost (options go to aiosmtpd's SMTP), its inbox
    and port."""
    started = []

    def start(**options):
        inbox = Inbox()
        port = free_port()
        controller = Controller(inbox, hostname="localhost", port=port, **options)
        controller.start()
        started.append(controller)
        return inbox, port

    yield start
    for controller in started:
        controller.stop()


@pytest.fixture
def certificate(tmp_path, monkeypatch):
    """A self-signed certificate for localhost, trusted by this process alone (SSL_CERT_FILE,
    which the client's default context reads): the server's TLS context."""
    openssl = need_system("openssl", "openssl")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


async def made_rows(desk, add_profile, emails):
    """A link made on the sandbox for each address, as a batch's created rows."""
    await add_profile(merchant_name="Hillside School")
    rows = []
    for number, address in enumerate(emails, start=2):
        request = PaymentRequest(
            amount=Decimal(100 + number),
            currency="GBP",
            email=address,
            first_name="Kim",
            last_name=f"Lee {number}",
            tx_ref=f"MAIL-{number:05d}",
            title="Autumn term fees",
        )
        record = await desk.links.create(request)
        values = {
            "amount": str(100 + number),
            "currency": "GBP",
            "email": address,
            "first_name": "Kim",
            "last_name": f"Lee {number}",
            "title": "Autumn term fees",
            "description": "Two children, one invoice",
        }
        rows.append(
            BatchRow(batch_id=1, number=number, tx_ref=record.tx_ref, values=values, state=CREATED, record=record)
        )
    return rows


def plain(port, **over) -> SmtpSettings:
    return SmtpSettings(
        **{"host": "localhost", "port": port, "security": "none", "sender": "billing@hillside.example", **over}
    )


async def test_each_row_gets_its_link_and_a_refused_address_fails_alone(desk, add_profile, smtp_server):
    inbox, port = smtp_server()
    rows = await made_rows(desk, add_profile, ["ann@example.com", "bob@refused.example", "cy@example.com"])
    results = []

    async def noted(row, ok, error):
        results.append((row.number, ok, error))

    profile = desk.session.profile
    sent = await mail.send_links(plain(port, per_second=20), None, profile, rows, noted)
    assert sent == (2, 1)
    assert [(n, ok) for n, ok, _ in results] == [(2, True), (3, False), (4, True)]
    assert "refused the address" in results[1][2] and "550" in results[1][2]
    assert [m["To"].addresses[0].addr_spec for m in inbox.messages] == ["ann@example.com", "cy@example.com"]
    for message, row in zip(inbox.messages, (rows[0], rows[2])):
        body = message.get_content()
        assert row.record.checkout_url in body.split()
        assert f"Reference: {row.tx_ref}" in body
        assert f"GBP {row.values['amount']}.00" in message["Subject"]
        assert message["From"].addresses[0].display_name == "Hillside School"
        assert "Two children, one invoice" in body


async def test_the_preview_is_the_message_sent_and_a_name_cannot_add_headers(desk, add_profile, smtp_server):
    inbox, port = smtp_server()
    [row] = await made_rows(desk, add_profile, ["ann@example.com"])
    row = BatchRow(**{**row.__dict__, "values": {**row.values, "first_name": "Ann\r\nBcc: all@example.com"}})
    settings = plain(port)
    shown = mail.preview(row, desk.session.profile, settings)
    assert shown.startswith("From: Hillside School <billing@hillside.example>\n")
    heads = shown.split("\n\n")[0].splitlines()
    assert row.record.checkout_url in shown and len(heads) == 3  # From, To, Subject: no Bcc
    assert heads[1] == 'To: "Ann Bcc: all@example.com Lee 2" <ann@example.com>'

    async def noted(row, ok, error):
        assert ok, error

    await mail.send_links(settings, None, desk.session.profile, [row], noted)
    [received] = inbox.messages
    assert "Bcc" not in received and received["To"].addresses[0].addr_spec == "ann@example.com"
    assert (
        received.get_content().replace("\r\n", "\n")
        == mail.message_for(row, desk.session.profile, settings).get_content()
    )


async def test_a_row_without_a_link_fails_alone(desk, add_profile, smtp_server):
    inbox, port = smtp_server()
    rows = await made_rows(desk, add_profile, ["ann@example.com", "bo@example.com"])
    rows[0] = BatchRow(**{**rows[0].__dict__, "record": None})
    results = []

    async def noted(row, ok, error):
        results.append((row.number, ok, error))

    await mail.send_links(plain(port, per_second=20), None, desk.session.profile, rows, noted)
    assert results == [(2, False, "This row has no payment link yet"), (3, True, None)]
    assert len(inbox.messages) == 1


async def test_starttls_and_a_login_with_the_password_from_the_keyring(
    desk, add_profile, keys, smtp_server, certificate, paths, caplog
):
    caplog.set_level(logging.DEBUG)
    inbox, port = smtp_server(
        tls_context=certificate, require_starttls=True, auth_required=True, authenticator=check_login
    )
    await add_profile(merchant_name="Hillside School")
    profile = desk.session.profile
    settings = SmtpSettings(
        host="localhost", port=port, user="shop", security="starttls", sender="billing@hillside.example"
    )
    await mail.save_settings(paths, profile.id, settings)
    assert await mail.save_password(keys, profile.id, PASSWORD)
    assert await mail.load_settings(paths, profile.id) == settings
    assert PASSWORD not in (paths.data / mail.FILE).read_text()

    await mail.send_test(settings, await mail.load_password(keys, profile.id), profile, "me@hillside.example")
    [test] = inbox.messages
    assert test["To"].addresses[0].addr_spec == "me@hillside.example"

    with pytest.raises(MailError) as refused:
        await mail.send_test(settings, "not-" + PASSWORD, profile, "me@hillside.example")
    assert "refused the user name or password" in refused.value.message
    assert PASSWORD not in refused.value.message and PASSWORD not in caplog.text
    assert len(inbox.messages) == 1
    await keys.delete_profile(profile.id)  # a profile deleted: its SMTP password goes too
    assert await mail.load_password(keys, profile.id) is None


async def test_what_stops_the_sending_is_said(desk, add_profile, smtp_server):
    """STARTTLS asked of a server without it; nobody listening; a certificate not trusted."""
    await add_profile()
    profile = desk.session.profile
    _, port = smtp_server()
    with pytest.raises(MailError, match="does not offer STARTTLS"):
        await mail.send_test(plain(port, security="starttls"), None, profile, "me@example.com")
    with pytest.raises(MailError, match="Could not reach localhost:"):
        await mail.send_test(plain(free_port()), None, profile, "me@example.com")
    rows_told = []

    async def noted(row, ok, error):
        rows_told.append(row)

    with pytest.raises(MailError, match="Could not reach"):
        await mail.send_links(
            plain(free_port()),
            None,
            profile,
            [BatchRow(1, 2, "X-1", {"email": "a@example.com"}, CREATED, await made_record(desk))],
            noted,
        )
    assert rows_told == []  # the server's fault: no row is marked failed


async def test_an_untrusted_certificate_is_refused(desk, add_profile, smtp_server, certificate, monkeypatch, tmp_path):
    await add_profile()
    _, port = smtp_server(tls_context=certificate, require_starttls=True)
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "none.pem"))  # trusts nothing here
    with pytest.raises(MailError, match="secure connection to localhost failed"):
        await mail.send_test(plain(port, security="starttls"), None, desk.session.profile, "me@example.com")


async def made_record(desk):
    request = PaymentRequest(
        amount=Decimal(5),
        currency="GBP",
        email="a@example.com",
        first_name="A",
        last_name="B",
        tx_ref="MAIL-ONE",
        title="Fees",
    )
    return await desk.links.create(request)


def test_settings_are_checked_and_read_back_whatever_the_file_holds(tmp_path):
    assert set(SmtpSettings().problems()) == {"host", "sender"}
    assert SmtpSettings(host="smtp.example.com", sender="a@example.com").problems() == {}
    assert "port" in SmtpSettings(host="h", port=0, sender="a@example.com").problems()
    assert SmtpSettings.from_json({"host": 5, "port": "x"}) == SmtpSettings()
    assert SmtpSettings.from_json(json.loads('{"host": "h", "port": 465, "security": "tls"}')) == SmtpSettings(
        host="h", port=465, security="tls"
    )


async def test_a_login_over_plain_tcp_is_refused_unless_on_this_computer(desk, add_profile, smtp_server):
    """Security "none" with a user would send the password readable: refused (the settings'
    problems, and the connection itself, before connecting), unless the server is this
    computer's."""
    await add_profile()
    far = SmtpSettings(host="smtp.example.com", user="shop", security="none", sender="billing@shop.example")
    assert far.problems() == {"security": IN_CLEAR}
    assert "secure connection" in IN_CLEAR
    for host in ("localhost", "127.0.0.1", "::1", "[::1]"):
        assert replace(far, host=host).problems() == {}
    assert replace(far, user="").problems() == {}  # no login: no password sent
    assert replace(far, security="starttls").problems() == {}
    with pytest.raises(MailError) as refused:
        await mail.send_test(far, PASSWORD, desk.session.profile, "me@example.com")
    assert refused.value.message == IN_CLEAR
    with pytest.raises(MailError) as refused:  # the connection refuses it too
        await asyncio.to_thread(Connection(far, PASSWORD)._open)
    assert refused.value.message == IN_CLEAR


async def test_a_cancel_waits_for_the_message_under_way(desk, add_profile, smtp_server):
    inbox, port = smtp_server()
    rows = await made_rows(desk, add_profile, [f"c{n}@example.com" for n in range(4)])
    results = []

    async def noted(row, ok, error):
        results.append((row.number, ok))

    sending = asyncio.ensure_future(mail.send_links(plain(port, per_second=2), None, desk.session.profile, rows, noted))
    while not results:  # noqa: ASYNC110 (polls a state no event announces)
        await asyncio.sleep(0.01)
    sending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sending
    assert len(inbox.messages) == len(results) < 4  # each message sent is told, no more


async def test_a_skipped_row_is_never_mailed_or_saved_with_another_payments_link(
    desk, add_profile, smtp_server, tmp_path
):
    """A row skipped because its reference is another payment's (in the ledger) holds none:
    its customer is e-mailed nothing and the results give it no link (D2)."""
    from paydesk.desk.bulk.results import save_results

    inbox, port = smtp_server()
    profile = await add_profile()
    other = await desk.links.create(
        PaymentRequest(
            amount=Decimal(90),
            currency="GBP",
            email="other@example.com",
            first_name="Oz",
            last_name="Other",
            tx_ref="INV-1",
            title="Someone else's",
        )
    )
    values = {"amount": "20", "currency": "GBP", "first_name": "Kim", "title": "Fees"}
    rows = [
        (
            2,
            "INV-1",
            {**values, "email": "ann@example.com", "last_name": "Lee 2", "tx_ref": "INV-1"},
            True,
        ),  # skipped: INV-1 is in the ledger
        (3, "", {**values, "email": "bob@example.com", "last_name": "Lee 3"}, False),
    ]
    batch = await desk.batches.add_batch(profile.id, "test", "Fees", "fees.csv", "skip", "me", rows, txref_prefix="SCH")
    await desk.links.create(
        PaymentRequest(
            amount=Decimal(20),
            currency="GBP",
            email="bob@example.com",
            first_name="Kim",
            last_name="Lee 3",
            tx_ref=batch.ref(3),
            title="Fees",
        )
    )
    assert await mail.mail_batch(
        desk.batches, batch.id, profile, plain(port, per_second=20), None, staff=desk.session.staff
    ) == (
        1,
        0,
    )
    assert [m["To"].addresses[0].addr_spec for m in inbox.messages] == ["bob@example.com"]
    assert other.checkout_url not in inbox.messages[0].get_body().get_content()
    assert await save_results(desk.batches, batch, tmp_path / "out.csv") == 2
    import csv
    import io

    text = (await asyncio.to_thread((tmp_path / "out.csv").read_bytes)).decode("utf-8-sig")
    out = list(csv.DictReader(io.StringIO(text, newline="")))
    assert out[0]["result"].startswith("skipped")
    assert (out[0]["link_tx_ref"], out[0]["checkout_url"], out[0]["service_reference"]) == ("", "", "")
    assert other.checkout_url not in (tmp_path / "out.csv").read_text(encoding="utf-8-sig")


async def test_a_batch_mailed_notes_each_row_and_sends_none_twice(desk, add_profile, smtp_server):
    """Through the batches' book: the rows with a link open for payment are sent theirs, each
    result noted on the row (sent, or failed and why); a second run sends only the failed."""
    inbox, port = smtp_server()
    profile = await add_profile(merchant_name="Hillside School")
    emails = {2: "ann@example.com", 3: "bob@refused.example", 4: "cy@example.com", 5: "di@example.com"}
    rows = [
        (
            n,
            "",
            {
                "amount": "20",
                "currency": "GBP",
                "email": e,
                "first_name": "Kim",
                "last_name": f"Lee {n}",
                "title": "Fees",
            },
            n == 5,
        )
        for n, e in emails.items()
    ]
    batch = await desk.batches.add_batch(profile.id, "test", "Fees", "fees.csv", "skip", "me", rows, txref_prefix="SCH")
    for n, _, values, skipped in rows:
        if not skipped:
            await desk.links.create(
                PaymentRequest(
                    amount=Decimal(20),
                    currency="GBP",
                    email=values["email"],
                    first_name="Kim",
                    last_name=values["last_name"],
                    tx_ref=batch.ref(n),
                    title="Fees",
                )
            )
    settings = plain(port, per_second=20)
    assert await mail.mail_batch(desk.batches, batch.id, profile, settings, None, staff=desk.session.staff) == (2, 1)
    noted = {r.number: (r.email_state, r.email_error) for r in await desk.batches.rows(batch.id)}
    assert noted[2] == ("sent", None) and noted[4] == ("sent", None) and noted[5] == (None, None)
    assert noted[3][0] == "failed" and "550" in noted[3][1]
    assert sorted(m["To"].addresses[0].addr_spec for m in inbox.messages) == ["ann@example.com", "cy@example.com"]
    assert await mail.mail_batch(desk.batches, batch.id, profile, settings, None, staff=desk.session.staff) == (0, 1)
    assert len(inbox.messages) == 2


async def test_the_customer_reads_the_message_in_the_profile_customer_language(desk, add_profile, smtp_server):
    """Issue 33: the e-mail is the customer's, in the profile's customer language."""
    from dataclasses import replace

    inbox, port = smtp_server()
    [row] = await made_rows(desk, add_profile, ["ann@example.com"])
    profile = replace(desk.session.profile, customer_language="fr")

    async def noted(row, ok, error):
        assert ok, error

    await mail.send_links(plain(port), None, profile, [row], noted)
    [received] = inbox.messages
    body = received.get_content()
    lines = body.splitlines()
    assert lines[0] == "Bonjour Kim,"
    assert "Hillside School vous demande de payer 102,00\u00a0GBP pour\u00a0: Autumn term fees." in lines
    assert "Payez en toute sécurité ici\u00a0:" in lines and f"Référence\u00a0: {row.tx_ref}" in lines
    assert received["Subject"] == "Autumn term fees\u00a0: 102,00\u00a0GBP à Hillside School"
