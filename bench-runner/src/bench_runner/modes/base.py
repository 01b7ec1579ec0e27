"""What every mode's session and the runner share: the target, the session protocols, and
counts per iteration of n commands. Pure: no client library is imported here."""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable


class Transport(StrEnum):
    SSH = "ssh"
    HTTPS = "https"
    NETCONF = "netconf"
    TUNNEL = "tunnel"
    H3 = "h3"
    """HTTP/3 over QUIC: the HTTPS API on the device's UDP port."""
    GNMI = "gnmi"
    """gNMI: gRPC over HTTP/2 and TLS, OpenConfig paths, on the device's gNMI port."""
    RESTCONF = "restconf"
    """RESTCONF (RFC 8040) over the HTTPS port: the same store as NETCONF and gNMI."""
    JUMP = "jump"
    """SSH to the device through the jump host: a direct-tcpip channel on the jump host's SSH
    connection carries the device's (docs/relays.md)."""
    PROXY = "proxy"
    """HTTPS to the head-end, which runs the commands on the device over SSH."""
    PROXY_H3 = "proxy-h3"
    """HTTP/3 (QUIC) to the head-end's UDP port, which runs the commands over SSH."""


RELAYED = frozenset({Transport.JUMP, Transport.PROXY, Transport.PROXY_H3})
QUIC = frozenset({Transport.H3, Transport.PROXY_H3})
"""Transports over QUIC (UDP): their RTT probe, capture and loss model are QUIC's."""
"""Transports that reach the device through the remote site: across the WAN to the relay,
across the LAN from there."""


@dataclass(frozen=True)
class Relay:
    """The remote site's two ways in, each with credentials of its own (not the device's):
    the jump host's SSH, and the head-end's HTTPS API."""

    jump_host: str
    jump_port: int
    jump_username: str
    jump_password: str
    headend_host: str
    headend_https_port: int
    headend_username: str
    headend_password: str
    headend_h3_port: int = 443
    """UDP: HTTP/3 on the HTTPS port's number, as the head-end's Alt-Svc advertises it."""


@dataclass(frozen=True)
class Target:
    """The device under test and the credentials every mode logs in with."""

    host: str
    ssh_port: int
    https_port: int
    username: str
    password: str
    netconf_port: int = 830
    h3_port: int = 443
    """A UDP port: HTTP/3 (QUIC) shares the HTTPS port number, as Alt-Svc advertises it."""
    gnmi_port: int = 9339
    """TCP: gNMI's IANA-registered port."""
    gnmi_tls_verify: bool = False
    """Verify the device's certificate on gNMI channels (an inventory's choice; the lab's is
    self-signed and not verified, as the HTTPS clients do not verify it)."""
    relay: Relay | None = None
    """The jump host and head-end in front of the device; None: reached directly only."""

    def via(self) -> Relay:
        """The relay a relayed mode goes through; ValueError when the target has none."""
        if self.relay is None:
            raise ValueError(f"{self.host} has no jump host or head-end in front of it")
        return self.relay

    def headend(self) -> str:
        """The head-end in front of the device; ValueError when its site has none."""
        relay = self.via()
        if not relay.headend_host:
            raise ValueError(f"{self.host}: its site has a jump host but no head-end")
        return relay.headend_host

    def jump_login(self) -> "Target":
        """The jump host as a login target: its address, SSH port and credentials."""
        relay = self.via()
        return Target(
            host=relay.jump_host,
            ssh_port=relay.jump_port,
            https_port=0,
            username=relay.jump_username,
            password=relay.jump_password,
        )

    def host_for(self, transport: Transport) -> str:
        """Where a transport's connections go: the device, or the relay in front of it."""
        if transport is Transport.JUMP:
            return self.via().jump_host
        if transport in (Transport.PROXY, Transport.PROXY_H3):
            return self.headend()
        return self.host

    def port(self, transport: Transport) -> int:
        """The port a transport connects to (a tunnel rides on SSH; HTTP/3's is UDP; a relayed
        transport's is the relay's)."""
        if transport is Transport.JUMP:
            return self.via().jump_port
        if transport is Transport.PROXY:
            return self.via().headend_https_port
        if transport is Transport.PROXY_H3:
            return self.via().headend_h3_port
        ports = {
            Transport.SSH: self.ssh_port,
            Transport.HTTPS: self.https_port,
            Transport.NETCONF: self.netconf_port,
            Transport.TUNNEL: self.ssh_port,
            Transport.H3: self.h3_port,
            Transport.GNMI: self.gnmi_port,
            Transport.RESTCONF: self.https_port,
        }
        return ports[transport]


class Session(Protocol):
    """State a mode keeps across iterations (a kept connection, or just options)."""

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        """Run all commands once; return the outputs to validate (one per command or one
        combined output); raise IterationError on a transport-level failure."""
        ...


@dataclass(frozen=True)
class ReportedSpan:
    """An iteration's span on CLOCK_REALTIME and its duration, as a client that times its
    own iterations measured them (a program in another process: clients/scrapligo.py)."""

    started_ns: int
    ended_ns: int
    wall_ms: float


@dataclass(frozen=True)
class ClientRecovery:
    """One iteration's loss recovery as a QUIC client library counted it (the capture cannot:
    QUIC's packet numbers and acknowledgments are encrypted). The client's ack-eliciting
    packets sent and received (those whose loss must be repaired); its own packets it
    declared lost, of them its Initial ones (its first flight sent again); its probe
    timeouts; the losses it later found spurious; the server's packet numbers missing on
    arrival (a lost packet, or a number the server skipped on purpose), and the server's
    packets that arrived after a higher-numbered one (they had been counted missing)."""

    sent_ack_eliciting: int
    received_ack_eliciting: int
    lost: int
    initial_lost: int
    probe_timeouts: int
    spurious: int
    missing_in: int
    late_in: int


@runtime_checkable
class RecoveryReportingSession(Protocol):
    """A session whose client counts its own loss recovery (a QUIC library)."""

    def take_recovery(self) -> ClientRecovery | None:
        """The last iteration's counts, once; None when the client reported none."""
        ...


@runtime_checkable
class LanCountingSession(Protocol):
    """A relayed session that knows the LAN hop's round trips: the head-end says with every
    answer how many its SSH connection to the device took; through a jump host the client
    counts them on the device's session inside the channel (clients/jump_lan.py)."""

    def take_lan_round_trips(self) -> int | None:
        """The last iteration's count, once; None when the relay reported none."""
        ...


@runtime_checkable
class SelfTimedSession(Protocol):
    """A session whose client times each iteration itself; the runner records that span
    (its wire segment and time split still come from the runner's capture marks)."""

    def take_span(self) -> ReportedSpan | None:
        """The last iteration's span, once; None when the client reported none."""
        ...


@dataclass(frozen=True)
class StreamRate:
    """What one STREAM SAMPLE subscription delivered to the client in a fixed window
    (gnmi/stream's ``stream`` in results.json)."""

    updates_per_second: float
    updates: int
    window_s: float
    sample_interval_ms: float
    path: str


@runtime_checkable
class StreamRateSession(Protocol):
    """A session that measures a stream's update rate once its iterations are done; None
    until then (or when it measured none)."""

    stream: StreamRate | None


_TERM = re.compile(r"^(\d*)(n?)$")


@dataclass(frozen=True)
class PerIteration:
    """A count per iteration of n commands, ``per_command x n + fixed``: round trips,
    connections opened, commands per request.

    Written (``str``) and read (``parse``) as the catalog's evidence states it: ``4n``,
    ``6 + n``, ``2n + 17``, ``n``, ``2``, ``0``."""

    per_command: int = 0
    fixed: int = 0

    def at(self, n_commands: int) -> int:
        return self.per_command * n_commands + self.fixed

    def __str__(self) -> str:
        terms = []
        if self.per_command:
            terms.append("n" if self.per_command == 1 else f"{self.per_command}n")
        if self.fixed or not terms:
            terms.append(str(self.fixed))
        return " + ".join(terms)

    @classmethod
    def parse(cls, text: str) -> "PerIteration":
        """The count a text like ``2n + 17`` or ``n + 1`` writes; ValueError otherwise."""
        per_command = fixed = 0
        for term in text.split("+"):
            match = _TERM.match(term.strip())
            if match is None or not any(match.groups()):
                raise ValueError(f"not a count per iteration: {text!r}")
            digits, n = match.groups()
            if n:
                per_command += int(digits or 1)
            else:
                fixed += int(digits)
        return cls(per_command, fixed)


ONE_PER_COMMAND = PerIteration(per_command=1)
ONCE = PerIteration(fixed=1)
NONE = PerIteration()
