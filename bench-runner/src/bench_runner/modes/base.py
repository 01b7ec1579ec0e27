"""What every measured mode provides: identity, round-trip bounds and a session."""

from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from enum import StrEnum
from importlib.metadata import PackageNotFoundError, version
from typing import ClassVar, Protocol, runtime_checkable


class Transport(StrEnum):
    SSH = "ssh"
    HTTPS = "https"
    NETCONF = "netconf"
    TUNNEL = "tunnel"


@dataclass(frozen=True)
class Target:
    """The device under test and the credentials every mode logs in with."""

    host: str
    ssh_port: int
    https_port: int
    username: str
    password: str
    netconf_port: int = 830


class Session(Protocol):
    """State a mode keeps across iterations (a kept connection, or just options)."""

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        """Run all commands once; return the outputs to validate (one per command or one
        combined output); raise IterationError on a transport-level failure."""
        ...


@dataclass(frozen=True)
class ReportedSpan:
    """An iteration's span on CLOCK_REALTIME and its duration, as a client that times its
    own iterations measured them (a program in another process: modes/go_clients.py)."""

    started_ns: int
    ended_ns: int
    wall_ms: float


@runtime_checkable
class SelfTimedSession(Protocol):
    """A session whose client times each iteration itself; the runner records that span
    (its wire segment and time split still come from the runner's capture marks)."""

    def take_span(self) -> ReportedSpan | None:
        """The last iteration's span, once; None when the client reported none."""
        ...


@dataclass(frozen=True)
class RoundTripBound:
    """Round trips per iteration of n commands: ``per_command x n + fixed``."""

    per_command: int = 0
    fixed: int = 0

    def round_trips(self, n_commands: int) -> int:
        return self.per_command * n_commands + self.fixed


ONE_PER_COMMAND = RoundTripBound(per_command=1)
"""Every command one request and its reply on an already open session: both the floor and
what a client pays."""


class Mode(ABC):
    """One way of running CLI commands on the device.

    Each mode declares its round trips per iteration as data, and its docstring argues them:
    ``min_bound`` is a physical lower bound that any correct client of the mode must pay (so
    ``p50 >= min_round_trips x RTT`` always holds); ``expected_bound`` is what the
    implemented client typically pays, counted as documented in the README (added RTT
    divided into the added p50, or the exchanges counted on the wire).
    """

    name: ClassVar[str]
    transport: ClassVar[Transport]
    client: ClassVar[str]
    """Distribution name of the client library (its version is recorded)."""
    description: ClassVar[str]
    min_bound: ClassVar[RoundTripBound]
    expected_bound: ClassVar[RoundTripBound]
    floor: ClassVar[bool] = True
    """A floor client (minimal overhead: asyncssh, httpx, the ssl module); False for the
    libraries people use (paramiko, netmiko, scrapli, requests, OpenSSH)."""

    def client_version(self) -> str:
        """Version of the client library; ``unknown`` when it cannot be determined."""
        try:
            return version(self.client)
        except PackageNotFoundError:
            return "unknown"

    def port(self, target: Target) -> int:
        ports = {
            Transport.SSH: target.ssh_port,
            Transport.HTTPS: target.https_port,
            Transport.NETCONF: target.netconf_port,
            Transport.TUNNEL: target.ssh_port,
        }
        return ports[self.transport]

    def wire_ports(self, target: Target) -> tuple[int, ...]:
        """The target's TCP ports whose packets are this mode's (counted on the wire)."""
        return (self.port(target),)

    def wire_hosts(self, target: Target) -> tuple[str, ...]:
        """The hosts whose traffic is this mode's (counted on the wire): the target, or
        every device a fleet mode connects to. May block (a fleet mode asks the device
        for its fleet); the runner calls it in a worker thread."""
        return (target.host,)

    def min_round_trips(self, n_commands: int) -> int:
        return self.min_bound.round_trips(n_commands)

    def expected_round_trips(self, n_commands: int) -> int:
        return self.expected_bound.round_trips(n_commands)

    def parameters(self) -> dict[str, str | int] | None:
        """Settings that change what an iteration does beyond the commands (NETCONF
        framing and reply size); None for modes without any."""
        return None

    def transfer_bytes(self) -> int | None:
        """Payload bytes one iteration moves, for modes measuring throughput (the bulk
        downloads: ``tunnel/bulk``, ``https/bulk``; a plan's ``tunnel_bulk_iterations``
        applies to them); None for the others."""
        return None

    def label(self) -> str:
        """``mode client`` plus the parameters, e.g. ``netconf/get asyncssh framing=1.0``."""
        settings = " ".join(f"{key}={value}" for key, value in (self.parameters() or {}).items())
        return f"{self.name} {self.client}" + (f" {settings}" if settings else "")

    @abstractmethod
    def session(self, target: Target) -> AbstractAsyncContextManager[Session]:
        """Open what the mode keeps across iterations; opening it is not measured."""
