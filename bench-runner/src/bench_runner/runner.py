"""Runs one mode: RTT probe, warm-up, measured iterations, each timed and validated."""

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import asyncssh
import httpx

from bench_runner.modes import IterationError, Mode, Session, Target
from bench_runner.phases import PhasedSession, summarize_phases
from bench_runner.profile_guard import Disturbance, ProfileGuard
from bench_runner.resources import ResourceMonitor, ResourceUsage
from bench_runner.results import ModeResult
from bench_runner.roundtrips import RoundTrips, TracedSession
from bench_runner.rtt_probe import RttCheck, RttProbe, check_rtt, probe_rtt
from bench_runner.stats import percentile, summarize
from bench_runner.validation import validate_output
from bench_runner.wire.capture import Segment, WireCapture, open_capture
from bench_runner.wire.model import WireCounts, WireIteration, summarize_wire
from bench_runner.wire.timeline import TimeSplit, summarize_splits

# Failures of the transport itself; anything else is a bug in the runner and should crash.
TRANSPORT_ERRORS = (IterationError, TimeoutError, asyncssh.Error, httpx.HTTPError, OSError)
# A probe that fails the RTT gate is repeated after a pause, so a moment of CPU contention on
# the lab host does not discard a mode; a delay that is really off fails every attempt.
RTT_PROBE_ATTEMPTS = 3
RTT_REPROBE_PAUSE_S = 1.0
GUARD_INTERVAL_S = 1.0
"""How often the profile guard asks netem between iterations: one cheap request a second,
outside the clock."""


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
    span_ns: tuple[int, int] | None = None
    """Start and end on the kernel's clock, for the time split."""
    round_trips: int | None = None
    """Counted on the client's socket (modes that trace it), else None."""
    wire: WireIteration | None = None
    """Packets, bytes and round trips counted on the wire; None without a capture."""
    phases: dict[str, float] | None = None
    """Phase -> ms, for clients that expose their phases, else None."""
    time_split: TimeSplit | None = None
    """Where the wall time went, from the captured packets; None without a capture."""
    excluded: str | None = None
    """Why a successful iteration is left out of every figure (the profile it claims may
    not have been in effect); None for a valid sample."""

    @property
    def ok(self) -> bool:
        """A valid sample: it succeeded and was not excluded."""
        return self.error is None and self.excluded is None


@dataclass(frozen=True)
class ModeRun:
    result: ModeResult
    records: list[IterationRecord]


@dataclass(frozen=True)
class Timing:
    """One iteration's wall time (perf_counter) and its span on the kernel's clock
    (CLOCK_REALTIME, which stamps the captured packets), read beside each other."""

    wall_ms: float
    started_ns: int
    ended_ns: int


async def run_iteration(
    session: Session, commands: Sequence[str], timeout_s: float
) -> tuple[Timing, str | None]:
    """The timing of one iteration and the failure reason, if any. Output validation
    happens after the clock stops, so it is not measured."""
    started_ns = time.time_ns()
    start = time.perf_counter()
    try:
        async with asyncio.timeout(timeout_s):
            outputs = await session.run_iteration(commands)
    except TRANSPORT_ERRORS as exc:
        wall_ms = (time.perf_counter() - start) * 1000.0
        return Timing(wall_ms, started_ns, time.time_ns()), describe_failure(exc, timeout_s)
    wall_ms = (time.perf_counter() - start) * 1000.0
    timing = Timing(wall_ms, started_ns, time.time_ns())
    labels = list(commands) if len(outputs) == len(commands) else ["/".join(commands)]
    try:
        for label, output in zip(labels, outputs, strict=True):
            validate_output(label, output)
    except IterationError as exc:
        return timing, str(exc)
    return timing, None


def describe_failure(exc: BaseException, timeout_s: float) -> str:
    if isinstance(exc, IterationError):
        return str(exc)
    if isinstance(exc, TimeoutError):
        return f"timed out after {timeout_s:g} s"
    return f"{type(exc).__name__}: {exc}".strip()


@dataclass(frozen=True)
class RttVerification:
    """The verified-RTT gate's outcome: passed, or the error message saying why not."""

    verified_rtt_ms: float | None
    probe: RttProbe | None
    check: RttCheck
    error: str | None


async def verify_rtt(target: Target, port: int, plan: RunPlan,
                     configured_rtt_ms: float) -> RttVerification:
    """Probe the mode's port until the RTT matches the profile, up to RTT_PROBE_ATTEMPTS."""
    verified_rtt_ms = None
    probe = None
    check = None
    for attempt in range(1, RTT_PROBE_ATTEMPTS + 1):
        if attempt > 1:
            await asyncio.sleep(RTT_REPROBE_PAUSE_S)
        try:
            verified_rtt_ms, probe = await probe_rtt(target.host, port,
                                                     reference_port=plan.reference_port)
        except (OSError, TimeoutError) as exc:
            return RttVerification(verified_rtt_ms, probe,
                                   check_rtt(configured_rtt_ms, None, applies=plan.rtt_gate),
                                   f"rtt probe: {describe_failure(exc, 0)}")
        check = check_rtt(configured_rtt_ms, verified_rtt_ms, applies=plan.rtt_gate,
                          attempts=attempt, reference_rtt_ms=probe.reference_rtt_ms)
        if check.passed:
            return RttVerification(verified_rtt_ms, probe, check, None)
    assert check is not None  # at least one attempt ran
    return RttVerification(verified_rtt_ms, probe, check,
                           f"rtt gate: {check.reason} after {check.attempts} probes")


class ProfileWatch:
    """Between iterations, whether the profile the samples claim is still in effect.

    Checked every ``GUARD_INTERVAL_S`` and right after a failed iteration (a fault). On a
    disturbance the iterations that may have run without the profile are excluded (kept,
    marked, out of every figure), the mode waits for netem to have the profile back and
    passes the RTT gate again before it measures on; if either fails it stops.
    """

    def __init__(self, guard: ProfileGuard, reverify: Callable[[], Awaitable[str | None]],
                 records: list[IterationRecord], error_messages: list[str]) -> None:
        self._guard = guard
        self._reverify = reverify
        self._records = records
        self._errors = error_messages
        self._checked_at = time.monotonic()
        self._unconfirmed_from = 0
        """Index of the first record since the last check that found nothing."""

    def due(self) -> bool:
        failed = bool(self._records) and self._records[-1].error is not None
        return failed or time.monotonic() - self._checked_at >= GUARD_INTERVAL_S

    async def confirm(self, *, recover: bool) -> bool:
        """False when the mode must stop: the profile did not come back."""
        disturbance = await asyncio.to_thread(self._guard.check)
        self._checked_at = time.monotonic()
        if disturbance is not None:
            excluded = self._exclude(disturbance)
            self._errors.append(f"{excluded} iterations excluded, the profile was not "
                                f"verified while they ran: {disturbance.reason}")
        self._unconfirmed_from = len(self._records)
        if disturbance is None or not recover:
            return True
        problem = await asyncio.to_thread(self._guard.wait_until_applied)
        if problem is None:
            problem = await self._reverify()
        if problem is not None:
            self._errors.append(f"stopped after a fault: {problem}")
            return False
        self._checked_at = time.monotonic()
        return True

    def _exclude(self, disturbance: Disturbance) -> int:
        """Mark the successful iterations that may have run without the profile: those
        that ended after the change when it is dated, else every one since the last
        check."""
        reason = f"profile not verified: {disturbance.reason}"
        excluded = 0
        for index, record in enumerate(self._records):
            if record.error is not None or record.excluded is not None:
                continue
            ended_at = record.started_at + timedelta(milliseconds=record.wall_ms)
            affected = (index >= self._unconfirmed_from if disturbance.since is None
                        else ended_at >= disturbance.since)
            if affected:
                self._records[index] = replace(record, excluded=reason)
                excluded += 1
        return excluded


async def run_mode(
    mode: Mode,
    target: Target,
    plan: RunPlan,
    configured_rtt_ms: float,
    on_iteration: Callable[[bool], None],
    guard: ProfileGuard | None = None,
) -> ModeRun:
    """Measure one mode. Every failure (probe, session, warm-up or measured iteration) is
    recorded with its reason and makes the mode not ok; nothing is retried. With a
    ``guard``, iterations run while the profile was not in effect are excluded."""
    mode_started_at = datetime.now(UTC)
    records: list[IterationRecord] = []
    error_messages: list[str] = []
    resources: ResourceUsage | None = None
    gate = await verify_rtt(target, mode.port(target), plan, configured_rtt_ms)
    verified_rtt_ms, rtt_probe, rtt_check = gate.verified_rtt_ms, gate.probe, gate.check
    if gate.error is not None:
        error_messages.append(gate.error + ("; not measured, not published"
                                            if rtt_probe is not None else ""))

    async def reverify() -> str | None:
        again = await verify_rtt(target, mode.port(target), plan, configured_rtt_ms)
        return again.error

    capture: WireCapture | None = None
    wire_reason: str | None = None
    wire_segments: list[int] = []  # per record: its segment of the capture
    if rtt_probe is not None and verified_rtt_ms is not None and rtt_check.passed:
        capture, wire_reason = await asyncio.to_thread(
            open_capture, target.host, mode.wire_ports(target), int(verified_rtt_ms * 1e6))
        try:
            async with mode.session(target) as session:
                for warmup_index in range(1, plan.warmup + 1):
                    _, error = await run_iteration(session, plan.commands,
                                                   plan.iteration_timeout_s)
                    if error is not None:
                        error_messages.append(f"warm-up {warmup_index}: {error}")
                    on_iteration(error is None)
                trace = session.trace if isinstance(session, TracedSession) else None
                phases = session.phases if isinstance(session, PhasedSession) else None
                watch = (ProfileWatch(guard, reverify, records, error_messages)
                         if guard is not None else None)
                async with ResourceMonitor(plan.device_metrics_url) as monitor:
                    for iteration in range(1, plan.iterations + 1):
                        if watch is not None and watch.due() \
                                and not await watch.confirm(recover=True):
                            break
                        # Forget setup and earlier traffic: every count starts here.
                        if trace is not None:
                            trace.take_round_trips()
                        if phases is not None:
                            phases.take()
                        if capture is not None:
                            capture.mark()
                        started_at = datetime.now(UTC)
                        timing, error = await run_iteration(
                            session, plan.commands, plan.iteration_timeout_s
                        )
                        if capture is not None:
                            wire_segments.append(capture.mark())
                        records.append(IterationRecord(
                            iteration, started_at, timing.wall_ms, error,
                            span_ns=(timing.started_ns, timing.ended_ns),
                            round_trips=trace.take_round_trips() if trace is not None else None,
                            phases=(phases.take() or None) if phases is not None else None,
                        ))
                        if error is not None:
                            error_messages.append(f"iteration {iteration}: {error}")
                        on_iteration(error is None)
                    if watch is not None:
                        await watch.confirm(recover=False)
                resources = monitor.usage
        except TRANSPORT_ERRORS as exc:
            # Opening or closing the kept session failed; iterations already run stay recorded.
            error_messages.append(f"session: {describe_failure(exc, plan.iteration_timeout_s)}")
        finally:
            if capture is not None:
                # Parsed now, after the clock: an iteration's frames wait in the ring.
                segments = await asyncio.to_thread(capture.finish)
                if segments is not None:
                    records = [with_wire(record, segments[index])
                               for record, index in zip(records, wire_segments, strict=True)]
                await asyncio.to_thread(capture.close)

    samples_ms = [record.wall_ms for record in records if record.ok]
    counted = [record.round_trips for record in records
               if record.ok and record.round_trips is not None]
    errors = sum(1 for record in records if record.error is not None)
    excluded = sum(1 for record in records if record.excluded is not None)
    succeeded = [record for record in records if record.ok]
    stats = summarize(samples_ms, errors, warmup_discarded=plan.warmup, excluded=excluded)
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
        time_split=summarize_splits(
            verified_rtt_ms, [record.time_split for record in succeeded
                              if record.time_split is not None])
        if verified_rtt_ms is not None else None,
        started_at=mode_started_at,
        finished_at=datetime.now(UTC),
    )
    return ModeRun(result=result, records=records)


def with_wire(record: IterationRecord, segment: Segment) -> IterationRecord:
    """The record with its captured counts and, given its span, its time split."""
    split = None
    if record.span_ns is not None:
        split = segment.timeline.split(*record.span_ns, record.wall_ms)
    return replace(record, wire=segment.counts(), time_split=split)


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
