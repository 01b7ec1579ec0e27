"""quic-go's HTTP/3 client (Go, package http3), the lab's floor client for HTTP/3, through
the program ``goclient-h3`` shipped in the runner's image (source: bench-runner/goclient/h3;
``BENCH_GOCLIENT_H3`` names another binary), driven as clients/goclient_process.py
describes. The program is named by the mode: ``h3/fresh-conn``, ``h3/keep-alive``,
``h3/batch-post``, ``h3/multi-cmd``, ``h3/resumed``, ``h3/0rtt``.

Each response is checked as the runner's HTTPS clients check theirs: HTTP 200, else the
iteration fails (425 Too Early named as such: the server refused the request in early
data). TLS inside QUIC travels encrypted, so what each connection negotiated comes from
quic-go: the ALPN protocol into ``alpn`` (as every HTTPS session reports it), the TLS
version, cipher suite, group and resumption into ``handshakes`` by the handshake tags'
names, and the connections whose early data the server accepted. quic-go also counts each
iteration's loss recovery (``take_recovery``), which the capture cannot see in QUIC.
"""

import os
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from http import HTTPStatus

from bench_runner.alpn import AlpnLog
from bench_runner.influx_schema import Tag
from bench_runner.modes.base import ClientRecovery, Session, Target
from bench_runner.modes.clients.device_api import HTTP_OK, REQUEST_TIMEOUT_S
from bench_runner.modes.clients.goclient_process import (
    GoClientError,
    GoClientProcess,
    GoClientSession,
    IterationReport,
    Negotiated,
    check_ok,
    job_for,
    program_version,
    running,
)
from bench_runner.modes.mode import Mode
from bench_runner.protocols.tls_hello import cipher_suite_name, group_name, version_name
from bench_runner.validation import IterationError, failure_summary

CLIENT = "quic-go"
GOCLIENT_H3_ENV = "BENCH_GOCLIENT_H3"
DEFAULT_GOCLIENT_H3 = "/usr/local/bin/goclient-h3"


def goclient_h3_path() -> str:
    return os.environ.get(GOCLIENT_H3_ENV, DEFAULT_GOCLIENT_H3)


def version() -> str:
    """``quic-go v0.65.0 (go1.26.8)``: the module version built into the program."""
    return program_version(goclient_h3_path())


def checked_outputs(report: IterationReport, commands: Sequence[str]) -> list[str]:
    """The response bodies, one per command or one for every command; IterationError for
    a failed iteration or a response other than HTTP 200."""
    check_ok(report, CLIENT)
    if len(report.outputs) == len(commands):
        labels = list(commands)
    elif len(report.outputs) == 1:
        labels = ["/".join(commands)]
    else:
        raise GoClientError(f"{CLIENT}: {len(report.outputs)} responses to {len(commands)}")
    if len(report.statuses) != len(report.outputs):
        raise GoClientError(f"{CLIENT}: {len(report.statuses)} statuses for {len(labels)}")
    for label, status, body in zip(labels, report.statuses, report.outputs, strict=True):
        if status == HTTPStatus.TOO_EARLY:
            raise IterationError(f"{label}: HTTP 425 Too Early (refused in early data)")
        if status != HTTP_OK:
            raise IterationError(f"{label}: HTTP {status}: {failure_summary(body)}")
    return report.outputs


class QuicHandshakes:
    """What each connection of a session negotiated, as quic-go reported it: per handshake
    tag (``tls_version``, ``tls_cipher``, ``tls_group``, ``tls_resumed``) each value with
    the connections that negotiated it, named as the wire decoder names them."""

    def __init__(self) -> None:
        self.connections = 0
        self.parameters: dict[str, Counter[str]] = {}
        self.early_data_accepted = 0
        """Connections whose 0-RTT data the server accepted."""

    def note(self, connection: Negotiated) -> None:
        self.connections += 1
        values = {
            Tag.TLS_VERSION: version_name(connection.tls_version),
            Tag.TLS_CIPHER: cipher_suite_name(connection.cipher_suite),
            Tag.TLS_RESUMED: "true" if connection.resumed else "false",
        }
        if connection.group is not None:
            values[Tag.TLS_GROUP] = group_name(connection.group)
        for tag, value in values.items():
            self.parameters.setdefault(tag, Counter())[value] += 1
        self.early_data_accepted += connection.used_0rtt


class QuicGoSession(GoClientSession):
    """A mode's session in ``goclient-h3``; ``alpn`` and ``handshakes`` count every
    connection it opened, from before ``ready`` to its last iteration."""

    def __init__(self, process: GoClientProcess) -> None:
        super().__init__(process)
        self.alpn = AlpnLog()
        self.handshakes = QuicHandshakes()
        self._recovery: ClientRecovery | None = None
        self._note(process.opened)

    def take_recovery(self) -> ClientRecovery | None:
        """The last iteration's loss recovery as quic-go counted it (once)."""
        recovery, self._recovery = self._recovery, None
        return recovery

    def _note(self, connections: list[Negotiated]) -> None:
        for connection in connections:
            # The program reports each connection once: counted as it comes.
            self.alpn.selected[connection.alpn] += 1
            self.handshakes.note(connection)

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        self._recovery = None
        report = await self.step(commands)
        self._recovery = report.recovery
        self._note(report.connections)
        return checked_outputs(report, commands)


@asynccontextmanager
async def session(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One ``goclient-h3 <mode>`` process for the mode against the device's UDP port,
    paced by the runner one iteration at a time; closing its input ends it."""
    job = job_for(target, mode.port(target), REQUEST_TIMEOUT_S)
    async with running(goclient_h3_path(), CLIENT, mode.name, job, target) as process:
        yield QuicGoSession(process)
