"""What the transports held on an asyncssh connection share (SSH, and NETCONF over SSH): a
password login as ssh/reuse-conn opens one (TCP, key exchange, authentication) on the
transport's port, and the connection closed at the end."""

from importlib.metadata import version as distribution_version

import asyncssh

from bench_runner.modes.base import Target
from bench_runner.modes.clients.asyncssh_connect import client_options


class KeptConnection:
    def __init__(self, conn: asyncssh.SSHClientConnection, setup_s: float) -> None:
        self._conn = conn
        self.setup_s = setup_s

    async def close(self) -> None:
        self._conn.close()
        await self._conn.wait_closed()


class AsyncsshTransport:
    client = "asyncssh"

    def __init__(self, target: Target, port: int) -> None:
        self._target = target
        self.port = port

    def version(self) -> str:
        return distribution_version("asyncssh")

    async def prepare(self, connections: int) -> None:
        return None

    async def login(self) -> asyncssh.SSHClientConnection:
        return await asyncssh.connect(
            self._target.host, self.port, options=client_options(self._target)
        )
