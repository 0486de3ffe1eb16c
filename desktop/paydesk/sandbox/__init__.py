"""The payment collection service, runnable locally.

A complete implementation of the service interface (see SERVICE.md, section 2),
used as PayDesk's embedded default, as the server every test talks to, and as a
rehearsal tool for merchants. It imports nothing from the rest of PayDesk.
"""

from .server import SandboxConfig, SandboxServer, build_app

__all__ = ["SandboxConfig", "SandboxServer", "build_app"]
