"""InfluxDB 1.x sink: one `iteration` point per measured iteration, one `mode_summary`
point per mode, written with the HTTP /write API (ms precision, basic auth)."""

from datetime import datetime

import httpx

from bench_runner import phases
from bench_runner.results import ModeResult, RunResult
from bench_runner.runner import ModeRun
from bench_runner.sinks.delivery import Delivery, SinkError
from bench_runner.sinks.line_protocol import Point
from bench_runner.sinks.spool import INFLUX_SUFFIX, Spool
from bench_runner.wire import model as wire_model

WRITE_TIMEOUT_S = 15.0


def epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def mode_tags(run: RunResult, mode: ModeResult) -> dict[str, str]:
    return {
        "run_id": run.run_id,
        "profile": run.profile.name,
        "engine": run.profile.engine,
        "mode": mode.mode,
        "transport": mode.transport,
        "client": mode.client,
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


def run_points(run: RunResult, mode_runs: list[ModeRun]) -> list[Point]:
    points: list[Point] = []
    for mode_run in mode_runs:
        mode = mode_run.result
        tags = mode_tags(run, mode)
        for record in mode_run.records:
            points.append(Point(
                measurement="iteration",
                tags=tags,
                fields={
                    "wall_ms": record.wall_ms,
                    "iteration": record.iteration,
                    "ok": record.ok,
                    "error": record.error,
                    **wire_model.iteration_fields(record.wire),
                    **phases.iteration_fields(record.phases),
                },
                timestamp_ms=epoch_ms(record.started_at),
            ))
        stats = mode.stats
        points.append(Point(
            measurement="mode_summary",
            tags=tags,
            fields={
                "n": stats.n,
                "errors": stats.errors,
                "min_ms": stats.min_ms,
                "max_ms": stats.max_ms,
                "mean_ms": stats.mean_ms,
                "p50_ms": stats.p50_ms,
                "p95_ms": stats.p95_ms,
                "p99_ms": stats.p99_ms,
                "stddev_ms": stats.stddev_ms,
                "warmup_discarded": stats.warmup_discarded,
                "speedup_vs_baseline": mode.speedup_vs_baseline,
                "client_version": mode.client_version,
                "configured_rtt_ms": mode.configured_rtt_ms,
                "verified_rtt_ms": mode.verified_rtt_ms,
                "transfer_bytes": mode.transfer_bytes,
                "throughput_mb_s": mode.throughput_mb_s,
                **resource_fields(mode),
                **wire_model.summary_fields(mode.wire),
                **phases.summary_fields(mode.phases),
            },
            timestamp_ms=epoch_ms(run.finished_at),
        ))
    return points


class InfluxWriter:
    def __init__(self, url: str, database: str, username: str | None, password: str | None) -> None:
        self._url = f"{url.rstrip('/')}/write"
        self._database = database
        self._auth = httpx.BasicAuth(username, password or "") if username else None

    @property
    def target(self) -> str:
        return f"{self._url}?db={self._database}"

    def write(self, lines: str) -> None:
        try:
            response = httpx.post(
                self._url,
                params={"db": self._database, "precision": "ms"},
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
    count = lines.count("\n")
    try:
        writer.write(lines)
    except SinkError as exc:
        path = spool.save(spool_name + INFLUX_SUFFIX, lines)
        return Delivery("influxdb", False, f"{writer.target}: {exc}", spooled_to=path)
    return Delivery("influxdb", True, f"{count} points to {writer.target}")
