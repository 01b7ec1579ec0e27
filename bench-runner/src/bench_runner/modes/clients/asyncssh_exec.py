"""asyncssh exec channels (floor client): one channel per command, on a new connection per
command or on one kept connection, or one channel carrying every command."""

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import asyncssh

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.asyncssh_connect import client_options, traced_connect
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.roundtrips import SocketTrace
from bench_runner.validation import IterationError, failure_summary


async def exec_command(
    conn: asyncssh.SSHClientConnection, command: str, phases: PhaseTimer | None = None
) -> str:
    """Run ``command`` in a new exec channel; a non-zero exit status fails the iteration.

    What ``conn.run`` does, in its two steps: ``create_process`` (channel open and the
    exec request, each answered: channel_open) and ``wait`` (output, exit status and
    close of the channel: commands)."""
    started = time.perf_counter()
    process = await conn.create_process(command)
    opened = time.perf_counter()
    result = await process.wait(check=False)
    if phases is not None:
        phases.add("channel_open", opened - started)
        phases.add("commands", time.perf_counter() - opened)
    stdout = result.stdout if isinstance(result.stdout, str) else ""
    if result.exit_status != 0:
        reason = failure_summary(stdout) or failure_summary(str(result.stderr or ""))
        raise IterationError(f"{command}: exit status {result.exit_status}: {reason}")
    return stdout


class _FreshConnectionSession:
    def __init__(self, target: Target) -> None:
        self._target = target
        self.trace = SocketTrace()
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        outputs = []
        for command in commands:
            async with traced_connect(self._target, self.trace, phases=self.phases) as conn:
                outputs.append(await exec_command(conn, command, self.phases))
        return outputs


class _KeptConnectionSession:
    def __init__(
        self, conn: asyncssh.SSHClientConnection, trace: SocketTrace, *, batch: bool
    ) -> None:
        self._conn = conn
        self._batch = batch
        self.trace = trace
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        if self._batch:
            return [await exec_command(self._conn, "\n".join(commands), self.phases)]
        return [await exec_command(self._conn, command, self.phases) for command in commands]


@asynccontextmanager
async def fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """A new connection (TCP, key exchange, password auth) per command, exec, close."""
    yield _FreshConnectionSession(target)


@asynccontextmanager
async def kept(mode: Mode, target: Target, *, batch: bool) -> AsyncIterator[Session]:
    """One connection opened before the measured iterations; per command a new exec
    channel, or (``batch``) one channel whose command string carries every command,
    separated by newlines."""
    trace = SocketTrace()
    async with traced_connect(target, trace) as conn:
        yield _KeptConnectionSession(conn, trace, batch=batch)


async def fleet_host(target: Target, commands: Sequence[str]) -> list[str]:
    """One fleet device as the publication drove asyncssh: connect, ``run`` (an exec
    channel) per command, close."""
    async with asyncssh.connect(
        target.host, target.ssh_port, options=client_options(target)
    ) as conn:
        return [await exec_command(conn, command) for command in commands]
