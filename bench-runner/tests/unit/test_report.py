import json
from pathlib import Path

import pytest

from bench_runner.report import load_runs, run_figures
from bench_runner.results import ModeRun, RunResult, write_results


def test_report_figures(tmp_path: Path, sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, _ = sample_run
    document = json.loads(run.model_dump_json())
    # keep-alive: 2 samples 31.5 + 32.5 = 64 ms inside a 0.0656 s span: 2.5 % overhead
    document["modes"][0]["resources"] = {
        "elapsed_s": 0.0656,
        "runner_cpu_s": 0.01,
        "runner_rss_peak_bytes": 1,
        "device_cpu_s": None,
        "device_memory_peak_bytes": None,
        "device_samples": 0,
        "device_error": "x",
    }
    write_results(RunResult.model_validate(document), tmp_path)
    (tmp_path / "other").mkdir()  # a directory without results.json is skipped
    runs = load_runs(tmp_path, ["20261122T110000Z"])
    assert len(runs) == 1
    figures = runs[0]
    assert figures.wall_s == 60.0
    # (warmup 0 + 2 iterations) x (1 + 2 round trips) x 30 ms, one command each
    assert figures.rtt_bound_s == pytest.approx(0.18)
    keep_alive, reuse = figures.modes
    assert keep_alive.bound_ms == pytest.approx(30.4)
    assert keep_alive.p50_over_bound == pytest.approx(32.0 / 30.4)
    assert keep_alive.overhead_pct == pytest.approx(2.5)
    assert reuse.overhead_pct is None  # a failed iteration: the span is not all samples
    assert load_runs(tmp_path, ["nope"]) == []


def test_counted_round_trip_bound(sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, _ = sample_run
    document = json.loads(run.model_dump_json())
    assert run_figures(document).counted_bound_s is None  # no wire counts: no counted bound
    for mode, round_trips in zip(document["modes"], (1.0, 4.0), strict=True):
        mode["wire"] = {"available": True, "p50": {"round_trips": round_trips}}
    figures = run_figures(document)
    # (0 + 2 iterations) x (1 + 4 counted round trips) x 30 ms
    assert figures.counted_bound_s == pytest.approx(0.3)
    assert figures.wall_over_counted == pytest.approx(60.0 / 0.3)


def test_a_streams_bound_is_the_one_way_delay(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    """gnmi/stream's values are update delays: set against half the verified RTT (an update
    crosses the WAN once), and its span, which holds every iteration's unmeasured change, is
    no harness overhead."""
    run, _ = sample_run
    document = json.loads(run.model_dump_json())
    stream = document["modes"][0]
    stream.update(mode="gnmi/stream", transport="gnmi", client="grpc-go", min_round_trips=0)
    stream["resources"] = {"elapsed_s": 5.0, "runner_cpu_s": 0.01, "runner_rss_peak_bytes": 1}
    figures = run_figures(document).modes[0]
    assert figures.bound_ms == pytest.approx(30.4 / 2)
    assert figures.p50_over_bound == pytest.approx(32.0 / 15.2)
    assert figures.overhead_pct is None
