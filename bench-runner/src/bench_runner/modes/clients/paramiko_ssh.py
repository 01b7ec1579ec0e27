"""paramiko: exec channels on a new or a kept connection, and ``direct-tcpip`` channels as
a forward without a local listener (what its forward demo does behind its listener).
paramiko is blocking: each iteration runs in a worker thread so the runner's event loop
keeps sampling resources; its own timeouts bound a stuck call."""

import asyncio
import socket
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import paramiko

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.tunnel_http import (
    IO_TIMEOUT_S,
    TUNNEL_HOST,
    TUNNEL_PORT,
    BulkSession,
    Pipe,
    RequestSession,
)
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError, failure_summary

LIBRARY_TIMEOUT_S = 60.0


def paramiko_connect(target: Target) -> paramiko.SSHClient:
    """Password login only; host keys accepted unchecked (the lab device regenerates them)."""
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(
        target.host,
        target.ssh_port,
        username=target.username,
        password=target.password,
        look_for_keys=False,
        allow_agent=False,
        timeout=LIBRARY_TIMEOUT_S,
        banner_timeout=LIBRARY_TIMEOUT_S,
        auth_timeout=LIBRARY_TIMEOUT_S,
    )
    return client


def paramiko_open(target: Target, phases: PhaseTimer) -> paramiko.Transport:
    """What ``SSHClient.connect`` does with a password and no keys or agent, step by step
    so each can be timed: a TCP socket (tcp_connect), ``Transport.start_client``
    (version lines and key exchange: key_exchange), ``auth_password`` (auth). The host key
    is not checked (the lab device regenerates it), as AutoAddPolicy would not either."""
    with phases.measure("tcp_connect"):
        sock = socket.create_connection((target.host, target.ssh_port), timeout=LIBRARY_TIMEOUT_S)
    transport = paramiko.Transport(sock)
    transport.banner_timeout = LIBRARY_TIMEOUT_S
    transport.auth_timeout = LIBRARY_TIMEOUT_S
    transport.use_compression(compress=False)
    try:
        with phases.measure("key_exchange"):
            transport.start_client(timeout=LIBRARY_TIMEOUT_S)
        with phases.measure("auth"):
            transport.auth_password(target.username, target.password)
    except BaseException:
        transport.close()
        raise
    return transport


def paramiko_exec(transport: paramiko.Transport, command: str, phases: PhaseTimer) -> str:
    """What ``SSHClient.exec_command`` does: a session channel (channel_open), the exec
    request, then the output to EOF and the exit status (commands)."""
    with phases.measure("channel_open"):
        channel = transport.open_session(timeout=LIBRARY_TIMEOUT_S)
    with phases.measure("commands"):
        channel.settimeout(LIBRARY_TIMEOUT_S)
        channel.exec_command(command)
        output = channel.makefile("rb").read().decode("utf-8", errors="replace")
        status = channel.recv_exit_status()
    if status != 0:
        raise IterationError(f"{command}: exit status {status}: {failure_summary(output)}")
    return output


class _FreshSession:
    def __init__(self, target: Target) -> None:
        self._target = target
        self.phases = PhaseTimer()

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        outputs = []
        for command in commands:
            transport = paramiko_open(self._target, self.phases)
            try:
                outputs.append(paramiko_exec(transport, command, self.phases))
            finally:
                with self.phases.measure("close"):
                    transport.close()
        return outputs

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


class _KeptSession:
    def __init__(self, transport: paramiko.Transport, phases: PhaseTimer, *, batch: bool) -> None:
        self._transport = transport
        self.phases = phases
        self._batch = batch

    def run_sync(self, commands: Sequence[str]) -> list[str]:
        if self._batch:
            return [paramiko_exec(self._transport, "\n".join(commands), self.phases)]
        return [paramiko_exec(self._transport, command, self.phases) for command in commands]

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await asyncio.to_thread(self.run_sync, commands)


@asynccontextmanager
async def fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """A new connection (TCP, key exchange, password auth) per command, exec, close."""
    yield _FreshSession(target)


@asynccontextmanager
async def kept(mode: Mode, target: Target, *, batch: bool) -> AsyncIterator[Session]:
    """One connection kept; an exec channel per command, or one with every command."""
    # The setup's phases land in the timer too; the runner's take() before the first
    # measured iteration discards them.
    phases = PhaseTimer()
    transport = await asyncio.to_thread(paramiko_open, target, phases)
    try:
        yield _KeptSession(transport, phases, batch=batch)
    finally:
        transport.close()


# --- direct-tcpip (tunnel) ------------------------------------------------------------------


def channel_opener(client: paramiko.SSHClient) -> Callable[[], Pipe]:
    """A new ``direct-tcpip`` channel to the tunnel target per call (``open_channel``)."""
    transport = client.get_transport()
    if transport is None:
        raise IterationError("paramiko: no transport after connect")

    def open_pipe() -> Pipe:
        channel = transport.open_channel(
            "direct-tcpip", (TUNNEL_HOST, TUNNEL_PORT), ("127.0.0.1", 0), timeout=IO_TIMEOUT_S
        )
        channel.settimeout(IO_TIMEOUT_S)
        return channel

    return open_pipe


@asynccontextmanager
async def _forward(target: Target) -> AsyncIterator[Callable[[], Pipe]]:
    client = await asyncio.to_thread(paramiko_connect, target)
    try:
        yield channel_opener(client)
    finally:
        client.close()


@asynccontextmanager
async def tunnel_bulk(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One connection kept; per iteration a new direct-tcpip channel and one download."""
    async with _forward(target) as open_pipe:
        yield BulkSession(open_pipe, mode.bulk_size())


@asynccontextmanager
async def tunnel_requests(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One direct-tcpip channel kept (HTTP keep-alive); per command one small GET."""
    async with _forward(target) as open_pipe:
        session = RequestSession(open_pipe)
        try:
            yield session
        finally:
            session.close()


def fleet_host(target: Target, commands: Sequence[str]) -> list[str]:
    """One fleet device with paramiko's SSHClient: connect, ``exec_command`` per command,
    read to EOF, close."""
    client = paramiko_connect(target)
    try:
        outputs = []
        for command in commands:
            _, stdout, _ = client.exec_command(command, timeout=LIBRARY_TIMEOUT_S)
            output = stdout.read().decode("utf-8", errors="replace")
            status = stdout.channel.recv_exit_status()
            if status != 0:
                raise IterationError(f"{command}: exit status {status}: {failure_summary(output)}")
            outputs.append(output)
        return outputs
    finally:
        client.close()
