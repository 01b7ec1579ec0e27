"""InfluxDB 1.x sink: one ``run`` point per run, one ``iteration`` point per measured
iteration, one ``mode_summary`` point per mode and one ``verdict`` point per judged mode
(what the Nightly dashboard annotates and tabulates), written with the HTTP /write API
(nanosecond timestamps, basic auth). Every point of a run is distinct (line_protocol's
``distinct_timestamps``), so InfluxDB stores as many points as the runner reports."""

from datetime import UTC, datetime, timedelta

import httpx

from bench_runner import phases
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

WRITE_TIMEOUT_S = 15.0
PRECISION = "ns"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch_ns(moment: datetime) -> int:
    """Exact to the microsecond a datetime carries (a float of seconds is not)."""
    return (moment - _EPOCH) // timedelta(microseconds=1) * 1000


def run_tags(run: RunResult) -> dict[str, str]:
    return {
        "run_id": run.run_id,
        "sweep": run.sweep or run.run_id,
        "profile": run.profile.name,
        "engine": run.profile.engine,
    }


def mode_tags(run: RunResult, mode: ModeResult) -> dict[str, str]:
    """The series of a mode: one per (mode, client and version, parameters) in a run."""
    return {
        **run_tags(run),
        "mode": mode.mode,
        "transport": mode.transport,
        "client": mode.client,
        "client_version": mode.client_version,
        "series": mode.series,
        **mode.parameter_tags(),
    }


def resource_fields(mode: ModeResult) -> dict[str, float | int | None]:
    usage = mode.resources
    if usage is None:
        return {}
    return {
        "runner_cpu_s": usage.runner_cpu_s,
        "runner_rss_peak_bytes": usage.runner_rss_peak_bytes,
        "device_cpu_s": usage.device_cpu_s,
        "device_memory_peak_bytes": usage.device_memory_peak_bytes,
    }


def parameter_fields(mode: ModeResult) -> dict[str, int]:
    """Numeric parameters also as fields (``parameter_reply_bytes``): tags are text, and
    a chart needs the number for its axis."""
    return {
        f"parameter_{key}": value
        for key, value in (mode.parameters or {}).items()
        if isinstance(value, int)
    }


def model_fields(mode: ModeResult) -> dict[str, float | None]:
    model = mode.rtt_model
    check = mode.rtt_check
    return {
        "added_rtt_ms": check.added_rtt_ms if check is not None else None,
        "rtt_model_p50_ms": model.predicted_p50_ms if model is not None else None,
        "rtt_model_local_p50_ms": model.local_p50_ms if model is not None else None,
        "rtt_model_round_trips": model.round_trips if model is not None else None,
    }


def summary_fields(mode: ModeResult) -> dict[str, FieldValue | None]:
    stats = mode.stats
    return {
        "n": stats.n,
        "errors": stats.errors,
        "excluded": stats.excluded,
        "min_ms": stats.min_ms,
        "max_ms": stats.max_ms,
        "mean_ms": stats.mean_ms,
        "p50_ms": stats.p50_ms,
        "p95_ms": stats.p95_ms,
        "p99_ms": stats.p99_ms,
        "stddev_ms": stats.stddev_ms,
        "warmup_discarded": stats.warmup_discarded,
        "speedup_vs_baseline": mode.speedup_vs_baseline,
        "p50_vs_floor": mode.p50_vs_floor,
        "configured_rtt_ms": mode.configured_rtt_ms,
        "verified_rtt_ms": mode.verified_rtt_ms,
        "min_round_trips": mode.min_round_trips,
        "expected_round_trips": mode.expected_round_trips,
        "commands_per_iteration": len(mode.commands),
        "transfer_bytes": mode.transfer_bytes,
        "throughput_mb_s": mode.throughput_mb_s,
        **parameter_fields(mode),
        **model_fields(mode),
        **resource_fields(mode),
        **wire_model.summary_fields(mode.wire),
        **phases.summary_fields(mode.phases),
        **timeline.summary_fields(mode.time_split),
    }


def run_point(run: RunResult) -> Point:
    """The run itself, at its start: what the dashboards annotate."""
    errors = sum(mode.stats.errors for mode in run.modes)
    title = (
        f"{run.run_id}: plan {run.plan or 'default'}, {len(run.modes)} modes, "
        f"{errors} failed iterations, commit {run.lab.commit or 'unknown'}"
    )
    return Point(
        measurement="run",
        tags={**run_tags(run), "plan": run.plan or ""},
        fields={
            "title": title,
            "modes": len(run.modes),
            "errors": errors,
            "ok": run.ok,
            "commit": run.lab.commit,
            "duration_s": (run.finished_at - run.started_at).total_seconds(),
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
        measurement="verdict",
        tags=mode_tags(run, mode),
        fields={
            "verdict": verdict.verdict,
            "title": f"{verdict.verdict}{change}: {mode.series}{since}",
            "regression": verdict.verdict == "regression",
            "median_ms": verdict.median_ms,
            "baseline_median_ms": verdict.baseline_median_ms,
            "baseline_mad_ms": verdict.baseline_mad_ms,
            "change_pct": verdict.change_pct,
            "threshold_pct": verdict.threshold_pct,
            "robust_z": verdict.robust_z,
            "nights": verdict.nights,
            "rule": verdict.rule,
            "changepoint_run_id": verdict.changepoint_run_id,
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
                    measurement="iteration",
                    tags=tags,
                    fields={
                        "wall_ms": record.wall_ms,
                        "iteration": record.iteration,
                        "ok": record.ok,
                        "error": record.error,
                        "excluded": record.excluded,
                        **wire_model.iteration_fields(record.wire),
                        **phases.iteration_fields(record.phases),
                        **timeline.iteration_fields(record.time_split),
                    },
                    timestamp_ns=epoch_ns(record.started_at),
                )
            )
        points.append(
            Point(
                measurement="mode_summary",
                tags=tags,
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
