"""Sends a finished run to every sink; what a sink refuses is spooled, never dropped."""

from bench_runner.results import RunResult
from bench_runner.runner import ModeRun
from bench_runner.settings import Settings
from bench_runner.sinks import influx, pushgateway
from bench_runner.sinks.delivery import Delivery
from bench_runner.sinks.line_protocol import format_points
from bench_runner.sinks.spool import Spool


def influx_writer(settings: Settings) -> influx.InfluxWriter:
    password = settings.influx_password.get_secret_value() if settings.influx_password else None
    return influx.InfluxWriter(
        settings.influx_url, settings.influx_db, settings.influx_username, password
    )


def publish_run(settings: Settings, run: RunResult, mode_runs: list[ModeRun]) -> list[Delivery]:
    spool = Spool(settings.spool_dir)
    lines = format_points(influx.run_points(run, mode_runs))
    return [
        influx.deliver_lines(influx_writer(settings), lines, spool, run.run_id),
        pushgateway.deliver_run(settings.pushgateway_url, run, spool, run.run_id),
    ]
