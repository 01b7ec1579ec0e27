"""``ssh/fleet-show-version``: the same command on several devices of the lab's fleet, as
"A Tale of Five Python SSH Libraries" (Dinesh Dutt, 2020; README "Published benchmarks,
reproduced") timed it with asyncssh, scrapli, ssh2-python, paramiko and netmiko.

One iteration is what one of the publication's figures times: ``repeats`` whole runs, one
after another, each connecting to every one of ``hosts`` devices, running the plan's
commands (the publication: ``show version``) on that one connection, and closing it. The
publication's "repeat count" repeated whole runs (``timeit`` repeats of the whole
function), not commands on a connection: every connection ran one command.

Each library runs the way the publication drove it. The asyncio libraries (asyncssh, and
scrapli over its asyncssh transport) take every host at once (``asyncio.gather`` of one
task per host); the blocking ones (ssh2-python, paramiko, netmiko) take them one after
another, "the simple way", in one worker thread.

The devices are the first ``hosts`` of the fleet the target belongs to (``GET
/admin/fleet`` on the target, in index order; device 1 is the lab's ``device``); a fleet
smaller than ``hosts`` fails the mode with that reason. Every output must hold the
hostname of the device it came from (``<hostname> uptime is``), so an answer from the
wrong device is an error, not a sample. The wire capture covers every one of the devices
(``wire_hosts``); the RTT gate probes the target, which stands for the fleet: one netem
profile impairs the whole device container.

Round trips per iteration: the per-host bound (one connection with ``n`` commands, the
client's own fresh-connection count) times ``hosts x repeats`` for the sequential clients;
for the concurrent ones the hosts' connections overlap, so the time on the path is one
host's round trips per run, ``per-host x repeats`` (the capture, which sees every host's
packets interleaved, counts more direction changes than that at low RTT).
"""

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import cache
from typing import ClassVar

import asyncssh

from bench_runner.modes.base import Mode, RoundTripBound, Session, Target, Transport
from bench_runner.modes.ssh_exec import exec_command
from bench_runner.modes.ssh_libraries import (
    LIBRARY_TIMEOUT_S,
    _NetmikoSession,
    _ScrapliSession,
    paramiko_connect,
    scrapli_transport_version,
)
from bench_runner.modes.ssh_native import Ssh2Connection, ssh2_version
from bench_runner.modes.ssh_options import client_options
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError, failure_summary, validate_output

FLEET_MODE = "ssh/fleet-show-version"


@dataclasses.dataclass(frozen=True)
class FleetHost:
    """One device of the fleet: its name (the hostname its output carries) and the
    target it is reached as (the run's target with the device's address)."""

    name: str
    target: Target


@cache
def _fleet_of(target: Target) -> tuple[tuple[str, str], ...]:
    """``(name, address)`` of every device of the target's fleet, in index order; asked
    once per run's process (the fleet does not change while the device runs)."""
    # Imported here: bench_runner.fleet imports the modes package (its TLS context).
    from bench_runner.fleet import FleetError, fetch_fleet_at

    try:
        listing = fetch_fleet_at(target.host, target.https_port, target.username, target.password)
    except FleetError as exc:
        raise IterationError(f"fleet: {exc}") from exc
    return tuple(
        (device.name, device.address)
        for device in sorted(listing.devices, key=lambda device: device.index)
    )


def fleet_hosts(target: Target, count: int) -> tuple[FleetHost, ...]:
    """The first ``count`` devices of the target's fleet; IterationError when the fleet
    is smaller (``DEVICE_FLEET_SIZE``) or cannot be listed."""
    devices = _fleet_of(target)
    if len(devices) < count:
        raise IterationError(
            f"hosts={count} needs a fleet of at least {count} devices; the device at "
            f"{target.host} presents {len(devices)} (set DEVICE_FLEET_SIZE={count} or more, "
            "README Many devices)"
        )
    return tuple(
        FleetHost(name, dataclasses.replace(target, host=address))
        for name, address in devices[:count]
    )


def check_host_output(host: FleetHost, command: str, output: str) -> str:
    """``output`` when it is a valid answer from ``host`` (validation.py, and for ``show
    version`` the device's own hostname); IterationError otherwise."""
    label = f"{host.name} ({host.target.host}): {command}"
    validate_output(label, output)
    if command.split()[:2] == ["show", "version"] and f"{host.name} uptime is" not in output:
        raise IterationError(
            f"{label}: not this device's answer: no '{host.name} uptime is' in "
            f"{failure_summary(output)!r}"
        )
    return output


# --- one host, each client ------------------------------------------------------------------


async def _asyncssh_host(host: FleetHost, commands: Sequence[str]) -> list[str]:
    """asyncssh as the publication wrote it: connect, ``run`` (an exec channel) per
    command, close."""
    target = host.target
    async with asyncssh.connect(
        target.host, target.ssh_port, options=client_options(target)
    ) as conn:
        return [await exec_command(conn, command) for command in commands]


async def _scrapli_host(host: FleetHost, commands: Sequence[str]) -> list[str]:
    """scrapli's asyncio driver over its asyncssh transport: open (PTY shell, privilege
    and terminal setup), ``send_command`` per command, close."""
    return await _ScrapliSession(host.target).run_iteration(commands)


def _ssh2_host(host: FleetHost, commands: Sequence[str]) -> list[str]:
    """ssh2-python as in its examples (the publication's code): socket, ``handshake``,
    ``userauth_password``, a session channel per command with exec and output to EOF,
    disconnect. The socket has TCP_NODELAY (ssh_native.py)."""
    phases = PhaseTimer()
    connection = Ssh2Connection(host.target, phases)
    try:
        return [connection.exec(command, phases) for command in commands]
    finally:
        connection.close()


def _paramiko_host(host: FleetHost, commands: Sequence[str]) -> list[str]:
    """paramiko's SSHClient: connect, ``exec_command`` per command, read to EOF, close."""
    client = paramiko_connect(host.target)
    try:
        outputs = []
        for command in commands:
            _, stdout, _ = client.exec_command(command, timeout=LIBRARY_TIMEOUT_S)
            output = stdout.read().decode("utf-8", errors="replace")
            status = stdout.channel.recv_exit_status()
            if status != 0:
                raise IterationError(f"{command}: exit status {status}: {failure_summary(output)}")
            outputs.append(output)
        return outputs
    finally:
        client.close()


def _netmiko_host(host: FleetHost, commands: Sequence[str]) -> list[str]:
    """netmiko's ConnectHandler (cisco_ios), ``send_command`` per command, disconnect."""
    return _NetmikoSession(host.target).run_sync(commands)


# --- the mode -------------------------------------------------------------------------------


class _FleetSession:
    def __init__(self, mode: "FleetShowVersion", hosts: tuple[FleetHost, ...]) -> None:
        self._mode = mode
        self._hosts = hosts

    def _check(self, host: FleetHost, commands: Sequence[str], outputs: list[str]) -> None:
        if len(outputs) != len(commands):
            raise IterationError(
                f"{host.name}: {len(outputs)} output(s) for {len(commands)} command(s)"
            )
        for command, output in zip(commands, outputs, strict=True):
            check_host_output(host, command, output)

    async def _run_concurrent(self, commands: Sequence[str]) -> None:
        for _ in range(self._mode.repeats):
            results = await asyncio.gather(
                *(self._mode.run_host_async(host, commands) for host in self._hosts)
            )
            for host, outputs in zip(self._hosts, results, strict=True):
                self._check(host, commands, outputs)

    def _run_sequential(self, commands: Sequence[str]) -> None:
        for _ in range(self._mode.repeats):
            for host in self._hosts:
                self._check(host, commands, self._mode.run_host(host, commands))

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        """Every run over every host; each output checked (hostname included) as it
        arrives. One combined line for the runner's own check: the outputs are many."""
        if self._mode.concurrent:
            await self._run_concurrent(commands)
        else:
            await asyncio.to_thread(self._run_sequential, commands)
        names = ", ".join(host.name for host in self._hosts)
        return [
            f"{len(commands)} command(s) x {len(self._hosts)} host(s) ({names}) x "
            f"{self._mode.repeats} run(s), every output from its own device"
        ]


class FleetShowVersion(Mode):
    """asyncssh on ``hosts`` devices at once (``asyncio.gather``), ``repeats`` runs per
    iteration; per host: connect, an exec channel per command, close.

    Lower bound per host and run, ``2 + 2n`` round trips (n commands on one connection):
    TCP, key exchange, password auth with the first channel open pipelined behind it, and
    per command an exec answered (a later command's channel open is one more). Expected
    with asyncssh: ``8 + 2n``, its fresh-connection count (10 for one command, README)
    with the connection's setup paid once. The hosts overlap, so an iteration's path is
    one host's count per run: bound x repeats (module docstring)."""

    name = FLEET_MODE
    transport = Transport.SSH
    client = "asyncssh"
    concurrent: ClassVar[bool] = True
    description = (
        "asyncssh; per iteration `repeats` runs, each connecting to `hosts` fleet devices "
        "at once (asyncio.gather): connect, exec per command, close"
    )
    min_bound = RoundTripBound(per_command=2, fixed=2)
    expected_bound = RoundTripBound(per_command=2, fixed=8)

    def __init__(self, hosts: int = 1, repeats: int = 1) -> None:
        if hosts < 1 or repeats < 1:
            raise ValueError("hosts and repeats are at least 1")
        self.hosts = hosts
        self.repeats = repeats

    def with_parameters(self, hosts: int, repeats: int) -> "FleetShowVersion":
        return type(self)(hosts, repeats)

    def parameters(self) -> dict[str, str | int]:
        return {"hosts": self.hosts, "repeats": self.repeats}

    def path_factor(self) -> int:
        """How many per-host bounds one iteration's path holds: every host of every run
        one after another, or (concurrent) one host per run."""
        return self.repeats * (1 if self.concurrent else self.hosts)

    def min_round_trips(self, n_commands: int) -> int:
        return self.min_bound.round_trips(n_commands) * self.path_factor()

    def expected_round_trips(self, n_commands: int) -> int:
        return self.expected_bound.round_trips(n_commands) * self.path_factor()

    def wire_hosts(self, target: Target) -> tuple[str, ...]:
        return tuple(host.target.host for host in fleet_hosts(target, self.hosts))

    async def run_host_async(self, host: FleetHost, commands: Sequence[str]) -> list[str]:
        return await _asyncssh_host(host, commands)

    def run_host(self, host: FleetHost, commands: Sequence[str]) -> list[str]:
        raise NotImplementedError(f"{self.client} runs its hosts concurrently")

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        hosts = await asyncio.to_thread(fleet_hosts, target, self.hosts)
        yield _FleetSession(self, hosts)


class ScrapliFleetShowVersion(FleetShowVersion):
    """scrapli AsyncIOSXEDriver over its asyncssh transport, every host at once as the
    publication ran its asyncio driver (``asyncio.gather``). Lower bound: the mode's (an
    exec client could pay it; a PTY session pays more). Expected round trips per host and
    run ``20 + n``, scrapli's ssh/pty-fresh count (README); x repeats, the hosts
    overlapping."""

    client = "scrapli"
    floor = False
    description = (
        "scrapli AsyncIOSXEDriver (asyncssh transport); per iteration `repeats` runs over "
        "`hosts` fleet devices at once: open, send_command per command, close"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=20)

    def client_version(self) -> str:
        return scrapli_transport_version("scrapli", "asyncssh")

    async def run_host_async(self, host: FleetHost, commands: Sequence[str]) -> list[str]:
        return await _scrapli_host(host, commands)


class _SequentialFleet(FleetShowVersion):
    concurrent = False
    floor = False


class Ssh2FleetShowVersion(_SequentialFleet):
    """ssh2-python (libssh2), blocking, one host after another. Lower bound per host and
    run ``2 + 2n`` round trips, the mode's. Expected ``7 + 2n``: its fresh-connection
    count (9 for one command, counted on the wire, README), the setup paid once; x hosts x
    repeats."""

    client = "ssh2-python"
    description = (
        "ssh2-python (libssh2); per iteration `repeats` runs over `hosts` fleet devices one "
        "after another: connect, exec per command, close"
    )
    expected_bound = RoundTripBound(per_command=2, fixed=7)

    def client_version(self) -> str:
        return ssh2_version()

    def run_host(self, host: FleetHost, commands: Sequence[str]) -> list[str]:
        return _ssh2_host(host, commands)


class ParamikoFleetShowVersion(_SequentialFleet):
    """paramiko SSHClient, one host after another. Lower bound per host and run ``2 +
    2n`` round trips, the mode's. Expected ``9 + 3n``: its fresh-connection count (12 for
    one command, README), the setup paid once, 3 per command as on its kept connection;
    x hosts x repeats."""

    client = "paramiko"
    description = (
        "paramiko SSHClient; per iteration `repeats` runs over `hosts` fleet devices one "
        "after another: connect, exec_command per command, close"
    )
    expected_bound = RoundTripBound(per_command=3, fixed=9)

    def run_host(self, host: FleetHost, commands: Sequence[str]) -> list[str]:
        return _paramiko_host(host, commands)


class NetmikoFleetShowVersion(_SequentialFleet):
    """netmiko ConnectHandler (cisco_ios), one host after another. Lower bound: the mode's
    (a PTY session pays more). Expected round trips per host and run ``20 + n``, its
    ssh/pty-fresh count (README); x hosts x repeats."""

    client = "netmiko"
    description = (
        "netmiko cisco_ios; per iteration `repeats` runs over `hosts` fleet devices one "
        "after another: ConnectHandler, send_command per command, disconnect"
    )
    expected_bound = RoundTripBound(per_command=1, fixed=20)

    def run_host(self, host: FleetHost, commands: Sequence[str]) -> list[str]:
        return _netmiko_host(host, commands)


FLEET_MODES: tuple[FleetShowVersion, ...] = (
    FleetShowVersion(),
    ScrapliFleetShowVersion(),
    Ssh2FleetShowVersion(),
    ParamikoFleetShowVersion(),
    NetmikoFleetShowVersion(),
)
"""The fleet mode with each of the publication's five clients (asyncssh first: the floor)."""


def sweep_fleet(modes: Sequence[Mode], hosts: Sequence[int], repeats: Sequence[int]) -> list[Mode]:
    """Each fleet measurement once per host count x repeats (in that order, where it was
    selected); other modes as they are."""
    swept: list[Mode] = []
    for mode in modes:
        if isinstance(mode, FleetShowVersion):
            swept.extend(mode.with_parameters(h, r) for h in hosts for r in repeats)
        else:
            swept.append(mode)
    return swept
