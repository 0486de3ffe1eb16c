"""This computer as the shop's administrator finds a Debian 12 one, in namespaces of its own,
so the docs' commands run exactly as written and leave the real computer as it was.

- ``/etc``, ``/var`` and ``/root`` are overlays: what the commands write (PostgreSQL's
  cluster ``15 main`` and its configuration, ``/etc/paydesk``, ``/etc/cron.d``, the backups,
  the snakeoil certificate, a user added) lands in a folder of the test's, removed after.
  ``/run/postgresql`` is a fresh tmpfs. Debian's cluster ``15 main``, made by
  ``apt-get install postgresql`` and never started (no systemd here: "policy-rc.d denied
  execution of start"), is started by the docs' own ``pg_ctlcluster``.
- The network is the shop's: loopback, and this computer's address on the network the
  docs name (``192.168.1.10`` of ``192.168.1.0/24``); ``/etc/hosts`` names the server the
  docs name, ``ledger.shop.lan``. Ports 5432 and 8470 are this namespace's own.
- A PID namespace: every process a command started ends with it.

A command runs as root (``run``), in ``/root`` until a ``cd`` of the docs' moves it
(``cwd``), with no terminal, so a password prompt (``createuser --pwprompt``, ``psql``)
reads the password from standard input.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OVERLAID = ("/etc", "/var", "/root")
SHOP_ADDRESS = "192.168.1.10"  # a computer of the shop's network the docs name
SHOP_NETWORK = "192.168.1.0/24"
SERVER = "ledger.shop.lan"  # the server the docs name
TOOLS = (
    "unshare",
    "nsenter",
    "ip",
    "runuser",
    "pg_ctlcluster",
    "pg_lsclusters",
    "psql",
    "make-ssl-cert",
    "curl",
    "useradd",
    "mount",
)
CLUSTER = Path("/etc/postgresql/15/main")


def missing() -> str | None:
    """Why the docs' commands cannot run here (None: they can)."""
    if os.name != "posix" or not sys.platform.startswith("linux"):
        return "the docs' commands are Debian's: they run on Linux only"
    if os.geteuid() != 0:
        return "the docs' commands are typed as root, and this test runs them as root only"
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    if absent:
        return f"not installed here: {', '.join(absent)} (scripts/system-deps)"
    if not CLUSTER.is_dir():
        return "Debian's cluster 15 main is not here (made by apt-get install postgresql, scripts/system-deps)"
    listed = subprocess.run(["pg_lsclusters", "--no-header"], capture_output=True, text=True)
    if any(line.split()[:2] == ["15", "main"] and "online" in line for line in listed.stdout.splitlines()):
        return "Debian's cluster 15 main runs on this computer: the test needs it down"
    tried = subprocess.run(["unshare", "--mount", "--net", "--pid", "--fork", "true"], capture_output=True, text=True)
    if tried.returncode != 0:
        return f"no namespaces of its own here (unshare: {tried.stderr.strip()})"
    return None


def _setup(folder: Path) -> str:
    lines = ["set -e"]
    for path in OVERLAID:
        upper, work = folder / "upper" / path.strip("/"), folder / "work" / path.strip("/")
        upper.mkdir(parents=True)
        work.mkdir(parents=True)
        lines.append(f"mount -t overlay overlay -o lowerdir={path},upperdir={upper},workdir={work} {path}")
    lines += [
        "mkdir -p /run/postgresql",
        "mount -t tmpfs -o mode=2775 tmpfs /run/postgresql",
        "chown postgres:postgres /run/postgresql",
        "ip link set lo up",
        f"ip addr add {SHOP_ADDRESS}/24 dev lo",  # (no other card: this computer's address)
        f"echo '{SHOP_ADDRESS} {SERVER}' >> /etc/hosts",
        "echo ready",
        "exec sleep infinity",
    ]
    return "\n".join(lines)


class Computer:
    """``with Computer() as shop: shop.run("pg_lsclusters")``."""

    def __init__(self, env: dict[str, str] | None = None):
        self.folder = Path(tempfile.mkdtemp(prefix="paydesk-docs-"))
        self.env = {
            "PATH": f"{Path(sys.executable).parent}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": "/root",
            "USER": "root",
            "LOGNAME": "root",
            "SHELL": "/bin/bash",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            **(env or {}),
        }
        self.init: int | None = None
        self.cwd = "/root"  # where root starts (``cd`` in the docs moves it)
        self._unshare: subprocess.Popen[str] | None = None
        self.spawned: list[subprocess.Popen[str]] = []

    def __enter__(self) -> Computer:
        self._unshare = subprocess.Popen(
            [
                "unshare",
                "--mount",
                "--net",
                "--pid",
                "--fork",
                "--mount-proc",
                "--propagation",
                "private",
                "sh",
                "-c",
                _setup(self.folder),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self._unshare.stdout is not None
        line = self._unshare.stdout.readline()
        if line.strip() != "ready":
            self._unshare.kill()
            raise RuntimeError(
                f"the namespace did not start: {self._unshare.stderr.read()}"
                if self._unshare.stderr
                else "the namespace did not start"
            )
        children = Path(f"/proc/{self._unshare.pid}/task/{self._unshare.pid}/children")
        self.init = int(children.read_text().split()[0])
        return self

    def __exit__(self, *_: object) -> None:
        for process in self.spawned:
            self.stop(process, signal.SIGKILL)
        if self.init is not None:
            try:
                os.kill(self.init, signal.SIGKILL)  # every process of the namespace with it
            except ProcessLookupError:
                pass
        if self._unshare is not None:
            self._unshare.wait(timeout=30)
            for stream in (self._unshare.stdout, self._unshare.stderr):
                if stream is not None:
                    stream.close()
        time.sleep(0.2)  # the namespace's mounts go with its last process
        shutil.rmtree(self.folder, ignore_errors=True)

    def _argv(self, command: str) -> list[str]:
        return [
            "nsenter",
            f"--target={self.init}",
            "--mount",
            "--net",
            "--pid",
            f"--wd={self.cwd}",
            "--",
            "bash",
            "-c",
            command,
        ]

    def run(
        self, command: str, *, input: str | None = None, timeout: float = 180, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``command`` by bash, as root, no terminal (a prompt reads ``input``)."""
        return subprocess.run(
            self._argv(command),
            input=input or "",
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**self.env, **(env or {})},
            start_new_session=True,
        )

    def spawn(self, command: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """``command`` left running (a server), its output to read; ``stop`` ends it."""
        process = subprocess.Popen(
            self._argv(command),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**self.env, **(env or {})},
            start_new_session=True,
        )
        self.spawned.append(process)
        return process

    def stop(self, process: subprocess.Popen[str], signum: int = signal.SIGTERM) -> int:
        """Signal the command's processes (its process group, as a terminal's Ctrl+C does,
        but nsenter, which then ends with the command's own status); that status."""
        if process.poll() is None:
            for pid in _group(process.pid):
                if pid != process.pid:
                    try:
                        os.kill(pid, signum)
                    except ProcessLookupError:
                        pass
        try:
            code = process.wait(timeout=30)
        finally:
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()
            if process in self.spawned:
                self.spawned.remove(process)
        return code

    def read(self, path: str) -> str:
        done = self.run(f"cat {path}")
        assert done.returncode == 0, done.stderr
        return done.stdout


def _group(pgid: int) -> list[int]:
    """The processes of process group ``pgid`` (as this computer's /proc lists them)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # state, ppid, pgrp
            found.append(int(stat.parent.name))
    return found
