"""The parts of bench_budget.py's shop: its desks (built as the app builds them, on the shop's
shared PostgreSQL ledger, driven through the Qt-free desk layer), the notification receiver
(the real ``paydesk-receiver``, in a process of its own), another program on the shop's
address, and the sandbox's own view of its throttle (its control API's window, read often).

Run by bench_budget.py; not a test.
"""

from __future__ import annotations

import asyncio
import csv
import json
import subprocess
import sys
import time
from pathlib import Path

import httpx

from paydesk.config.paths import Paths
from paydesk.config.profiles import Profile
from paydesk.config.secrets import KeyStore
from paydesk.desk.build import build_desk
from paydesk.desk.bulk.check import check_rows
from paydesk.desk.bulk.mapping import guess_mapping
from paydesk.desk.bulk.read import read_sheet
from paydesk.service.models import LOOKUP_PATHS
from tests.helpers import MemoryKeyring

RECEIVER = Path(sys.executable).with_name("paydesk-receiver")
SHOP_EMAIL = "shop@example.com"
HEADERS = ["Amount", "Currency", "E-mail", "First name", "Last name", "Title", "Description"]


def control_headers(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}", "Accept": "application/json"}


async def open_desk(folder: Path, name: str, ledger_url: str, base: str, keys: dict, profile: Profile | None) -> tuple:
    """A desk named ``name`` on the shop's ledger, its profile the shop's (made here when
    ``profile`` is None), its background started. Returns (desk, profile)."""
    paths = Paths(data=folder / name, sandbox=folder / f"{name}-sb").ensure()
    desk = build_desk(paths, KeyStore(MemoryKeyring()), ledger_url=ledger_url)
    await desk.open()
    if profile is None:
        profile = Profile(
            id=Profile.new_id(),
            name="Shop",
            base_url=base,
            has_cards=False,
            currencies=["GBP"],
            txref_prefix="SHOP",
            shop_email=SHOP_EMAIL,
            lookup_path=LOOKUP_PATHS[1],
            callback_url="https://shop.example.com/thanks",
        )
    await desk.session.save_profile(profile, {("test", "secret"): keys["secret"], ("test", "public"): keys["public"]})
    await desk.keys.set(profile.id, "test", "webhook", keys["webhook"])
    await desk.naming.rename(name)
    desk.start_background()
    return desk, desk.session.profile or profile


async def load_batch(desk, path: Path, rows: int):
    """A file of ``rows`` valid rows, read, checked and kept as a batch (as Bulk links does)."""
    with path.open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(HEADERS)
        for n in range(1, rows + 1):
            writer.writerow(
                [
                    str(10 + n % 40),
                    "GBP",
                    f"c{n}@example.com",
                    f"Ada{n}",
                    "Lovelace",
                    "Term fees",
                    f"Autumn term, pupil {n}",
                ]
            )
    sheet = await asyncio.to_thread(read_sheet, path)
    profile, _ = desk.session.active()
    checked = check_rows(sheet, guess_mapping(sheet.headers), profile)
    batch, _ = await desk.bulk.keep(path, checked, "skip")
    return batch


class ReceiverProcess:
    """``paydesk-receiver`` on the shop's ledger as docs/RECEIVER.md runs it: its key file
    (readable by its owner alone) naming the merchant's keys and webhook secret, its address
    the merchant's webhook URL at the sandbox."""

    def __init__(self, folder: Path, ledger_url: str, merchant: str, base: str, keys: dict):
        folder.mkdir(parents=True, exist_ok=True)
        key_file = folder / "receiver-keys.json"
        key_file.write_text(json.dumps({"profiles": {merchant: {"test": keys["secret"], "webhook": keys["webhook"]}}}))
        key_file.chmod(0o600)
        self.stderr = (folder / "stderr.txt").open("w")
        self.proc = subprocess.Popen(
            [
                str(RECEIVER),
                "--ledger",
                ledger_url,
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
            stderr=self.stderr,
            text=True,
        )
        line = self.proc.stdout.readline()
        if "listening at " not in line:
            raise RuntimeError(f"paydesk-receiver did not start: {line}")
        self.url = line.split("listening at ", 1)[1].split()[0]
        self.base, self.headers = base.rstrip("/"), control_headers(keys["secret"])
        httpx.put(
            f"{self.base}/_sandbox/webhook", json={"url": self.url}, headers=self.headers, timeout=10
        ).raise_for_status()

    def stop(self) -> int:
        httpx.delete(f"{self.base}/_sandbox/webhook", headers=self.headers, timeout=10)
        self.proc.terminate()
        code = self.proc.wait(30)
        self.proc.stdout.close()
        self.stderr.close()
        return code


def webhook_secret(base: str, key: str) -> str:
    answer = httpx.get(base.rstrip("/") + "/_sandbox/webhook", headers=control_headers(key), timeout=10)
    answer.raise_for_status()
    return answer.json()["data"]["webhook_secret"]


class Foreign:
    """Another program on the shop's address (another merchant's key): ``per_minute`` look-ups
    a minute, evenly spaced, whatever it is answered."""

    def __init__(self, base: str, key: str, per_minute: int):
        self.base, self.key, self.every = base.rstrip("/"), key, 60.0 / per_minute
        self.statuses: list[tuple[float, int]] = []  # (time.time(), status)

    async def run(self, stop: asyncio.Event) -> None:
        async with httpx.AsyncClient(base_url=self.base, headers=control_headers(self.key), timeout=10) as client:
            n = 0
            while not stop.is_set():
                n += 1
                try:
                    answer = await client.get(f"/api/verify-payment/OTHER-{n}")
                    self.statuses.append((time.time(), answer.status_code))
                except httpx.HTTPError:
                    self.statuses.append((time.time(), 0))
                try:
                    await asyncio.wait_for(stop.wait(), self.every)
                except TimeoutError:
                    pass

    @property
    def counted(self) -> int:
        return sum(1 for _, status in self.statuses if status not in (0, 429))

    @property
    def refused(self) -> int:
        return sum(1 for _, status in self.statuses if status == 429)


class WindowWatch:
    """The sandbox's throttle as it counts the shop's address (``GET _sandbox/rate-limit``):
    read every ``every`` s; the most it counted in each of its windows (fixed, from a first
    hit; keyed by the window's end)."""

    def __init__(self, base: str, key: str, client: str = "127.0.0.1", every: float = 0.2):
        self.url = base.rstrip("/") + "/_sandbox/rate-limit"
        self.headers, self.client, self.every = control_headers(key), client, every
        self.windows: dict[int, int] = {}
        self.limit: int | None = None

    async def run(self, stop: asyncio.Event) -> None:
        async with httpx.AsyncClient(headers=self.headers, timeout=10) as client:
            while True:
                last = stop.is_set()
                try:
                    view = (await client.get(self.url)).json()["data"]
                except (httpx.HTTPError, ValueError, KeyError):
                    view = None
                if view is not None:
                    self.limit = view["limit"]
                    seen = view["clients"].get(self.client)
                    if seen is not None:
                        ends = int(seen["resets_at"])
                        self.windows[ends] = max(self.windows.get(ends, 0), int(seen["used"]))
                if last:
                    return
                try:
                    await asyncio.wait_for(stop.wait(), self.every)
                except TimeoutError:
                    pass

    def most(self, since: float, until: float) -> int:
        """The most the server counted in one of its windows that overlaps [since, until)."""
        return max((used for ends, used in self.windows.items() if ends > since and ends - 60 < until), default=0)
