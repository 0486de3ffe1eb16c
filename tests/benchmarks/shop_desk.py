"""One desk of bench_shop.py: a headless desk from the composition root, in a process of its
own, on the shop's shared ledger. It makes its links one after another, then stays up and
says (one JSON object a line, on stdout) what it saw: each link it made, each record it saw
become paid (from its own checks or from another desk's, through the ledger's events), and
which desk checks payments. It stops when its stdin closes or it is killed. With
``--keyless NAME`` it is a key-less counter (no keys: its sales go through the shop's key
holder); with ``--setup`` it only saves the shop's merchant (and its keys), then exits.

Run by bench_shop.py; not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "desktop"))

from paydesk.config.profiles import Profile  # noqa: E402
from paydesk.desk.build import build_desk  # noqa: E402
from paydesk.desk.start import open_folders, open_keys  # noqa: E402
from paydesk.service.errors import ServiceError  # noqa: E402
from paydesk.service.models import PaymentRequest  # noqa: E402


def say(**fields) -> None:
    fields["t"] = time.time()
    print(json.dumps(fields), flush=True)


async def stdin_closed() -> None:
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


async def sell_keyless(desk, args: argparse.Namespace) -> int:
    """A key-less counter's sales, one after another, through the shop's key holder (the
    desk layer's seller: each sale waits for its link, as Enter at the counter does)."""
    profile, mode = desk.session.active()
    made = 0
    for n in range(args.links):
        try:
            sale = await desk.counter.keyless.sell(
                desk.counter.name,
                profile.id,
                mode,
                amount=Decimal(10 + n % 50),
                currency="GBP",
                email="kim@example.com",
                note=f"Sale {n}",
                made_by="bench",
            )
        except ServiceError as error:  # refused, or the key holder away: nothing sold
            say(event="create_failed", why=error.message)
            continue
        made += 1
        say(event="created", tx_ref=sale.tx_ref)
    return made


async def main(args: argparse.Namespace) -> None:
    paths, _ = open_folders(args.data, Path(args.data) / "sandbox")
    keys = await open_keys(use_keyring=False)
    if args.keyless:  # set up as the shop's administrator sets a key-less counter up
        (Path(args.data) / "counter.json").write_text(json.dumps({"name": args.keyless, "keyless": True}))
    desk = build_desk(paths, keys, ledger_url=args.ledger)
    await desk.open()
    seen_paid: set[str] = set()

    def changed(record) -> None:
        if record.state == "success" and record.tx_ref not in seen_paid:
            seen_paid.add(record.tx_ref)
            say(event="paid", tx_ref=record.tx_ref)

    desk.hub.record_changed.connect(changed)
    if args.keyless:
        while not desk.session.settings.profiles:  # the shop's merchant, saved by a desk with keys
            await asyncio.sleep(0.5)
            await desk.session.reload_profiles()
        await desk.session.switch_profile(desk.session.settings.profiles[0].id)
        desk.start_background()
        say(event="ready", desk=desk.session.installation_id)
        say(event="done", made=await sell_keyless(desk, args))
        await stdin_closed()
        await desk.close()
        return
    profile = Profile(
        id=Profile.new_id(), name="Shop", base_url=args.base, has_cards=False, currencies=["GBP"], txref_prefix="SHOP"
    )
    await desk.session.save_profile(profile, {("test", "secret"): args.secret, ("test", "public"): args.public})
    if args.setup:  # the shop's merchant saved: a key-less shop's key holder is given its keys
        await desk.close()
        return
    desk.start_background()
    say(event="ready", desk=desk.session.installation_id)
    made = 0
    for n in range(args.links):
        profile, _ = desk.session.active()
        tx_ref = await desk.links.next_reference(profile)
        request = PaymentRequest(
            amount=Decimal(10 + n % 50),
            currency="GBP",
            email="kim@example.com",
            first_name="Kim",
            last_name="Lee",
            tx_ref=tx_ref,
            title=f"Sale {n}",
        )
        try:
            record = await desk.links.create(request)
        except ServiceError as error:  # refused, or the outcome unknown: settled later
            say(event="create_failed", tx_ref=request.tx_ref, why=error.message)
            continue
        made += 1
        say(event="created", tx_ref=record.tx_ref)
    say(event="done", made=made)
    await stdin_closed()
    await desk.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--ledger", required=True)
    parser.add_argument("--base", required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--public", required=True)
    parser.add_argument("--links", type=int, default=250)
    parser.add_argument("--keyless", metavar="NAME", help="a key-less counter of this name (no keys)")
    parser.add_argument("--setup", action="store_true", help="save the shop's merchant, then exit")
    asyncio.run(main(parser.parse_args()))
