"""Route the device's own outgoing benchmark packets through a veth pair before they leave.

Why: a packet the device's TCP stack sends stays charged to its socket until it is freed, and TCP
Small Queues stops the socket at about two such packets; holding them in NFQUEUE for the one-way
delay therefore capped device->client transfers (0.38 MB/s at 30 ms). A UDP (QUIC) socket is
charged the same way, against its send buffer: held datagrams would block its sender once a
buffer's worth is in flight. Kernel netem avoids this by orphaning what it holds. Here the packet
crosses a veth pair inside the device's namespace instead: the IP receive path orphans it, and it
is then *forwarded* to eth0, so the FORWARD hook can hold it for as long as the profile says
without the socket noticing.

  local TCP/UDP -OUTPUT: mark-> policy route -> DETOUR_OUT ==veth==> DETOUR_IN
    -FORWARD: NFQUEUE-> eth0

DETOUR_IN must forward, accept packets whose source is a local address, and skip reverse-path
filtering; those per-interface settings are set over rtnetlink (see devconf).
"""

import sys

from . import devconf
from .runner import Command, CommandRunner

DETOUR_OUT = "tl-detour0"
DETOUR_IN = "tl-detour1"
# Marks the packets to detour; the policy rule only matches locally sent ones (iif lo), so the
# forwarded copy, which keeps the mark, takes the main table to eth0.
FWMARK = 0x4E51
ROUTE_TABLE = 4951
RULE_PRIORITY = 4951
# The detour's next hop: a name for DETOUR_IN's MAC address, never on any wire (RFC 2544 range).
NEXT_HOP = "198.19.255.254"
DEVCONF = {"forwarding": 1, "accept_local": 1, "rp_filter": 0}


def devconf_command(values: dict[str, int]) -> Command:
    # The module runs as a script (stdlib only), so it works wherever the package is not installed.
    return [
        sys.executable,
        devconf.__file__,
        DETOUR_IN,
        *(f"{name}={value}" for name, value in values.items()),
    ]


def rule_spec() -> list[str]:
    return [
        "fwmark",
        hex(FWMARK),
        "iif",
        "lo",
        "lookup",
        str(ROUTE_TABLE),
        "priority",
        str(RULE_PRIORITY),
    ]


def install_commands(in_mac: str) -> list[Command]:
    """After `link_commands`: `in_mac` is DETOUR_IN's address, read back from the kernel."""
    return [
        devconf_command(DEVCONF),
        [
            "ip",
            "neigh",
            "replace",
            NEXT_HOP,
            "lladdr",
            in_mac,
            "dev",
            DETOUR_OUT,
            "nud",
            "permanent",
        ],
        [
            "ip",
            "route",
            "replace",
            "default",
            "via",
            NEXT_HOP,
            "dev",
            DETOUR_OUT,
            "onlink",
            "table",
            str(ROUTE_TABLE),
        ],
        ["ip", "rule", "add", *rule_spec()],
    ]


def link_commands() -> list[Command]:
    return [
        ["ip", "link", "add", DETOUR_OUT, "type", "veth", "peer", "name", DETOUR_IN],
        ["ip", "link", "set", DETOUR_OUT, "up"],
        ["ip", "link", "set", DETOUR_IN, "up"],
    ]


def remove_commands() -> list[Command]:
    """Each may fail harmlessly when already gone; deleting one end of a veth pair deletes both."""
    return [
        ["ip", "rule", "del", *rule_spec()],
        ["ip", "route", "flush", "table", str(ROUTE_TABLE)],
        ["ip", "link", "del", DETOUR_OUT],
    ]


class Detour:
    """Builds, checks and removes the detour in the namespace `runner` works in."""

    def __init__(self, runner: CommandRunner):
        self.runner = runner

    def install(self) -> None:
        self.remove()
        self.runner.run_all(link_commands())
        in_mac = self.runner.output(["cat", f"/sys/class/net/{DETOUR_IN}/address"]).strip()
        self.runner.run_all(install_commands(in_mac))

    def remove(self) -> None:
        self.runner.run_all(remove_commands(), check=False)

    def problems(self) -> list[str]:
        found = []
        for interface in (DETOUR_OUT, DETOUR_IN):
            if "UP" not in self.runner.output(["ip", "-br", "link", "show", interface]):
                found.append(f"detour interface {interface} is missing or down")
        if f"lookup {ROUTE_TABLE}" not in self.runner.output(
            ["ip", "rule", "show", "priority", str(RULE_PRIORITY)]
        ):
            found.append(f"detour: no policy rule for fwmark {hex(FWMARK)}")
        if DETOUR_OUT not in self.runner.output(["ip", "route", "show", "table", str(ROUTE_TABLE)]):
            found.append(f"detour: table {ROUTE_TABLE} has no route via {DETOUR_OUT}")
        settings = self.settings()
        for name, wanted in DEVCONF.items():
            if settings[_sysctl(DETOUR_IN, name)] != wanted:
                found.append(
                    f"detour: {_sysctl(DETOUR_IN, name)} is {settings[_sysctl(DETOUR_IN, name)]}, "
                    f"needs {wanted}"
                )
        all_rp_filter = settings[_sysctl("all", "rp_filter")]
        if all_rp_filter:
            # The effective value is max(all, interface); strict and loose mode both reject a
            # packet arriving with one of the namespace's own addresses as its source.
            found.append(
                f"detour: net.ipv4.conf.all.rp_filter={all_rp_filter} in the device's namespace "
                "drops the detoured packets; it must be 0 (compose.yaml sets it on the device "
                "service)"
            )
        return found

    def settings(self) -> dict[str, int | None]:
        """The sysctls the detour depends on, read back from /proc (readable, if not writable)."""
        wanted = [(DETOUR_IN, name) for name in DEVCONF] + [("all", "rp_filter")]
        return {
            _sysctl(interface, name): _as_int(
                self.runner.output(["cat", f"/proc/sys/net/ipv4/conf/{interface}/{name}"])
            )
            for interface, name in wanted
        }

    def readback(self) -> str:
        """Empty while no detour is installed (a neutral profile)."""
        if not self.runner.output(["ip", "-br", "link", "show", DETOUR_IN]):
            return ""
        return "".join(
            [
                self.runner.output(["ip", "rule", "show", "priority", str(RULE_PRIORITY)]),
                self.runner.output(["ip", "route", "show", "table", str(ROUTE_TABLE)]),
                "".join(f"{name} = {value}\n" for name, value in self.settings().items()),
            ]
        )


def _sysctl(interface: str, name: str) -> str:
    return f"net.ipv4.conf.{interface}.{name}"


def _as_int(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.lstrip("-").isdigit() else None
