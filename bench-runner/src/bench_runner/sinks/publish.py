"""Sends a finished run to every sink; what a sink refuses is spooled, never dropped."""

from bench_runner.results import ModeRun, RunResult
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


def published_only(run: RunResult, mode_runs: list[ModeRun]) -> tuple[RunResult, list[ModeRun]]:
    """Leave out modes the verified-RTT gate refused: their numbers would be attributed to
    a latency that was not in effect. results.json keeps them (published: false)."""
    kept = [mode_run for mode_run in mode_runs if mode_run.result.published]
    return run.model_copy(update={"modes": [mode_run.result for mode_run in kept]}), kept


def publish_run(settings: Settings, run: RunResult, mode_runs: list[ModeRun]) -> list[Delivery]:
    """InfluxDB gets the published modes; the Pushgateway every mode, so that a refused
    one raises the alert on its ``rtt_verified`` 0."""
    spool = Spool(settings.spool_dir)
    lines = format_points(influx.run_points(*published_only(run, mode_runs)))
    return [
        influx.deliver_lines(influx_writer(settings), lines, spool, run.run_id),
        pushgateway.deliver_run(settings.pushgateway_url, run, spool, run.run_id),
    ]
