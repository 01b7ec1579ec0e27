"""scrapligo (Go), through the program ``goclient`` shipped in the runner's image (source:
bench-runner/goclient; ``BENCH_GOCLIENT`` names another binary), driven as
clients/goclient_process.py describes.

The program runs a mode's iterations itself and reports each one; the runner keeps its
capture and its clock. The outputs are validated as the runner's own clients' are: CLI
outputs by ``validate_output``, NETCONF replies by ``check_reply`` against the message-id
their RPC carried. Closing its input ends the process (``netconf/edit-commit`` restores the
description first).
"""

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from bench_runner.modes.base import Session, Target
from bench_runner.modes.clients import goclient_process
from bench_runner.modes.clients.goclient_process import (
    GoClientSession,
    IterationReport,
    check_ok,
    program_version,
    running,
)
from bench_runner.modes.mode import Mode
from bench_runner.modes.row import NetconfValues
from bench_runner.protocols.netconf.messages import check_reply

CLIENT = "scrapligo"
GOCLIENT_ENV = "BENCH_GOCLIENT"
DEFAULT_GOCLIENT = "/usr/local/bin/goclient"
GO_TIMEOUT_S = 60.0
"""scrapligo's socket and operation timeouts (as the Python libraries' LIBRARY_TIMEOUT_S)."""


def goclient_path() -> str:
    return os.environ.get(GOCLIENT_ENV, DEFAULT_GOCLIENT)


def version() -> str:
    return program_version(goclient_path())


def outputs_to_validate(report: IterationReport) -> list[str]:
    """What the runner validates: the CLI outputs (one per command), or the NETCONF replies
    checked as the runner's NETCONF clients check theirs. IterationError for a failed
    iteration or a bad reply."""
    check_ok(report, CLIENT)
    if not report.replies:
        return report.outputs
    texts = [
        check_reply(reply.text.encode(), reply.message_id, reply.expect.encode())
        for reply in report.replies
    ]
    if any(reply.expect == "<ok" for reply in report.replies):
        return ["".join(texts)]  # edit-commit: one combined output, the commit is no command
    return texts


class ScrapligoSession(GoClientSession):
    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        return outputs_to_validate(await self.step(commands))


def job_for(target: Target, port: int, timeout_s: float, mode: Mode) -> dict[str, Any]:
    """The job for ``mode`` (its NETCONF parameters when it has them); paced, no commands."""
    job = goclient_process.job_for(target, port, timeout_s)
    if isinstance(mode.values, NetconfValues):
        job["framing"] = mode.values.framing
        job["reply_bytes"] = mode.values.reply_bytes
    return job


@asynccontextmanager
async def session(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One ``goclient <mode>`` process for the mode (and its parameters), paced by the
    runner one iteration at a time; closing its input ends it."""
    job = job_for(target, mode.port(target), GO_TIMEOUT_S, mode)
    async with running(goclient_path(), CLIENT, mode.name, job, target) as process:
        yield ScrapligoSession(process)
