"""``paydesk-sandbox``: run the service locally, or print its merchants' keys."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from pathlib import Path

from .. import __version__
from .context import SandboxConfig
from .keys import load_or_create
from .server import base_url_of, bind, build_app, make_server, serve
from .throttle import MINUTE, parse_rate


def default_data_dir() -> Path:
    root = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(root) / "paydesk-sandbox"


def _serve_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="paydesk-sandbox",
        description="Run the payment collection service locally (the PayDesk sandbox). "
        "'paydesk-sandbox keys --data-dir DIR' prints the merchants and their keys.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port; 0 picks a free one (default 8000)")
    p.add_argument(
        "--data-dir", type=Path, default=default_data_dir(), help="where state, merchants.json and the outbox live"
    )
    p.add_argument("--base-path", default="/", help="the deployment's own path segment, e.g. /pay")
    p.add_argument(
        "--deployment",
        choices=["cards", "no-cards"],
        default="cards",
        help="cards: GBP and USD with virtual cards; no-cards: EUR, GBP, USD, no cards",
    )
    dialect = p.add_mutually_exclusive_group()
    dialect.add_argument(
        "--quirks",
        action="store_true",
        help="answer the way the interface document's samples do (status codes, shapes)",
    )
    dialect.add_argument(
        "--family",
        action="store_true",
        help="answer as the family's real server code does: lookups only at "
        "/api/verify-payment/{tx_ref}, its status codes, shapes and card "
        "words, notifications to --webhook-url",
    )
    p.add_argument(
        "--webhook-url",
        metavar="URL",
        help="with --family: the business's webhook URL, where each payment event "
        "is POSTed once, signed with the merchant's webhook_secret "
        "(see 'paydesk-sandbox keys'), for every merchant that has not set "
        "its own (PUT _sandbox/webhook)",
    )
    p.add_argument(
        "--rate-limit",
        metavar="N/min",
        help="the server's throttle: N requests a minute per client address on "
        "every /api route, answered 429 'Too Many Attempts.' past it "
        "(also N/s, N/<seconds>s, N/hour); 'off' or 0: none. Default: "
        "60/min with --family (its real server's), off otherwise",
    )
    p.add_argument("--smtp", metavar="HOST:PORT", help="also send receipts over SMTP")
    p.add_argument("--version", action="version", version=f"paydesk-sandbox {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["keys"]:
        p = argparse.ArgumentParser(
            prog="paydesk-sandbox keys",
            description="Print the sandbox's merchants, their keys and webhook secrets as JSON.",
        )
        p.add_argument("--data-dir", type=Path, default=default_data_dir())
        args = p.parse_args(argv[1:])
        print(json.dumps(load_or_create(args.data_dir), indent=2))
        return 0
    args = _serve_parser().parse_args(argv)
    if args.smtp and ":" not in args.smtp:
        _serve_parser().error("--smtp takes HOST:PORT")
    if args.webhook_url and not args.family:
        _serve_parser().error(
            "--webhook-url is for --family (the document's dialects notify each payment's callback_url)"
        )
    if args.webhook_url and not args.webhook_url.startswith(("http://", "https://")):
        _serve_parser().error("--webhook-url takes an http or https URL")
    rate_limit, window = None, MINUTE
    if args.rate_limit is not None:
        try:
            rate_limit, window = parse_rate(args.rate_limit)
        except ValueError as exc:
            _serve_parser().error(f"--rate-limit {exc}")
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    config = SandboxConfig(
        data_dir=args.data_dir,
        host=args.host,
        port=args.port,
        base_path=args.base_path,
        deployment=args.deployment,
        quirks=args.quirks,
        family=args.family,
        webhook_url=args.webhook_url,
        smtp=args.smtp,
        rate_limit=rate_limit,
        rate_limit_window=window,
    )
    sock = bind(config.host, config.port)
    app = build_app(config)
    print(f"serving {base_url_of(config, sock)}", flush=True)
    server, guard = make_server(app)
    try:
        asyncio.run(serve(server, guard, sock))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
