"""Runs one mode: RTT probe, warm-up, measured iterations, each timed and validated."""

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import asyncssh
import httpx

from bench_runner.modes import IterationError, Mode, Session, Target
from bench_runner.phases import PhasedSession, summarize_phases
from bench_runner.resources import ResourceMonitor, ResourceUsage
from bench_runner.results import ModeResult
from bench_runner.roundtrips import RoundTrips, TracedSession
from bench_runner.rtt_probe import check_rtt, probe_rtt
from bench_runner.stats import percentile, summarize
from bench_runner.validation import validate_output
from bench_runner.wire.capture import WireCapture, open_capture
from bench_runner.wire.model import WireCounts, WireIteration, summarize_wire

# Failures of the transport itself; anything else is a bug in the runner and should crash.
TRANSPORT_ERRORS = (IterationError, TimeoutError, asyncssh.Error, httpx.HTTPError, OSError)
# A probe that fails the RTT gate is repeated after a pause, so a moment of CPU contention on
# the lab host does not discard a mode; a delay that is really off fails every attempt.
RTT_PROBE_ATTEMPTS = 3
RTT_REPROBE_PAUSE_S = 1.0


@dataclass(frozen=True)
class RunPlan:
    commands: tuple[str, ...]
    iterations: int
    warmup: int
    iteration_timeout_s: float
    rtt_gate: bool = True
    """False for targets whose latency netem does not set (real devices)."""
    device_metrics_url: str | None = None
    reference_port: int | None = None
    """An unimpaired TCP port of the target (the device metrics port in the lab): the RTT
    gate checks the delay added on the mode's port over this one."""


@dataclass(frozen=True)
class IterationRecord:
    """One measured iteration, as written to InfluxDB."""

    iteration: int
    started_at: datetime
    wall_ms: float
    error: str | None
    round_trips: int | None = None
    """Counted on the client's socket (modes that trace it), else None."""
    wire: WireIteration | None = None
    """Packets, bytes and round trips counted on the wire; None without a capture."""
    phases: dict[str, float] | None = None
    """Phase -> ms, for clients that expose their phases, else None."""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class ModeRun:
    result: ModeResult
    records: list[IterationRecord]


async def run_iteration(
    session: Session, commands: Sequence[str], timeout_s: float
) -> tuple[float, str | None]:
    """Wall time in ms of one iteration (perf_counter) and the failure reason, if any.
    Output validation happens after the clock stops, so it is not measured."""
    start = time.perf_counter()
    try:
        async with asyncio.timeout(timeout_s):
            outputs = await session.run_iteration(commands)
    except TRANSPORT_ERRORS as exc:
        wall_ms = (time.perf_counter() - start) * 1000.0
        return wall_ms, describe_failure(exc, timeout_s)
    wall_ms = (time.perf_counter() - start) * 1000.0
    labels = list(commands) if len(outputs) == len(commands) else ["/".join(commands)]
    try:
        for label, output in zip(labels, outputs, strict=True):
            validate_output(label, output)
    except IterationError as exc:
        return wall_ms, str(exc)
    return wall_ms, None


def describe_failure(exc: BaseException, timeout_s: float) -> str:
    if isinstance(exc, IterationError):
        return str(exc)
    if isinstance(exc, TimeoutError):
        return f"timed out after {timeout_s:g} s"
    return f"{type(exc).__name__}: {exc}".strip()


async def run_mode(
    mode: Mode,
    target: Target,
    plan: RunPlan,
    configured_rtt_ms: float,
    on_iteration: Callable[[bool], None],
) -> ModeRun:
    """Measure one mode. Every failure (probe, session, warm-up or measured iteration) is
    recorded with its reason and makes the mode not ok; nothing is retried."""
    mode_started_at = datetime.now(UTC)
    records: list[IterationRecord] = []
    error_messages: list[str] = []
    verified_rtt_ms = None
    rtt_probe = None
    resources: ResourceUsage | None = None
    rtt_check = None
    for attempt in range(1, RTT_PROBE_ATTEMPTS + 1):
        if attempt > 1:
            await asyncio.sleep(RTT_REPROBE_PAUSE_S)
        try:
            verified_rtt_ms, rtt_probe = await probe_rtt(
                target.host, mode.port(target), reference_port=plan.reference_port
            )
        except (OSError, TimeoutError) as exc:
            error_messages.append(f"rtt probe: {describe_failure(exc, 0)}")
            break
        rtt_check = check_rtt(configured_rtt_ms, verified_rtt_ms, applies=plan.rtt_gate,
                              attempts=attempt, reference_rtt_ms=rtt_probe.reference_rtt_ms)
        if rtt_check.passed:
            break
    if rtt_check is None:
        rtt_check = check_rtt(configured_rtt_ms, None, applies=plan.rtt_gate)
    elif not rtt_check.passed:
        error_messages.append(f"rtt gate: {rtt_check.reason} after {rtt_check.attempts} "
                              "probes; not measured, not published")

    capture: WireCapture | None = None
    wire_reason: str | None = None
    wire_segments: list[int] = []  # per record: its segment of the capture
    if rtt_probe is not None and rtt_check.passed:
        capture, wire_reason = await asyncio.to_thread(open_capture, target.host,
                                                       mode.wire_ports(target))
        try:
            async with mode.session(target) as session:
                for warmup_index in range(1, plan.warmup + 1):
                    _, error = await run_iteration(session, plan.commands, plan.iteration_timeout_s)
                    if error is not None:
                        error_messages.append(f"warm-up {warmup_index}: {error}")
                    on_iteration(error is None)
                trace = session.trace if isinstance(session, TracedSession) else None
                phases = session.phases if isinstance(session, PhasedSession) else None
                async with ResourceMonitor(plan.device_metrics_url) as monitor:
                    for iteration in range(1, plan.iterations + 1):
                        # Forget setup and earlier traffic: every count starts here.
                        if trace is not None:
                            trace.take_round_trips()
                        if phases is not None:
                            phases.take()
                        if capture is not None:
                            capture.mark()
                        started_at = datetime.now(UTC)
                        wall_ms, error = await run_iteration(
                            session, plan.commands, plan.iteration_timeout_s
                        )
                        if capture is not None:
                            wire_segments.append(capture.mark())
                        records.append(IterationRecord(
                            iteration, started_at, wall_ms, error,
                            round_trips=trace.take_round_trips() if trace is not None else None,
                            phases=(phases.take() or None) if phases is not None else None,
                        ))
                        if error is not None:
                            error_messages.append(f"iteration {iteration}: {error}")
                        on_iteration(error is None)
                resources = monitor.usage
        except TRANSPORT_ERRORS as exc:
            # Opening or closing the kept session failed; iterations already run stay recorded.
            error_messages.append(f"session: {describe_failure(exc, plan.iteration_timeout_s)}")
        finally:
            if capture is not None:
                # Parsed now, after the clock: an iteration's frames wait in the ring.
                counts = await asyncio.to_thread(capture.finish)
                if counts is not None:
                    records = [replace(record, wire=counts[segment])
                               for record, segment in zip(records, wire_segments, strict=True)]
                await asyncio.to_thread(capture.close)

    samples_ms = [record.wall_ms for record in records if record.ok]
    counted = [record.round_trips for record in records
               if record.ok and record.round_trips is not None]
    errors = sum(1 for record in records if not record.ok)
    succeeded = [record for record in records if record.ok]
    stats = summarize(samples_ms, errors, warmup_discarded=plan.warmup)
    transfer_bytes = mode.transfer_bytes()
    result = ModeResult(
        mode=mode.name,
        transport=mode.transport.value,
        client=mode.client,
        client_version=mode.client_version(),
        description=mode.description,
        iterations=plan.iterations,
        warmup=plan.warmup,
        commands=list(plan.commands),
        configured_rtt_ms=configured_rtt_ms,
        verified_rtt_ms=verified_rtt_ms,
        rtt_probe=rtt_probe,
        min_round_trips=mode.min_round_trips(len(plan.commands)),
        expected_round_trips=mode.expected_round_trips(len(plan.commands)),
        ok=not error_messages,
        stats=stats,
        samples_ms=samples_ms,
        error_messages=error_messages,
        rtt_check=rtt_check,
        published=rtt_check.passed,
        resources=resources,
        parameters=mode.parameters(),
        transfer_bytes=transfer_bytes,
        throughput_mb_s=transfer_bytes / stats.p50_ms / 1000.0
        if transfer_bytes is not None and stats.p50_ms else None,
        round_trips=RoundTrips(per_iteration=counted,
                               p50=percentile(counted, 0.5) if counted else None)
        if counted else None,
        wire=wire_counts(capture, wire_reason, succeeded) if rtt_check.passed else None,
        phases=summarize_phases([record.phases or {} for record in succeeded]),
        started_at=mode_started_at,
        finished_at=datetime.now(UTC),
    )
    return ModeRun(result=result, records=records)


def wire_counts(capture: WireCapture | None, reason: str | None,
                succeeded: list[IterationRecord]) -> WireCounts:
    """The mode's wire counts: null counts with the reason when there was no capture or
    it failed (never zeros), else every successful iteration's counts."""
    if capture is None or capture.error is not None:
        return WireCounts(available=False, reason=reason if capture is None else capture.error,
                          interface=capture.interface if capture else None,
                          filter=capture.filter if capture else None)
    counted = [record.wire for record in succeeded if record.wire is not None]
    caveat = None if capture.segments_known else (
        "this kernel does not report GSO segment sizes to packet sockets: segments and "
        "ip_bytes are null, packets are the aggregates the socket saw")
    return WireCounts(available=True, reason=caveat, interface=capture.interface,
                      filter=capture.filter, per_iteration=counted,
                      p50=summarize_wire(counted), capture_drops=capture.drops)
