"""scrapligo (Go), through the program ``goclient`` shipped in the runner's image (source:
bench-runner/goclient; ``BENCH_GOCLIENT`` names another binary).

The program runs a mode's iterations itself and reports each one; the runner keeps its
capture and its clock. Per mode (per framing x reply size for NETCONF) the session starts
one ``goclient <mode>`` process and writes it a JSON job (target, port, the *names* of the
environment variables holding the credentials, which the child is given; never the values
on its command line). The program opens what the mode keeps across iterations and answers
``ready``: nothing of that is measured. Then, per iteration the runner marks its packet
capture, writes one step (``{"warmup": false, "commands": [...]}``), reads back one JSON
line with the iteration's start and end on CLOCK_REALTIME (the clock that stamps captured
packets and that the runner's own ``time.time_ns()`` reads), its duration on the monotonic
clock, its phases and what the device answered, and marks the capture again. So the wire
counts and the time split apply as for the runner's own clients, and the outputs are
validated the same way: CLI outputs by ``validate_output``, NETCONF replies by
``check_reply`` against the message-id their RPC carried. Closing its input ends the
process: a kept session is closed (``netconf/edit-commit`` restores the description) and it
answers ``done``, or ``error`` with the reason.
"""

import asyncio
import contextlib
import json
import os
import subprocess
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from bench_runner.modes.base import ReportedSpan, Session, Target
from bench_runner.modes.mode import Mode
from bench_runner.modes.row import NetconfValues
from bench_runner.phases import PhaseTimer
from bench_runner.protocols.netconf.messages import check_reply
from bench_runner.validation import IterationError

GOCLIENT_ENV = "BENCH_GOCLIENT"
DEFAULT_GOCLIENT = "/usr/local/bin/goclient"
USERNAME_ENV = "GOCLIENT_USERNAME"
PASSWORD_ENV = "GOCLIENT_PASSWORD"
"""The variables the child process is given the target's credentials in (named in the job)."""
OPEN_TIMEOUT_S = 120.0
"""How long opening a kept session (before ``ready``) and closing it may take."""
STDERR_TAIL = 400
GO_TIMEOUT_S = 60.0
"""scrapligo's socket and operation timeouts (as the Python libraries' LIBRARY_TIMEOUT_S)."""


def goclient_path() -> str:
    return os.environ.get(GOCLIENT_ENV, DEFAULT_GOCLIENT)


def version() -> str:
    return goclient_version(goclient_path())


@cache
def goclient_version(path: str) -> str:
    """``scrapligo v1.4.3 (go1.26.0)`` from ``goclient version``; ``unknown`` without it."""
    try:
        done = subprocess.run(
            [path, "version"], capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() or "unknown"


# --- the program's lines --------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    message_id: int
    expect: str
    text: str


@dataclass(frozen=True)
class IterationReport:
    """One ``iteration`` line: the span on CLOCK_REALTIME, the duration, the outcome."""

    index: int
    warmup: bool
    started_ns: int
    ended_ns: int
    wall_ms: float
    ok: bool
    error: str | None
    outputs: list[str] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    phases_ms: dict[str, float] = field(default_factory=dict)


class GoClientError(IterationError):
    """The program failed, or said something the runner cannot read."""


def parse_line(line: bytes) -> dict[str, Any]:
    """One line as a JSON object with an ``event``; GoClientError for anything else."""
    try:
        message = json.loads(line)
    except ValueError as exc:
        raise GoClientError(f"scrapligo: unreadable line from goclient: {line[:120]!r}") from exc
    if not isinstance(message, dict) or not isinstance(message.get("event"), str):
        raise GoClientError(f"scrapligo: not a goclient report: {line[:120]!r}")
    return message


def iteration_report(message: dict[str, Any]) -> IterationReport:
    """An ``iteration`` line as a report; GoClientError for an ``error`` line or a line
    missing what every iteration reports."""
    if message["event"] == "error":
        raise GoClientError(f"scrapligo: {message.get('error') or 'goclient failed'}")
    if message["event"] != "iteration":
        raise GoClientError(f"scrapligo: expected an iteration, got {message['event']!r}")
    try:
        return IterationReport(
            index=int(message["index"]),
            warmup=bool(message.get("warmup", False)),
            started_ns=int(message["start_ns"]),
            ended_ns=int(message["end_ns"]),
            wall_ms=int(message["wall_ns"]) / 1e6,
            ok=bool(message["ok"]),
            error=message.get("error") or None,
            outputs=[str(output) for output in message.get("outputs") or []],
            replies=[
                Reply(int(reply["message_id"]), str(reply["expect"]), str(reply["text"]))
                for reply in message.get("replies") or []
            ],
            phases_ms={str(k): float(v) for k, v in (message.get("phases_ms") or {}).items()},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise GoClientError(f"scrapligo: incomplete iteration report: {exc!r}") from exc


def outputs_to_validate(report: IterationReport) -> list[str]:
    """What the runner validates: the CLI outputs (one per command), or the NETCONF replies
    checked as the runner's NETCONF clients check theirs. IterationError for a failed
    iteration or a bad reply."""
    if not report.ok:
        raise IterationError(f"scrapligo: {report.error or 'iteration failed'}")
    if not report.replies:
        return report.outputs
    texts = [
        check_reply(reply.text.encode(), reply.message_id, reply.expect.encode())
        for reply in report.replies
    ]
    if any(reply.expect == "<ok" for reply in report.replies):
        return ["".join(texts)]  # edit-commit: one combined output, the commit is no command
    return texts


# --- the process ----------------------------------------------------------------------------


class GoClientProcess:
    """One ``goclient <mode>`` process, paced by the runner one step at a time."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process
        self.version: str | None = None
        self.broken: str | None = None

    @classmethod
    async def start(
        cls, path: str, mode: str, job: dict[str, Any], target: Target
    ) -> "GoClientProcess":
        env = {**os.environ, USERNAME_ENV: target.username, PASSWORD_ENV: target.password}
        process = await asyncio.create_subprocess_exec(
            path,
            mode,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            limit=64 * 1024 * 1024,  # a line carries the replies: up to n x 1 MB
        )
        client = cls(process)
        try:
            client._write(job)
            async with asyncio.timeout(OPEN_TIMEOUT_S):
                ready = await client._read()
            if ready["event"] != "ready":
                raise GoClientError(f"scrapligo: {ready.get('error') or 'goclient did not start'}")
            client.version = ready.get("version")
        except BaseException:
            await client.kill()
            raise
        return client

    def _write(self, message: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(message).encode() + b"\n")

    async def _read(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = await self._process.stdout.readline()
        if not line:
            raise GoClientError(f"scrapligo: goclient exited{await self._exit_reason()}")
        return parse_line(line)

    async def _exit_reason(self) -> str:
        status = await self._process.wait()
        assert self._process.stderr is not None
        stderr = (await self._process.stderr.read()).decode(errors="replace").strip()
        return f" (status {status})" + (f": {stderr[-STDERR_TAIL:]}" if stderr else "")

    async def step(self, commands: Sequence[str], *, warmup: bool = False) -> IterationReport:
        """Run one iteration. A cancelled wait (the iteration timeout) kills the process:
        its next line would belong to the abandoned iteration."""
        if self.broken is not None:
            raise GoClientError(f"scrapligo: goclient stopped earlier: {self.broken}")
        try:
            self._write({"warmup": warmup, "commands": list(commands)})
            return iteration_report(await self._read())
        except asyncio.CancelledError:
            self.broken = "an iteration timed out"
            await asyncio.shield(self.kill())
            raise
        except GoClientError as exc:
            self.broken = str(exc)
            raise

    async def close(self) -> None:
        """End the input; the program closes its session and says ``done`` or ``error``."""
        if self.broken is not None or self._process.returncode is not None:
            await self.kill()
            return
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            async with asyncio.timeout(OPEN_TIMEOUT_S):
                last = await self._read()
                await self._process.wait()
        except BaseException:
            await self.kill()
            raise
        if last["event"] != "done":
            raise GoClientError(f"scrapligo: {last.get('error') or 'goclient did not finish'}")

    async def kill(self) -> None:
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
            await self._process.wait()


class GoClientSession:
    """A mode's session in the program: each iteration one step, timed by the program."""

    def __init__(self, process: GoClientProcess) -> None:
        self._process = process
        self._span: ReportedSpan | None = None
        self.phases = PhaseTimer()

    def take_span(self) -> ReportedSpan | None:
        """The last iteration's span as the program measured it (once)."""
        span, self._span = self._span, None
        return span

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self._span = None
        report = await self._process.step(commands)
        self._span = ReportedSpan(report.started_ns, report.ended_ns, report.wall_ms)
        for name, milliseconds in report.phases_ms.items():
            self.phases.add(name, milliseconds / 1000.0)
        return outputs_to_validate(report)


def job_for(target: Target, port: int, timeout_s: float, mode: Mode) -> dict[str, Any]:
    """The job for ``mode`` (its NETCONF parameters when it has them); paced, no commands."""
    job: dict[str, Any] = {
        "host": target.host,
        "port": port,
        "username_env": USERNAME_ENV,
        "password_env": PASSWORD_ENV,
        "paced": True,
        "timeout_s": timeout_s,
    }
    if isinstance(mode.values, NetconfValues):
        job["framing"] = mode.values.framing
        job["reply_bytes"] = mode.values.reply_bytes
    return job


@asynccontextmanager
async def session(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One ``goclient <mode>`` process for the mode (and its parameters), paced by the
    runner one iteration at a time; closing its input ends it."""
    process = await GoClientProcess.start(
        goclient_path(), mode.name, job_for(target, mode.port(target), GO_TIMEOUT_S, mode), target
    )
    try:
        yield GoClientSession(process)
    except BaseException:
        await process.kill()
        raise
    await process.close()
