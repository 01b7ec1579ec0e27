"""Phases of an iteration: where its wall time goes, where the client lets us see it.

A session that records phases has a ``phases`` timer (``PhasedSession``); the runner
takes it before and after each measured iteration, as it does the socket trace. A phase
that occurs several times in an iteration (a connection per command, a request per
command) is summed. Phases never overlap within a session, so their sum is at most the
wall time (the rest is the client's own work between them: output checks, buffering).
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

from pydantic import BaseModel

from bench_runner.influx_schema import phase_field, phase_p50_field
from bench_runner.stats import percentile

PHASES: tuple[str, ...] = (
    "tcp_connect",  # SYN to established
    "key_exchange",  # SSH version lines, KEXINIT, key exchange, service request
    "auth",  # SSH user authentication
    "connect",  # a library's whole connection setup, where it is not split
    "jump_login",  # through a jump host: the login to the jump host
    "device_login",  # through a jump host: the device's login over its direct-tcpip channel
    "tls_handshake",  # TLS 1.3 handshake
    "channel_open",  # SSH channel open, with its exec / pty-req + shell requests
    "hello",  # NETCONF: subsystem channel and the hello exchange
    "send_request",  # HTTP request headers and body written
    "receive_headers",  # HTTP: waiting for the response status line and headers
    "receive_body",  # HTTP response body read
    "commands",  # CLI commands and their output
    "rpcs",  # NETCONF RPCs and gNMI calls, with their replies
    "close",  # connection / session teardown the client waits for
    "lan_connect",  # through the head-end: its SSH connect to the device (0 when pooled)
    "lan_commands",  # through the head-end: the commands on the device, across the LAN
    "headend",  # through the head-end: its own time besides the LAN's
    "wan_and_client",  # through the head-end: the rest (the WAN hop, TLS, the client)
)
"""Every phase name a session may record, in the order they happen: the CSV columns and
InfluxDB fields (``phase_<name>_ms``) are fixed by this list."""


class PhaseTimer:
    """Milliseconds per phase since the last ``take()``."""

    def __init__(self) -> None:
        self._totals: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        if name not in PHASES:
            raise ValueError(f"unknown phase {name!r}")
        self._totals[name] = self._totals.get(name, 0.0) + seconds * 1000.0

    @contextmanager
    def measure(self, name: str) -> Iterator[None]:
        """Time the block as ``name`` (only when it completes: a failed iteration's
        phases are not kept anyway)."""
        started = time.perf_counter()
        yield
        self.add(name, time.perf_counter() - started)

    def take(self) -> dict[str, float]:
        """Phases since the previous call, in ``PHASES`` order; starts a new count."""
        totals, self._totals = self._totals, {}
        return {name: totals[name] for name in PHASES if name in totals}


@runtime_checkable
class PhasedSession(Protocol):
    """A session whose client exposes its phases."""

    phases: PhaseTimer


class PhaseSummary(BaseModel):
    """A mode's phases (``modes[].phases`` in results.json)."""

    per_iteration: list[dict[str, float]]
    """Phase -> ms of every successful measured iteration, in run order."""
    p50_ms: dict[str, float]
    """Median of each phase over the iterations that recorded it."""


def summarize_phases(per_iteration: list[dict[str, float]]) -> PhaseSummary | None:
    if not any(per_iteration):
        return None
    p50: dict[str, float] = {}
    for name in PHASES:
        values = [phases[name] for phases in per_iteration if name in phases]
        if values:
            p50[name] = percentile(values, 0.5)
    return PhaseSummary(per_iteration=per_iteration, p50_ms=p50)


ITERATION_COLUMNS: tuple[str, ...] = tuple(phase_field(name) for name in PHASES)
"""Per-iteration CSV columns and InfluxDB ``iteration`` fields."""
SUMMARY_COLUMNS: tuple[str, ...] = tuple(phase_p50_field(name) for name in PHASES)
"""Per-mode CSV columns and InfluxDB ``mode_summary`` fields."""


def iteration_fields(phases: dict[str, float] | None) -> dict[str, float | None]:
    """``phase_<name>_ms`` of one iteration (None for phases it did not record)."""
    recorded = phases or {}
    return {
        column: recorded.get(name) for column, name in zip(ITERATION_COLUMNS, PHASES, strict=True)
    }


def summary_fields(summary: PhaseSummary | None) -> dict[str, float | None]:
    """``phase_<name>_p50_ms`` of a mode (None for phases it did not record)."""
    p50 = summary.p50_ms if summary is not None else {}
    return {column: p50.get(name) for column, name in zip(SUMMARY_COLUMNS, PHASES, strict=True)}
