"""The bundle's entry point: ``paydesk``, or ``paydesk-sandbox`` / ``paydesk-receiver`` (also
``paydesk-keyholder``) when started under that name (the .deb links the commands to the one
executable)."""

import sys
from pathlib import Path


def main() -> int:
    name = Path(sys.argv[0]).name
    if name.startswith("paydesk-sandbox"):
        from paydesk.sandbox.cli import main as run
    elif name.startswith("paydesk-receiver") or name.startswith("paydesk-keyholder"):
        from paydesk.receiver.cli import main as run
    else:
        from paydesk.app import main as run
    return run()


if __name__ == "__main__":
    sys.exit(main())
