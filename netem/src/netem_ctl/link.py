"""Identity of the impaired interface, so the watchdog notices when the device's namespace is gone.

With `network_mode: service:device` the sidecar lives in the device container's network namespace.
When the device container restarts, Docker removes eth0 from that namespace and gives the new device
container a fresh namespace: the sidecar keeps running in the old, empty one, its rules impairing
nothing. The interface vanishing (or coming back with another index) is how that shows from inside.
"""

import socket


def interface_index(interface: str) -> int | None:
    try:
        return socket.if_nametoindex(interface)
    except OSError:
        return None


class LinkMonitor:
    def __init__(self, interface: str):
        self.interface = interface
        self.index = interface_index(interface)

    def problem(self) -> str | None:
        """None while the interface seen at start is still here, else what changed."""
        now = interface_index(self.interface)
        if self.index is None:
            return f"interface {self.interface} did not exist at start"
        if now is None:
            return f"interface {self.interface} (ifindex {self.index}) has vanished"
        if now != self.index:
            return f"interface {self.interface} changed ifindex {self.index} -> {now}"
        return None
