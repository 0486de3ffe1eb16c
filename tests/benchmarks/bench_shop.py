"""A shop: several desks (separate processes, each a headless desk from the composition root,
tests/benchmarks/shop_desk.py) on one shared PostgreSQL ledger and one sandbox that drops
answers after committing (``drop_after_commit_rate``) and fails calls (``error_rate``).

1. One desk alone makes its links; for a quiet while (20 s: links open, nobody paying) the
   service lookups per open link per second are counted (the baseline); then every link is
   paid through the sandbox's control API.
2. ``--desks`` desks make ``--links`` links each at once, the same quiet while is counted
   (R: its lookups per open link per second against one desk's); midway through the payments, the
   desk that checks payments (the poller lease's holder) is killed (SIGKILL); the time until
   another desk holds the lease is the takeover. Every link is paid; "PAID everywhere" is
   from the payment to the moment the last living desk's hub said it was paid. The desks
   learn of payments by checking only (polling).
3. The same shop again on a fresh database, set up as docs/RECEIVER.md sets a shop up: the
   real ``paydesk-receiver`` on the shop's ledger (its key file naming the merchant's id, as
   ``--list-profiles`` shows it), its address given to the sandbox as the merchant's webhook
   URL (``PUT _sandbox/webhook``). It holds the poller lease, so it is the one that checks;
   nothing is killed. Its desks are key-less counters (docs/COUNTER.md): they hold no key,
   and their sales are made by the receiver as the shop's key holder. "PAID everywhere" is
   measured the same way.
4. Lost and doubled, in both shops: every link the desks made is in the ledger, once, and the
   service holds exactly one payment for each tx_ref (its own database).
5. Connections: the server's connections to the shop's database (``pg_stat_activity``), the
   most seen while the desks make their links, and, for ``--connections`` (4 and 50)
   key-less desks beside the key holder, how many each holds.

Prints figures, the connections, and, last:
``shop: desks 4, links 1000, lost 0, doubled 0, PAID everywhere p95 N ms with the receiver
(N ms polling only), lookups x R of one desk, takeover N s``
(links, lost and doubled: both shops together; R: the shop with the receiver; takeover: the
polling shop's, where a desk holds the lease and is killed.)

Run: .venv/bin/python tests/benchmarks/bench_shop.py [--desks 4 --links 250]
Asserts nothing about time. Needs PostgreSQL 15 (Debian) like the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psycopg  # noqa: E402
from sandbox_process import start_sandbox  # noqa: E402

from tests.postgres import Cluster  # noqa: E402

FAULTS = {"drop_after_commit_rate": 0.2, "error_rate": 0.1}
RECEIVER = Path(sys.executable).with_name("paydesk-receiver")
QUIET = 20.0  # s: the while over which lookups per open link are counted
LOOKUP_MARKS = ("/api/transaction", "/api/verify-payment")


class DeskProcess:
    """One shop_desk.py: its lines read by a thread of their own."""

    def __init__(self, name: str, folder: Path, url: str, base: str, keys: dict, links: int, *, keyless: bool = False):
        self.name = name
        self.events: list[dict] = []
        self.paid: dict[str, float] = {}
        self.made: list[str] = []
        self.done = threading.Event()
        self.ready = threading.Event()
        self.installation = ""
        folder.mkdir(parents=True, exist_ok=True)
        self.stderr = (folder / "stderr.txt").open("w")  # what a desk that died said
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(HERE / "shop_desk.py"),
                "--data",
                str(folder),
                "--ledger",
                url,
                "--base",
                base,
                "--secret",
                keys["secret"],
                "--public",
                keys["public"],
                "--links",
                str(links),
                *(["--keyless", name] if keyless else []),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            kind = event.get("event")
            if kind == "ready":
                self.installation = event["desk"]
                self.ready.set()
            elif kind == "created":
                self.made.append(event["tx_ref"])
            elif kind == "paid":
                self.paid.setdefault(event["tx_ref"], event["t"])
            elif kind == "done":
                self.done.set()
            self.events.append(event)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.alive:
            self.proc.stdin.close()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.stderr.close()


class CallCounter:
    """The service's lookups, counted from its call log (the newest 1,000 per merchant and
    mode), read often enough that none is missed."""

    def __init__(self, base: str, secret: str):
        self.url = base.rstrip("/") + "/_sandbox/requests"
        self.headers = {"Authorization": f"Bearer {secret}", "Accept": "application/json"}
        self.seen: set[tuple[str, str]] = set()
        self.lookups = 0
        self.creates = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with httpx.Client(timeout=10) as client:
            while not self._stop.is_set():
                self.read(client)
                self._stop.wait(0.1)
            self.read(client)

    def read(self, client: httpx.Client) -> None:
        try:
            calls = client.get(self.url, headers=self.headers).json()["data"]
        except (httpx.HTTPError, ValueError, KeyError):
            return
        for call in calls:
            key = (call["at"], call["method"] + call["path"])
            if key in self.seen:
                continue
            self.seen.add(key)
            if any(mark in call["path"] for mark in LOOKUP_MARKS):
                self.lookups += 1
            elif call["method"] == "POST":
                self.creates += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(15)


def lease_holder(url: str) -> str | None:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT holder FROM poller_lease WHERE expires_at > now()").fetchone()
    return row[0] if row else None


def lease_priority(url: str) -> int | None:
    """The priority of the lease's holder (1: the notification receiver), None: no holder."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT priority FROM poller_lease WHERE expires_at > now()").fetchone()
    return row[0] if row else None


def connections(url: str) -> int:
    """The server's connections to this shop's database (pg_stat_activity), but this one."""
    dbname = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", (dbname,)
        ).fetchone()
    return int(row[0])


def save_merchant(folder: Path, url: str, base: str, keys: dict) -> None:
    """The shop's merchant saved by a desk with its keys (shop_desk.py --setup), as the shop
    does before its key holder and key-less counters start."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            str(HERE / "shop_desk.py"),
            "--data",
            str(folder),
            "--ledger",
            url,
            "--base",
            base,
            "--secret",
            keys["secret"],
            "--public",
            keys["public"],
            "--setup",
        ],
        check=True,
        timeout=300,
    )


def references(url: str) -> dict[str, str]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT tx_ref, reference FROM links WHERE reference IS NOT NULL AND origin = 'link'"
        ).fetchall()
    return dict(rows)


def pay(base: str, secret: str, reference: str) -> None:
    headers = {"Authorization": f"Bearer {secret}", "Accept": "application/json"}
    for _ in range(20):  # the sandbox's error_rate is for /api/ calls; retried all the same
        answer = httpx.post(
            f"{base.rstrip('/')}/_sandbox/pay/{reference}", json={"outcome": "success"}, headers=headers, timeout=10
        )
        if answer.status_code < 500:
            answer.raise_for_status()
            return
        time.sleep(0.05)
    answer.raise_for_status()


def wait(predicate, timeout: float, every: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(every)
    return predicate()


class ReceiverProcess:
    """``paydesk-receiver`` on the shop's ledger, as docs/RECEIVER.md runs it: a key file
    readable by its owner alone naming the merchant's id (the shop's one merchant, as
    ``--list-profiles`` lists it), its address given to the sandbox as the merchant's
    webhook URL."""

    def __init__(self, folder: Path, url: str, base: str, keys: dict):
        with psycopg.connect(url, autocommit=True) as conn:
            (merchant,) = [row[0] for row in conn.execute("SELECT id FROM merchants")]
        folder.mkdir(parents=True, exist_ok=True)
        key_file = folder / "receiver-keys.json"
        key_file.write_text(json.dumps({"profiles": {merchant: {"test": keys["secret"]}}}))
        key_file.chmod(0o600)
        self.proc = subprocess.Popen(
            [
                str(RECEIVER),
                "--ledger",
                url,
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--keys-file",
                str(key_file),
                "--data-dir",
                str(folder / "data"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        if "listening at " not in line:
            raise RuntimeError(f"paydesk-receiver did not start: {line}{self.proc.stderr.read()}")
        self.url = line.split("listening at ", 1)[1].split()[0]
        self.base, self.headers = base.rstrip("/"), {"Authorization": f"Bearer {keys['secret']}"}
        httpx.put(
            f"{self.base}/_sandbox/webhook", json={"url": self.url}, headers=self.headers, timeout=10
        ).raise_for_status()

    def stop(self) -> int:
        httpx.delete(f"{self.base}/_sandbox/webhook", headers=self.headers, timeout=10)
        self.proc.terminate()
        code = self.proc.wait(30)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code


def run_shop(
    cluster: Cluster,
    base: str,
    keys: dict,
    folder: Path,
    desks: int,
    links: int,
    *,
    kill_poller: bool,
    receiver: bool = False,
) -> dict:
    """One shop of ``desks`` desks on a fresh database (with ``receiver``: and the
    notification receiver, as docs/RECEIVER.md sets it up, its counters key-less: their sales
    made by the receiver as the shop's key holder): its figures."""
    dbname = cluster.create_database(f"shop{desks}_{int(time.time() * 1000) % 10**8}")
    url = cluster.url(dbname)
    counter = CallCounter(base, keys["secret"])
    figures: dict = {"desks": desks, "receiver": receiver, "keyless": receiver}
    notified: ReceiverProcess | None = None
    procs: list[DeskProcess] = []
    try:
        if receiver:  # the merchant saved, the key holder started, then the key-less counters
            save_merchant(folder / f"{dbname}-setup", url, base, keys)
            notified = ReceiverProcess(folder / f"{dbname}-receiver", url, base, keys)
            figures["receiver_holds_lease"] = wait(lambda: lease_priority(url) == 1, 60)
        started = time.monotonic()
        procs = [
            DeskProcess(f"desk{n}", folder / f"{dbname}-desk{n}", url, base, keys, links, keyless=receiver)
            for n in range(desks)
        ]
        for p in procs:
            if not p.ready.wait(120):
                raise RuntimeError(f"{p.name} did not start")
        most = connections(url)
        for p in procs:  # (a desk that died is not waited for)
            while not wait(lambda p=p: p.done.is_set() or not p.alive, 2, every=0.5):
                most = max(most, connections(url))
        figures["made_s"] = time.monotonic() - started
        figures["connections"] = most  # the most seen while the desks made their links
        # every create that a lost answer or an error left unsettled, settled in the background
        intended = desks * links
        wait(lambda: len(references(url)) >= intended, 300, every=0.5)
        refs = references(url)
        figures["made"] = len(refs)
        items = sorted(refs.items())
        # the service's lookups per open link per second, over a quiet while (links open,
        # nobody paying): one desk alone against the shop's desks, at the same ages
        quiet_from = counter.lookups
        time.sleep(QUIET)
        figures["quiet_lookups"] = counter.lookups - quiet_from
        figures["lookups_rate"] = figures["quiet_lookups"] / (len(items) * QUIET)
        paid_at: dict[str, float] = {}
        lookups_before = counter.lookups
        open_seconds = 0.0
        killed: DeskProcess | None = None
        takeover = None
        pay_started = time.monotonic()
        for i, (tx_ref, reference) in enumerate(items):
            if kill_poller and killed is None and i == len(items) // 2:
                holder = lease_holder(url)
                killed = next(
                    (p for p in procs if p.installation and holder and holder.startswith(p.installation)), None
                )
                if killed is not None:
                    killed.kill()
                    t0 = time.monotonic()
                    if wait(lambda h=holder: (lease_holder(url) or h) != h, 120, every=0.1):
                        takeover = time.monotonic() - t0
            paid_at[tx_ref] = time.time()
            pay(base, keys["secret"], reference)
        living = [p for p in procs if p is not killed and p.alive]
        figures["died"] = [p.name for p in procs if p is not killed and not p.alive]

        def everywhere() -> bool:
            return all(tx_ref in p.paid for p in living for tx_ref in paid_at)

        wait(everywhere, 300, every=0.2)
        pay_window = time.monotonic() - pay_started
        delays = []
        spreads = []  # from the first desk that knew it was paid to the last: the ledger's part
        unseen = 0
        for tx_ref, at in paid_at.items():
            seen = [p.paid.get(tx_ref) for p in living]
            if None in seen:
                unseen += 1
                continue
            last = max(seen)
            delays.append((last - at) * 1000)
            spreads.append((last - min(seen)) * 1000)
            open_seconds += max(0.0, last - at)
        figures["unseen"] = unseen
        figures["spread_p95_ms"] = statistics.quantiles(spreads, n=20)[18] if len(spreads) > 1 else float("nan")
        figures["paid_p50_ms"] = statistics.median(delays) if delays else float("nan")
        figures["paid_p95_ms"] = statistics.quantiles(delays, n=20)[18] if len(delays) > 1 else float("nan")
        counter.stop()
        lookups = counter.lookups - lookups_before
        figures["lookups"] = lookups
        figures["pay_window_s"] = pay_window
        figures["takeover_s"] = takeover
        figures["killed"] = killed.name if killed else None
        # lost and doubled: the ledger against the service's own database
        with psycopg.connect(url, autocommit=True) as conn:
            ledger_refs = [r[0] for r in conn.execute("SELECT tx_ref FROM links WHERE origin = 'link'").fetchall()]
        made_everywhere = {t for p in procs for t in p.made}
        with sqlite3.connect(folder / "sandbox" / "sandbox.sqlite3") as db:
            counts = dict(db.execute("SELECT tx_ref, COUNT(*) FROM transactions GROUP BY tx_ref"))
        figures["lost"] = len(made_everywhere - set(ledger_refs)) + max(0, intended - len(ledger_refs))
        figures["doubled"] = sum(1 for t in ledger_refs if counts.get(t, 0) > 1) + (
            len(ledger_refs) - len(set(ledger_refs))
        )
        figures["not_at_service"] = sum(1 for t in ledger_refs if counts.get(t, 0) == 0)
    finally:
        counter.stop()
        if notified is not None:
            figures["receiver_exit"] = notified.stop()
        for p in procs:
            p.stop()
    return figures


def count_connections(cluster: Cluster, base: str, keys: dict, folder: Path, desks: int) -> dict:
    """``desks`` key-less counters and the key holder on a fresh database, each counter
    making one sale: the server's connections to the database with the key holder alone,
    and with the counters up."""
    dbname = cluster.create_database(f"conns{desks}_{int(time.time() * 1000) % 10**8}")
    url = cluster.url(dbname)
    save_merchant(folder / f"{dbname}-setup", url, base, keys)
    holder = ReceiverProcess(folder / f"{dbname}-receiver", url, base, keys)
    procs: list[DeskProcess] = []
    try:
        wait(lambda: lease_priority(url) == 1, 60)
        alone = connections(url)
        for n in range(desks):
            procs.append(DeskProcess(f"till{n}", folder / f"{dbname}-till{n}", url, base, keys, 1, keyless=True))
            procs[-1].ready.wait(300)
        for p in procs:
            wait(lambda p=p: p.done.is_set() or not p.alive, 300, every=0.5)
        up = connections(url)
        made = sum(len(p.made) for p in procs)
        return {"desks": desks, "holder_alone": alone, "with_desks": up, "per_desk": (up - alone) / desks, "made": made}
    finally:
        for p in procs:
            p.stop()
        holder.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--desks", type=int, default=4)
    parser.add_argument("--links", type=int, default=250)
    parser.add_argument(
        "--connections", type=int, nargs="*", default=[4, 50], help="count the connections of this many key-less desks"
    )
    args = parser.parse_args()
    os.environ.setdefault("PAYDESK_LOG_LEVEL", "WARNING")
    with tempfile.TemporaryDirectory(prefix="paydesk-shop-") as tmp, Cluster.started() as cluster:
        folder = Path(tmp)
        proc, base, test_keys = start_sandbox(folder / "sandbox")
        try:
            keys = {"secret": test_keys["secret"], "public": test_keys["public"]}
            headers = {"Authorization": f"Bearer {keys['secret']}"}
            httpx.put(
                base.rstrip("/") + "/_sandbox/faults", json=FAULTS, headers=headers, timeout=10
            ).raise_for_status()
            print(f"sandbox {base}, faults {FAULTS}; PostgreSQL on port {cluster.port}")
            one = run_shop(cluster, base, keys, folder, 1, args.links, kill_poller=False)
            print(f"one desk: {one}")
            polled = run_shop(cluster, base, keys, folder, args.desks, args.links, kill_poller=True)
            print(f"{args.desks} desks, polling only: {polled}")
            shop = run_shop(cluster, base, keys, folder, args.desks, args.links, kill_poller=False, receiver=True)
            print(f"{args.desks} key-less desks with paydesk-receiver as key holder: {shop}")
            counted = [count_connections(cluster, base, keys, folder, n) for n in args.connections]
            for c in counted:
                print(f"connections: {c}")
        finally:
            proc.terminate()
            proc.wait(10)
    ratio = shop["lookups_rate"] / one["lookups_rate"] if one["lookups_rate"] else float("nan")
    polled_ratio = polled["lookups_rate"] / one["lookups_rate"] if one["lookups_rate"] else float("nan")
    print(
        f"lookups per open link per second over the quiet {QUIET:.0f} s: one desk "
        f"{one['lookups_rate']:.3f}, polling shop {polled['lookups_rate']:.3f} "
        f"(x {polled_ratio:.2f}), shop with the receiver {shop['lookups_rate']:.3f}"
    )
    takeover = polled["takeover_s"]
    print(
        f"connections (pg_stat_activity): {args.desks} desks with keys {polled['connections']}; "
        + "; ".join(
            f"{c['desks']} key-less desks {c['with_desks']} with the key holder's {c['holder_alone']} "
            f"({c['per_desk']:.2f} a desk)"
            for c in counted
        )
    )
    print(
        f"shop: desks {args.desks}, links {shop['made']}, "
        f"lost {shop['lost'] + polled['lost']}, doubled {shop['doubled'] + polled['doubled']}, "
        f"PAID everywhere p95 {shop['paid_p95_ms']:.0f} ms with the receiver "
        f"({polled['paid_p95_ms']:.0f} ms polling only), lookups x {ratio:.2f} of one desk, "
        f"takeover {'none' if takeover is None else f'{takeover:.1f}'} s"
    )


if __name__ == "__main__":
    main()
