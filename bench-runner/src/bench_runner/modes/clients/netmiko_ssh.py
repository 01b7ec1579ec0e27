"""netmiko (device_type cisco_ios, default settings): per iteration ConnectHandler (the
connection, a PTY shell and netmiko's session preparation), send_command per command,
disconnect; blocking, in a worker thread."""

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from netmiko import ConnectHandler

from bench_runner.modes.base import Session, Target
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer

LIBRARY_TIMEOUT_S = 60.0


def run_commands(
    target: Target, commands: Sequence[str], phases: PhaseTimer, sock: Any = None
) -> list[str]:
    """ConnectHandler (cisco_ios, password only, nothing from the user's SSH setup; over
    ``sock``, a channel, when given), send_command per command, disconnect; timed as connect,
    commands and close."""
    with phases.measure("connect"):
        connection = ConnectHandler(
            device_type="cisco_ios",
            host=target.host,
            port=target.ssh_port,
            username=target.username,
            password=target.password,
            use_keys=False,
            allow_agent=False,
            ssh_config_file=None,
            conn_timeout=LIBRARY_TIMEOUT_S,
            auth_timeout=LIBRARY_TIMEOUT_S,
            sock=sock,
        )
    try:
        with phases.measure("commands"):
            return [
                str(connection.send_command(command, read_timeout=LIBRARY_TIMEOUT_S))
                for command in commands
            ]
    finally:
        with phases.measure("close"):
            connection.disconnect()


class NetmikoSession:
    """Phases: connect (ConnectHandler: connection, shell, session preparation), commands,
    close (disconnect); netmiko exposes nothing finer."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self.phases = PhaseTimer()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        return run_commands(self._target, commands, self.phases)

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


@asynccontextmanager
async def pty_fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    yield NetmikoSession(target)


def fleet_host(target: Target, commands: Sequence[str]) -> list[str]:
    """One fleet device: ConnectHandler (cisco_ios), ``send_command`` per command,
    disconnect."""
    return NetmikoSession(target).run_sync(commands)
