"""NETCONF held with the floor client, asyncssh and the lab's hand framing (as
netconf/reuse-session): setup is the SSH login on the NETCONF port, the ``netconf``
subsystem and the hello exchange (chunked framing when offered); one operation is a
``<get>`` of the 1 KiB synthetic payload (the plan's default reply size), after the previous
reply."""

import time
from importlib.metadata import version as distribution_version

import asyncssh

from bench_runner.modes.base import Target
from bench_runner.modes.clients.asyncssh_connect import client_options
from bench_runner.modes.clients.asyncssh_netconf import NetconfChannel

REPLY_BYTES = 1024


class _Held:
    def __init__(
        self, conn: asyncssh.SSHClientConnection, channel: NetconfChannel, setup_s: float
    ) -> None:
        self._conn = conn
        self._channel = channel
        self.setup_s = setup_s

    async def operate(self) -> None:
        await self._channel.get_payloads(1, REPLY_BYTES, pipelined=False)

    async def close(self) -> None:
        self._channel.close()
        self._conn.close()
        await self._conn.wait_closed()


class NetconfTransport:
    client = "asyncssh"
    operation = f"<get> of a {REPLY_BYTES}-byte payload on the kept session"

    def __init__(self, target: Target) -> None:
        self._target = target
        self.port = target.netconf_port

    def version(self) -> str:
        return distribution_version("asyncssh")

    async def prepare(self, connections: int) -> None:
        return None

    async def open(self) -> _Held:
        started = time.perf_counter()
        conn = await asyncssh.connect(
            self._target.host, self.port, options=client_options(self._target)
        )
        try:
            channel = await NetconfChannel.open(conn, "1.1")
        except BaseException:
            conn.close()
            raise
        return _Held(conn, channel, time.perf_counter() - started)


def transport(target: Target) -> NetconfTransport:
    return NetconfTransport(target)
