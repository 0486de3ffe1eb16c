"""The notification receiver: the service's signed notifications, verified, kept in the
ledger's inbox, answered, then looked up again at the service (docs/RECEIVER.md).

Qt-free. ``signature`` (which key verifies a body), ``payload`` (what a body names),
``server`` (the Starlette app), ``worker`` (the re-read), ``keysource`` (keys from a file or
the environment), ``serve`` (``Receiver``: uvicorn in the running loop; the app's own on
loopback), ``cli`` (``paydesk-receiver``).
"""
