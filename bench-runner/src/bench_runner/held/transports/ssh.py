"""SSH held with asyncssh, the floor client: a password login as ssh/reuse-conn opens it
(setup: TCP, key exchange, authentication); one operation is an exec channel of
``show clock`` on the kept connection, as ssh/reuse-conn runs a command."""

import time

from bench_runner.held.transports import HELD_COMMAND
from bench_runner.held.transports.asyncssh_held import AsyncsshTransport, KeptConnection
from bench_runner.modes.base import Target
from bench_runner.modes.clients.asyncssh_exec import exec_command


class _Held(KeptConnection):
    async def operate(self) -> None:
        await exec_command(self._conn, HELD_COMMAND)


class SshTransport(AsyncsshTransport):
    operation = f"exec {HELD_COMMAND!r} in a new channel on the kept connection"

    def __init__(self, target: Target) -> None:
        super().__init__(target, target.ssh_port)

    async def open(self) -> _Held:
        started = time.perf_counter()
        conn = await self.login()
        return _Held(conn, time.perf_counter() - started)


def transport(target: Target) -> SshTransport:
    return SshTransport(target)
