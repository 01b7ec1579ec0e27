"""Kernel netem via iproute2.

Egress (device -> client): root prio qdisc; u32 filters on the benchmark source ports (TCP and
UDP, one filter per protocol and port) steer into band 1:2, whose child is netem. Everything else
takes band 1:1 untouched.
Ingress (client -> device): u32 filters on the destination ports redirect to an IFB device
whose root qdisc is netem; other traffic is not redirected.
netem draws loss and jitter once per skb, and a TCP or UDP GSO skb is up to 45 wire packets:
while a profile has loss or jitter, TSO and GSO are off on the device's interface, so the
device's packets reach netem as wire packets (docs/profiles.md says what this leaves out).
"""

from ..impairment import DirectionImpairment, Impairment
from .base import Engine
from .ports import Ports
from .runner import Command, CommandRunner

IFB_DEVICE = "ifb-netem"
ROOT_HANDLE = "1:"
IMPAIRED_CLASS = "1:2"
EGRESS_NETEM_HANDLE = "12:"
INGRESS_HANDLE = "ffff:"
IFB_NETEM_HANDLE = "1:"
IP_PROTOCOLS = {"tcp": 6, "udp": 17}
# prio with two bands: unmatched traffic of every TOS goes to band 0 (class 1:1).
PRIO_ARGS = ["prio", "bands", "2", "priomap", *["0"] * 16]
# netem keeps jittered packets in order only while a rate is set (each then waits for the one
# ahead of it); 10 Gbit/s keeps the order without limiting the lab's links.
KEEP_ORDER_RATE_KBIT = 10_000_000


def netem_args(direction: DirectionImpairment) -> list[str]:
    """Every parameter explicit, so `tc qdisc replace` keeps no value of the previous profile."""
    rate_kbit = direction.rate_kbit
    if direction.keep_order and direction.jitter_us and not rate_kbit:
        rate_kbit = KEEP_ORDER_RATE_KBIT
    return [
        "netem",
        "limit",
        str(direction.limit_packets),
        "delay",
        f"{direction.delay_us}us",
        f"{direction.jitter_us}us",
        "loss",
        "random",
        f"{format_percent(direction.loss_pct)}%",
        "rate",
        f"{rate_kbit}kbit",
    ]


def offload_commands(interface: str, impairment: Impairment) -> list[Command]:
    """TSO and GSO off while loss or jitter is drawn, on again for delay-only profiles (fewer
    packets to delay). TCP reads them when a connection starts."""
    state = "off" if impairment.draws_per_packet else "on"
    return [["ethtool", "-K", interface, "tso", state, "gso", state]]


def format_percent(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".")


def port_match(protocol: str, field: str, port: int) -> list[str]:
    return [
        "u32",
        "match",
        "ip",
        "protocol",
        str(IP_PROTOCOLS[protocol]),
        "0xff",
        "match",
        "ip",
        field,
        str(port),
        "0xffff",
    ]


def matches(ports: Ports) -> list[tuple[str, int]]:
    """(protocol, port) for every filter in each direction, in the order they are added."""
    return [(protocol, port) for protocol, numbers in ports.by_protocol() for port in numbers]


def build_commands(interface: str, ports: Ports, impairment: Impairment) -> list[Command]:
    commands: list[Command] = [
        ["ip", "link", "add", IFB_DEVICE, "type", "ifb"],
        ["ip", "link", "set", IFB_DEVICE, "up"],
        ["tc", "qdisc", "add", "dev", interface, "root", "handle", ROOT_HANDLE, *PRIO_ARGS],
        [
            "tc",
            "qdisc",
            "add",
            "dev",
            interface,
            "parent",
            IMPAIRED_CLASS,
            "handle",
            EGRESS_NETEM_HANDLE,
            *netem_args(impairment.from_device()),
        ],
    ]
    for protocol, port in matches(ports):
        commands.append(
            [
                "tc",
                "filter",
                "add",
                "dev",
                interface,
                "parent",
                ROOT_HANDLE,
                "protocol",
                "ip",
                "prio",
                "1",
                *port_match(protocol, "sport", port),
                "flowid",
                IMPAIRED_CLASS,
            ]
        )
    commands.append(["tc", "qdisc", "add", "dev", interface, "handle", INGRESS_HANDLE, "ingress"])
    for protocol, port in matches(ports):
        commands.append(
            [
                "tc",
                "filter",
                "add",
                "dev",
                interface,
                "parent",
                INGRESS_HANDLE,
                "protocol",
                "ip",
                "prio",
                "1",
                *port_match(protocol, "dport", port),
                "action",
                "mirred",
                "egress",
                "redirect",
                "dev",
                IFB_DEVICE,
            ]
        )
    commands.append(
        [
            "tc",
            "qdisc",
            "add",
            "dev",
            IFB_DEVICE,
            "root",
            "handle",
            IFB_NETEM_HANDLE,
            *netem_args(impairment.toward_device()),
        ]
    )
    return commands


def update_commands(interface: str, impairment: Impairment) -> list[Command]:
    """Change the profile in place: filters stay, packets already held are not lost."""
    return [
        [
            "tc",
            "qdisc",
            "replace",
            "dev",
            interface,
            "parent",
            IMPAIRED_CLASS,
            "handle",
            EGRESS_NETEM_HANDLE,
            *netem_args(impairment.from_device()),
        ],
        [
            "tc",
            "qdisc",
            "replace",
            "dev",
            IFB_DEVICE,
            "root",
            "handle",
            IFB_NETEM_HANDLE,
            *netem_args(impairment.toward_device()),
        ],
    ]


def clear_commands(interface: str) -> list[Command]:
    """Each may fail harmlessly when its object is already gone."""
    return [
        ["tc", "qdisc", "del", "dev", interface, "root"],
        ["tc", "qdisc", "del", "dev", interface, "ingress"],
        ["ip", "link", "del", IFB_DEVICE],
    ]


def readback_commands(interface: str) -> dict[str, Command]:
    return {
        "qdisc": ["tc", "qdisc", "show", "dev", interface],
        "egress_filters": ["tc", "filter", "show", "dev", interface, "parent", ROOT_HANDLE],
        "ingress_filters": ["tc", "filter", "show", "dev", interface, "parent", INGRESS_HANDLE],
        "ifb_qdisc": ["tc", "qdisc", "show", "dev", IFB_DEVICE],
    }


def protocol_key(protocol: str) -> str:
    """How `tc filter show` prints `match ip protocol N 0xff`: the IP header's word at 8."""
    return f"00{IP_PROTOCOLS[protocol]:02x}0000/00ff0000 at 8"


def port_key(field: str, port: int) -> str:
    """How `tc filter show` prints `match ip sport|dport N 0xffff`: the word after an IP header
    without options, source port in its upper half, destination port in its lower."""
    if field == "sport":
        return f"{port:04x}0000/ffff0000 at 20"
    return f"0000{port:04x}/0000ffff at 20"


def filter_blocks(text: str) -> list[str]:
    """`tc filter show` output cut into one piece per filter; each starts with a `filter` line
    and holds its `match` lines and actions."""
    blocks: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("filter ") or not blocks:
            blocks.append(line)
        else:
            blocks[-1] += line
    return blocks


def missing_filters(text: str, field: str, ports: Ports, action: str) -> list[str]:
    """Each (protocol, port) with no filter that matches both keys and has `action` (lowercase)."""
    blocks = [block.lower() for block in filter_blocks(text)]
    return [
        f"{protocol} {field} {port} ({protocol_key(protocol)}, {port_key(field, port)})"
        for protocol, port in matches(ports)
        if not any(
            f"match {protocol_key(protocol)}" in block
            and f"match {port_key(field, port)}" in block
            and action in block
            for block in blocks
        )
    ]


def structure_problems(readback: dict[str, str], ports: Ports) -> list[str]:
    """Compare `tc ... show` output with what build_commands installs (u32 prints keys in hex):
    each filter must match its protocol and its port, so a TCP filter never passes for UDP."""
    problems = []
    expected_lines = {
        "qdisc": [
            f"qdisc prio {ROOT_HANDLE} root",
            f"qdisc netem {EGRESS_NETEM_HANDLE} parent {IMPAIRED_CLASS}",
            f"qdisc ingress {INGRESS_HANDLE}",
        ],
        "ifb_qdisc": [f"qdisc netem {IFB_NETEM_HANDLE} root"],
    }
    for section, fragments in expected_lines.items():
        for fragment in fragments:
            if fragment not in readback.get(section, ""):
                problems.append(f"tc {section}: missing {fragment!r}")
    for section, field, action in (
        ("egress_filters", "sport", f"flowid {IMPAIRED_CLASS}"),
        ("ingress_filters", "dport", f"redirect to device {IFB_DEVICE}"),
    ):
        problems += [
            f"tc {section}: no filter for {what}"
            for what in missing_filters(readback.get(section, ""), field, ports, action)
        ]
    return problems


class TcEngine(Engine):
    name = "tc"

    def __init__(self, runner: CommandRunner, interface: str, ports: Ports):
        self.runner = runner
        self.interface = interface
        self.ports = ports

    def apply(self, impairment: Impairment) -> None:
        if impairment.is_neutral:
            self.clear()
        elif not structure_problems(self._read(), self.ports):
            self.runner.run_all(update_commands(self.interface, impairment))
        else:
            self.clear()
            self.runner.run_all(build_commands(self.interface, self.ports, impairment))
        if not impairment.is_neutral:
            self.runner.run_all(offload_commands(self.interface, impairment))

    def clear(self) -> None:
        self.runner.run_all(clear_commands(self.interface), check=False)
        self.runner.run_all(offload_commands(self.interface, Impairment(rtt_ms=0)), check=False)

    def problems(self, impairment: Impairment) -> list[str]:
        if impairment.is_neutral:
            return []
        return structure_problems(self._read(), self.ports)

    def readback(self) -> dict[str, str]:
        sections = self._read()
        text = "".join(f"# {name}\n{output}" for name, output in sections.items() if output)
        return {"tc": text, "iptables": ""}

    def _read(self) -> dict[str, str]:
        return {
            name: self.runner.output(argv)
            for name, argv in readback_commands(self.interface).items()
        }
