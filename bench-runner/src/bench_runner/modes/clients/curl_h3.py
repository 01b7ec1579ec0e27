"""curl as people type it for HTTP/3: ``curl --http3-only``, a new process and QUIC
connection per command. The credentials reach it on its standard input (``--config -``),
never on its command line; its own timings (``--write-out %{json}``, on stderr) give the
phases inside the process."""

import asyncio
import contextlib
import json
import subprocess
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import cache
from typing import Any

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients.device_api import HTTP_OK, REQUEST_TIMEOUT_S, exec_path
from bench_runner.modes.mode import Mode
from bench_runner.phases import PhaseTimer
from bench_runner.validation import IterationError, failure_summary, first_line

HTTP_TOO_EARLY = 425
CURL_OPTIONS = (
    "--http3-only",
    "--silent",
    "--show-error",
    "--fail-with-body",
    # The lab device's certificate is self-signed and regenerated: not verified, as by
    # every client of the lab (bench_runner/tls.py).
    "--insecure",
    "--max-time",
    f"{REQUEST_TIMEOUT_S:g}",
    "--config",
    "-",
    "--write-out",
    "%{stderr}%{json}",
)
QUIC_STACKS = ("ngtcp2", "quiche", "msh3")
"""curl's QUIC libraries; without one, its TLS library does QUIC itself (OpenSSL 3.5)."""
CURL_PHASES = (
    ("tls_handshake", "time_appconnect"),
    ("send_request", "time_pretransfer"),
    ("receive_headers", "time_starttransfer"),
    ("receive_body", "time_total"),
)
"""Each phase ends at curl's timestamp (seconds since the transfer started); the first
starts at ``time_namelookup``. With QUIC, ``time_appconnect`` is the QUIC handshake."""


@cache
def version() -> str:
    """``curl 8.14.1, OpenSSL/3.5.9 (QUIC), nghttp3/1.8.0`` from ``curl -V``."""
    try:
        done = subprocess.run(
            ["curl", "-V"], capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return describe_version(done.stdout)


def describe_version(text: str) -> str:
    """curl's version, its QUIC stack and its HTTP/3 library, from ``curl -V``."""
    lines = text.splitlines()
    words = lines[0].split() if lines else []
    if len(words) < 2 or words[0] != "curl":
        return "unknown"
    name = f"curl {words[1]}"
    features = next((line.split()[1:] for line in lines if line.startswith("Features:")), [])
    if "HTTP3" not in features:
        return f"{name} (no HTTP/3)"
    libraries = {word.partition("/")[0]: word for word in words[2:] if "/" in word}
    # The TLS library follows libcurl's own word in curl -V's first line.
    tls = next(
        (words[i + 1] for i, word in enumerate(words[:-1]) if word.startswith("libcurl/")),
        "unknown",
    )
    quic = next((libraries[stack] for stack in QUIC_STACKS if stack in libraries), None)
    stack = f"{quic}, {tls}" if quic else f"{tls} (QUIC)"
    http3 = libraries.get("nghttp3")
    return ", ".join([name, stack, *([http3] if http3 else [])])


def config_text(target: Target) -> str:
    """curl's configuration on stdin: the credentials, quoted as curl's config reads them."""
    credentials = f"{target.username}:{target.password}"
    for raw, escaped in (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r")):
        credentials = credentials.replace(raw, escaped)
    return f'user = "{credentials}"\n'


def url(target: Target, path: str) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    return f"https://{host}:{target.h3_port}{path}"


def transfer_report(stderr: str) -> tuple[dict[str, Any], str]:
    """curl's ``%{json}`` (its last line on stderr) and the error lines before it."""
    head, _, last = stderr.rstrip("\n").rpartition("\n")
    try:
        report = json.loads(last)
    except ValueError:
        return {}, stderr.strip()
    return (report if isinstance(report, dict) else {}), head.strip()


def add_phases(phases: PhaseTimer, report: dict[str, Any]) -> None:
    """curl's timestamps as consecutive phases: each from the previous one's end, never
    backwards, so they add up to at most the transfer's time."""
    try:
        previous = float(report["time_namelookup"])
        for phase, key in CURL_PHASES:
            ended = max(previous, float(report[key]))
            phases.add(phase, ended - previous)
            previous = ended
    except (KeyError, TypeError, ValueError):
        return


class _ProcessPerCommand:
    def __init__(self, target: Target) -> None:
        self._target = target
        self._config = config_text(target).encode()
        self.phases = PhaseTimer()

    async def get(self, command: str) -> str:
        process = await asyncio.create_subprocess_exec(
            "curl",
            *CURL_OPTIONS,
            url(self._target, exec_path([command])),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            stdout, stderr = await process.communicate(self._config)
        finally:
            if process.returncode is None:  # cancelled (the iteration timed out)
                process.kill()
                with contextlib.suppress(ProcessLookupError):
                    await process.wait()
        body = stdout.decode("utf-8", errors="replace")
        report, errors = transfer_report(stderr.decode("utf-8", errors="replace"))
        status = report.get("http_code")
        if status == HTTP_TOO_EARLY:
            raise IterationError(f"{command}: HTTP 425 Too Early: the server refused early data")
        if process.returncode != 0 or status != HTTP_OK:
            reason = failure_summary(body) or first_line(errors)
            raise IterationError(
                f"{command}: curl exit status {process.returncode}, HTTP {status}: {reason}"
            )
        if report.get("http_version") != "3":
            raise IterationError(f"{command}: answered over HTTP/{report.get('http_version')}")
        add_phases(self.phases, report)
        return body

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return [await self.get(command) for command in commands]


@asynccontextmanager
async def process_per_command(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """A new curl process, and so a new QUIC connection, per command."""
    yield _ProcessPerCommand(target)
