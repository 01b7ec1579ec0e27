"""InfluxDB 1.x sink: one ``run`` point per run, one ``iteration`` point per measured
iteration, one ``mode_summary`` point per mode (tagged also with what its connections
negotiated) and one ``verdict`` point per judged mode (what the Nightly dashboard
annotates and tabulates), written with the HTTP /write API
(nanosecond timestamps, basic auth). Every point of a run is distinct (line_protocol's
``distinct_timestamps``), so InfluxDB stores as many points as the runner reports."""

from datetime import UTC, datetime, timedelta

import httpx

from bench_runner import hop_split, loss_model, phases
from bench_runner.influx_schema import (
    IterationField,
    Measurement,
    RunField,
    SummaryField,
    Tag,
    VerdictField,
    parameter_field,
)
from bench_runner.results import ModeResult, ModeRun, RunResult
from bench_runner.sinks.delivery import Delivery, SinkError
from bench_runner.sinks.line_protocol import (
    FieldValue,
    Point,
    count_points,
    distinct_timestamps,
)
from bench_runner.sinks.spool import INFLUX_SUFFIX, Spool
from bench_runner.wire import model as wire_model
from bench_runner.wire import timeline
from bench_runner.wire.handshake_model import handshake_tags

WRITE_TIMEOUT_S = 15.0
PRECISION = "ns"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_ns(moment: datetime) -> int:
    """Exact to the microsecond a datetime carries (a float of seconds is not)."""
    return (moment - _EPOCH) // timedelta(microseconds=1) * 1000


def run_tags(run: RunResult) -> dict[str, str]:
    """The run's tags; a relayed job's also name its LAN hop."""
    lan = {Tag.LAN_PROFILE: run.relay.lan_profile.name} if run.relay is not None else {}
    return {
        Tag.RUN_ID: run.run_id,
        Tag.SWEEP: run.sweep or run.run_id,
        Tag.PROFILE: run.profile.name,
        **lan,
        Tag.ENGINE: run.profile.engine,
    }


def mode_tags(run: RunResult, mode: ModeResult) -> dict[str, str]:
    """The series of a mode: one per (mode, client and version, parameters) in a run."""
    return {
        **run_tags(run),
        Tag.MODE: mode.mode,
        Tag.TRANSPORT: mode.transport,
        Tag.CLIENT: mode.client,
        Tag.CLIENT_VERSION: mode.client_version,
        Tag.SERIES: mode.series,
        **mode.parameter_tags(),
    }


def resource_fields(mode: ModeResult) -> dict[str, float | int | None]:
    usage = mode.resources
    if usage is None:
        return {}
    return {
        SummaryField.RUNNER_CPU_S: usage.runner_cpu_s,
        SummaryField.RUNNER_RSS_PEAK_BYTES: usage.runner_rss_peak_bytes,
        SummaryField.DEVICE_CPU_S: usage.device_cpu_s,
        SummaryField.DEVICE_MEMORY_PEAK_BYTES: usage.device_memory_peak_bytes,
    }


def parameter_fields(mode: ModeResult) -> dict[str, int]:
    """Numeric parameters also as fields (``parameter_reply_bytes``): tags are text, and
    a chart needs the number for its axis."""
    return {
        parameter_field(key): value
        for key, value in (mode.parameters or {}).items()
        if isinstance(value, int)
    }


def precision_fields(mode: ModeResult) -> dict[str, FieldValue | None]:
    """The intervals of the figures and how precise the median got (absent where null)."""
    stats = mode.stats
    precision = mode.precision
    speedup = mode.speedup_vs_baseline_ci
    floor = mode.p50_vs_floor_ci
    return {
        SummaryField.P50_CI_LOW_MS: stats.p50_ci_low_ms,
        SummaryField.P50_CI_HIGH_MS: stats.p50_ci_high_ms,
        SummaryField.P95_CI_LOW_MS: stats.p95_ci_low_ms,
        SummaryField.P95_CI_HIGH_MS: stats.p95_ci_high_ms,
        SummaryField.P99_CI_LOW_MS: stats.p99_ci_low_ms,
        SummaryField.P99_CI_HIGH_MS: stats.p99_ci_high_ms,
        SummaryField.P50_CI_HALF_WIDTH_PCT: stats.p50_ci_half_width_pct,
        SummaryField.PRECISION_TARGET_PCT: precision.target_half_width_pct if precision else None,
        SummaryField.PRECISE: int(precision.precise) if precision else None,
        SummaryField.STOP_REASON: precision.stop_reason if precision else None,
        SummaryField.SPEEDUP_VS_BASELINE_CI_LOW: speedup[0] if speedup else None,
        SummaryField.SPEEDUP_VS_BASELINE_CI_HIGH: speedup[1] if speedup else None,
        SummaryField.P50_VS_FLOOR_CI_LOW: floor[0] if floor else None,
        SummaryField.P50_VS_FLOOR_CI_HIGH: floor[1] if floor else None,
    }


def model_fields(mode: ModeResult) -> dict[str, float | None]:
    model = mode.rtt_model
    check = mode.rtt_check
    return {
        SummaryField.ADDED_RTT_MS: check.added_rtt_ms if check is not None else None,
        SummaryField.RTT_MODEL_P50_MS: model.predicted_p50_ms if model is not None else None,
        SummaryField.RTT_MODEL_LOCAL_P50_MS: model.local_p50_ms if model is not None else None,
        SummaryField.RTT_MODEL_ROUND_TRIPS: model.round_trips if model is not None else None,
    }


def summary_fields(mode: ModeResult) -> dict[str, FieldValue | None]:
    stats = mode.stats
    return {
        SummaryField.N: stats.n,
        SummaryField.ERRORS: stats.errors,
        SummaryField.EXCLUDED: stats.excluded,
        SummaryField.MIN_MS: stats.min_ms,
        SummaryField.MAX_MS: stats.max_ms,
        SummaryField.MEAN_MS: stats.mean_ms,
        SummaryField.P50_MS: stats.p50_ms,
        SummaryField.P95_MS: stats.p95_ms,
        SummaryField.P99_MS: stats.p99_ms,
        SummaryField.STDDEV_MS: stats.stddev_ms,
        SummaryField.WARMUP_DISCARDED: stats.warmup_discarded,
        SummaryField.SPEEDUP_VS_BASELINE: mode.speedup_vs_baseline,
        SummaryField.P50_VS_FLOOR: mode.p50_vs_floor,
        SummaryField.CONFIGURED_RTT_MS: mode.configured_rtt_ms,
        SummaryField.VERIFIED_RTT_MS: mode.verified_rtt_ms,
        SummaryField.LAN_CONFIGURED_RTT_MS: mode.lan_rtt.configured_rtt_ms
        if mode.lan_rtt
        else None,
        SummaryField.LAN_VERIFIED_RTT_MS: mode.lan_rtt.verified_rtt_ms if mode.lan_rtt else None,
        SummaryField.LAN_ROUND_TRIPS_P50: mode.lan_round_trips.p50
        if mode.lan_round_trips
        else None,
        SummaryField.MIN_ROUND_TRIPS: mode.min_round_trips,
        SummaryField.EXPECTED_ROUND_TRIPS: mode.expected_round_trips,
        SummaryField.COMMANDS_PER_ITERATION: len(mode.commands),
        SummaryField.CONNECTIONS_PER_ITERATION: mode.connections_per_iteration,
        SummaryField.COMMANDS_PER_REQUEST: mode.commands_per_request,
        SummaryField.TRANSFER_BYTES: mode.transfer_bytes,
        SummaryField.THROUGHPUT_MB_S: mode.throughput_mb_s,
        SummaryField.UPDATES_PER_SECOND: mode.stream.updates_per_second
        if mode.stream is not None
        else None,
        SummaryField.HANDSHAKES: mode.handshakes.connections
        if mode.handshakes is not None and mode.handshakes.available
        else None,
        **parameter_fields(mode),
        **precision_fields(mode),
        **model_fields(mode),
        **loss_model.summary_fields(mode.wire, mode.loss_model),
        **resource_fields(mode),
        **wire_model.summary_fields(mode.wire),
        **phases.summary_fields(mode.phases),
        **timeline.summary_fields(mode.time_split),
        **hop_split.summary_fields(mode.hop_split),
    }


def run_point(run: RunResult) -> Point:
    """The run itself, at its start: what the dashboards annotate."""
    errors = sum(mode.stats.errors for mode in run.modes)
    title = (
        f"{run.run_id}: plan {run.plan or 'default'}, {len(run.modes)} modes, "
        f"{errors} failed iterations, commit {run.lab.commit or 'unknown'}"
    )
    return Point(
        measurement=Measurement.RUN,
        tags={**run_tags(run), Tag.PLAN: run.plan or ""},
        fields={
            RunField.TITLE: title,
            RunField.MODES: len(run.modes),
            RunField.ERRORS: errors,
            RunField.OK: run.ok,
            RunField.COMMIT: run.lab.commit,
            RunField.DURATION_S: (run.finished_at - run.started_at).total_seconds(),
        },
        timestamp_ns=epoch_ns(run.started_at),
    )


def verdict_point(run: RunResult, mode: ModeResult) -> Point | None:
    """The mode's verdict at the run's start (an annotation at the night it concerns), with
    a ``title`` naming it; None for a mode without one. Tagged like the mode's other
    points, so each series of a run has its own."""
    verdict = mode.verdict
    if verdict is None:
        return None
    change = f" {verdict.change_pct:+.1f} %" if verdict.change_pct is not None else ""
    since = f" since {verdict.changepoint_run_id}" if verdict.changepoint_run_id else ""
    return Point(
        measurement=Measurement.VERDICT,
        tags=mode_tags(run, mode),
        fields={
            VerdictField.VERDICT: verdict.verdict,
            VerdictField.TITLE: f"{verdict.verdict}{change}: {mode.series}{since}",
            VerdictField.REGRESSION: verdict.verdict == "regression",
            VerdictField.MEDIAN_MS: verdict.median_ms,
            VerdictField.BASELINE_MEDIAN_MS: verdict.baseline_median_ms,
            VerdictField.BASELINE_MAD_MS: verdict.baseline_mad_ms,
            VerdictField.CHANGE_PCT: verdict.change_pct,
            VerdictField.THRESHOLD_PCT: verdict.threshold_pct,
            VerdictField.ROBUST_Z: verdict.robust_z,
            VerdictField.NIGHTS: verdict.nights,
            VerdictField.RULE: verdict.rule,
            VerdictField.CHANGEPOINT_RUN_ID: verdict.changepoint_run_id,
        },
        timestamp_ns=epoch_ns(run.started_at),
    )


def run_points(run: RunResult, mode_runs: list[ModeRun]) -> list[Point]:
    points = [run_point(run)]
    for mode_run in mode_runs:
        mode = mode_run.result
        tags = mode_tags(run, mode)
        for record in mode_run.records:
            points.append(
                Point(
                    measurement=Measurement.ITERATION,
                    tags=tags,
                    fields={
                        IterationField.WALL_MS: record.wall_ms,
                        IterationField.ITERATION: record.iteration,
                        IterationField.OK: record.ok,
                        IterationField.ERROR: record.error,
                        IterationField.EXCLUDED: record.excluded,
                        IterationField.LAN_ROUND_TRIPS: record.lan_round_trips,
                        **wire_model.iteration_fields(record.wire),
                        **phases.iteration_fields(record.phases),
                        **timeline.iteration_fields(record.time_split),
                        **hop_split.iteration_fields(record.hop_split),
                    },
                    timestamp_ns=epoch_ns(record.started_at),
                )
            )
        points.append(
            Point(
                measurement=Measurement.MODE_SUMMARY,
                tags={**tags, **handshake_tags(mode.handshakes)},
                fields=summary_fields(mode),
                timestamp_ns=epoch_ns(mode.finished_at or run.finished_at),
            )
        )
        verdict = verdict_point(run, mode)
        if verdict is not None:
            points.append(verdict)
    return distinct_timestamps(points)


class InfluxWriter:
    def __init__(self, url: str, database: str, username: str | None, password: str | None) -> None:
        self._url = f"{url.rstrip('/')}/write"
        self._database = database
        self._auth = httpx.BasicAuth(username, password or "") if username else None

    @property
    def target(self) -> str:
        return f"{self._url}?db={self._database}"

    def write(self, lines: str, precision: str = PRECISION) -> None:
        try:
            response = httpx.post(
                self._url,
                params={"db": self._database, "precision": precision},
                content=lines.encode("utf-8"),
                auth=self._auth,
                timeout=WRITE_TIMEOUT_S,
            )
        except httpx.HTTPError as exc:
            raise SinkError(f"{type(exc).__name__}: {exc}") from exc
        if response.status_code != httpx.codes.NO_CONTENT:
            raise SinkError(f"HTTP {response.status_code}: {response.text.strip()[:200]}")


def deliver_lines(writer: InfluxWriter, lines: str, spool: Spool, spool_name: str) -> Delivery:
    """Write, or spool the whole payload so a later replay can write it."""
    count = count_points(lines)
    try:
        writer.write(lines)
    except SinkError as exc:
        path = spool.save(spool_name + INFLUX_SUFFIX, lines)
        return Delivery(
            "influxdb",
            False,
            f"{count} points not written to {writer.target}: {exc}",
            spooled_to=path,
        )
    return Delivery("influxdb", True, f"{count} points to {writer.target}")
