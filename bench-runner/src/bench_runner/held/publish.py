"""A held-connections sweep to InfluxDB: one ``held_connections`` point per step that held
(influx_schema.py), spooled when InfluxDB refuses them, as a run's points are. A step that
did not hold publishes nothing: its errors are in hold.json only."""

from bench_runner.held.results import HoldResult
from bench_runner.held.step import HeldStep
from bench_runner.influx_schema import HeldField, Measurement, Tag
from bench_runner.settings import Settings
from bench_runner.sinks.delivery import Delivery
from bench_runner.sinks.influx import deliver_lines, epoch_ns
from bench_runner.sinks.line_protocol import FieldValue, Point, format_points
from bench_runner.sinks.publish import influx_writer
from bench_runner.sinks.spool import Spool


def held_point(result: HoldResult, step: HeldStep) -> Point:
    tags = {
        Tag.RUN_ID: result.run_id,
        Tag.SWEEP: result.run_id,
        Tag.PROFILE: result.profile.name,
        Tag.ENGINE: result.profile.engine,
        Tag.TRANSPORT: result.transport,
        Tag.CLIENT: result.client,
        Tag.CLIENT_VERSION: result.client_version,
        Tag.CONNECTIONS: str(step.connections),
    }
    setup, operations = step.setup, step.operations
    fields: dict[str, FieldValue | None] = {
        HeldField.CONNECTIONS_HELD: step.connections,
        HeldField.SOCKETS: step.sockets,
        HeldField.OPERATIONS_PER_CONNECTION: result.operations_per_connection,
        HeldField.DURATION_S: result.duration_s,
        HeldField.OPEN_CONCURRENCY: result.open_concurrency,
        HeldField.SETUP_WALL_S: step.setup_wall_s,
        HeldField.SETUP_P50_MS: setup.p50_ms,
        HeldField.SETUP_P50_CI_LOW_MS: setup.p50_ci_low_ms,
        HeldField.SETUP_P50_CI_HIGH_MS: setup.p50_ci_high_ms,
        HeldField.SETUP_P95_MS: setup.p95_ms,
        HeldField.SETUP_P95_CI_LOW_MS: setup.p95_ci_low_ms,
        HeldField.SETUP_P95_CI_HIGH_MS: setup.p95_ci_high_ms,
        HeldField.OPERATIONS_WINDOW_S: step.operations_window_s,
        HeldField.OPERATIONS_PER_S: step.operations_per_s,
        HeldField.CLIENT_MEMORY_PER_CONNECTION_BYTES: step.client_memory.per_connection_bytes,
        HeldField.DEVICE_MEMORY_PER_CONNECTION_BYTES: step.device_memory.per_connection_bytes,
        HeldField.CONFIGURED_RTT_MS: result.profile.rtt_ms,
        HeldField.VERIFIED_RTT_MS: result.rtt.verified_rtt_ms,
    }
    if operations is not None:
        fields |= {
            HeldField.OPERATIONS: operations.n,
            HeldField.OPERATION_P50_MS: operations.p50_ms,
            HeldField.OPERATION_P50_CI_LOW_MS: operations.p50_ci_low_ms,
            HeldField.OPERATION_P50_CI_HIGH_MS: operations.p50_ci_high_ms,
            HeldField.OPERATION_P95_MS: operations.p95_ms,
            HeldField.OPERATION_P95_CI_LOW_MS: operations.p95_ci_low_ms,
            HeldField.OPERATION_P95_CI_HIGH_MS: operations.p95_ci_high_ms,
        }
    return Point(Measurement.HELD_CONNECTIONS, tags, fields, epoch_ns(result.finished_at))


def held_points(result: HoldResult) -> list[Point]:
    return [held_point(result, step) for step in result.steps if step.ok]


def publish_hold(settings: Settings, result: HoldResult) -> list[Delivery]:
    lines = format_points(held_points(result))
    return [deliver_lines(influx_writer(settings), lines, Spool(settings.spool_dir), result.run_id)]
