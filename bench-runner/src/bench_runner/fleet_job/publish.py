"""A fleet job step to InfluxDB: one ``fleet_job`` point (influx_schema.py), spooled when
InfluxDB refuses it, as a run's points are; a fleet sweep's knees: one ``fleet_knee`` point
each, when the sweep ended."""

import statistics

from bench_runner.fleet_job.job import TOOL_DISTRIBUTIONS
from bench_runner.fleet_job.knee import Knee
from bench_runner.fleet_job.results import FleetJobResult
from bench_runner.fleet_job.sweep_results import FleetSweepResult
from bench_runner.influx_schema import FleetJobField, FleetKneeField, Measurement, Tag
from bench_runner.settings import Settings
from bench_runner.sinks.delivery import Delivery
from bench_runner.sinks.influx import deliver_lines, epoch_ns
from bench_runner.sinks.line_protocol import FieldValue, Point, format_points
from bench_runner.sinks.publish import influx_writer
from bench_runner.sinks.spool import Spool


def fleet_job_point(result: FleetJobResult) -> Point:
    tags = {
        Tag.RUN_ID: result.run_id,
        Tag.SWEEP: result.sweep or result.run_id,
        Tag.PROFILE: result.profile.name,
        Tag.ENGINE: result.profile.engine,
        Tag.TOOL: result.tool,
        Tag.CONNECTION: result.connection,
        Tag.OPERATION: result.operation,
        Tag.TRANSPORT: result.transport,
        Tag.SSH_TYPE: result.ssh_type or "",
        Tag.PERSISTENT: "true" if result.persistent else "false",
        Tag.CLIENT_VERSION: result.versions.get(TOOL_DISTRIBUTIONS[result.tool], ""),
        Tag.SERIES: result.label,
    }
    stats, model = result.per_device, result.model
    verified = [device.verified_rtt_ms for device in result.rtt if device.verified_rtt_ms]
    commit = result.lab.commit or "unknown"
    fields: dict[str, FieldValue | None] = {
        FleetJobField.DEVICES: result.devices,
        FleetJobField.WORKERS: result.workers,
        FleetJobField.WALL_S: result.wall_s,
        FleetJobField.CONFIGURED_RTT_MS: result.profile.rtt_ms,
        FleetJobField.VERIFIED_RTT_MS: statistics.median(verified) if verified else None,
        FleetJobField.CLIENT_CORES: result.client_cores,
        FleetJobField.CLIENT_UTILISATION: result.client_utilisation,
        FleetJobField.COMMIT: commit,
        FleetJobField.TITLE: f"{result.run_id}: {result.label}, {result.devices} devices x "
        f"{result.workers} workers, {result.profile.name}, commit {commit}",
    }
    if stats is not None:
        fields |= {
            FleetJobField.PER_DEVICE_P50_MS: stats.p50_ms,
            FleetJobField.PER_DEVICE_P50_CI_LOW_MS: stats.p50_ci_low_ms,
            FleetJobField.PER_DEVICE_P50_CI_HIGH_MS: stats.p50_ci_high_ms,
            FleetJobField.PER_DEVICE_P95_MS: stats.p95_ms,
            FleetJobField.PER_DEVICE_P95_CI_LOW_MS: stats.p95_ci_low_ms,
            FleetJobField.PER_DEVICE_P95_CI_HIGH_MS: stats.p95_ci_high_ms,
        }
    if model is not None:
        fields |= {
            FleetJobField.PREDICTED_WALL_S: model.predicted_wall_s,
            FleetJobField.PREDICTED_LOW_S: model.predicted_low_s,
            FleetJobField.PREDICTED_HIGH_S: model.predicted_high_s,
            FleetJobField.MODEL_ERROR_PCT: model.error_pct,
            FleetJobField.MODEL_VERDICT: model.verdict,
        }
    if result.client is not None:
        fields |= {
            FleetJobField.CLIENT_CPU_S: result.client.cpu_s,
            FleetJobField.CLIENT_RSS_PEAK_BYTES: result.client.max_rss_bytes,
        }
    device = result.device_resources
    if device is not None:
        fields |= {
            FleetJobField.DEVICE_CPU_S: device.device_cpu_s,
            FleetJobField.DEVICE_MEMORY_PEAK_BYTES: device.device_memory_peak_bytes,
        }
    return Point(Measurement.FLEET_JOB, tags, fields, epoch_ns(result.finished_at))


def fleet_knee_point(sweep: FleetSweepResult, knee: Knee) -> Point:
    """The knee of one profile and devices count; its run id is the sweep's."""
    step = next((step for step in sweep.steps if step.profile == knee.profile), None)
    versions = {step.tool_version for step in sweep.steps if step.tool_version}
    tags = {
        Tag.RUN_ID: sweep.sweep,
        Tag.SWEEP: sweep.sweep,
        Tag.PROFILE: knee.profile,
        Tag.ENGINE: step.engine if step is not None else "",
        Tag.TOOL: sweep.tool,
        Tag.CONNECTION: sweep.connection,
        Tag.OPERATION: sweep.operation,
        Tag.TRANSPORT: sweep.transport,
        Tag.SSH_TYPE: sweep.ssh_type or "",
        Tag.PERSISTENT: "true" if sweep.persistent else "false",
        Tag.CLIENT_VERSION: "|".join(sorted(versions)),
        Tag.SERIES: knee.label,
        Tag.DEVICES: str(knee.devices),
    }
    fields: dict[str, FieldValue | None] = {
        FleetKneeField.STATUS: knee.status,
        FleetKneeField.KNEE_WORKERS: knee.workers,
        FleetKneeField.WALL_S: knee.wall_s,
        FleetKneeField.PREDICTED_HIGH_S: knee.predicted_high_s,
        FleetKneeField.CLIENT_UTILISATION: knee.client_utilisation,
        FleetKneeField.STEPS: knee.steps,
        FleetKneeField.REASON: knee.reason,
    }
    return Point(Measurement.FLEET_KNEE, tags, fields, epoch_ns(sweep.finished_at))


def _deliver(settings: Settings, points: list[Point], run_id: str) -> list[Delivery]:
    lines = format_points(points)
    return [deliver_lines(influx_writer(settings), lines, Spool(settings.spool_dir), run_id)]


def publish_fleet_job(settings: Settings, result: FleetJobResult) -> list[Delivery]:
    return _deliver(settings, [fleet_job_point(result)], result.run_id)


def publish_fleet_knees(settings: Settings, sweep: FleetSweepResult) -> list[Delivery]:
    """The sweep's knees; nothing to deliver when it has none (no step ran)."""
    if not sweep.knees:
        return []
    return _deliver(settings, [fleet_knee_point(sweep, knee) for knee in sweep.knees], sweep.sweep)
