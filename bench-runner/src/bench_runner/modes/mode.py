"""A measurement: one catalog row with its parameter values (a NETCONF framing and reply
size, a download size, a fleet's devices and runs, a RESTCONF encoding)."""

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from importlib.metadata import PackageNotFoundError, version

from bench_runner.modes.base import RELAYED, PerIteration, Session, Target, Transport
from bench_runner.modes.row import (
    BulkValues,
    FleetValues,
    NetconfValues,
    Parameters,
    RestconfEncoding,
    RestconfValues,
    Row,
    Values,
)
from bench_runner.payloads import BULK_BYTES, BulkSize
from bench_runner.protocols.netconf.messages import Framing

_DEFAULTS: dict[Parameters, Values] = {
    Parameters.NETCONF: NetconfValues(),
    Parameters.NETCONF_FRAMING: NetconfValues(),
    Parameters.BULK: BulkValues(),
    Parameters.FLEET: FleetValues(),
    Parameters.RESTCONF_ENCODING: RestconfValues(),
}


def _client_version(row: Row) -> str:
    if row.version is not None:
        return str(row.version())
    try:
        return version(row.client)
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Mode:
    """One way of running CLI commands on the device, with one client."""

    row: Row
    values: Values | None = None

    @classmethod
    def of(cls, row: Row) -> "Mode":
        """The row with its parameters' default values."""
        kind = row.mode.parameters
        return cls(row, _DEFAULTS[kind] if kind is not None else None)

    # --- identity -------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.row.mode.name

    @property
    def client(self) -> str:
        return self.row.client

    @property
    def transport(self) -> Transport:
        return self.row.mode.transport

    @property
    def description(self) -> str:
        return self.row.description

    @property
    def floor(self) -> bool:
        return self.row.floor

    def client_version(self) -> str:
        """Version of the client library; ``unknown`` when it cannot be determined."""
        return _client_version(self.row)

    def parameters(self) -> dict[str, str | int] | None:
        """Settings that change what an iteration does beyond the commands; None for
        modes without any."""
        values = self.values
        if isinstance(values, NetconfValues):
            if self.row.mode.parameters is Parameters.NETCONF_FRAMING:
                return {"framing": values.framing}
            return {"framing": values.framing, "reply_bytes": values.reply_bytes}
        if isinstance(values, BulkValues):
            return {"bulk_size": values.size}
        if isinstance(values, FleetValues):
            return {"hosts": values.hosts, "repeats": values.repeats}
        if isinstance(values, RestconfValues):
            return {"encoding": values.encoding}
        return None

    def label(self) -> str:
        """``mode client`` plus the parameters, e.g. ``netconf/get asyncssh framing=1.0``."""
        settings = " ".join(f"{key}={value}" for key, value in (self.parameters() or {}).items())
        return f"{self.name} {self.client}" + (f" {settings}" if settings else "")

    # --- parameter values -----------------------------------------------------------------

    def netconf(self) -> NetconfValues:
        assert isinstance(self.values, NetconfValues), f"{self.label()} is not a NETCONF mode"
        return self.values

    def bulk_size(self) -> BulkSize:
        assert isinstance(self.values, BulkValues), f"{self.label()} is not a download"
        return self.values.size

    def fleet(self) -> FleetValues:
        assert isinstance(self.values, FleetValues), f"{self.label()} is not a fleet mode"
        return self.values

    def restconf_encoding(self) -> RestconfEncoding:
        assert isinstance(self.values, RestconfValues), f"{self.label()} has no encoding"
        return self.values.encoding

    def with_netconf(self, framing: Framing, reply_bytes: int) -> "Mode":
        return replace(self, values=NetconfValues(framing, reply_bytes))

    def with_bulk_size(self, size: BulkSize) -> "Mode":
        return replace(self, values=BulkValues(size))

    def with_fleet(self, hosts: int, repeats: int) -> "Mode":
        return replace(self, values=FleetValues(hosts, repeats))

    def with_restconf_encoding(self, encoding: RestconfEncoding) -> "Mode":
        return replace(self, values=RestconfValues(encoding))

    def transfer_bytes(self) -> int | None:
        """Payload bytes one iteration moves, for modes measuring throughput (the bulk
        downloads; a plan's ``tunnel_bulk_iterations`` applies to them); None otherwise."""
        return BULK_BYTES[self.values.size] if isinstance(self.values, BulkValues) else None

    # --- counts per iteration -------------------------------------------------------------

    def _path_factor(self) -> int:
        """How many per-host counts one iteration's path holds: a fleet mode runs every
        host of every run one after another, or (hosts at once) one host per run."""
        if not isinstance(self.values, FleetValues):
            return 1
        return self.values.repeats * (1 if self.row.hosts_at_once else self.values.hosts)

    @property
    def min_bound(self) -> PerIteration:
        return self.row.mode.lower_bound

    @property
    def expected_bound(self) -> PerIteration:
        return self.row.expected

    def min_round_trips(self, n_commands: int) -> int:
        """A physical lower bound: ``p50 >= min_round_trips x RTT`` for any correct client."""
        return self.min_bound.at(n_commands) * self._path_factor()

    def expected_round_trips(self, n_commands: int) -> int:
        """What this client typically pays, as its row's evidence argues."""
        return self.expected_bound.at(n_commands) * self._path_factor()

    def connections_per_iteration(self, n_commands: int) -> int:
        per_host = self.row.mode.connections.at(n_commands)
        if isinstance(self.values, FleetValues):
            return per_host * self.values.hosts * self.values.repeats
        return per_host

    def commands_per_request(self, n_commands: int) -> int | None:
        shape = self.row.mode.commands_per_request
        return None if shape is None else shape.at(n_commands)

    # --- on the network -------------------------------------------------------------------

    @property
    def relayed(self) -> bool:
        """Through the remote site's jump host or head-end: its WAN is the relay's link."""
        return self.transport in RELAYED

    def host(self, target: Target) -> str:
        """Where the mode's connections go: the device, or the relay in front of it."""
        return target.host_for(self.transport)

    def port(self, target: Target) -> int:
        return target.port(self.transport)

    def wire_ports(self, target: Target) -> tuple[int, ...]:
        """The target's TCP ports whose packets are this mode's (counted on the wire)."""
        return (self.port(target),)

    def wire_hosts(self, target: Target) -> tuple[str, ...]:
        """The hosts whose traffic is this mode's: the target, or every device a fleet mode
        connects to. May block (a fleet mode asks the device for its fleet)."""
        if self.row.wire_hosts is None:
            return (self.host(target),)
        hosts: tuple[str, ...] = self.row.wire_hosts(self, target)
        return hosts

    def session(self, target: Target) -> AbstractAsyncContextManager[Session]:
        """Open what the mode keeps across iterations; opening it is not measured. The
        client library is imported here, the first time a mode of it runs."""
        session: AbstractAsyncContextManager[Session] = self.row.session(self, target)
        return session
