"""scrapli's IOS-XE driver over its SSH transport plugins: asyncssh (``AsyncIOSXEDriver``,
the client named ``scrapli``), and system (the OpenSSH binary in a PTY), paramiko and ssh2
(``IOSXEDriver`` in a worker thread; ``scrapli-<transport>``). Per iteration open (the
connection, a PTY shell, privilege check, terminal length 0 and width), send_command per
command, close."""

import asyncio
import socket
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from importlib.metadata import version as installed
from typing import Any

import paramiko
from scrapli.driver.core import AsyncIOSXEDriver, IOSXEDriver
from scrapli.transport.base.base_socket import Socket as ScrapliSocket

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients import openssh
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer

LIBRARY_TIMEOUT_S = 60.0
TRANSPORT_LIBRARIES = {
    "asyncssh": "asyncssh",
    "system": "openssh",
    "paramiko": "paramiko",
    "ssh2": "ssh2-python",
}
"""scrapli's SSH transport plugins and the library (or program) each one drives."""


def version(distribution: str, transport: str) -> str:
    """``scrapli 2026.2.20, transport ssh2: ssh2-python 1.2.0.post1``."""
    library = TRANSPORT_LIBRARIES[transport]
    underneath = openssh.version() if library == "openssh" else f"{library} {installed(library)}"
    return f"{distribution} {installed(distribution)}, transport {transport}: {underneath}"


class _TransportFirstSocket(ScrapliSocket):
    """scrapli's socket for its paramiko and ssh2 transports, closing paramiko's Transport
    before the socket. scrapli's paramiko transport closes its channel, then this socket,
    and never the ``paramiko.Transport`` (``session``) reading it: that thread's next read
    then fails on the closed descriptor and paramiko logs ``Socket exception: Bad file
    descriptor (9)``, once per connection. ``Transport.close`` marks its packetizer closed
    before closing the same socket, so the thread ends on an end of file, as after
    ``SSHClient.close``: the same packets, in the order paramiko expects. The ssh2
    transport's ``session`` is libssh2's, which has no thread: closed as it was."""

    def __init__(self, owner: Any, host: str, port: int, timeout: float) -> None:
        super().__init__(host=host, port=port, timeout=timeout)
        self._owner = owner

    def close(self) -> None:
        session = getattr(self._owner, "session", None)
        if isinstance(session, paramiko.Transport):
            session.close()
        super().close()


def nodelay_socket(transport: Any, host: str, port: int, timeout: float) -> None:
    """Give scrapli's paramiko or ssh2 transport a connected socket with TCP_NODELAY: both
    open their own ``scrapli.transport.base.base_socket.Socket`` only when they have none
    (``if not self.socket``), and neither sets the option (each SSH message would wait for
    the device's delayed ACK). The asyncssh transport needs nothing (asyncio sets
    TCP_NODELAY on every TCP transport) and the system transport cannot be given one
    (``ssh`` makes its own socket, and sets TCP_NODELAY itself for a session with a PTY).
    The socket closes paramiko's Transport before itself (``_TransportFirstSocket``)."""
    sock = _TransportFirstSocket(transport, host=host, port=port, timeout=timeout)
    sock.open()
    assert sock.sock is not None  # open() connected it or raised
    sock.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    transport.socket = sock


def _options(target: Target, transport: str, ssh_config_file: str | bool = False) -> dict[str, Any]:
    """``ssh_config_file``: False for none (``-F /dev/null`` for the system transport), or
    the path of one (the way through a jump host: scrapli_jump.py)."""
    return {
        "host": target.host,
        "port": target.ssh_port,
        "auth_username": target.username,
        "auth_password": target.password,
        "auth_strict_key": False,
        "ssh_config_file": ssh_config_file,
        "transport": transport,
        "timeout_socket": LIBRARY_TIMEOUT_S,
        "timeout_transport": LIBRARY_TIMEOUT_S,
        "timeout_ops": LIBRARY_TIMEOUT_S,
    }


class AsyncScrapliSession:
    """asyncssh transport (``AsyncIOSXEDriver``, scrapli's asyncio transports). Phases:
    connect (open: connection, shell, privilege and terminal setup), commands, close."""

    def __init__(self, target: Target) -> None:
        self._target = target
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        driver = AsyncIOSXEDriver(**_options(self._target, "asyncssh"))
        with self.phases.measure("connect"):
            await driver.open()
        try:
            with self.phases.measure("commands"):
                return [(await driver.send_command(command)).result for command in commands]
        finally:
            with self.phases.measure("close"):
                await driver.close()


class SyncScrapliSession:
    """A synchronous transport (``IOSXEDriver``: system, paramiko, ssh2) in a worker
    thread; the same phases. ``opening`` wraps each ``open`` (what the process spawning
    ``ssh`` must carry: scrapli_jump.py)."""

    def __init__(
        self,
        target: Target,
        transport: str,
        ssh_config_file: str | bool = False,
        opening: Callable[[], AbstractContextManager[None]] = nullcontext,
    ) -> None:
        self._target = target
        self._transport = transport
        self._ssh_config_file = ssh_config_file
        self._opening = opening
        self.phases = PhaseTimer()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        target = self._target
        driver = IOSXEDriver(**_options(target, self._transport, self._ssh_config_file))
        with self.phases.measure("connect"):
            if self._transport in ("paramiko", "ssh2"):
                nodelay_socket(driver.transport, target.host, target.ssh_port, LIBRARY_TIMEOUT_S)
            with self._opening():
                driver.open()
        try:
            with self.phases.measure("commands"):
                return [driver.send_command(command).result for command in commands]
        finally:
            with self.phases.measure("close"):
                driver.close()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


@asynccontextmanager
async def pty_fresh(mode: Mode, target: Target, *, transport: str) -> AsyncIterator[Session]:
    if transport == "asyncssh":
        yield AsyncScrapliSession(target)
    else:
        yield SyncScrapliSession(target, transport)


async def fleet_host(target: Target, commands: Sequence[str]) -> list[str]:
    """One fleet device with the asyncio driver over its asyncssh transport: open (PTY
    shell, privilege and terminal setup), ``send_command`` per command, close."""
    return await AsyncScrapliSession(target).run_iteration(commands)
