"""paramiko through the jump host, as Netmiko's ``sock`` and paramiko's own examples do it: a
``direct-tcpip`` channel of the jump host's Transport carries a second Transport, the device's,
whose round trips on that channel are the LAN hop's (jump_lan.py). Blocking: each iteration
runs in a worker thread."""

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import paramiko

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.jump_lan import CountingChannel, FlightCount
from bench_runner.modes.clients.paramiko_ssh import (
    LIBRARY_TIMEOUT_S,
    paramiko_exec,
    paramiko_open,
)
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer

ORIGINATOR = ("127.0.0.1", 0)
"""The direct-tcpip originator paramiko's forward demo sends: nobody connects back to it."""


def open_jump(target: Target, phases: PhaseTimer) -> paramiko.Transport:
    """A login to the jump host, timed as jump_login."""
    with phases.measure("jump_login"):
        return paramiko_open(target.jump_login(), PhaseTimer())


def device_channel(jump: paramiko.Transport, target: Target) -> paramiko.Channel:
    """A direct-tcpip channel of ``jump`` to the device's SSH port (the jump host connects)."""
    return jump.open_channel(
        "direct-tcpip", (target.host, target.ssh_port), ORIGINATOR, timeout=LIBRARY_TIMEOUT_S
    )


def open_device(
    jump: paramiko.Transport, target: Target, lan: FlightCount, phases: PhaseTimer
) -> paramiko.Transport:
    """A login to the device over a new direct-tcpip channel of ``jump``, its round trips
    counted on ``lan``, timed as device_login (channel open, key exchange, password auth)."""
    with phases.measure("device_login"):
        channel = CountingChannel(device_channel(jump, target), lan)
        transport = paramiko.Transport(channel)  # type: ignore[arg-type]
        transport.banner_timeout = LIBRARY_TIMEOUT_S
        transport.auth_timeout = LIBRARY_TIMEOUT_S
        try:
            transport.start_client(timeout=LIBRARY_TIMEOUT_S)
            transport.auth_password(target.username, target.password)
        except BaseException:
            transport.close()
            raise
    return transport


class _JumpSession:
    """What is kept: nothing (``jump`` None: both logins per command), the jump host's
    connection, or both (``device`` set: exec channels only)."""

    def __init__(
        self,
        target: Target,
        jump: paramiko.Transport | None = None,
        device: paramiko.Transport | None = None,
        lan: FlightCount | None = None,
    ) -> None:
        self._target = target
        self._jump = jump
        self._device = device
        self.phases = PhaseTimer()
        self.lan = lan or FlightCount()

    def _one(self, command: str) -> str:
        if self._device is not None:
            return paramiko_exec(self._device, command, self.phases)
        jump = self._jump or open_jump(self._target, self.phases)
        try:
            device = open_device(jump, self._target, self.lan, self.phases)
            try:
                return paramiko_exec(device, command, self.phases)
            finally:
                device.close()
        finally:
            if jump is not self._jump:
                jump.close()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        self.lan.take()
        return [self._one(command) for command in commands]

    def take_lan_round_trips(self) -> int | None:
        return self.lan.take()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


@asynccontextmanager
async def fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per command a login to the jump host and through it to the device."""
    yield _JumpSession(target)


@asynccontextmanager
async def kept_jump(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """The jump host's Transport kept; per command a new device login through it."""
    jump = await asyncio.to_thread(open_jump, target, PhaseTimer())
    try:
        yield _JumpSession(target, jump)
    finally:
        jump.close()


@asynccontextmanager
async def kept(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Both Transports kept; per command a new exec channel on the device's."""
    jump = await asyncio.to_thread(open_jump, target, PhaseTimer())
    try:
        lan = FlightCount()
        device = await asyncio.to_thread(open_device, jump, target, lan, PhaseTimer())
        try:
            yield _JumpSession(target, jump, device, lan)
        finally:
            device.close()
    finally:
        jump.close()
