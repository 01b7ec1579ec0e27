"""``ssh/fleet-show-version``: one iteration is what one of "A Tale of Five Python SSH
Libraries" (Dinesh Dutt, 2020) figures times: ``repeats`` whole runs, one after another,
each connecting to every one of ``hosts`` devices, running the plan's commands (the
publication: ``show version``) on that one connection, and closing it. The publication's
"repeat count" repeated whole runs (``timeit`` repeats of the whole function), not commands
on a connection: every connection ran one command.

Each library runs the way the publication drove it: the asyncio libraries (asyncssh, and
scrapli over its asyncssh transport) take every host at once (``asyncio.gather`` of one task
per host); the blocking ones (ssh2-python, paramiko, netmiko) take them one after another,
"the simple way", in one worker thread. A row names the module of its library's
``fleet_host`` function.

The devices are the first ``hosts`` of the fleet the target belongs to (``GET /admin/fleet``
on the target, in index order; device 1 is the lab's ``device``); a fleet smaller than
``hosts`` fails the mode with that reason. Every output must hold the hostname of the device
it came from (``<hostname> uptime is``), so an answer from the wrong device is an error, not
a sample. The wire capture covers every one of the devices (``wire_hosts``); the RTT gate
probes the target, which stands for the fleet: one netem profile impairs the whole device
container."""

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import cache

from bench_runner.fleet import FleetError, fetch_fleet_at
from bench_runner.modes.base import Session, Target
from bench_runner.modes.mode import Mode
from bench_runner.modes.row import Plugin, plugin
from bench_runner.validation import IterationError, failure_summary, validate_output


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
            "docs/fleet.md)"
        )
    return tuple(
        FleetHost(name, dataclasses.replace(target, host=address))
        for name, address in devices[:count]
    )


def wire_hosts(mode: Mode, target: Target) -> tuple[str, ...]:
    return tuple(host.target.host for host in fleet_hosts(target, mode.fleet().hosts))


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


class _FleetSession:
    def __init__(self, mode: Mode, hosts: tuple[FleetHost, ...], run_host: Plugin) -> None:
        self._repeats = mode.fleet().repeats
        self._at_once = mode.row.hosts_at_once
        self._hosts = hosts
        self._run_host = run_host.load()

    def _check(self, host: FleetHost, commands: Sequence[str], outputs: list[str]) -> None:
        if len(outputs) != len(commands):
            raise IterationError(
                f"{host.name}: {len(outputs)} output(s) for {len(commands)} command(s)"
            )
        for command, output in zip(commands, outputs, strict=True):
            check_host_output(host, command, output)

    async def _run_at_once(self, commands: Sequence[str]) -> None:
        for _ in range(self._repeats):
            results = await asyncio.gather(
                *(self._run_host(host.target, commands) for host in self._hosts)
            )
            for host, outputs in zip(self._hosts, results, strict=True):
                self._check(host, commands, outputs)

    def _run_one_after_another(self, commands: Sequence[str]) -> None:
        for _ in range(self._repeats):
            for host in self._hosts:
                self._check(host, commands, self._run_host(host.target, commands))

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        """Every run over every host; each output checked (hostname included) as it
        arrives. One combined line for the runner's own check: the outputs are many."""
        if self._at_once:
            await self._run_at_once(commands)
        else:
            await asyncio.to_thread(self._run_one_after_another, commands)
        names = ", ".join(host.name for host in self._hosts)
        return [
            f"{len(commands)} command(s) x {len(self._hosts)} host(s) ({names}) x "
            f"{self._repeats} run(s), every output from its own device"
        ]


@asynccontextmanager
async def session(mode: Mode, target: Target, *, host: str) -> AsyncIterator[Session]:
    """``host``: the module of this package whose ``fleet_host(target, commands)`` runs one
    device (a coroutine function for the clients that take every host at once)."""
    hosts = await asyncio.to_thread(fleet_hosts, target, mode.fleet().hosts)
    yield _FleetSession(mode, hosts, plugin(f"{host}:fleet_host"))
