"""The administrator's pages, docs/SHARED_LEDGER.md and docs/RECEIVER.md, as a shop's
administrator follows them on Debian 12 as root, without sudo or systemd: every command of
their fenced shell blocks, read from the Markdown (tests/docs/markdown.py: what the page
says, not a copy), is run as written on this computer (tests/docs/computer.py: in
namespaces of its own, Debian's cluster 15 main started by the page's own pg_ctlcluster,
the server named ledger.shop.lan on the shop's network 192.168.1.0/24, the real
paydesk and paydesk-receiver of this tree); what it must show is checked.

What is given in place of what the pages leave to the administrator, and nothing else:
- the password a person chooses, typed at each prompt (``createuser --pwprompt``,
  ``psql``); the desk holds it in its keyring (a file keyring, tests/file_keyring.py),
  as "Connecting a desk" leaves it;
- the date of the copy to restore (the page: "put the date of the one to restore in
  place of 2026-11-23"): the copy made here;
- the key file's values (the page's JSON: PROFILE_ID, the keys, the password).

A command that cannot run here is listed in ``NOT_RUN`` with the reason; every fenced
command and every command named in the text (`...`) must be run or listed, so a command
added to a page is never left out silently.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import shlex
import signal
from datetime import date
from pathlib import Path

import pytest

from tests import file_keyring
from tests.docs import computer
from tests.docs.markdown import Command, blocks, inline_commands, shell_commands

pytestmark = pytest.mark.skipif(computer.missing() is not None, reason=computer.missing() or "")
DOCS = computer.ROOT / "docs"
SHARED = DOCS / "SHARED_LEDGER.md"
RECEIVER = DOCS / "RECEIVER.md"
URL = "postgresql://paydesk@ledger.shop.lan/paydesk?sslmode=require"
PASSWORD = "Sh0p-" + secrets.token_urlsafe(12)  # what the administrator chooses and types
UNIT = computer.ROOT / "packaging" / "linux" / "paydesk-receiver.service"

NO_SYSTEMD = (
    "systemd does not run here (a container, as the issue's administrator had); "
    "the unit's command line is run below as systemd would run it"
)
INSTALLED = (
    "installs packages: this computer has them (scripts/system-deps), and a test "
    "installs none; checked with dpkg-query instead"
)
NOT_RUN = {
    "su -": "becomes root: the test runs as root already",
    "apt-get install postgresql postgresql-contrib": INSTALLED,
    "apt-get install ssl-cert": INSTALLED,
    "apt-get install cron": (
        "cron is not installed here, and a test installs no package: the "
        "line it would run is run as cron runs it (as the user the line "
        "names, from that user's home, \\% read as %)"
    ),
    "systemctl daemon-reload": NO_SYSTEMD,
    "systemctl enable --now paydesk-receiver": NO_SYSTEMD,
    "systemctl status paydesk-receiver": NO_SYSTEMD,
    "journalctl -u paydesk-receiver -f": NO_SYSTEMD,
    "curl -i -X POST -H 'Content-Type: application/json' --data '{}' https://pay.shop.example/notifications": (
        "needs the reverse proxy (nginx or Caddy) with a certificate for pay.shop.example, "
        "reachable from the internet; the same request to the receiver itself is run"
    ),
}
FORM = "a form, not a command: COMMAND stands for each command below, all of them run"
NOT_RUN_INLINE = {
    "runuser -u postgres -- COMMAND": FORM,
    "su postgres -c 'COMMAND'": FORM,
    "sudo -u postgres COMMAND": FORM + " (sudo is not installed here, as on a minimal Debian)",
    "sudo COMMAND": FORM + " (sudo is not installed here, as on a minimal Debian)",
    "su -": NOT_RUN["su -"],
    "paydesk --ledger 'postgresql://…'": "a form (… stands for the URL): run in full, section 5",
    "paydesk --sandbox": (
        "opens PayDesk's window on its embedded sandbox: tests/ui/transactions/test_notifications.py starts it so"
    ),
    "systemctl status": NO_SYSTEMD,
    "systemctl restart paydesk-receiver": NO_SYSTEMD,
    "systemctl edit paydesk-receiver": NO_SYSTEMD,
    "systemctl disable --now paydesk-receiver": NO_SYSTEMD,
    "journalctl -u paydesk-receiver": NO_SYSTEMD,
    "ls -l": "a word of the text (what ls -l shows of systemd's credential), not a command",
    "chmod 600": "a word of the text (the key file's mode): chmod 600 on receiver.env is run",
    "ssh -N -R 8470:127.0.0.1:8470 you@proxy.example": "needs a machine on the internet "
    "that runs the proxy (proxy.example)",
}
RUN_INLINE = ("tail /var/log/postgresql/postgresql-15-main.log", "ls /var/backups/paydesk", "paydesk-receiver --help")
PROGRAMS = (
    "apt-get",
    "psql",
    "pg_ctlcluster",
    "pg_lsclusters",
    "pg_dump",
    "pg_restore",
    "runuser",
    "su",
    "sudo",
    "systemctl",
    "journalctl",
    "paydesk",
    "paydesk-receiver",
    "curl",
    "ssh",
    "tail",
    "ls",
    "install",
    "chmod",
    "chown",
    "useradd",
    "make-ssl-cert",
)


# -- every command is run or listed --------------------------------------------------------


def test_every_command_of_the_pages_is_run_or_listed_with_its_reason():
    """The pages' commands the run below does not run are exactly those ``NOT_RUN`` names,
    and the commands named in their text are run or listed too."""
    fenced = {str(c) for page in (SHARED, RECEIVER) for c in shell_commands(page)}
    assert set(NOT_RUN) <= fenced, set(NOT_RUN) - fenced  # no reason for what is not there
    named = {
        text for page in (SHARED, RECEIVER) for _, text in inline_commands(page, PROGRAMS) if len(text.split()) > 1
    }
    unaccounted = named - set(NOT_RUN_INLINE) - set(RUN_INLINE) - fenced
    assert unaccounted == set(), "named in the text, neither run nor listed"
    assert set(NOT_RUN_INLINE) | set(RUN_INLINE) <= named | fenced
    assert "sudo" not in {
        c.program for page in (SHARED, RECEIVER) for c in shell_commands(page)
    }  # a minimal Debian has none


# -- the shared ledger's page ---------------------------------------------------------------


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """The computer, and a desk's data as it was before the shop shared its ledger (a
    ledger file of its own, its profile and that profile's public key in its keyring, and,
    once connected, the shared ledger's password there too)."""
    from paydesk.config.shared_ledger import password_entry
    from tests.ledger.test_pg_import import DESK, make_desk_ledger

    outside = tmp_path_factory.mktemp("desk")
    asyncio.run(make_desk_ledger(outside / "paydesk" / "ledger.sqlite3"))
    (outside / "paydesk" / "profiles.json").write_text(
        json.dumps(
            {
                "profiles": [{"id": "p_shop", "name": "Shop", "base_url": "https://pay.example/"}],
                "active_profile": "p_shop",
                "installation_id": DESK,
            }
        )
    )
    keys = outside / "keyring.json"
    file_keyring.write(
        keys, {("PayDesk", "p_shop/test/public"): "PK_TEST-0001", ("PayDesk", password_entry(URL)): PASSWORD}
    )
    env = {
        "PYTHON_KEYRING_BACKEND": "tests.file_keyring.FileKeyring",
        file_keyring.VARIABLE: str(keys),
        "PYTHONPATH": str(computer.ROOT),
        "QT_QPA_PLATFORM": "xcb",
    }  # the import opens no window (nor needs a display)
    with computer.Computer(env) as made:
        made.outside = outside  # type: ignore[attr-defined]
        made.pages = set()  # type: ignore[attr-defined]
        made.ran = []  # type: ignore[attr-defined]  # the pages' commands run, in order
        yield made


def _not_run(command: Command) -> None:
    """Said in the test's output (pytest -rP, -s): which command, where, and why not."""
    print(f"not run: {command.doc}:{command.line}: {command}: {NOT_RUN[str(command)]}")


def _run(shop, command: Command) -> str:
    """Run one of the page's commands as written; its output (stdout and stderr)."""
    done = shop.run(command.text, input=f"{PASSWORD}\n{PASSWORD}\n")
    shop.ran.append(command)
    said = done.stdout + done.stderr
    assert done.returncode == 0, f"{command.line}: {command}\n{said}"
    assert "could not identify current directory" not in said, said
    return said


def _installed(shop, *packages: str) -> None:
    done = shop.run("dpkg-query -W -f '${Package} ${Status}\\n' " + " ".join(packages))
    for package in packages:
        assert f"{package} install ok installed" in done.stdout, (package, done.stdout)


def _sql(shop, statement: str, database: str = "paydesk") -> str:
    """A check of the test's own (not the page's), as the postgres user."""
    done = shop.run(f"runuser -u postgres -- psql -d {database} -tAc {shlex.quote(statement)}")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def run_shared_ledger_page(shop) -> None:
    """SHARED_LEDGER.md, every command in the page's order, and what each must show."""
    if "shared" in shop.pages:
        return
    seen: dict[str, int] = {}
    today = date.today().isoformat()
    commands = shell_commands(SHARED)
    for command in commands:
        text = str(command)
        seen[text] = seen.get(text, 0) + 1
        if text in NOT_RUN:
            _not_run(command)
            if text.startswith("apt-get install") and "cron" not in text:
                _installed(shop, *text.split()[2:])
            continue
        if command.program == "cd":  # where the next commands are typed
            shop.cwd = command.text.split()[1]
            shop.ran.append(command)
            continue
        if "2026-11-23" in command.text:  # "put the date of the one to restore"
            command = Command(command.text.replace("2026-11-23", today), command.line, command.section, command.doc)
        if command.program == "paydesk":
            _run_import(shop, command)
            continue
        if "sslmode=require' -c 'SELECT ssl" in command.text and seen[text] == 1 and "localhost" in text:
            # the first check, on Debian's cluster as made: no TLS (no certificate yet)
            done = shop.run(command.text, input=f"{PASSWORD}\n")
            shop.ran.append(command)
            assert done.returncode == 2, done.stdout + done.stderr
            assert "server does not support SSL, but SSL was required" in done.stderr
            _show_ssl_is_no_proof(shop, command)
            continue
        said = _run(shop, command)
        if text == "pg_lsclusters":
            state = "down" if seen[text] == 1 else "online"
            assert re.search(rf"^15\s+main\s+5432\s+{state}\b", said, re.M), said
        elif "sslmode=require' -c 'SELECT ssl" in command.text:
            assert re.search(r"^\s*t\s*\|\s*TLSv1\.[23]", said, re.M), said
        elif "createuser" in text:
            assert (
                _sql(
                    shop,
                    "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = 'paydesk'",
                    "postgres",
                )
                == "f|f|f"
            )
        elif "pg_hba_file_rules" in text:
            assert re.search(
                r"\|\s*hostssl\s*\|\s*\{paydesk\}\s*\|\s*\{paydesk\}\s*\|\s*"
                r"192\.168\.1\.0\s*\|\s*scram-sha-256\s*\|\s*$",
                said,
                re.M,
            ), said
            assert _sql(shop, "SELECT count(*) FROM pg_hba_file_rules WHERE error IS NOT NULL", "postgres") == "0"
            _without_tls_refused(shop)
        elif text.startswith("runuser -u postgres -- pg_dump"):
            assert shop.run(f"test -s /var/backups/paydesk/paydesk-{today}.dump").returncode == 0
        elif "/etc/cron.d/paydesk-backup" in text:
            _as_cron_runs_it(shop, today)
        elif "pg_restore" in text:
            assert _sql(shop, "SELECT count(*) FROM links") == "7"  # the desk's, imported
        elif "-f /tmp/counter_role.sql" in text:  # a key-less counter's own role (section 7)
            assert 'The role till1 sells as the counter "Till 1"' in said, said
            assert _sql(shop, "SELECT counter FROM counter_logins WHERE role_name = 'till1'") == "Till 1"
            assert _sql(shop, "SELECT largest_sale, sales_per_hour FROM counter_limits") == "500|60"
            assert _sql(shop, "SELECT has_table_privilege('till1', 'cards', 'SELECT')") == "f"
    _run_inline(shop, SHARED)
    ran = [c.line for c in shop.ran]
    assert [c.line for c in commands if str(c) not in NOT_RUN] == ran  # each, in order
    shop.pages.add("shared")


def _show_ssl_is_no_proof(shop, check: Command) -> None:
    """The page's warning (issue 29): with ssl on but no certificate to load, ``SHOW ssl``
    says ``on`` while the server offers no TLS; the page's check says so. (The test's own
    steps, undone after: the page then makes the certificate and turns ssl on.)"""
    for statement in ("ALTER SYSTEM SET ssl = on", "SELECT pg_reload_conf()"):
        assert shop.run(f"runuser -u postgres -- psql -c {shlex.quote(statement)}").returncode == 0
    assert _sql(shop, "SHOW ssl", "postgres") == "on"
    done = shop.run(check.text, input=f"{PASSWORD}\n")
    assert "server does not support SSL, but SSL was required" in done.stderr, done.stderr
    logged = shop.run("tail /var/log/postgresql/postgresql-15-main.log").stdout
    assert "ssl-cert-snakeoil" in logged, logged  # the log says why
    for statement in ("ALTER SYSTEM RESET ssl", "SELECT pg_reload_conf()"):
        assert shop.run(f"runuser -u postgres -- psql -c {shlex.quote(statement)}").returncode == 0


def _without_tls_refused(shop) -> None:
    """The page's promise: a desk that connects without TLS is refused."""
    done = shop.run(
        "psql 'postgresql://paydesk@ledger.shop.lan/paydesk?sslmode=disable' -c 'SELECT 1'", input=f"{PASSWORD}\n"
    )
    assert done.returncode == 2
    assert (
        'no pg_hba.conf entry for host "192.168.1.10", user "paydesk", database "paydesk", no encryption'
    ) in done.stderr, done.stderr


def _run_import(shop, command: Command) -> None:
    """``paydesk --import-ledger`` on the desk's computer (here: root's, its data folder
    ~/.local/share/paydesk), the desk connected (its password in its keyring)."""
    if shop.run("test -e /root/.local/share/paydesk").returncode != 0:
        copied = shop.run(f"mkdir -p /root/.local/share && cp -a {shop.outside}/paydesk /root/.local/share/paydesk")
        assert copied.returncode == 0, copied.stderr
    said = _run(shop, command)
    lines = said.splitlines()
    dry = "--dry-run" in command.text
    assert lines[0].startswith("Dry run: nothing was written. " if dry else "Importing "), said
    header = lines[1].split()
    assert header == ["added", "raised", "already", "there", "clashes", "skipped"], lines[1]
    assert any(line.split() == ["links", "and", "lookups", "7", "0", "0", "0", "1"] for line in lines), said
    assert any(line.split() == ["day", "sequences", "2", "0", "0", "0", "0"] for line in lines), said
    imported = _sql(shop, "SELECT count(*) FROM links")
    assert imported == ("0" if dry else "7")


def _as_cron_runs_it(shop, today: str) -> None:
    """The line of /etc/cron.d/paydesk-backup, run as cron runs it: by /bin/sh, as the user
    it names, in that user's home, ``\\%`` read as ``%``."""
    line = shop.read("/etc/cron.d/paydesk-backup").strip()
    fields = line.split(None, 6)
    assert fields[:5] == ["30", "23", "*", "*", "*"] and fields[5] == "postgres", line
    job = fields[6].replace("\\%", "%")
    assert "%" not in fields[6].replace("\\%", ""), "a bare % would end cron's command"
    gone = shop.run(f"rm /var/backups/paydesk/paydesk-{today}.dump")
    assert gone.returncode == 0, gone.stderr
    done = shop.run(f"cd ~postgres && runuser -u postgres -- /bin/sh -c {shlex.quote(job)}")
    assert done.returncode == 0, done.stderr
    listed = shop.run(f"pg_restore --list /var/backups/paydesk/paydesk-{today}.dump")
    assert listed.returncode == 0 and "TABLE public links" in listed.stdout, listed.stderr


def _run_inline(shop, page: Path) -> None:
    for line, text in inline_commands(page, PROGRAMS):
        if text in NOT_RUN_INLINE:
            print(f"not run: {page.name}:{line}: {text}: {NOT_RUN_INLINE[text]}")
        if text in RUN_INLINE:
            done = shop.run(text)
            assert done.returncode == 0, (text, done.stderr)
            if text.startswith("ls /var/backups"):
                assert f"paydesk-{date.today().isoformat()}.dump" in done.stdout
            if text.startswith("tail /var/log/postgresql"):
                assert "database system is ready to accept connections" in done.stdout


def test_the_shared_ledger_page_runs_as_written(shop):
    run_shared_ledger_page(shop)


# -- the receiver's page ------------------------------------------------------------------


def _keys_document(merchant: str) -> str:
    """The page's key file (its ```json block), its values given."""
    (text,) = [b.text for b in blocks(RECEIVER) if b.lang == "json" and "ledger_password" in b.text]
    given = (
        text.replace("PROFILE_ID", merchant)
        .replace("sec-test-…", "sec-test-given")
        .replace("sec-live-…", "sec-live-given")
        .replace("whsec-…", "whsec-given")
        .replace("the shared ledger's password", PASSWORD)
    )
    document = json.loads(given)  # still JSON once given: the page's shape is the file's
    assert document["profiles"][merchant]["webhook"] == "whsec-given"
    return given


def _listening(shop, process, url: str = "http://127.0.0.1:8470") -> str:
    line = process.stdout.readline()
    if f"listening at {url}/notifications" not in line:
        said = ""
        if not line:  # it ended: what it said
            process.wait(timeout=30)
            said = process.stderr.read()
        shop.stop(process)
        raise AssertionError(f"{line}{said}")
    done = shop.run(f"curl -i -X POST -H 'Content-Type: application/json' --data '{{}}' {url}/notifications")
    assert done.returncode == 0 and done.stdout.startswith("HTTP/1.1 401"), done.stdout
    return line


def test_the_receiver_page_runs_as_written(shop):
    from paydesk.config.merchants import merchant_id

    run_shared_ledger_page(shop)  # its shared ledger, set up as that page says
    merchant = merchant_id("https://pay.example", "PK_TEST-0001")
    running = None
    commands = shell_commands(RECEIVER)
    # "Running it" points to the files "As a system service" makes: those first, as the
    # administrator following that pointer does; then the page in its order
    making = [
        c
        for c in commands
        if c.section == "As a system service" and c.line < next(m.line for m in commands if "systemctl" in m.text)
    ]
    assert [c.program for c in making][:2] == ["mkdir", "cat"], making
    shop.ran.clear()
    ordered = [*making, *(c for c in commands if c not in making)]
    for command in ordered:
        text = str(command)
        if text in NOT_RUN:
            _not_run(command)
            continue
        if command.program == "paydesk-receiver" and "--list-profiles" not in text:
            # in the foreground, as "Running it" shows; Ctrl+C before going on
            foreground = shop.spawn(command.text)
            shop.ran.append(command)
            said = _listening(shop, foreground)
            assert "keys from key file /etc/paydesk/receiver-keys.json" in said
            assert shop.stop(foreground, signal.SIGINT) == 0  # a clean stop
            continue
        if command.program == "runuser" and "paydesk-receiver --ledger" in text:
            running = shop.spawn(command.text)  # left running, as a service is
            shop.ran.append(command)
            _listening(shop, running)
            continue
        if command.program == "curl":  # to the receiver itself: it answers 401
            assert running is not None, "the page runs the receiver before it checks it"
            said = _run(shop, command)
            assert said.startswith("HTTP/1.1 401"), said
            # SIGTERM: runuser passes it on, and ends itself by it (as su does) once the
            # receiver has stopped, cleanly: its log says so
            assert shop.stop(running) in (0, -signal.SIGTERM)
            logged = shop.run("cat /var/lib/paydesk-receiver/logs/*.log*").stdout
            assert "paydesk-receiver stopping" in logged, logged[-2000:]
            running = None
            continue
        said = _run(shop, command)
        if text.startswith("install -m 600 /dev/null /etc/paydesk/receiver-keys.json"):
            # "then write the keys into it": the page's JSON, into the file as it is
            wrote = shop.run("cat > /etc/paydesk/receiver-keys.json", input=_keys_document(merchant))
            assert wrote.returncode == 0, wrote.stderr
            assert shop.run("stat -c %a /etc/paydesk/receiver-keys.json").stdout.strip() == "600"
            _as_systemd_runs_it(shop)
        elif "--list-profiles" in text:
            assert all(len(line.split("\t")) == 4 for line in said.splitlines()), said
    assert running is None
    assert [c.line for c in ordered if str(c) not in NOT_RUN] == [c.line for c in shop.ran]
    _run_inline(shop, RECEIVER)


def _as_systemd_runs_it(shop) -> None:
    """The unit's ExecStart with the page's receiver.env, expanded as systemd expands it
    (``Environment=``, then ``EnvironmentFile=``; ``%S``, ``%d``: the state folder and the
    credentials folder, which holds a copy of the key file readable by its owner alone).
    Run as root: ``DynamicUser=`` is systemd's."""
    unit = UNIT.read_text()
    environment = dict(
        pair.split("=", 1)
        for line in unit.splitlines()
        if line.startswith("Environment=")
        for pair in line[12:].split()
    )
    for line in shop.read("/etc/paydesk/receiver.env").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            environment[name.strip()] = value.strip()
    assert environment["PAYDESK_LEDGER"] == URL  # the example asks for TLS (issue 29, item 4)
    (start,) = [line[10:] for line in unit.splitlines() if line.startswith("ExecStart=")]
    argv = [
        environment.get(word[2:-1], "")
        if word.startswith("${")
        else word.replace("%S", "/var/lib").replace("%d", "/run/credentials/paydesk-receiver")
        for word in start.split()
    ]
    ready = shop.run(
        "mkdir -p /var/lib/paydesk-receiver /run/credentials/paydesk-receiver && "
        "install -m 400 /etc/paydesk/receiver-keys.json "
        "/run/credentials/paydesk-receiver/keys.json"
    )
    assert ready.returncode == 0, ready.stderr
    process = shop.spawn(
        " ".join(shlex.quote(a) for a in argv[0:1]).replace("/usr/bin/paydesk-receiver", "paydesk-receiver")
        + " "
        + " ".join(shlex.quote(a) for a in argv[1:]),
        env={**environment, "CREDENTIALS_DIRECTORY": "/run/credentials/paydesk-receiver"},
    )
    _listening(shop, process)
    assert shop.stop(process) == 0
    # and the example before it asked for TLS: one line, status 78, not started again
    old = [a.replace("?sslmode=require", "") for a in argv]
    done = shop.run(" ".join(shlex.quote(a) for a in ["paydesk-receiver", *old[1:]]))
    assert done.returncode == 78 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "RestartPreventExitStatus=78" in unit
    # systemd's folders go with it: the page's way without systemd starts from none
    gone = shop.run("rm -r /var/lib/paydesk-receiver /run/credentials/paydesk-receiver")
    assert gone.returncode == 0, gone.stderr
