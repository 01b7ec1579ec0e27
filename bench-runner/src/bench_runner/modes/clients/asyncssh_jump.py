"""asyncssh through the jump host (floor client): the device's SSH connection rides on a
direct-tcpip channel of the jump host's (``asyncssh.connect(..., tunnel=jump)``), which is
what ``ssh -J`` and ProxyJump do. Each hop logs in with its own credentials.

The socket traced is the runner's, to the jump host: the WAN hop, which carries both
logins (the device's inside the jump host's channel). The LAN hop's round trips are counted
on the device's session inside that channel (jump_lan.py).
"""

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import asyncssh

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.asyncssh_connect import client_options, traced_connect
from bench_runner.modes.clients.asyncssh_exec import exec_command
from bench_runner.modes.clients.asyncssh_pty import timed_shell
from bench_runner.modes.clients.jump_lan import CountingTunnel, FlightCount
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.roundtrips import SocketTrace


@asynccontextmanager
async def device_through(
    jump: asyncssh.SSHClientConnection,
    target: Target,
    lan: FlightCount,
    phases: PhaseTimer | None = None,
) -> AsyncIterator[asyncssh.SSHClientConnection]:
    """A login to the device over a new direct-tcpip channel of ``jump``, its round trips
    counted on ``lan``; with ``phases``, timed as device_login (channel open, the jump host's
    TCP connect to the device, key exchange and password auth)."""
    started = time.perf_counter()
    async with asyncssh.connect(
        target.host,
        target.ssh_port,
        options=client_options(target),
        tunnel=CountingTunnel(jump, lan),
    ) as conn:
        if phases is not None:
            phases.add("device_login", time.perf_counter() - started)
        yield conn


@asynccontextmanager
async def jump_login(
    target: Target, trace: SocketTrace, phases: PhaseTimer | None = None
) -> AsyncIterator[asyncssh.SSHClientConnection]:
    """A login to the jump host on a traced socket; with ``phases``, timed as jump_login."""
    started = time.perf_counter()
    async with traced_connect(target.jump_login(), trace) as jump:
        if phases is not None:
            phases.add("jump_login", time.perf_counter() - started)
        yield jump


class _BothFreshSession:
    """Per command (exec) or per iteration (PTY) a new login to the jump host and, through
    it, to the device."""

    def __init__(self, target: Target, *, pty: bool) -> None:
        self._target = target
        self._pty = pty
        self.trace = SocketTrace()
        self.phases = PhaseTimer()
        self.lan = FlightCount()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self.lan.take()
        if self._pty:
            async with (
                jump_login(self._target, self.trace, self.phases) as jump,
                device_through(jump, self._target, self.lan, self.phases) as conn,
            ):
                return await timed_shell(conn, commands, self.phases)
        outputs = []
        for command in commands:
            async with (
                jump_login(self._target, self.trace, self.phases) as jump,
                device_through(jump, self._target, self.lan, self.phases) as conn,
            ):
                outputs.append(await exec_command(conn, command, self.phases))
        return outputs

    def take_lan_round_trips(self) -> int | None:
        return self.lan.take()


class _KeptJumpSession:
    """The jump host's connection kept (OpenSSH's ControlMaster on the first hop); per
    command a new login to the device through it."""

    def __init__(self, jump: asyncssh.SSHClientConnection, target: Target, trace: SocketTrace):
        self._jump = jump
        self._target = target
        self.trace = trace
        self.phases = PhaseTimer()
        self.lan = FlightCount()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self.lan.take()
        outputs = []
        for command in commands:
            async with device_through(self._jump, self._target, self.lan, self.phases) as conn:
                outputs.append(await exec_command(conn, command, self.phases))
        return outputs

    def take_lan_round_trips(self) -> int | None:
        return self.lan.take()


class _KeptDeviceSession:
    """Both logins kept; per command a new exec channel (or per iteration a new PTY shell)
    on the device's connection."""

    def __init__(
        self,
        conn: asyncssh.SSHClientConnection,
        trace: SocketTrace,
        lan: FlightCount,
        *,
        pty: bool,
    ):
        self._conn = conn
        self._pty = pty
        self.trace = trace
        self.phases = PhaseTimer()
        self.lan = lan

    def take_lan_round_trips(self) -> int | None:
        return self.lan.take()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self.lan.take()
        if self._pty:
            return await timed_shell(self._conn, commands, self.phases)
        return [await exec_command(self._conn, command, self.phases) for command in commands]


@asynccontextmanager
async def fresh(mode: Mode, target: Target, *, pty: bool) -> AsyncIterator[Session]:
    """Both hops' logins new: per command with exec, per iteration with a PTY shell."""
    yield _BothFreshSession(target, pty=pty)


@asynccontextmanager
async def kept_jump(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """The jump host's connection opened before the measured iterations and kept."""
    trace = SocketTrace()
    async with jump_login(target, trace) as jump:
        yield _KeptJumpSession(jump, target, trace)


@asynccontextmanager
async def kept(mode: Mode, target: Target, *, pty: bool) -> AsyncIterator[Session]:
    """Both connections opened before the measured iterations and kept."""
    trace = SocketTrace()
    lan = FlightCount()
    async with jump_login(target, trace) as jump, device_through(jump, target, lan) as conn:
        yield _KeptDeviceSession(conn, trace, lan, pty=pty)
