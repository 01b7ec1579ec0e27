"""netmiko through the jump host (its ``sock`` argument, as its bastion examples do): per
iteration a login to the jump host with paramiko and ConnectHandler over a direct-tcpip channel
of it, the LAN hop's round trips counted on that channel (jump_lan.py); blocking, in a worker
thread."""

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.jump_lan import CountingChannel, FlightCount
from bench_runner.modes.clients.netmiko_ssh import run_commands
from bench_runner.modes.clients.paramiko_jump import device_channel, open_jump
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer


class _NetmikoSession:
    """Per iteration a login to the jump host (paramiko) and netmiko's ConnectHandler over a
    direct-tcpip channel of it (``sock``): PTY shell and session preparation, send_command per
    command, disconnect."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self.phases = PhaseTimer()
        self.lan = FlightCount()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        self.lan.take()
        jump = open_jump(self._target, self.phases)
        try:
            sock = CountingChannel(device_channel(jump, self._target), self.lan)
            return run_commands(self._target, commands, self.phases, sock=sock)
        finally:
            jump.close()

    def take_lan_round_trips(self) -> int | None:
        return self.lan.take()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


@asynccontextmanager
async def pty_fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    yield _NetmikoSession(target)
