"""The Pushgateway gauges of a run: every series keeps its labels, a refused mode only
says so."""

from prometheus_client import generate_latest

from bench_runner.results import ModeRun, RunResult
from bench_runner.sinks.pushgateway import run_registry


def _lines(run: RunResult, metric: str) -> list[str]:
    exposition = generate_latest(run_registry(run)).decode()
    return [line for line in exposition.splitlines() if line.startswith(metric + "{")]


def test_labels_carry_the_client_version(sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, _ = sample_run
    p50 = _lines(run, "transport_bench_mode_p50_seconds")
    assert len(p50) == 2
    assert all('client_version="1.0"' in line for line in p50)


def test_a_mode_refused_by_the_rtt_gate_has_only_its_rtt_gauges(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    refused = run.modes[1].model_copy(update={"published": False})
    run = run.model_copy(update={"modes": [run.modes[0], refused]})
    verified = _lines(run, "transport_bench_mode_rtt_verified")
    assert sorted(line.rsplit(" ", 1)[1] for line in verified) == ["0.0", "1.0"]
    for metric in (
        "transport_bench_mode_p50_seconds",
        "transport_bench_mode_iterations",
        "transport_bench_mode_errors",
    ):
        assert [line for line in _lines(run, metric) if 'mode="ssh/reuse-conn"' in line] == []
    assert len(_lines(run, "transport_bench_mode_configured_rtt_seconds")) == 2
