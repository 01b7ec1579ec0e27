"""NETCONF held with the floor client, asyncssh and the lab's hand framing (as
netconf/reuse-session): setup is the SSH login on the NETCONF port, the ``netconf``
subsystem and the hello exchange (chunked framing when offered); one operation is a
``<get>`` of the 1 KiB synthetic payload (the plan's default reply size), after the previous
reply."""

import time

import asyncssh

from bench_runner.held.transports.asyncssh_held import AsyncsshTransport, KeptConnection
from bench_runner.modes.base import Target
from bench_runner.modes.clients.asyncssh_netconf import NetconfChannel

REPLY_BYTES = 1024


class _Held(KeptConnection):
    def __init__(
        self, conn: asyncssh.SSHClientConnection, channel: NetconfChannel, setup_s: float
    ) -> None:
        super().__init__(conn, setup_s)
        self._channel = channel

    async def operate(self) -> None:
        await self._channel.get_payloads(1, REPLY_BYTES, pipelined=False)

    async def close(self) -> None:
        self._channel.close()
        await super().close()


class NetconfTransport(AsyncsshTransport):
    operation = f"<get> of a {REPLY_BYTES}-byte payload on the kept session"

    def __init__(self, target: Target) -> None:
        super().__init__(target, target.netconf_port)

    async def open(self) -> _Held:
        started = time.perf_counter()
        conn = await self.login()
        try:
            channel = await NetconfChannel.open(conn, "1.1")
        except BaseException:
            conn.close()
            raise
        return _Held(conn, channel, time.perf_counter() - started)


def transport(target: Target) -> NetconfTransport:
    return NetconfTransport(target)
