"""The LAN hop's round trips through a jump host, counted on the device's session inside the
jump host's channel: the jump host relays that session byte for byte, so each of its round
trips crosses the LAN once. Counted by the head-end's rule (headend/internal/roundtrips): a
read that follows a write. The jump host's own TCP connect to the device, before it confirms
the channel, is one more LAN round trip per device login (``connected``).

The wrappers stand where the device's SSH library reads and writes its transport: asyncssh's
tunnel (``CountingTunnel``, for ``tunnel=``) and paramiko's socket (``CountingChannel``, for
``paramiko.Transport`` and netmiko's ``sock``). The OpenSSH client's channel is its own
process's (``ssh -W``): not counted.
"""

import threading
from collections.abc import Callable
from typing import Any, cast

import asyncssh
import paramiko


class FlightCount:
    """Round trips of one stream since the last ``take``; safe across threads (paramiko
    reads in its own)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wrote = False
        self._round_trips = 0

    def wrote(self) -> None:
        with self._lock:
            self._wrote = True

    def read(self) -> None:
        with self._lock:
            if self._wrote:
                self._round_trips += 1
                self._wrote = False

    def connected(self) -> None:
        """The jump host's TCP connect to the device: one round trip on the LAN."""
        with self._lock:
            self._round_trips += 1

    def take(self) -> int:
        with self._lock:
            counted, self._round_trips, self._wrote = self._round_trips, 0, False
            return counted


class CountingChannel:
    """A paramiko channel as the device's Transport's socket, its sends and receipts noted."""

    def __init__(self, channel: paramiko.Channel, count: FlightCount) -> None:
        self._channel = channel
        self._count = count
        count.connected()

    def send(self, data: bytes) -> int:
        self._count.wrote()
        return self._channel.send(data)

    def sendall(self, data: bytes) -> None:
        self._count.wrote()
        self._channel.sendall(data)

    def recv(self, size: int) -> bytes:
        data = self._channel.recv(size)
        if data:
            self._count.read()
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._channel, name)


class _CountingTransport:
    """asyncssh's direct-tcpip channel as the device connection's transport, writes noted."""

    def __init__(self, channel: Any, count: FlightCount) -> None:
        self._channel = channel
        self._count = count

    def write(self, data: bytes) -> None:
        self._count.wrote()
        self._channel.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._channel, name)


class _CountingSession:
    """The device connection as the channel's session, receipts noted."""

    def __init__(self, session: Any, count: FlightCount) -> None:
        self._session = session
        self._count = count

    def connection_made(self, channel: Any) -> None:
        self._session.connection_made(_CountingTransport(channel, self._count))

    def data_received(self, data: bytes, datatype: Any) -> None:
        self._count.read()
        self._session.data_received(data, datatype)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class CountingTunnel:
    """``tunnel=`` for ``asyncssh.connect``: the jump host's connection opening the device's
    channel, the device connection's reads and writes on it counted."""

    def __init__(self, jump: asyncssh.SSHClientConnection, count: FlightCount) -> None:
        self._jump = jump
        self._count = count

    async def create_connection(
        self, session_factory: Callable[[], Any], remote_host: str, remote_port: int
    ) -> tuple[Any, Any]:
        made: list[Any] = []

        def counted() -> _CountingSession:
            made.append(session_factory())
            return _CountingSession(made[0], self._count)

        # The wrapper stands for the session asyncssh's annotation names: it forwards to one.
        channel, _ = await self._jump.create_connection(
            cast(Any, counted), remote_host, remote_port
        )
        self._count.connected()
        # asyncssh goes on with the session it made (the device connection), not the wrapper.
        return channel, made[0]
