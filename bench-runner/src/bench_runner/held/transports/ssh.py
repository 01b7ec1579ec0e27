"""SSH held with asyncssh, the floor client: a password login as ssh/reuse-conn opens it
(setup: TCP, key exchange, authentication); one operation is an exec channel of
``show clock`` on the kept connection, as ssh/reuse-conn runs a command."""

import time
from importlib.metadata import version as distribution_version

import asyncssh

from bench_runner.held.transports import HELD_COMMAND
from bench_runner.modes.base import Target
from bench_runner.modes.clients.asyncssh_connect import client_options
from bench_runner.modes.clients.asyncssh_exec import exec_command


class _Held:
    def __init__(self, conn: asyncssh.SSHClientConnection, setup_s: float) -> None:
        self._conn = conn
        self.setup_s = setup_s

    async def operate(self) -> None:
        await exec_command(self._conn, HELD_COMMAND)

    async def close(self) -> None:
        self._conn.close()
        await self._conn.wait_closed()


class SshTransport:
    client = "asyncssh"
    operation = f"exec {HELD_COMMAND!r} in a new channel on the kept connection"

    def __init__(self, target: Target) -> None:
        self._target = target
        self.port = target.ssh_port

    def version(self) -> str:
        return distribution_version("asyncssh")

    async def prepare(self, connections: int) -> None:
        return None

    async def open(self) -> _Held:
        started = time.perf_counter()
        conn = await asyncssh.connect(
            self._target.host, self.port, options=client_options(self._target)
        )
        return _Held(conn, time.perf_counter() - started)


def transport(target: Target) -> SshTransport:
    return SshTransport(target)
