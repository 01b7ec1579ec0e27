"""asyncssh PTY shells (floor client): per iteration a new connection and shell, or a new
shell on a kept connection, driven by the prompt dialogue as Netmiko drives one."""

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import asyncssh

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.asyncssh_connect import traced_connect
from bench_runner.modes.clients.pty_dialogue import (
    READ_CHUNK,
    SETUP_COMMANDS,
    TERMINAL_SIZE,
    TERMINAL_TYPE,
    PromptReader,
    command_output,
)
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.roundtrips import SocketTrace
from bench_runner.validation import validate_output


class PtyShell:
    """A PTY shell's dialogue on an asyncssh process."""

    def __init__(self, process: asyncssh.SSHClientProcess[str]) -> None:
        self._process = process
        self._reader = PromptReader()

    async def read_initial_prompt(self) -> None:
        await self._reply()

    async def send_command(self, command: str) -> str:
        """Send one command; return its output without the echo line and the prompt."""
        self._process.stdin.write(command + "\n")
        return command_output(command, await self._reply())

    async def exit(self) -> None:
        self._process.stdin.write("exit\n")
        await self._process.wait_closed()

    async def _reply(self) -> str:
        while (reply := self._reader.feed(await self._process.stdout.read(READ_CHUNK))) is None:
            pass
        return reply


async def run_shell(process: asyncssh.SSHClientProcess[str], commands: Sequence[str]) -> list[str]:
    """Prompt, session prep, every command with echo check, exit: one PTY shell's life."""
    shell = PtyShell(process)
    await shell.read_initial_prompt()
    for setup_command in SETUP_COMMANDS:
        # Setup commands answer with nothing but the prompt; reject errors now so a
        # paging terminal cannot make the measured commands hang.
        validate_output(setup_command, await shell.send_command(setup_command), allow_empty=True)
    outputs = [await shell.send_command(command) for command in commands]
    await shell.exit()
    return outputs


async def timed_shell(
    conn: asyncssh.SSHClientConnection, commands: Sequence[str], phases: PhaseTimer
) -> list[str]:
    """A PTY shell's life on ``conn``: channel_open (channel open, pty-req and shell, each
    answered), then commands (prompt, session prep, the commands, exit, channel close)."""
    started = time.perf_counter()
    async with conn.create_process(term_type=TERMINAL_TYPE, term_size=TERMINAL_SIZE) as process:
        opened = time.perf_counter()
        outputs = await run_shell(process, commands)
    phases.add("channel_open", opened - started)
    phases.add("commands", time.perf_counter() - opened)
    return outputs


class _PtyFreshSession:
    def __init__(self, target: Target) -> None:
        self._target = target
        self.trace = SocketTrace()
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        async with traced_connect(self._target, self.trace, phases=self.phases) as conn:
            return await timed_shell(conn, commands, self.phases)


class _PtyReuseSession:
    def __init__(self, conn: asyncssh.SSHClientConnection, trace: SocketTrace) -> None:
        self._conn = conn
        self.trace = trace
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await timed_shell(self._conn, commands, self.phases)


@asynccontextmanager
async def fresh(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """Per iteration a new connection and PTY shell (vt100, 511 columns)."""
    yield _PtyFreshSession(target)


@asynccontextmanager
async def kept(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One connection kept; per iteration a new PTY shell on it."""
    trace = SocketTrace()
    async with traced_connect(target, trace) as conn:
        yield _PtyReuseSession(conn, trace)
