"""The LAN hop's round trips through a jump host (modes/clients/jump_lan.py): counted on the
device's session inside the jump host's channel by the head-end's rule, a read that follows
a write, plus the jump host's connect to the device per device login."""

import asyncio
from typing import Any

from bench_runner.modes.clients.jump_lan import CountingChannel, CountingTunnel, FlightCount


def test_a_round_trip_is_a_read_that_follows_a_write() -> None:
    count = FlightCount()
    count.read()  # the server's banner before anything was sent: no round trip
    count.wrote()
    count.wrote()  # one flight of two writes
    count.read()
    count.read()  # one answer in two reads
    count.wrote()
    count.read()
    assert count.take() == 2
    assert count.take() == 0  # taken: a new count


class _Channel:
    def __init__(self, answers: list[bytes]) -> None:
        self.sent: list[bytes] = []
        self._answers = answers

    def send(self, data: bytes) -> int:
        self.sent.append(data)
        return len(data)

    def recv(self, size: int) -> bytes:
        return self._answers.pop(0) if self._answers else b""

    def settimeout(self, timeout: float) -> None:
        self.timeout = timeout


def test_paramiko_s_socket_counts_its_exchanges_and_the_jump_host_s_connect() -> None:
    count = FlightCount()
    channel = CountingChannel(_Channel([b"SSH-2.0-OpenSSH_10.0\r\n", b"kex"]), count)  # type: ignore[arg-type]
    channel.settimeout(0.1)  # the rest of the channel's interface passes through
    channel.send(b"SSH-2.0-paramiko\r\n")
    assert channel.recv(100) == b"SSH-2.0-OpenSSH_10.0\r\n"
    channel.send(b"kexinit")
    assert channel.recv(100) == b"kex"
    assert channel.recv(100) == b""  # the channel closed: no receipt
    assert count.take() == 1 + 2


class _Jump:
    """asyncssh's connection as a tunnel: opens a channel, runs the session it makes."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    async def create_connection(self, factory: Any, host: str, port: int) -> tuple[Any, Any]:
        session = factory()
        jump = self

        class Channel:
            def write(self, data: bytes) -> None:
                jump.written.append(data)

            def get_extra_info(self, name: str) -> str:
                return f"extra {name}"

        channel = Channel()
        session.connection_made(channel)
        session.data_received(b"SSH-2.0-OpenSSH_10.0\r\n", None)
        return channel, session


class _DeviceConnection:
    def __init__(self) -> None:
        self.received: list[bytes] = []

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        transport.write(b"SSH-2.0-AsyncSSH\r\n")
        assert transport.get_extra_info("peername") == "extra peername"

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.received.append(data)


def test_asyncssh_s_tunnel_hands_back_the_device_connection_and_counts_it() -> None:
    jump, count = _Jump(), FlightCount()
    made: list[_DeviceConnection] = []

    def factory() -> _DeviceConnection:
        made.append(_DeviceConnection())
        return made[-1]

    tunnel = CountingTunnel(jump, count)  # type: ignore[arg-type]
    _, session = asyncio.run(tunnel.create_connection(factory, "lab-r2", 22))
    assert session is made[0]  # asyncssh goes on with its own connection, not a wrapper
    assert session.received == [b"SSH-2.0-OpenSSH_10.0\r\n"]
    assert jump.written == [b"SSH-2.0-AsyncSSH\r\n"]
    assert count.take() == 1 + 1  # the version exchange, and the jump host's connect
