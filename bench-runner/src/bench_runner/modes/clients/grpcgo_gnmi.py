"""grpc-go with openconfig/gnmi's proto (Go), the lab's floor client for gNMI, through the
program ``goclient-gnmi`` shipped in the runner's image (source: bench-runner/goclient/gnmi;
``BENCH_GOCLIENT_GNMI`` names another binary), driven as clients/goclient_process.py
describes. The program is named by the mode (``gnmi/fresh-conn``, ``gnmi/reuse-conn``,
``gnmi/get-multi``, ``gnmi/set-batch``, ``gnmi/subscribe-once``, ``gnmi/subscribe-poll``,
``gnmi/stream``).

The program discovers the device's interfaces itself (a Get of /interfaces before its
``ready``), maps command i of an iteration onto interface ((i-1) mod k)+1 and answers each
read with the values of the Get or Subscribe (JSON_IETF), each Set with the device's
results. What each channel's TLS negotiated is read from the capture's hellos, as for the
HTTPS clients; the ALPN protocol, which TLS 1.3 encrypts, from grpc-go.

gnmi/stream is measured differently (docs/gnmi.md): each iteration changes a description
over a second channel and the program reports the update that announced it, with the
device's timestamp of the change and the time it arrived; the iteration's value is their
difference (both on CLOCK_REALTIME, which the lab's containers share), not a time the
runner or the program measured around a request. After the measured iterations the session
runs ``goclient-gnmi gnmi/sample-rate`` once: how many updates one SAMPLE subscription at the
lab's 1 ms floor delivers per second (``stream``, results.json ``modes[].stream``).
"""

import json
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from bench_runner.alpn import AlpnLog
from bench_runner.modes.base import ReportedSpan, Session, StreamRate, Target
from bench_runner.modes.clients.device_api import REQUEST_TIMEOUT_S
from bench_runner.modes.clients.goclient_process import (
    GoClientError,
    GoClientProcess,
    GoClientSession,
    Negotiated,
    check_ok,
    job_for,
    program_version,
    running,
)
from bench_runner.modes.mode import Mode

CLIENT = "grpc-go"
GOCLIENT_GNMI_ENV = "BENCH_GOCLIENT_GNMI"
DEFAULT_GOCLIENT_GNMI = "/usr/local/bin/goclient-gnmi"
TLS_VERIFY_ENV = "GOCLIENT_GNMI_TLS_VERIFY"
"""Set to 1 for the program when the target verifies the device's certificate."""
SAMPLE_RATE = "gnmi/sample-rate"
SAMPLE_TIMEOUT_S = 30.0
"""The sample window is 2 s; the rest is the channel and the subscription's setup."""


def goclient_gnmi_path() -> str:
    return os.environ.get(GOCLIENT_GNMI_ENV, DEFAULT_GOCLIENT_GNMI)


def version() -> str:
    """``grpc-go v1.85.0, openconfig/gnmi v0.14.1 (go1.26.8)``: the module versions built
    into the program."""
    return program_version(goclient_gnmi_path())


def program_env(target: Target) -> dict[str, str]:
    """What the program is told beyond its job: whether to verify the certificate."""
    return {TLS_VERIFY_ENV: "1" if target.gnmi_tls_verify else "0"}


class GrpcGoSession(GoClientSession):
    """A mode's session in ``goclient-gnmi``; ``alpn`` counts every channel it opened."""

    def __init__(self, process: GoClientProcess) -> None:
        super().__init__(process)
        self.alpn = AlpnLog()
        self.note(process.opened)

    def note(self, connections: list[Negotiated]) -> None:
        """Count the ALPN protocol of each channel opened."""
        for connection in connections:
            self.alpn.selected[connection.alpn] += 1

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        report = await self.step(commands)
        self.note(report.connections)
        check_ok(report, CLIENT)
        return report.outputs


@dataclass(frozen=True)
class Update:
    """One update of gnmi/stream as the program reported it."""

    value: str
    interface: str
    device_ns: int
    """When the device made the change (its timestamp on the update)."""
    received_ns: int
    """When the program received the update."""

    @property
    def delay_ns(self) -> int:
        return self.received_ns - self.device_ns


def parse_update(output: str) -> Update:
    """The program's output for one gnmi/stream iteration; GoClientError when malformed or
    when the update arrived before the change it reports (clocks not shared)."""
    try:
        fields: dict[str, Any] = json.loads(output)
        update = Update(
            value=str(fields["value"]),
            interface=str(fields["interface"]),
            device_ns=int(fields["timestamp_ns"]),
            received_ns=int(fields["received_ns"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise GoClientError(f"{CLIENT}: unreadable stream update {output[:120]!r}") from exc
    if update.device_ns <= 0 or update.delay_ns < 0:
        raise GoClientError(
            f"{CLIENT}: update of {update.interface} received {update.delay_ns} ns after "
            "its device timestamp (do the device and the runner share a clock?)"
        )
    return update


def parse_rate(output: str) -> StreamRate:
    """The program's output for one gnmi/sample-rate window."""
    try:
        fields: dict[str, Any] = json.loads(output)
        updates = int(fields["updates"])
        window_s = float(fields["window_s"])
        return StreamRate(
            updates_per_second=updates / window_s,
            updates=updates,
            window_s=window_s,
            sample_interval_ms=float(fields["sample_interval_ms"]),
            path=str(fields["path"]),
        )
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
        raise GoClientError(f"{CLIENT}: unreadable sample rate {output[:120]!r}") from exc


class StreamSession(GrpcGoSession):
    """gnmi/stream: each iteration's span runs from the device's timestamp of the change
    to the update's arrival; ``stream`` is the sample subscription's rate, once measured."""

    def __init__(self, process: GoClientProcess) -> None:
        super().__init__(process)
        self.stream: StreamRate | None = None

    async def run_iteration(self, commands: Sequence[str]) -> list[str]:
        outputs = await super().run_iteration(commands)
        if len(outputs) != 1:
            raise GoClientError(f"{CLIENT}: {len(outputs)} stream updates for one change")
        update = parse_update(outputs[0])
        self._span = ReportedSpan(update.device_ns, update.received_ns, update.delay_ns / 1e6)
        return [update.value]


async def sample_rate(
    target: Target, port: int, commands: Sequence[str]
) -> tuple[StreamRate, list[Negotiated]]:
    """One window of ``goclient-gnmi gnmi/sample-rate`` on a channel of its own, and what
    that channel negotiated."""
    job = job_for(target, port, SAMPLE_TIMEOUT_S)
    path = goclient_gnmi_path()
    async with running(path, CLIENT, SAMPLE_RATE, job, target, program_env(target)) as process:
        report = await process.step(commands)
    check_ok(report, CLIENT)
    if len(report.outputs) != 1:
        raise GoClientError(f"{CLIENT}: {len(report.outputs)} sample rates for one window")
    return parse_rate(report.outputs[0]), [*process.opened, *report.connections]


@asynccontextmanager
async def session(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """One ``goclient-gnmi <mode>`` process for the mode against the device's gNMI port,
    paced by the runner one iteration at a time; closing its input ends it (and puts back
    the descriptions a writing mode changed)."""
    job = job_for(target, mode.port(target), REQUEST_TIMEOUT_S)
    path = goclient_gnmi_path()
    async with running(path, CLIENT, mode.name, job, target, program_env(target)) as process:
        yield GrpcGoSession(process)


@asynccontextmanager
async def stream_session(mode: Mode, target: Target) -> AsyncIterator[Session]:
    """gnmi/stream's process; once its iterations are done, one sample-rate window (not an
    iteration: its rate goes into ``stream``)."""
    job = job_for(target, mode.port(target), REQUEST_TIMEOUT_S)
    path = goclient_gnmi_path()
    async with running(path, CLIENT, mode.name, job, target, program_env(target)) as process:
        stream = StreamSession(process)
        yield stream
    stream.stream, sampled = await sample_rate(target, mode.port(target), ["sample"])
    stream.note(sampled)
