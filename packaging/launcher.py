"""The bundle's entry point: ``paydesk``, or ``paydesk-sandbox`` when started under that name
(the .deb links both commands to the one executable)."""

import sys
from pathlib import Path


def main() -> int:
    if Path(sys.argv[0]).name.startswith("paydesk-sandbox"):
        from paydesk.sandbox.cli import main as run
    else:
        from paydesk.app import main as run
    return run()


if __name__ == "__main__":
    sys.exit(main())
