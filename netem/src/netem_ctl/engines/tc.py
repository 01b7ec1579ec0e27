"""Kernel netem via iproute2.

Egress (device -> client): root prio qdisc; u32 filters on the benchmark source ports steer
into band 1:2, whose child is netem. Everything else takes band 1:1 untouched.
Ingress (client -> device): u32 filters on the destination ports redirect to an IFB device
whose root qdisc is netem; other traffic is not redirected.
"""

from collections.abc import Sequence

from ..impairment import DirectionImpairment, Impairment
from .base import Engine
from .runner import Command, CommandRunner

IFB_DEVICE = "ifb-netem"
ROOT_HANDLE = "1:"
IMPAIRED_CLASS = "1:2"
EGRESS_NETEM_HANDLE = "12:"
INGRESS_HANDLE = "ffff:"
IFB_NETEM_HANDLE = "1:"
TCP = "6"
# prio with two bands: unmatched traffic of every TOS goes to band 0 (class 1:1).
PRIO_ARGS = ["prio", "bands", "2", "priomap", *["0"] * 16]


def netem_args(direction: DirectionImpairment) -> list[str]:
    """Every parameter explicit, so `tc qdisc replace` keeps no value of the previous profile."""
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
        f"{direction.rate_kbit}kbit",
    ]


def format_percent(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".")


def port_match(field: str, port: int) -> list[str]:
    return [
        "u32",
        "match",
        "ip",
        "protocol",
        TCP,
        "0xff",
        "match",
        "ip",
        field,
        str(port),
        "0xffff",
    ]


def build_commands(interface: str, ports: Sequence[int], impairment: Impairment) -> list[Command]:
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
    for port in ports:
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
                *port_match("sport", port),
                "flowid",
                IMPAIRED_CLASS,
            ]
        )
    commands.append(["tc", "qdisc", "add", "dev", interface, "handle", INGRESS_HANDLE, "ingress"])
    for port in ports:
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
                *port_match("dport", port),
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


def structure_problems(readback: dict[str, str], ports: Sequence[int]) -> list[str]:
    """Compare `tc ... show` output with what build_commands installs (u32 prints keys in hex)."""
    problems = []
    expected_lines = {
        "qdisc": [
            f"qdisc prio {ROOT_HANDLE} root",
            f"qdisc netem {EGRESS_NETEM_HANDLE} parent {IMPAIRED_CLASS}",
            f"qdisc ingress {INGRESS_HANDLE}",
        ],
        "ifb_qdisc": [f"qdisc netem {IFB_NETEM_HANDLE} root"],
        "egress_filters": [f"{port:04x}0000/ffff0000 at 20" for port in ports],
        "ingress_filters": [f"0000{port:04x}/0000ffff at 20" for port in ports],
    }
    for section, fragments in expected_lines.items():
        for fragment in fragments:
            if fragment not in readback.get(section, ""):
                problems.append(f"tc {section}: missing {fragment!r}")
    if readback.get("ingress_filters", "").lower().count(f"redirect to device {IFB_DEVICE}") < len(
        ports
    ):
        problems.append(f"tc ingress_filters: fewer than {len(ports)} redirects to {IFB_DEVICE}")
    return problems


class TcEngine(Engine):
    name = "tc"

    def __init__(self, runner: CommandRunner, interface: str, ports: Sequence[int]):
        self.runner = runner
        self.interface = interface
        self.ports = tuple(ports)

    def apply(self, impairment: Impairment) -> None:
        if impairment.is_neutral:
            self.clear()
        elif not structure_problems(self._read(), self.ports):
            self.runner.run_all(update_commands(self.interface, impairment))
        else:
            self.clear()
            self.runner.run_all(build_commands(self.interface, self.ports, impairment))

    def clear(self) -> None:
        self.runner.run_all(clear_commands(self.interface), check=False)

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
