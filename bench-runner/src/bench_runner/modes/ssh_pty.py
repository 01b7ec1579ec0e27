"""SSH interactive mode: a PTY shell driven by prompt matching, as Netmiko does."""

import re
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import asyncssh

from bench_runner.modes.base import Mode, RoundTripBound, Session, Target, Transport
from bench_runner.modes.ssh_exec import traced_connect
from bench_runner.phases import PhaseTimer
from bench_runner.roundtrips import SocketTrace
from bench_runner.validation import IterationError, validate_output

PROMPT_PATTERN = re.compile(r"[\w.-]+[#>]\s*$")
TERMINAL_TYPE = "vt100"
TERMINAL_SIZE = (511, 24)
SETUP_COMMANDS = ("terminal length 0", "terminal width 511")
READ_CHUNK = 65536


class PtyShell:
    """Reads a PTY shell's output up to the device prompt."""

    def __init__(self, process: asyncssh.SSHClientProcess[str]) -> None:
        self._process = process
        self._prompt_at_end: re.Pattern[str] = PROMPT_PATTERN

    async def read_initial_prompt(self) -> None:
        """Wait for the first prompt and match only that exact prompt from then on, so an
        output line that happens to end in '#' or '>' is not taken for it."""
        text = await self._read_until_prompt()
        match = PROMPT_PATTERN.search(text)
        assert match is not None  # _read_until_prompt returned only because it matched
        prompt = match.group(0).rstrip()
        self._prompt_at_end = re.compile(r"(?:\A|[\r\n])" + re.escape(prompt) + r"\s*\Z")

    async def send_command(self, command: str) -> str:
        """Send one command; return its output without the echo line and the prompt."""
        self._process.stdin.write(command + "\n")
        text = await self._read_until_prompt()
        lines = text.replace("\r\n", "\n").split("\n")
        if command not in lines[0]:
            raise IterationError(f"{command}: echo not found, got {lines[0].strip()!r}")
        return "\n".join(lines[1:-1])

    async def exit(self) -> None:
        self._process.stdin.write("exit\n")
        await self._process.wait_closed()

    async def _read_until_prompt(self) -> str:
        text = ""
        while not self._prompt_at_end.search(text):
            chunk = await self._process.stdout.read(READ_CHUNK)
            if not chunk:
                raise IterationError(f"session closed while waiting for prompt: {text[-80:]!r}")
            text += chunk
        return text


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


class _PtyReuseSession:
    def __init__(self, conn: asyncssh.SSHClientConnection, trace: SocketTrace) -> None:
        self._conn = conn
        self.trace = trace
        self.phases = PhaseTimer()

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return await timed_shell(self._conn, commands, self.phases)


class SshPtyFresh(Mode):
    """Per iteration a new connection and PTY shell, as Netmiko and Ansible network_cli do.

    Lower bound per iteration, 4 + 2 + n round trips: TCP, key exchange, password auth with
    the channel open pipelined (RFC 4252 section 5.1), and the pty-req and shell requests,
    which need the channel confirmation, answered by the first prompt (4); then
    ``terminal length 0`` and ``terminal width 511`` (2) and each command (n), each of which
    waits for the prompt before the next is sent. Sending ``exit`` needs no wait.

    Expected with asyncssh against the lab's OpenSSH: 14 + n, measured (README): the login
    of ssh/fresh-conn up to the channel confirmation (8, plus its 1.5 of TCP waiting), pty-req
    and shell (1 each), the 2 setup commands, n commands, and the wait for the channel to
    close after ``exit`` (about 0.5 to 1).
    """

    name = "ssh/pty-fresh"
    transport = Transport.SSH
    client = "asyncssh"
    description = (
        "asyncssh; per iteration a new connection and PTY shell (vt100, 511 columns): wait "
        "for the prompt, terminal length 0, terminal width 511, each command with echo "
        "check, exit; what Netmiko and Ansible network_cli do"
    )
    min_bound = RoundTripBound(per_command=1, fixed=4 + len(SETUP_COMMANDS))
    expected_bound = RoundTripBound(per_command=1, fixed=12 + len(SETUP_COMMANDS))

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        yield _PtyFreshSession(target)


class SshPtyReuse(Mode):
    """A connection kept for the whole run; per iteration a new PTY shell on it (channel
    open, pty-req, shell), session prep, the commands, exit.

    Lower bound per iteration, 2 + 2 + n round trips: the channel open confirmation (the
    pty-req and shell requests name the server's channel number), then pty-req and shell,
    which can be sent back to back, answered by the first prompt (2); then the 2 setup
    commands and the n commands, each waiting for the prompt. Expected with asyncssh:
    6 + n (measured 11.5 for 5 commands at 30 ms): channel open, pty-req and shell each
    waited for (asyncssh sends them one after the other), the setup commands, n commands,
    and about 1 for the channel to close after ``exit``.
    """

    name = "ssh/pty-reuse"
    transport = Transport.SSH
    client = "asyncssh"
    description = (
        "asyncssh; one SSH connection kept; per iteration a new PTY shell: prompt, terminal "
        "length 0, terminal width 511, each command with echo check, exit"
    )
    min_bound = RoundTripBound(per_command=1, fixed=2 + len(SETUP_COMMANDS))
    expected_bound = RoundTripBound(per_command=1, fixed=4 + len(SETUP_COMMANDS))

    @asynccontextmanager
    async def session(self, target: Target) -> AsyncIterator[Session]:
        trace = SocketTrace()
        async with traced_connect(target, trace) as conn:
            yield _PtyReuseSession(conn, trace)
