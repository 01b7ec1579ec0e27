"""The scheduled run's own series in the Pushgateway, for the NightlyRunMissing alert
(prometheus/rules/nightly.yml): when the last job ended, how, and when one last succeeded.
Pushed with POST, which replaces only the metrics pushed, so a failed night keeps the last
success's timestamp."""

from datetime import datetime

from prometheus_client import CollectorRegistry, Gauge, pushadd_to_gateway

from bench_runner.sinks.delivery import SinkError
from bench_runner.sinks.pushgateway import PUSH_TIMEOUT_S

JOB = "bench_nightly"


def status_registry(run_id: str, exit_code: int, finished: datetime) -> CollectorRegistry:
    registry = CollectorRegistry()
    Gauge(
        "bench_nightly_last_run_timestamp_seconds",
        "end of the last scheduled run, Unix time",
        registry=registry,
    ).set(finished.timestamp())
    Gauge(
        "bench_nightly_last_exit_code",
        "exit code of the last scheduled run's `bench-runner run` (0: every mode ok)",
        registry=registry,
    ).set(exit_code)
    if exit_code == 0:
        Gauge(
            "bench_nightly_last_success_timestamp_seconds",
            "end of the last scheduled run whose every mode was ok, Unix time",
            ["run_id"],
            registry=registry,
        ).labels(run_id).set(finished.timestamp())
    return registry


def push_status(gateway_url: str, run_id: str, exit_code: int, finished: datetime) -> None:
    try:
        pushadd_to_gateway(
            gateway_url,
            job=JOB,
            registry=status_registry(run_id, exit_code, finished),
            timeout=PUSH_TIMEOUT_S,
        )
    except OSError as exc:  # urllib's URLError and HTTPError are OSErrors
        raise SinkError(f"{type(exc).__name__}: {exc}") from exc
