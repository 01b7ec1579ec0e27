"""Runs one mode in three steps: the gate (the verified-RTT check), the measurement
(session, warm-up, measured iterations with the profile watch and the wire capture), and
the assembly of its result from the records. Every failure is recorded with its reason and
makes the mode not ok; nothing is retried."""

import asyncio
import itertools
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from bench_runner import loss_model
from bench_runner.alpn import AlpnReportingSession
from bench_runner.hop_split import relay_lan_ms, split_hops, summarize_hops
from bench_runner.modes import Mode, Session, Target
from bench_runner.modes.base import (
    QUIC,
    ClientRecovery,
    LanCountingSession,
    RecoveryReportingSession,
    SelfTimedSession,
    StreamRate,
    StreamRateSession,
)
from bench_runner.phases import PhasedSession, summarize_phases
from bench_runner.precision import StoppingRule, StopReason
from bench_runner.profile_guard import Guard
from bench_runner.profile_watch import ProfileWatch
from bench_runner.resources import ResourceMonitor, ResourceUsage
from bench_runner.results import IterationRecord, LanRtt, ModeResult, ModeRun, StreamSummary
from bench_runner.roundtrips import RoundTrips, TracedSession, earliest_answer_ns
from bench_runner.rtt_probe import RttCheck, RttProbe, check_rtt, probe_rtt
from bench_runner.stats import percentile, summarize
from bench_runner.validation import IterationError, validate_output
from bench_runner.wire.bpf import Protocol
from bench_runner.wire.capture import Segment, WireCapture, open_capture
from bench_runner.wire.handshake_model import Handshakes, summarize_handshakes, unavailable
from bench_runner.wire.handshakes import decode
from bench_runner.wire.model import (
    WireCounts,
    WireIteration,
    recovered_iterations,
    summarize_wire,
)
from bench_runner.wire.quic_handshakes import decode_quic
from bench_runner.wire.timeline import Span, summarize_splits

# Failures of the transport itself; anything else is a bug in the runner and should crash.
SESSION_ERRORS = (Exception,)
"""What fails an iteration (or a kept session) instead of the run: the runner's own
IterationError and timeouts, and whatever a client library raises, whose error types the
runner does not know (paramiko's IncompatiblePeer when the device offers no key exchange it
implements, ssh2-python's, scrapli's, requests'). The failure is recorded with the error's type
and message, and never makes a number; cancellation and interrupts still stop the run."""
# A probe that fails the RTT gate is repeated after a pause, so a spell of CPU contention on
# the lab host does not discard a mode (the fastest of ten connects 3.4 ms late, three probes a
# second apart, on a shared machine on 2026-11-28); a delay that is really off fails every
# attempt. A passing first probe, the usual case, costs nothing more.
RTT_PROBE_ATTEMPTS = 5
RTT_REPROBE_PAUSE_S = 2.0


@dataclass(frozen=True)
class LanPlan:
    """The LAN hop of the relayed modes: the device's own netem profile, which is all that
    delays the relay's path to the device (and the runner's: the same single impairment)."""

    profile: str
    configured_rtt_ms: float
    jitter_ms: float = 0.0


@dataclass(frozen=True)
class RunPlan:
    commands: tuple[str, ...]
    stopping: StoppingRule
    """When the measured iterations stop: a fixed count, or once the median is precise."""
    warmup: int
    iteration_timeout_s: float
    rtt_gate: bool = True
    """False for targets whose latency netem does not set (real devices)."""
    device_metrics_url: str | None = None
    reference_port: int | None = None
    """An unimpaired TCP port of the target (the device metrics port in the lab): the RTT
    gate checks the delay added on the mode's port over this one."""
    configured_jitter_ms: float = 0.0
    """The profile's jitter: the RTT gate's fastest connect may be this much faster."""
    configured_loss_pct: float = 0.0
    """The profile's loss each way, which the loss model weighs the mode's packets by."""
    bulk_iterations: int | None = None
    """A fixed count of measured iterations for the modes that move a payload (a plan's
    ``tunnel_bulk_iterations``: a 1 GB download is not repeated until precise); None: as
    the others."""
    relay_reference_port: int | None = None
    """An unimpaired TCP port on the relay (netem-wan's API): the WAN gate's reference for
    the relayed modes."""
    lan: "LanPlan | None" = None
    """The LAN hop behind the relay, verified for every relayed mode; None where the lab
    does not set it (a real site's devices may be reachable only through the relay)."""

    def for_mode(self, mode: Mode) -> "RunPlan":
        """The plan as it applies to ``mode``."""
        if mode.transfer_bytes() is not None and self.bulk_iterations is not None:
            return replace(
                self, stopping=replace(self.stopping, fixed_iterations=self.bulk_iterations)
            )
        return self


async def run_mode(
    mode: Mode,
    target: Target,
    plan: RunPlan,
    configured_rtt_ms: float,
    on_iteration: Callable[[bool], None],
    guard: Guard | None = None,
) -> ModeRun:
    """Measure one mode: gate, measure, assemble. With a ``guard``, iterations run while
    the profile was not in effect are excluded."""
    plan = plan.for_mode(mode)
    started_at = datetime.now(UTC)
    gate, lan_gate = await verify_path(mode, target, plan, configured_rtt_ms)
    measurement = None
    if gate.passed and (lan_gate is None or lan_gate.passed):
        assert gate.verified_rtt_ms is not None  # a passed gate has verified it

        async def reverify() -> str | None:
            again, lan_again = await verify_path(mode, target, plan, configured_rtt_ms)
            return again.error or (lan_again.error if lan_again is not None else None)

        measurement = await measure(
            mode, target, plan, gate.verified_rtt_ms, on_iteration, guard, reverify
        )
        if mode.relayed:
            lan_rtt_ms = lan_gate.verified_rtt_ms if lan_gate is not None else None
            measurement = replace(
                measurement, records=with_hop_splits(measurement.records, lan_rtt_ms)
            )
    result = assemble(
        mode, plan, configured_rtt_ms, gate, measurement, started_at, datetime.now(UTC), lan_gate
    )
    return ModeRun(result=result, records=measurement.records if measurement else [])


# --- gate -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RttVerification:
    """The verified-RTT gate's outcome: passed, or the error message saying why not."""

    verified_rtt_ms: float | None
    probe: RttProbe | None
    check: RttCheck
    error: str | None

    @property
    def passed(self) -> bool:
        """The mode may be measured: the probe answered and its RTT matched the profile."""
        return self.error is None

    def refusal(self) -> str | None:
        """Why the mode is not measured, as its first error message; None when it passed."""
        if self.error is None or self.probe is None:
            return self.error
        return f"{self.error}; not measured, not published"


async def verify_path(
    mode: Mode, target: Target, plan: RunPlan, configured_rtt_ms: float
) -> tuple[RttVerification, RttVerification | None]:
    """The gate of the mode's own port (the relay's, for a relayed mode: the WAN hop) and,
    for a relayed mode whose LAN hop the lab sets, the gate of the device's SSH port against
    the LAN profile (None otherwise)."""
    if not mode.relayed:
        gate = await verify_rtt(
            target.host,
            mode.port(target),
            configured_rtt_ms,
            applies=plan.rtt_gate,
            reference_port=plan.reference_port,
            jitter_ms=plan.configured_jitter_ms,
            quic_port=wire_protocol(mode) is Protocol.UDP,
        )
        return gate, None
    wan = await verify_rtt(
        mode.host(target),
        mode.port(target),
        configured_rtt_ms,
        applies=plan.rtt_gate,
        reference_port=plan.relay_reference_port,
        jitter_ms=plan.configured_jitter_ms,
        quic_port=wire_protocol(mode) is Protocol.UDP,
    )
    if plan.lan is None:
        return wan, None
    lan = await verify_rtt(
        target.host,
        target.ssh_port,
        plan.lan.configured_rtt_ms,
        applies=plan.rtt_gate,
        reference_port=plan.reference_port,
        jitter_ms=plan.lan.jitter_ms,
    )
    if lan.error is not None:
        lan = replace(lan, error=f"LAN hop ({plan.lan.profile}): {lan.error}")
    return wan, lan


async def verify_rtt(
    host: str,
    port: int,
    configured_rtt_ms: float,
    *,
    applies: bool,
    reference_port: int | None,
    jitter_ms: float,
    quic_port: bool = False,
) -> RttVerification:
    """Probe ``port`` until the RTT matches the profile, up to RTT_PROBE_ATTEMPTS (a
    ``quic_port`` with QUIC Version Negotiation exchanges, else with TCP connects)."""
    verified_rtt_ms = None
    probe = None
    check = None
    for attempt in range(1, RTT_PROBE_ATTEMPTS + 1):
        if attempt > 1:
            await asyncio.sleep(RTT_REPROBE_PAUSE_S)
        try:
            verified_rtt_ms, probe = await probe_rtt(
                host, port, reference_port=reference_port, quic_port=quic_port
            )
        except (OSError, TimeoutError) as exc:
            return RttVerification(
                verified_rtt_ms,
                probe,
                check_rtt(configured_rtt_ms, None, applies=applies),
                f"rtt probe: {describe_failure(exc, 0)}",
            )
        check = check_rtt(
            configured_rtt_ms,
            verified_rtt_ms,
            applies=applies,
            attempts=attempt,
            reference_rtt_ms=probe.reference_rtt_ms,
            jitter_ms=jitter_ms,
        )
        if check.passed:
            return RttVerification(verified_rtt_ms, probe, check, None)
    assert check is not None  # at least one attempt ran
    return RttVerification(
        verified_rtt_ms, probe, check, f"rtt gate: {check.reason} after {check.attempts} probes"
    )


# --- measure --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measurement:
    """What measuring a mode produced: its records (with their wire counts and time split),
    every failure, the resources used, the mode's wire counts and its connections'
    handshakes."""

    records: list[IterationRecord]
    error_messages: list[str]
    resources: ResourceUsage | None
    """None when the session failed before the measured iterations ended."""
    wire: WireCounts
    handshakes: Handshakes
    stop_reason: StopReason
    """Why the measured iterations ended."""
    stream: StreamRate | None = None
    """A streaming mode's update rate, measured as its session closed."""


async def measure(
    mode: Mode,
    target: Target,
    plan: RunPlan,
    verified_rtt_ms: float,
    on_iteration: Callable[[bool], None],
    guard: Guard | None,
    reverify: Callable[[], Awaitable[str | None]],
) -> Measurement:
    """Open what the mode keeps (not measured), run the warm-up (discarded), then the
    measured iterations while sampling resources and capturing the mode's packets; with a
    ``guard``, the profile is watched between iterations (``reverify``: the gate again)."""
    records: list[IterationRecord] = []
    errors: list[str] = []
    resources = None
    # In the worker thread: a fleet mode asks the device for its fleet's addresses.
    capture, wire_reason = await asyncio.to_thread(
        lambda: open_capture(
            wire_hosts(mode, target),
            mode.wire_ports(target),
            int(verified_rtt_ms * 1e6),
            wire_protocol(mode),
        )
    )
    wire_segments: list[int] = []  # per record: its segment of the capture
    reported: list[ClientRecovery | None] = []  # per record: what its client counted
    alpn: Counter[str | None] | None = None  # the library's, if it reports them
    handshakes = unavailable(wire_reason)
    rate_session: StreamRateSession | None = None
    stop_reason: StopReason | None = None  # None until the rule ends the loop: aborted
    try:
        async with mode.session(target) as session:
            if isinstance(session, StreamRateSession):
                rate_session = session
            if isinstance(session, AlpnReportingSession):
                alpn = session.alpn.selected
            for warmup_index in range(1, plan.warmup + 1):
                _, error = await run_iteration(session, plan.commands, plan.iteration_timeout_s)
                if error is not None:
                    errors.append(f"warm-up {warmup_index}: {error}")
                on_iteration(error is None)
            trace = session.trace if isinstance(session, TracedSession) else None
            answer_after_ns = earliest_answer_ns(int(verified_rtt_ms * 1e6))
            phases = session.phases if isinstance(session, PhasedSession) else None
            watch = ProfileWatch(guard, reverify, records, errors) if guard is not None else None
            async with ResourceMonitor(plan.device_metrics_url) as monitor:
                first_started = time.monotonic()
                for iteration in itertools.count(1):
                    if watch is not None and watch.due() and not await watch.confirm(recover=True):
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
                        wire_segments.append(capture.mark(timing.span()))
                        reported.append(
                            session.take_recovery()
                            if isinstance(session, RecoveryReportingSession)
                            else None
                        )
                    records.append(
                        IterationRecord(
                            iteration,
                            started_at,
                            timing.wall_ms,
                            error,
                            round_trips=(
                                trace.take_round_trips(answer_after_ns)
                                if trace is not None
                                else None
                            ),
                            phases=(phases.take() or None) if phases is not None else None,
                            lan_round_trips=(
                                session.take_lan_round_trips()
                                if isinstance(session, LanCountingSession)
                                else None
                            ),
                        )
                    )
                    if error is not None:
                        errors.append(f"iteration {iteration}: {error}")
                    on_iteration(error is None)
                    stop_reason = plan.stopping.stop_reason(
                        [record.wall_ms for record in records if record.ok],
                        iteration,
                        time.monotonic() - first_started,
                    )
                    if stop_reason is not None:
                        break
                if watch is not None:
                    await watch.confirm(recover=False)
            resources = monitor.usage
    except SESSION_ERRORS as exc:
        # Opening or closing the kept session failed; iterations already run stay recorded.
        errors.append(f"session: {describe_failure(exc, plan.iteration_timeout_s)}")
    finally:
        if capture is not None:
            # Parsed now, after the clock: an iteration's frames wait in the ring.
            segments = await asyncio.to_thread(capture.finish)
            if segments is not None:
                records = [
                    with_wire(record, segments[index], recovery)
                    for record, index, recovery in zip(
                        records, wire_segments, reported, strict=True
                    )
                ]
            handshakes = await asyncio.to_thread(read_handshakes, capture, alpn, mode.client)
            await asyncio.to_thread(capture.close)
    succeeded = [record for record in records if record.ok]
    return Measurement(
        records,
        errors,
        resources,
        wire_counts(capture, wire_reason, succeeded),
        handshakes,
        stop_reason or "aborted",
        rate_session.stream if rate_session is not None else None,
    )


# --- assemble -------------------------------------------------------------------------------


def assemble(
    mode: Mode,
    plan: RunPlan,
    configured_rtt_ms: float,
    gate: RttVerification,
    measurement: Measurement | None,
    started_at: datetime,
    finished_at: datetime,
    lan_gate: RttVerification | None = None,
) -> ModeResult:
    """The mode's result from the gates' outcome (the LAN hop's too, for a relayed mode) and
    what was measured (None when a gate refused the mode): figures from the valid samples
    only."""
    records = measurement.records if measurement is not None else []
    refusals = [gate.refusal(), lan_gate.refusal() if lan_gate is not None else None]
    error_messages = [refusal for refusal in refusals if refusal is not None] + (
        measurement.error_messages if measurement is not None else []
    )
    succeeded = [record for record in records if record.ok]
    samples_ms = [record.wall_ms for record in succeeded]
    counted = [record.round_trips for record in succeeded if record.round_trips is not None]
    stats = summarize(
        samples_ms,
        sum(1 for record in records if record.error is not None),
        warmup_discarded=plan.warmup,
        excluded=sum(1 for record in records if record.excluded is not None),
    )
    transfer_bytes = mode.transfer_bytes()
    splits = [record.time_split for record in succeeded if record.time_split is not None]
    hop_splits = [record.hop_split for record in succeeded if record.hop_split is not None]
    return ModeResult(
        mode=mode.name,
        transport=mode.transport.value,
        client=mode.client,
        client_version=mode.client_version(),
        description=mode.description,
        iterations=len(records),
        warmup=plan.warmup,
        commands=list(plan.commands),
        configured_rtt_ms=configured_rtt_ms,
        verified_rtt_ms=gate.verified_rtt_ms,
        rtt_probe=gate.probe,
        min_round_trips=mode.min_round_trips(len(plan.commands)),
        expected_round_trips=mode.expected_round_trips(len(plan.commands)),
        connections_per_iteration=mode.connections_per_iteration(len(plan.commands)),
        commands_per_request=mode.commands_per_request(len(plan.commands)),
        ok=not error_messages,
        stats=stats,
        samples_ms=samples_ms,
        error_messages=error_messages,
        rtt_check=gate.check,
        published=gate.check.passed and (lan_gate is None or lan_gate.check.passed),
        lan_rtt=lan_rtt(plan.lan, lan_gate),
        lan_round_trips=round_trips_of(
            [record.lan_round_trips for record in succeeded if record.lan_round_trips is not None]
        ),
        hop_split=summarize_hops(
            lan_gate.verified_rtt_ms if lan_gate is not None else None, hop_splits
        ),
        resources=measurement.resources if measurement is not None else None,
        parameters=mode.parameters(),
        transfer_bytes=transfer_bytes,
        throughput_mb_s=transfer_bytes / stats.p50_ms / 1000.0
        if transfer_bytes is not None and stats.p50_ms
        else None,
        round_trips=round_trips_of(counted),
        wire=measurement.wire if measurement is not None else None,
        handshakes=measurement.handshakes if measurement is not None else None,
        stream=stream_summary(measurement.stream if measurement is not None else None),
        precision=plan.stopping.outcome(
            samples_ms, measurement.stop_reason if measurement is not None else "aborted"
        ),
        phases=summarize_phases([record.phases or {} for record in succeeded]),
        time_split=summarize_splits(gate.verified_rtt_ms, splits)
        if gate.verified_rtt_ms is not None
        else None,
        loss_model=loss_model.estimate(
            plan.configured_loss_pct,
            gate.verified_rtt_ms,
            [(record.wall_ms, record.wire) for record in succeeded if record.wire is not None],
            quic=mode.transport in QUIC,
        )
        if gate.verified_rtt_ms is not None
        else None,
        started_at=started_at,
        finished_at=finished_at,
    )


def with_hop_splits(
    records: list[IterationRecord], lan_rtt_ms: float | None
) -> list[IterationRecord]:
    """A relayed mode's records with their time by hop, each from its time split, its LAN
    round trips and the relay's LAN work (the head-end's phases); a record without a time
    split has none."""
    return [
        replace(
            record,
            hop_split=split_hops(
                record.time_split,
                record.lan_round_trips,
                lan_rtt_ms,
                relay_lan_ms(record.phases),
            ),
        )
        if record.time_split is not None
        else record
        for record in records
    ]


def round_trips_of(counted: list[int]) -> RoundTrips | None:
    return RoundTrips(per_iteration=counted, p50=percentile(counted, 0.5)) if counted else None


def lan_rtt(lan: LanPlan | None, gate: RttVerification | None) -> LanRtt | None:
    """The LAN hop's profile and verified RTT, for a relayed mode whose LAN the lab sets."""
    if lan is None or gate is None:
        return None
    return LanRtt(
        profile=lan.profile,
        configured_rtt_ms=lan.configured_rtt_ms,
        verified_rtt_ms=gate.verified_rtt_ms,
        rtt_probe=gate.probe,
        rtt_check=gate.check,
    )


def stream_summary(rate: StreamRate | None) -> StreamSummary | None:
    if rate is None:
        return None
    return StreamSummary(
        updates_per_second=rate.updates_per_second,
        updates=rate.updates,
        window_s=rate.window_s,
        sample_interval_ms=rate.sample_interval_ms,
        path=rate.path,
    )


# --- iterations -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """One iteration's wall time (the monotonic clock) and its start and end on the
    packets' clock (CLOCK_REALTIME, which stamps the captured packets), each read just
    inside the wall time's readings."""

    wall_ns: int
    started_ns: int
    ended_ns: int

    @property
    def wall_ms(self) -> float:
        return self.wall_ns / 1e6

    def span(self) -> Span:
        """The span the capture's packets are cut at for the time split."""
        return Span(self.started_ns, self.ended_ns, self.wall_ns)


async def run_iteration(
    session: Session, commands: Sequence[str], timeout_s: float
) -> tuple[Timing, str | None]:
    """The timing of one iteration and the failure reason, if any. Output validation
    happens after the clock stops, so it is not measured. The packets' clock is read inside
    the monotonic one at both ends, so the span is never longer than the wall time: the
    time between the readings is what the time split leaves unaccounted."""
    start = time.perf_counter_ns()
    started_ns = time.time_ns()
    try:
        async with asyncio.timeout(timeout_s):
            outputs = await session.run_iteration(commands)
    except SESSION_ERRORS as exc:
        ended_ns = time.time_ns()
        wall_ns = time.perf_counter_ns() - start
        timing = reported_timing(session, Timing(wall_ns, started_ns, ended_ns))
        return timing, describe_failure(exc, timeout_s)
    ended_ns = time.time_ns()
    wall_ns = time.perf_counter_ns() - start
    timing = reported_timing(session, Timing(wall_ns, started_ns, ended_ns))
    labels = list(commands) if len(outputs) == len(commands) else ["/".join(commands)]
    try:
        for label, output in zip(labels, outputs, strict=True):
            validate_output(label, output)
    except IterationError as exc:
        return timing, str(exc)
    return timing, None


def reported_timing(session: Session, measured: Timing) -> Timing:
    """The span a self-timed session's client reported (a Go program times its own
    iterations, without the runner's pipe to it), else what the runner measured."""
    if isinstance(session, SelfTimedSession):
        span = session.take_span()
        if span is not None:
            return Timing(round(span.wall_ms * 1e6), span.started_ns, span.ended_ns)
    return measured


def describe_failure(exc: BaseException, timeout_s: float) -> str:
    if isinstance(exc, IterationError):
        return str(exc)
    if isinstance(exc, TimeoutError):
        return f"timed out after {timeout_s:g} s"
    return f"{type(exc).__name__}: {exc}".strip()


# --- wire ---------------------------------------------------------------------------------


def wire_protocol(mode: Mode) -> Protocol:
    """What the mode's traffic travels on: UDP for HTTP/3 (QUIC), TCP for the rest."""
    return Protocol.UDP if mode.transport in QUIC else Protocol.TCP


def wire_hosts(mode: Mode, target: Target) -> tuple[str, ...]:
    """The hosts the capture watches: the mode's (every device of a fleet mode), or the
    target alone when the mode cannot name them (its session then fails with the reason)."""
    try:
        return mode.wire_hosts(target)
    except Exception:  # a fleet the device could not list: the session reports it
        return (target.host,)


def with_wire(
    record: IterationRecord, segment: Segment, recovery: ClientRecovery | None
) -> IterationRecord:
    """The record with its captured counts (and the loss recovery its client counted, the
    capture's for QUIC) and its time split."""
    counts = segment.counts()
    if recovery is not None:
        counts = with_client_recovery(counts, recovery)
    return replace(record, wire=counts, time_split=segment.split())


def with_client_recovery(counts: WireIteration, recovery: ClientRecovery) -> WireIteration:
    """The capture's counts with the recovery counters a QUIC client reported: its
    ack-eliciting packets as data segments, the packets it declared lost as its
    retransmissions, the server's missing packet numbers not filled late as the server's,
    its probe timeouts as timeouts, its Initial packets lost as handshake retries."""
    return counts.model_copy(
        update={
            "data_segments_out": recovery.sent_ack_eliciting,
            "data_segments_in": recovery.received_ack_eliciting,
            "retransmits_out": recovery.lost,
            "retransmits_in": max(recovery.missing_in - recovery.late_in, 0),
            "timeouts": recovery.probe_timeouts,
            "syn_retries": recovery.initial_lost,
            "spurious": recovery.spurious,
            "reordered_in": recovery.late_in,
        }
    )


def wire_counts(
    capture: WireCapture | None, reason: str | None, succeeded: list[IterationRecord]
) -> WireCounts:
    """The mode's wire counts: null counts with the reason when there was no capture or
    it failed (never zeros), else every successful iteration's counts."""
    if capture is None or capture.error is not None:
        return WireCounts(
            available=False,
            reason=reason if capture is None else capture.error,
            interface=capture.interface if capture else None,
            filter=capture.filter if capture else None,
        )
    counted = [record.wire for record in succeeded if record.wire is not None]
    return WireCounts(
        available=True,
        reason=capture.segments_caveat(),
        interface=capture.interface,
        filter=capture.filter,
        per_iteration=counted,
        p50=summarize_wire(counted),
        capture_drops=capture.drops,
        recovered_iterations=recovered_iterations(counted),
    )


def read_handshakes(
    capture: WireCapture, alpn: Counter[str | None] | None, client: str
) -> Handshakes:
    """What every connection of the mode negotiated, from the capture's hello packets (TLS
    in QUIC's Initial packets for a UDP capture) and the ALPN protocols the client library
    reported (None: it reports none)."""
    packets, drops = capture.hellos()
    if packets is None:
        return unavailable(capture.hello_error or capture.error)
    decoded = decode_quic(packets) if capture.protocol is Protocol.UDP else decode(packets)
    return summarize_handshakes(decoded, alpn, client, drops)
