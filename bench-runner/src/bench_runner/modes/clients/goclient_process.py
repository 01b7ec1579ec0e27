"""The runner's side of a goclient program (source: bench-runner/goclient): ``goclient``
measures scrapligo (clients/scrapligo.py), ``goclient-h3`` quic-go's HTTP/3 client
(clients/quicgo_h3.py), ``goclient-gnmi`` grpc-go's gNMI (clients/grpcgo_gnmi.py). All speak
one protocol on their standard input and output.

Per mode (per framing x reply size for NETCONF) the session starts one ``<program> <mode>``
process and writes it a JSON job (target, port, the *names* of the environment variables
holding the credentials, which the child is given; never the values on its command line).
The program opens what the mode keeps across iterations and answers ``ready`` with the
library's name and version and the connections it opened: nothing of that is measured.
Then, per iteration the runner marks its packet capture, writes one step (``{"warmup":
false, "commands": [...]}``), reads back one JSON line with the iteration's start and end on
CLOCK_REALTIME (the clock that stamps captured packets and that the runner's own
``time.time_ns()`` reads), its duration on the monotonic clock, its phases, what the device
answered and the connections it opened, and marks the capture again. So the wire counts and
the time split apply as for the runner's own clients. Closing its input ends the process: a
kept session is closed and it answers ``done``, or ``error`` with the reason.
"""

import asyncio
import contextlib
import json
import os
import subprocess
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

from bench_runner.modes.base import ClientRecovery, ReportedSpan, Target
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError

USERNAME_ENV = "GOCLIENT_USERNAME"
PASSWORD_ENV = "GOCLIENT_PASSWORD"
"""The variables the child process is given the target's credentials in (named in the job)."""
OPEN_TIMEOUT_S = 120.0
"""How long opening a kept session (before ``ready``) and closing it may take."""
STDERR_TAIL = 400


@cache
def program_version(path: str) -> str:
    """``scrapligo v1.4.3 (go1.26.0)`` from ``<program> version``; ``unknown`` without it."""
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
class Negotiated:
    """What one connection negotiated, as the client library reports it: TLS version,
    cipher suite and key-exchange group by their IANA code points (None: not reported),
    the ALPN protocol (None: none), a resumed session, early data the server accepted."""

    tls_version: int
    cipher_suite: int
    group: int | None
    alpn: str | None
    resumed: bool
    used_0rtt: bool


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
    statuses: list[int] = field(default_factory=list)
    """The HTTP status of each output (HTTP clients only)."""
    replies: list[Reply] = field(default_factory=list)
    phases_ms: dict[str, float] = field(default_factory=dict)
    connections: list[Negotiated] = field(default_factory=list)
    """The connections the iteration opened."""
    recovery: ClientRecovery | None = None
    """What the client's loss recovery did (a QUIC client's), else None."""


class GoClientError(IterationError):
    """The program failed, or said something the runner cannot read."""


def parse_line(line: bytes, client: str) -> dict[str, Any]:
    """One line as a JSON object with an ``event``; GoClientError for anything else."""
    try:
        message = json.loads(line)
    except ValueError as exc:
        raise GoClientError(f"{client}: unreadable line from goclient: {line[:120]!r}") from exc
    if not isinstance(message, dict) or not isinstance(message.get("event"), str):
        raise GoClientError(f"{client}: not a goclient report: {line[:120]!r}")
    return message


def negotiated(items: list[dict[str, Any]] | None) -> list[Negotiated]:
    """The ``connections`` of a line (KeyError, TypeError or ValueError when incomplete)."""
    return [
        Negotiated(
            tls_version=int(item["tls_version"]),
            cipher_suite=int(item["cipher_suite"]),
            group=int(item["group"]) if item.get("group") else None,
            alpn=str(item["alpn"]) or None,
            resumed=bool(item["resumed"]),
            used_0rtt=bool(item["used_0rtt"]),
        )
        for item in items or []
    ]


RECOVERY_COUNTS = tuple(count.name for count in fields(ClientRecovery))


def client_recovery(item: dict[str, Any] | None) -> ClientRecovery | None:
    """The ``recovery`` of a line (KeyError, TypeError or ValueError when incomplete)."""
    if item is None:
        return None
    return ClientRecovery(**{name: int(item[name]) for name in RECOVERY_COUNTS})


def iteration_report(message: dict[str, Any], client: str) -> IterationReport:
    """An ``iteration`` line as a report; GoClientError for an ``error`` line or a line
    missing what every iteration reports."""
    if message["event"] == "error":
        raise GoClientError(f"{client}: {message.get('error') or 'goclient failed'}")
    if message["event"] != "iteration":
        raise GoClientError(f"{client}: expected an iteration, got {message['event']!r}")
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
            statuses=[int(status) for status in message.get("statuses") or []],
            replies=[
                Reply(int(reply["message_id"]), str(reply["expect"]), str(reply["text"]))
                for reply in message.get("replies") or []
            ],
            phases_ms={str(k): float(v) for k, v in (message.get("phases_ms") or {}).items()},
            connections=negotiated(message.get("connections")),
            recovery=client_recovery(message.get("recovery")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise GoClientError(f"{client}: incomplete iteration report: {exc!r}") from exc


def check_ok(report: IterationReport, client: str) -> None:
    """IterationError for an iteration the program reports as failed."""
    if not report.ok:
        raise IterationError(f"{client}: {report.error or 'iteration failed'}")


# --- the process ----------------------------------------------------------------------------


class GoClientProcess:
    """One ``<program> <mode>`` process, paced by the runner one step at a time. ``client``
    (the library) prefixes its errors."""

    def __init__(self, process: asyncio.subprocess.Process, client: str) -> None:
        self._process = process
        self.client = client
        self.version: str | None = None
        self.opened: list[Negotiated] = []
        """The connections it opened before ``ready``."""
        self.broken: str | None = None

    @classmethod
    async def start(
        cls,
        path: str,
        client: str,
        mode: str,
        job: dict[str, Any],
        target: Target,
        extra_env: dict[str, str] | None = None,
    ) -> "GoClientProcess":
        """``extra_env``: settings of the program beyond the job (its format is shared by
        every program)."""
        env = {
            **os.environ,
            **(extra_env or {}),
            USERNAME_ENV: target.username,
            PASSWORD_ENV: target.password,
        }
        process = await asyncio.create_subprocess_exec(
            path,
            mode,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            limit=64 * 1024 * 1024,  # a line carries the replies: up to n x 1 MB
        )
        started = cls(process, client)
        try:
            started._write(job)
            async with asyncio.timeout(OPEN_TIMEOUT_S):
                ready = await started._read()
            if ready["event"] != "ready":
                error = ready.get("error") or "goclient did not start"
                raise GoClientError(f"{client}: {error}")
            started.version = ready.get("version")
            started.opened = negotiated(ready.get("connections"))
        except (KeyError, TypeError, ValueError) as exc:
            await started.kill()
            raise GoClientError(f"{client}: incomplete ready line: {exc!r}") from exc
        except BaseException:
            await started.kill()
            raise
        return started

    def _write(self, message: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(message).encode() + b"\n")

    async def _read(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = await self._process.stdout.readline()
        if not line:
            raise GoClientError(f"{self.client}: goclient exited{await self._exit_reason()}")
        return parse_line(line, self.client)

    async def _exit_reason(self) -> str:
        status = await self._process.wait()
        assert self._process.stderr is not None
        stderr = (await self._process.stderr.read()).decode(errors="replace").strip()
        return f" (status {status})" + (f": {stderr[-STDERR_TAIL:]}" if stderr else "")

    async def step(self, commands: Sequence[str], *, warmup: bool = False) -> IterationReport:
        """Run one iteration. A cancelled wait (the iteration timeout) kills the process:
        its next line would belong to the abandoned iteration."""
        if self.broken is not None:
            raise GoClientError(f"{self.client}: goclient stopped earlier: {self.broken}")
        try:
            self._write({"warmup": warmup, "commands": list(commands)})
            return iteration_report(await self._read(), self.client)
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
            error = last.get("error") or "goclient did not finish"
            raise GoClientError(f"{self.client}: {error}")

    async def kill(self) -> None:
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
            await self._process.wait()


class GoClientSession:
    """What every goclient session shares: each iteration one step, timed by the program,
    its phases added to ``phases``. A client's session adds ``run_iteration``: the outputs
    the runner validates, from ``step``'s report."""

    def __init__(self, process: GoClientProcess) -> None:
        self._process = process
        self._span: ReportedSpan | None = None
        self.phases = PhaseTimer()

    def take_span(self) -> ReportedSpan | None:
        """The last iteration's span as the program measured it (once)."""
        span, self._span = self._span, None
        return span

    async def step(self, commands: Sequence[str]) -> IterationReport:
        self._span = None
        report = await self._process.step(commands)
        self._span = ReportedSpan(report.started_ns, report.ended_ns, report.wall_ms)
        for name, milliseconds in report.phases_ms.items():
            self.phases.add(name, milliseconds / 1000.0)
        return report


def job_for(target: Target, port: int, timeout_s: float) -> dict[str, Any]:
    """A paced job against ``target`` on ``port``: no commands (each step brings its own)."""
    return {
        "host": target.host,
        "port": port,
        "username_env": USERNAME_ENV,
        "password_env": PASSWORD_ENV,
        "paced": True,
        "timeout_s": timeout_s,
    }


@asynccontextmanager
async def running(
    path: str,
    client: str,
    mode: str,
    job: dict[str, Any],
    target: Target,
    extra_env: dict[str, str] | None = None,
) -> AsyncIterator[GoClientProcess]:
    """One ``<path> <mode>`` process for the mode, ready; closing its input ends it (killed
    when the block fails)."""
    process = await GoClientProcess.start(path, client, mode, job, target, extra_env)
    try:
        yield process
    except BaseException:
        await process.kill()
        raise
    await process.close()
