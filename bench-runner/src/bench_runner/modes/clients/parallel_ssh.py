"""parallel-ssh's single-host clients: ``pssh.clients.native`` (libssh2, through
ssh2-python) and ``pssh.clients.ssh`` (libssh, through ssh-python), gevent-based, one
worker thread per session (a gevent hub and the sockets it watches belong to one thread).

pssh makes its own (gevent) socket, so its client classes are subclassed only to set
TCP_NODELAY right after ``connect``: libssh2 and libssh write each SSH message with its own
``send``, and without it a kept session waits for the device's delayed ACK."""

import socket
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from importlib.metadata import version as installed
from typing import Any, TypeVar

import gevent  # type: ignore[import-untyped]
from pssh.clients.base.single import InteractiveShell  # type: ignore[import-untyped]
from pssh.clients.native import SSHClient as NativeClient  # type: ignore[import-untyped]
from pssh.clients.ssh import SSHClient as LibsshClient  # type: ignore[import-untyped]

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.blocking import (
    IO_TIMEOUT_S,
    Worker,
    check_exit_status,
    run_pty_dialogue,
)
from bench_runner.modes.clients.pty_dialogue import TERMINAL_SIZE, TERMINAL_TYPE
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer

T = TypeVar("T")


class _NoDelayNative(NativeClient):  # type: ignore[misc]
    """pssh.clients.native.SSHClient with TCP_NODELAY set once its socket is connected."""

    def _connect_socket(self, *args: Any) -> Any:
        result = super()._connect_socket(*args)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return result


class _NoDelayLibssh(LibsshClient):  # type: ignore[misc]
    """pssh.clients.ssh.SSHClient with TCP_NODELAY set once its socket is connected."""

    def _connect_socket(self, *args: Any) -> Any:
        result = super()._connect_socket(*args)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return result


class Flavour:
    """What differs between parallel-ssh's two clients."""

    def __init__(self, library: str, factory: type[Any], *, libssh: bool) -> None:
        self.library = library
        self.factory = factory
        self.libssh = libssh

    def version(self) -> str:
        return f"parallel-ssh {installed('parallel-ssh')}, {self.library} {installed(self.library)}"

    def connect(self, target: Target, phases: PhaseTimer) -> Any:
        """TCP, handshake and password auth (``SSHClient(...)``: pssh connects in its
        constructor; keys, agent and identity files off)."""
        with phases.measure("connect"):
            return self.factory(
                target.host,
                user=target.username,
                password=target.password,
                port=target.ssh_port,
                num_retries=1,
                allow_agent=False,
                identity_auth=False,
                timeout=IO_TIMEOUT_S,
            )

    def request_pty(self, client: Any, channel: Any) -> None:
        if self.libssh:
            client.eagain(channel.request_pty_size, TERMINAL_TYPE, *TERMINAL_SIZE)
        else:
            client.eagain(channel.pty, TERMINAL_TYPE)

    def exec(self, client: Any, command: str, phases: PhaseTimer) -> str:
        """``run_command`` (channel open and exec), the output read to its end,
        ``wait_finished`` (EOF and close) and the exit code."""
        with phases.measure("commands"):
            output = client.run_command(command, timeout=IO_TIMEOUT_S)
            text = "\n".join(output.stdout)
            if self.libssh:
                _libssh_wait_exit_status(client, output.channel)
            client.wait_finished(output, timeout=IO_TIMEOUT_S)
            status = output.exit_code
        return check_exit_status(command, status, text)

    def shell(self, client: Any, commands: Sequence[str], phases: PhaseTimer) -> list[str]:
        """A channel with a PTY, pssh's ``InteractiveShell`` on it (shell request and its
        output readers), the prompt dialogue over its stdout buffer, ``close``."""
        with phases.measure("channel_open"):
            channel = client.open_session()
            self.request_pty(client, channel)
            shell = InteractiveShell(channel, client, read_timeout=IO_TIMEOUT_S)
        with phases.measure("commands"):
            chunks = iter(shell.output.buffers.stdout.rw_buffer)

            def read() -> bytes:
                return bytes(next(chunks, b""))

            def write(data: bytes) -> None:
                client.eagain_write(channel.write, data)

            outputs = run_pty_dialogue(read, write, commands)
            shell.close()
        return outputs


def _libssh_wait_exit_status(client: Any, channel: Any) -> None:
    """libssh reports the channel's EOF before it has processed the exit-status request
    that follows it (``exit_code`` is then -1, in about one command of three at local):
    let the session read on until the status is there, as ``ssh_channel_get_exit_status``
    does in blocking mode."""
    deadline = time.monotonic() + IO_TIMEOUT_S
    while channel.get_exit_status() == -1 and time.monotonic() < deadline:
        client.poll()
        gevent.sleep(0.0005)


FLAVOURS = {
    "native": Flavour("ssh2-python", _NoDelayNative, libssh=False),
    "libssh": Flavour("ssh-python", _NoDelayLibssh, libssh=True),
}


def version(flavour: str) -> str:
    return FLAVOURS[flavour].version()


def _disconnect(client: Any) -> None:
    client._disconnect()  # what pssh's __exit__ and __del__ do


def _exec_on(flavour: Flavour, command: str, phases: PhaseTimer, client: Any) -> str:
    return flavour.exec(client, command, phases)


class _FreshSession:
    def __init__(self, flavour: Flavour, target: Target, worker: Worker, style: str) -> None:
        self._flavour = flavour
        self._target = target
        self._worker = worker
        self._style = style
        self.phases = PhaseTimer()

    def _one(self, run: Callable[[Any], T]) -> T:
        client = self._flavour.connect(self._target, self.phases)
        try:
            return run(client)
        finally:
            with self.phases.measure("close"):
                _disconnect(client)

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        flavour, phases = self._flavour, self.phases
        if self._style == "pty":
            return self._one(lambda client: flavour.shell(client, commands, phases))
        return [self._one(partial(_exec_on, flavour, command, phases)) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._worker.call(self.run_sync, commands)


class _KeptSession:
    def __init__(self, flavour: Flavour, client: Any, worker: Worker, style: str) -> None:
        self._flavour = flavour
        self._client = client
        self._worker = worker
        self._style = style
        self.phases = PhaseTimer()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        flavour, client, phases = self._flavour, self._client, self.phases
        if self._style == "batch":
            return [flavour.exec(client, "\n".join(commands), phases)]
        if self._style == "pty":
            return flavour.shell(client, commands, phases)
        return [flavour.exec(client, command, phases) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await self._worker.call(self.run_sync, commands)


@asynccontextmanager
async def session(
    mode: Mode, target: Target, *, flavour: str, fresh: bool, style: str
) -> AsyncIterator[Session]:
    """A client per command (exec) or per iteration (pty) when ``fresh``, else one kept;
    commands sent by ``style``: ``exec`` (run_command each), ``batch`` (one run_command
    with all), ``pty`` (a shell)."""
    chosen = FLAVOURS[flavour]
    worker = Worker()
    try:
        if fresh:
            yield _FreshSession(chosen, target, worker, style)
            return
        client = await worker.call(chosen.connect, target, PhaseTimer())
        try:
            yield _KeptSession(chosen, client, worker, style)
        finally:
            await worker.call(_disconnect, client)
    finally:
        worker.close()
