"""The device fleet's addresses on the impaired interface.

One device container presents N emulated devices, device k on the k-th address of
DEVICE_FLEET_ADDRESSES (emulator/README.md, Fleet). The device has no NET_ADMIN and must not
get it; the sidecar, which shares its network namespace and already configures it, puts the
addresses on the interface as /32s: the kernel answers ARP for them on the lab network, so
every container there reaches each emulated device, and the impairment (by port) covers them
all. Pure command builders here; `FleetAddresses` runs them.
"""

import json
import logging
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from .engines.runner import Command, CommandRunner

log = logging.getLogger("netem.fleet")

MAX_FLEET = 250  # the device's limit (emulator settings)


class FleetError(ValueError):
    pass


@dataclass(frozen=True)
class Fleet:
    size: int
    block: IPv4Network | None

    def addresses(self) -> list[IPv4Address]:
        """Device k (1..size) at the block's network address + k; none without a block."""
        if self.block is None:
            return []
        return [self.block.network_address + k for k in range(1, self.size + 1)]


SINGLE_DEVICE = Fleet(1, None)
"""No fleet block: the one device on the container's own address."""


def parse_fleet(size_text: str, block_text: str) -> Fleet:
    try:
        size = int(size_text or "1")
    except ValueError as exc:
        raise FleetError(f"DEVICE_FLEET_SIZE must be an integer, got {size_text!r}") from exc
    if not 1 <= size <= MAX_FLEET:
        raise FleetError(f"DEVICE_FLEET_SIZE must be 1..{MAX_FLEET}, got {size}")
    if not block_text.strip():
        if size > 1:
            raise FleetError("DEVICE_FLEET_SIZE > 1 needs DEVICE_FLEET_ADDRESSES (a CIDR block)")
        return SINGLE_DEVICE
    try:
        block = IPv4Network(block_text.strip(), strict=True)
    except ValueError as exc:
        raise FleetError(
            f"DEVICE_FLEET_ADDRESSES must be an IPv4 CIDR block such as 198.18.100.128/25, "
            f"got {block_text!r}: {exc}"
        ) from exc
    # The block's own network and broadcast addresses are not hosts.
    if size > block.num_addresses - 2:
        raise FleetError(
            f"DEVICE_FLEET_ADDRESSES {block} holds {block.num_addresses - 2} devices, "
            f"DEVICE_FLEET_SIZE is {size}"
        )
    return Fleet(size, block)


def show_command(interface: str) -> Command:
    return ["ip", "-json", "-4", "addr", "show", "dev", interface]


def add_command(interface: str, address: IPv4Address) -> Command:
    # `replace` is idempotent: a restarted sidecar finds the addresses already there.
    return ["ip", "addr", "replace", f"{address}/32", "dev", interface]


def delete_command(interface: str, address: IPv4Address) -> Command:
    return ["ip", "addr", "del", f"{address}/32", "dev", interface]


def parse_interfaces(show_json: str) -> list[IPv4Interface]:
    """Every IPv4 address on the interface with its prefix, from `ip -json addr show`."""
    return [
        IPv4Interface(f"{info['local']}/{info['prefixlen']}")
        for entry in json.loads(show_json or "[]")
        for info in entry.get("addr_info", [])
        if info.get("family") == "inet"
    ]


def plan(
    fleet: Fleet, present: list[IPv4Interface], interface: str
) -> tuple[list[Command], list[str]]:
    """Commands that make the interface carry exactly the fleet's addresses (stale /32s of the
    block, from a larger fleet before, are removed), and the problems that forbid it: a fleet
    address must be on the lab's subnet, or no other container could reach it, and must not be
    the container's own address."""
    wanted = fleet.addresses()
    lab = [iface for iface in present if iface.network.prefixlen < 32]
    problems = []
    if wanted and not any(all(a in iface.network for a in wanted) for iface in lab):
        subnets = ", ".join(str(iface.network) for iface in lab) or "none"
        problems.append(
            f"fleet addresses {wanted[0]}..{wanted[-1]} are not on {interface}'s subnet "
            f"({subnets}): no container on the lab network could reach them"
        )
    taken = sorted({iface.ip for iface in lab} & set(wanted))
    if taken:
        problems.append(
            f"fleet address {taken[0]} is the container's own address: keep the fleet block "
            "out of the network's ip_range"
        )
    if problems:
        return [], problems
    have = {iface.ip for iface in present if iface.network.prefixlen == 32}
    stale = sorted(
        a for a in have if fleet.block is not None and a in fleet.block and a not in wanted
    )
    commands = [add_command(interface, a) for a in wanted if a not in have]
    commands += [delete_command(interface, a) for a in stale]
    return commands, []


class FleetAddresses:
    """Puts the fleet's addresses on the interface and says which are missing."""

    def __init__(self, runner: CommandRunner, interface: str, fleet: Fleet):
        self.runner = runner
        self.interface = interface
        self.fleet = fleet

    def ensure(self) -> None:
        commands, problems = plan(self.fleet, self._present(), self.interface)
        if problems:
            raise FleetError("; ".join(problems))
        self.runner.run_all(commands)
        if self.fleet.block is not None:
            log.info(
                "fleet: %d device address(es) %s..%s on %s",
                self.fleet.size,
                self.fleet.addresses()[0],
                self.fleet.addresses()[-1],
                self.interface,
            )

    def missing(self) -> list[IPv4Address]:
        have = {iface.ip for iface in self._present()}
        return [a for a in self.fleet.addresses() if a not in have]

    def status(self) -> dict[str, object]:
        addresses = self.fleet.addresses()
        return {
            "size": self.fleet.size,
            "block": str(self.fleet.block) if self.fleet.block else None,
            "addresses": [str(a) for a in addresses],
            "missing": [str(a) for a in self.missing()],
        }

    def _present(self) -> list[IPv4Interface]:
        return parse_interfaces(self.runner.output(show_command(self.interface)))
