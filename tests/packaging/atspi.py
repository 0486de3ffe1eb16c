"""A small AT-SPI client over D-Bus (jeepney): what a screen reader sees of a running program,
and the few things it does with it (read names, set text, press buttons).

The accessibility bus is found through the session bus (org.a11y.Bus, started by Debian's
at-spi2-core on demand); Qt joins it when QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1."""

from __future__ import annotations

from dataclasses import dataclass

from jeepney import DBusAddress, Properties, new_method_call
from jeepney.io.blocking import DBusConnection, open_dbus_connection

from tests.waiting import until

ACCESSIBLE = "org.a11y.atspi.Accessible"
ROOT = "/org/a11y/atspi/accessible/root"
# AT-SPI roles used here (atspi-constants.h)
ROLES = {"push button": 43, "label": 29, "text": 61, "frame": 23, "application": 75}


def connect(session_address: str) -> DBusConnection:
    """Connect to the accessibility bus of the session bus at ``session_address``."""
    session = open_dbus_connection(session_address)
    try:
        bus = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
        address = session.send_and_get_reply(new_method_call(bus, "GetAddress"), timeout=10).body[0]
    finally:
        session.close()
    return open_dbus_connection(address)


@dataclass(frozen=True)
class Node:
    bus: DBusConnection
    name_on_bus: str
    path: str

    def _call(self, interface: str, method: str, signature: str | None = None, *args):
        address = DBusAddress(self.path, bus_name=self.name_on_bus, interface=interface)
        reply = self.bus.send_and_get_reply(new_method_call(address, method, signature, args), timeout=10)
        if reply.header.message_type.name == "error":
            raise RuntimeError(f"{interface}.{method} on {self.path}: {reply.body}")
        return reply.body

    def prop(self, interface: str, name: str):
        address = DBusAddress(self.path, bus_name=self.name_on_bus, interface=interface)
        reply = self.bus.send_and_get_reply(Properties(address).get(name), timeout=10)
        if reply.header.message_type.name == "error":
            raise RuntimeError(f"{interface}.{name} on {self.path}: {reply.body}")
        return reply.body[0][1]

    @property
    def name(self) -> str:
        return self.prop(ACCESSIBLE, "Name")

    @property
    def role(self) -> int:
        return self._call(ACCESSIBLE, "GetRole")[0]

    def children(self) -> list[Node]:
        return [
            Node(self.bus, bus_name, path)
            for bus_name, path in self._call(ACCESSIBLE, "GetChildren")[0]
            if path != "/org/a11y/atspi/null"
        ]

    def walk(self, depth: int = 40):
        yield self
        if depth:
            for child in self.children():
                yield from child.walk(depth - 1)

    def set_text(self, text: str) -> None:
        """What a screen reader's user does when they type into a field."""
        if not self._call("org.a11y.atspi.EditableText", "SetTextContents", "s", text)[0]:
            raise RuntimeError(f"could not set the text of {self.name!r}")

    def press(self) -> None:
        """The button's first action (Qt names it "Press")."""
        if not self._call("org.a11y.atspi.Action", "DoAction", "i", 0)[0]:
            raise RuntimeError(f"could not press {self.name!r}")

    def extents(self) -> tuple[int, int, int, int]:
        """x, y, width, height on the screen."""
        return tuple(self._call("org.a11y.atspi.Component", "GetExtents", "u", 0)[0])


def application(bus: DBusConnection, name: str, timeout: float = 60) -> Node:
    """The registered application called ``name``, once it has joined the bus."""
    desktop = Node(bus, "org.a11y.atspi.Registry", ROOT)

    def joined() -> Node | None:
        for app in desktop.children():
            try:
                if app.name == name:
                    return app
            except RuntimeError:
                pass  # an application leaving the bus as we ask
        return None

    return until(joined, timeout, f"an application named {name!r} on the accessibility bus", every=0.2)


def find(root: Node, role: str, name=None, timeout: float = 30) -> Node:
    """The first node of ``role`` whose name is ``name`` (or passes ``name`` when callable)."""
    wanted = ROLES[role]
    matches = name if callable(name) else (lambda n: n == name)

    def found() -> Node | None:
        try:
            for node in root.walk():
                if node.role == wanted and matches(node.name):
                    return node
        except RuntimeError:
            pass  # the tree changed under the walk: walk again
        return None

    return until(found, timeout, f"a {role} named {name!r}", every=0.2)
