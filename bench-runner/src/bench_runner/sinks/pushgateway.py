"""Prometheus sink: gauges pushed once per run to the Pushgateway (the conventional way for
batch jobs), grouping key {job="transport_bench", profile}."""

import json
from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Gauge, generate_latest, push_to_gateway
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector

from bench_runner.results import RunResult
from bench_runner.sinks.delivery import Delivery, SinkError
from bench_runner.sinks.spool import PUSHGATEWAY_SUFFIX, Spool

JOB = "transport_bench"
PUSH_TIMEOUT_S = 15.0
MODE_LABELS = ("run_id", "profile", "engine", "mode", "transport", "client", "client_version")
RUN_LABELS = ("run_id", "profile", "engine")
# Gauge suffix -> Stats field in ms; exported in seconds, the Prometheus base unit.
DURATION_GAUGES = {
    "p50": "p50_ms",
    "p95": "p95_ms",
    "p99": "p99_ms",
    "mean": "mean_ms",
    "min": "min_ms",
    "max": "max_ms",
    "stddev": "stddev_ms",
    "p50_ci_low": "p50_ci_low_ms",
    "p50_ci_high": "p50_ci_high_ms",
    "p95_ci_low": "p95_ci_low_ms",
    "p95_ci_high": "p95_ci_high_ms",
}


def run_registry(run: RunResult) -> CollectorRegistry:
    """The run's gauges. Modes with parameters (NETCONF framing and reply size) add them
    as labels; modes without get them empty, which Prometheus treats as absent. A mode the
    RTT gate refused has only its RTT gauges, with ``rtt_verified`` 0: its figures were
    never measured, so none is published."""
    registry = CollectorRegistry()
    parameter_labels = sorted({key for mode in run.modes for key in mode.parameter_tags()})
    mode_labels = (*MODE_LABELS, *parameter_labels)
    durations = {
        suffix: Gauge(
            f"transport_bench_mode_{suffix}_seconds",
            f"{suffix} wall time of one iteration"
            + (" (an end of the 95 % interval)" if "_ci_" in suffix else ""),
            mode_labels,
            registry=registry,
        )
        for suffix in DURATION_GAUGES
    }
    iterations = Gauge(
        "transport_bench_mode_iterations",
        "successful measured iterations",
        mode_labels,
        registry=registry,
    )
    errors = Gauge(
        "transport_bench_mode_errors", "failed measured iterations", mode_labels, registry=registry
    )
    verified_rtt = Gauge(
        "transport_bench_mode_verified_rtt_seconds",
        "median TCP connect time to the mode's port",
        mode_labels,
        registry=registry,
    )
    configured_rtt = Gauge(
        "transport_bench_mode_configured_rtt_seconds",
        "RTT of the netem profile",
        mode_labels,
        registry=registry,
    )
    rtt_verified = Gauge(
        "transport_bench_mode_rtt_verified",
        "1 when the verified RTT matched the profile and the mode was "
        "measured, 0 when the RTT gate refused it",
        mode_labels,
        registry=registry,
    )
    regression = Gauge(
        "transport_bench_mode_regression",
        "1 when the mode's verdict against the earlier nights is a regression, else 0",
        mode_labels,
        registry=registry,
    )
    verdict_info = Gauge(
        "transport_bench_mode_verdict",
        "1 for the mode's verdict against the earlier nights (label verdict)",
        (*mode_labels, "verdict"),
        registry=registry,
    )
    verdict_change = Gauge(
        "transport_bench_mode_verdict_change_ratio",
        "the level judged against the earlier nights' median, minus 1 (0.1 = 10 % slower)",
        mode_labels,
        registry=registry,
    )
    verdict_z = Gauge(
        "transport_bench_mode_verdict_robust_z",
        "robust z of that change (verdicts/gate.py)",
        mode_labels,
        registry=registry,
    )
    stream_rate = Gauge(
        "transport_bench_mode_stream_updates_per_second",
        "updates one STREAM SAMPLE subscription delivered per second (gnmi/stream)",
        mode_labels,
        registry=registry,
    )
    half_width = Gauge(
        "transport_bench_mode_p50_ci_half_width_ratio",
        "half-width of the p50's 95 % interval over the p50 (0.03: within 3 %)",
        mode_labels,
        registry=registry,
    )
    precise = Gauge(
        "transport_bench_mode_precise",
        "1 when the p50 reached its target precision, else 0",
        mode_labels,
        registry=registry,
    )
    finished = Gauge(
        "transport_bench_run_finished_timestamp_seconds",
        "end of the run, Unix time",
        RUN_LABELS,
        registry=registry,
    )

    for mode in run.modes:
        tags = mode.parameter_tags()
        labels = (
            run.run_id,
            run.profile.name,
            run.profile.engine,
            mode.mode,
            mode.transport,
            mode.client,
            mode.client_version,
            *(tags.get(key, "") for key in parameter_labels),
        )
        rtt_verified.labels(*labels).set(1 if mode.published else 0)
        configured_rtt.labels(*labels).set(mode.configured_rtt_ms / 1000.0)
        if mode.verified_rtt_ms is not None:
            verified_rtt.labels(*labels).set(mode.verified_rtt_ms / 1000.0)
        if not mode.published:
            continue
        for suffix, field in DURATION_GAUGES.items():
            value_ms = getattr(mode.stats, field)
            if value_ms is not None:  # no sample: leave the series out rather than fake a 0
                durations[suffix].labels(*labels).set(value_ms / 1000.0)
        iterations.labels(*labels).set(mode.stats.n)
        errors.labels(*labels).set(mode.stats.errors)
        if mode.stream is not None:
            stream_rate.labels(*labels).set(mode.stream.updates_per_second)
        if mode.stats.p50_ci_half_width_pct is not None:
            half_width.labels(*labels).set(mode.stats.p50_ci_half_width_pct / 100)
        if mode.precision is not None:
            precise.labels(*labels).set(1 if mode.precision.precise else 0)
        verdict = mode.verdict
        if verdict is not None:
            regression.labels(*labels).set(1 if verdict.verdict == "regression" else 0)
            verdict_info.labels(*labels, verdict.verdict).set(1)
            if verdict.change_pct is not None:
                verdict_change.labels(*labels).set(verdict.change_pct / 100)
            if verdict.robust_z is not None:
                verdict_z.labels(*labels).set(verdict.robust_z)
    finished.labels(run.run_id, run.profile.name, run.profile.engine).set(
        run.finished_at.timestamp()
    )
    return registry


class _ParsedExposition(Collector):
    """Metrics parsed back from a spooled exposition text, so a replay pushes them through
    the same push_to_gateway call as a live run."""

    def __init__(self, exposition: str) -> None:
        self._families = list(text_string_to_metric_families(exposition))

    def collect(self) -> Iterable[Metric]:
        return self._families


def registry_from_exposition(exposition: str) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=True)
    registry.register(_ParsedExposition(exposition))
    return registry


def push(
    gateway_url: str, job: str, registry: CollectorRegistry, grouping_key: dict[str, str]
) -> None:
    """PUT the registry's metrics, replacing the group's previous ones."""
    try:
        push_to_gateway(
            gateway_url,
            job=job,
            registry=registry,
            grouping_key=grouping_key,
            timeout=PUSH_TIMEOUT_S,
        )
    except OSError as exc:  # urllib's URLError and HTTPError are OSErrors
        raise SinkError(f"{type(exc).__name__}: {exc}") from exc


def deliver_run(gateway_url: str, run: RunResult, spool: Spool, spool_name: str) -> Delivery:
    """Push the run's gauges, or spool the exposition text and grouping key for a replay."""
    registry = run_registry(run)
    grouping_key = {"profile": run.profile.name}
    try:
        push(gateway_url, JOB, registry, grouping_key)
    except SinkError as exc:
        payload = json.dumps(
            {
                "job": JOB,
                "grouping_key": grouping_key,
                "exposition": generate_latest(registry).decode("utf-8"),
            },
            indent=2,
        )
        path = spool.save(spool_name + PUSHGATEWAY_SUFFIX, payload)
        return Delivery("pushgateway", False, f"{gateway_url}: {exc}", spooled_to=path)
    published = sum(1 for mode in run.modes if mode.published)
    return Delivery(
        "pushgateway",
        True,
        f"{published} modes to {gateway_url}"
        + (
            f" ({len(run.modes) - published} refused by the RTT gate: rtt_verified 0 only)"
            if published < len(run.modes)
            else ""
        ),
    )
