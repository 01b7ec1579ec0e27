"""Regression verdicts: the robust-z gate, the change-point search, the earlier nights read
back from the results directory, what the sinks get, and ``bench-runner verdicts``."""

import itertools
import json
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from bench_runner.cli import app
from bench_runner.results import ModeRun, RunResult, write_results
from bench_runner.sinks.influx import run_points
from bench_runner.sinks.line_protocol import format_points
from bench_runner.sinks.pushgateway import run_registry
from bench_runner.stats import summarize
from bench_runner.verdicts.changepoint import change_points, energy_statistics
from bench_runner.verdicts.config import VerdictConfig
from bench_runner.verdicts.gate import Night, baseline_interval, gate, night_of
from bench_runner.verdicts.judge import history_for, judge_run, summary_line
from bench_runner.verdicts.model import Verdict
from bench_runner.verdicts.simulation import SCENARIOS, simulate

CONFIG = VerdictConfig()


def nights(*medians: float, spread_pct: float = 2.0) -> list[Night]:
    return [Night(median, spread_pct, 20) for median in medians]


QUIET = nights(100, 101, 99, 100.5, 99.5, 100, 101.5, 98.5)


def test_no_earlier_night_is_new_and_a_few_are_not_enough() -> None:
    assert gate([], QUIET[0], CONFIG).verdict == "new"
    short = gate(QUIET[: CONFIG.min_nights - 1], QUIET[0], CONFIG)
    assert (short.verdict, short.judgement) == ("insufficient_history", None)


def test_a_night_within_the_noise_is_unchanged() -> None:
    result = gate(QUIET, Night(101.0, 2.0, 20), CONFIG)
    assert result.verdict == "unchanged"
    assert result.judgement is not None
    assert result.judgement.baseline_median_ms == 100.0
    assert result.judgement.threshold_pct == 5.0  # the 2 % noise floor is below the minimum


def test_a_large_significant_change_is_a_regression_or_an_improvement() -> None:
    slower = gate(QUIET, Night(112.0, 2.0, 20), CONFIG)
    assert slower.verdict == "regression"
    assert slower.judgement is not None
    assert slower.judgement.rule == "tonight"
    assert slower.judgement.change_pct == pytest.approx(12.0)
    # MAD of the quiet nights is 0.75 ms: z = 12 / (1.4826 x 0.75).
    assert slower.judgement.robust_z == pytest.approx(12 / (1.4826 * 0.75))
    assert gate(QUIET, Night(88.0, 2.0, 20), CONFIG).verdict == "improved"


def test_a_significant_change_below_the_threshold_is_unchanged() -> None:
    flat = nights(*[100.0 + 0.01 * k for k in range(10)])
    result = gate(flat, Night(102.0, 0.1, 20), CONFIG)
    assert result.judgement is not None
    assert result.judgement.robust_z is not None
    assert result.judgement.robust_z > 3
    assert result.verdict == "unchanged"


def test_the_noise_floor_raises_the_threshold() -> None:
    noisy = nights(100, 100.2, 99.8, 100.1, 99.9, 100, spread_pct=25.0)
    result = gate(noisy, Night(112.0, 25.0, 20), CONFIG)
    assert result.judgement is not None
    assert result.judgement.threshold_pct == 25.0
    assert result.verdict == "unchanged"


def test_a_lasting_shift_is_seen_with_last_night() -> None:
    """Tonight alone is short of significance (last night's 104 ms is in its baseline);
    with last night, against the nights before it, it is not."""
    history = nights(100, 102, 98, 101, 99, 100.5, 99.5, 100, 104)
    result = gate(history, Night(104.0, 2.0, 20), CONFIG)
    assert result.verdict == "regression"
    assert result.judgement is not None
    assert result.judgement.rule == "sustained"


def test_a_night_from_its_samples() -> None:
    night = night_of([10.0, 11.0, 12.0, 13.0, 100.0])
    assert (night.median_ms, night.n) == (12.0, 5)
    assert night.spread_pct == pytest.approx(100 * 1.4826 * 1.0 / 12.0)
    assert night.p50_ci is None  # under 6 samples a median has no interval
    assert night_of([10.0, 11.0, 12.0, 13.0, 14.0, 100.0]).p50_ci == (10.0, 100.0)


def test_the_baseline_interval_is_the_median_of_nights_interval_not_their_union() -> None:
    """14 nights: the median's 95 % interval lies between the 3rd and 12th smallest nightly
    medians; the nights' own intervals (here each ±20 %) do not enter it."""
    medians = [100.0 + (5 * k) % 14 for k in range(14)]
    wide = [Night(median, 2.0, 20, (0.8 * median, 1.2 * median)) for median in medians]
    assert baseline_interval(wide) == (102.0, 111.0)
    # Tonight's interval misses the baseline's but lies inside the union of the nights':
    # told apart, so the robust-z gate rules (a regression).
    tonight = Night(125.0, 2.0, 20, (120.0, 130.0))
    result = gate(wide, tonight, CONFIG)
    assert result.noise is not None
    assert result.noise.outcome == "apart"
    assert result.verdict == "regression"


def test_overlapping_intervals_are_within_noise_whatever_the_robust_z() -> None:
    """QUIET's 8 nights: the baseline interval is [98.5, 101.5] (ranks 1 and 8 of 8)."""
    assert baseline_interval(QUIET) == (98.5, 101.5)
    flagged = gate(QUIET, Night(112.0, 2.0, 20, (110.0, 114.0)), CONFIG)
    assert (flagged.verdict, flagged.noise and flagged.noise.outcome) == ("regression", "apart")
    wide = gate(QUIET, Night(112.0, 2.0, 20, (101.0, 125.0)), CONFIG)
    assert wide.verdict == "within_noise"
    assert wide.judgement is not None
    assert wide.judgement.robust_z is not None
    assert wide.judgement.robust_z > CONFIG.z_threshold  # the gate alone would have flagged it
    assert gate(QUIET, Night(100.2, 2.0, 20, (99.0, 101.0)), CONFIG).verdict == "within_noise"


def test_without_an_interval_the_robust_z_gate_decides_and_says_so() -> None:
    tonight = Night(112.0, 2.0, 5, None)  # under 6 samples
    result = gate(QUIET, tonight, CONFIG)
    assert (result.verdict, result.noise and result.noise.outcome) == ("regression", "unknown")
    five = QUIET[:5]  # a baseline of 5 nights has no interval either
    assert baseline_interval(five) is None
    alone = gate(five, Night(112.0, 2.0, 20, (110.0, 114.0)), CONFIG)
    assert (alone.verdict, alone.noise and alone.noise.outcome) == ("regression", "unknown")


def test_a_judged_run_carries_both_intervals(
    sample_run: tuple[RunResult, list[ModeRun]], tmp_path: Path
) -> None:
    """Nights of 20 samples each: quiet ones, then tonight 1 % slower (within noise) and a
    night 20 % slower (a regression told apart); the summary counts them."""
    run, _ = sample_run
    samples = [30.0 + 0.1 * k for k in range(20)]
    steady = run.model_copy(
        update={"modes": [run.modes[0].model_copy(update={"samples_ms": samples})]}, deep=True
    )
    for day, scale in enumerate(SCALES):
        write_night(tmp_path, steady, f"night{day}", day, scale)
    quiet = write_night(tmp_path, steady, "quiet", len(SCALES), 1.01)
    judge_run(quiet, history_for(quiet, tmp_path, CONFIG), CONFIG)
    [verdict] = [mode.verdict for mode in quiet.modes]
    assert verdict is not None
    assert (verdict.verdict, verdict.intervals) == ("within_noise", "overlap")
    assert verdict.p50_ci_low_ms is not None
    assert verdict.baseline_ci_low_ms is not None
    assert summary_line(quiet, CONFIG) == "verdicts: 1 within noise"
    slow = write_night(tmp_path, steady, "slow", len(SCALES) + 1, 1.2)
    judge_run(slow, history_for(slow, tmp_path, CONFIG), CONFIG)
    [verdict] = [mode.verdict for mode in slow.modes]
    assert verdict is not None
    assert (verdict.verdict, verdict.intervals) == ("regression", "apart")
    assert verdict.baseline_ci_high_ms is not None
    assert verdict.p50_ci_low_ms is not None
    assert verdict.p50_ci_low_ms > verdict.baseline_ci_high_ms


def brute_force_energy(values: list[float], split: int) -> float:
    """The statistic as the docstring writes it, pair by pair."""
    head, tail = values[:split], values[split:]
    m, k = len(head), len(tail)
    between = sum(abs(a - b) for a in head for b in tail) * 2 / (m * k)
    within_head = (
        sum(abs(a - b) for a, b in itertools.combinations(head, 2)) / (m * (m - 1) / 2)
        if m > 1
        else 0.0
    )
    within_tail = (
        sum(abs(a - b) for a, b in itertools.combinations(tail, 2)) / (k * (k - 1) / 2)
        if k > 1
        else 0.0
    )
    return m * k / (m + k) * (between - within_head - within_tail)


def test_the_energy_statistic_is_its_definition() -> None:
    values = list(np.random.default_rng(7).normal(100, 3, 17))
    computed = energy_statistics(values)
    assert len(computed) == len(values) - 1
    for split in range(1, len(values)):
        assert computed[split - 1] == pytest.approx(brute_force_energy(values, split))


def test_change_points_date_a_step_and_leave_noise_alone() -> None:
    rng = np.random.default_rng(11)
    step = list(100 + rng.normal(0, 1, 12)) + list(110 + rng.normal(0, 1, 6))
    assert change_points(step) == [12]
    assert change_points(step) == change_points(step)  # seeded
    assert change_points(list(100 + rng.normal(0, 1, 20))) == []
    assert change_points([100.0] * 10) == []
    # One high night cannot be told from an outlier (the permutations put it at an end
    # often enough); from its second night on, the shift is dated.
    quiet = list(100 + rng.normal(0, 0.5, 14))
    assert change_points([*quiet, 140.0]) == []
    assert change_points([*quiet, 140.0, 141.0]) == [14]


def write_night(
    results_dir: Path, run: RunResult, run_id: str, day: int, scale: float, **updates: object
) -> RunResult:
    modes = [
        mode.model_copy(
            update={
                "samples_ms": [sample * scale for sample in mode.samples_ms],
                "stats": summarize([sample * scale for sample in mode.samples_ms], 0),
            }
        )
        for mode in run.modes
    ]
    night = run.model_copy(
        update={
            "run_id": run_id,
            "started_at": run.started_at + timedelta(days=day),
            "modes": modes,
            **updates,
        },
        deep=True,
    )
    write_results(night, results_dir)
    return night


SCALES = (1.0, 1.01, 0.99, 1.005, 0.995, 1.0)


def test_a_run_is_judged_against_the_earlier_nights_of_its_plan(
    sample_run: tuple[RunResult, list[ModeRun]], tmp_path: Path
) -> None:
    run, _ = sample_run
    for day, scale in enumerate(SCALES):
        write_night(tmp_path, run, f"night{day}", day, scale, plan="nightly")
    write_night(tmp_path, run, "other-plan", 3, 5.0, plan="smoke")
    other_profile = run.profile.model_copy(update={"name": "local"})
    write_night(tmp_path, run, "other-profile", 4, 5.0, plan="nightly", profile=other_profile)
    tonight = write_night(tmp_path, run, "tonight", len(SCALES), 1.2, plan="nightly")
    later = write_night(tmp_path, run, "later", len(SCALES) + 1, 9.0, plan="nightly")
    judge_run(tonight, history_for(tonight, tmp_path, CONFIG), CONFIG)
    [fast, reuse] = [mode.verdict for mode in tonight.modes]
    assert fast is not None
    assert reuse is not None
    assert (fast.verdict, fast.nights) == ("regression", len(SCALES))
    assert fast.change_pct == pytest.approx(20.0)
    assert fast.changepoint_run_id is None  # one night is not yet a lasting shift
    assert reuse.verdict == "regression"  # its one sample: 61 ms x 1.2
    line = summary_line(tonight, CONFIG)
    assert line.startswith("verdicts: 2 regressed (https/keep-alive httpx +20.0 %, ")
    assert later.modes[0].verdict is None  # judged only when it runs


def test_the_first_nights_are_new_then_short_of_history(
    sample_run: tuple[RunResult, list[ModeRun]], tmp_path: Path
) -> None:
    run, _ = sample_run
    first = write_night(tmp_path, run, "n0", 0, 1.0)
    judge_run(first, history_for(first, tmp_path, CONFIG), CONFIG)
    assert summary_line(first, CONFIG) == "verdicts: 2 new"
    second = write_night(tmp_path, run, "n1", 1, 1.0)
    judge_run(second, history_for(second, tmp_path, CONFIG), CONFIG)
    assert summary_line(second, CONFIG) == "verdicts: 2 with insufficient history (< 5 nights)"


def test_the_sinks_carry_the_verdicts(sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, mode_runs = sample_run
    regressed = run.modes[0].model_copy(
        update={
            "verdict": Verdict(
                verdict="regression", median_ms=36.0, nights=9, change_pct=12.5, robust_z=4.2
            )
        }
    )
    unchanged = run.modes[1].model_copy(
        update={"verdict": Verdict(verdict="unchanged", median_ms=61.0, nights=9)}
    )
    judged = run.model_copy(update={"modes": [regressed, unchanged]})
    runs = [ModeRun(regressed, mode_runs[0].records), ModeRun(unchanged, mode_runs[1].records)]
    points = run_points(judged, runs)
    verdicts = [point for point in points if point.measurement == "verdict"]
    assert [point.fields["verdict"] for point in verdicts] == ["regression", "unchanged"]
    assert {point.timestamp_ns for point in verdicts} == {points[0].timestamp_ns}
    assert len({(p.measurement, p.series(), p.timestamp_ns) for p in points}) == len(points)
    assert format_points(points).count("\n") == len(points)
    registry = run_registry(judged)
    labels = {"mode": "https/keep-alive", "client": "httpx"}
    assert registry.get_sample_value("transport_bench_mode_regression", _full(judged, labels)) == 1
    assert registry.get_sample_value(
        "transport_bench_mode_verdict_change_ratio", _full(judged, labels)
    ) == pytest.approx(0.125)
    reuse = _full(judged, {"mode": "ssh/reuse-conn", "client": "asyncssh"})
    assert registry.get_sample_value("transport_bench_mode_regression", reuse) == 0
    assert (
        registry.get_sample_value("transport_bench_mode_verdict", {**reuse, "verdict": "unchanged"})
        == 1
    )


def _full(run: RunResult, labels: dict[str, str]) -> dict[str, str]:
    mode = next(mode for mode in run.modes if mode.mode == labels["mode"])
    return {
        "run_id": run.run_id,
        "profile": run.profile.name,
        "engine": run.profile.engine,
        "transport": mode.transport,
        "client_version": mode.client_version,
        **labels,
    }


def test_the_verdicts_command_exits_by_what_it_found(
    sample_run: tuple[RunResult, list[ModeRun]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "250")
    run, _ = sample_run
    cli = CliRunner()
    assert cli.invoke(app, ["verdicts"]).exit_code == 2  # no run at all
    for day, scale in enumerate(SCALES):
        write_night(tmp_path, run, f"night{day}", day, scale)
    quiet = cli.invoke(app, ["verdicts"])  # the latest: night5, judged on the spot
    assert quiet.exit_code == 0, quiet.output
    assert "night5: verdicts: 2 unchanged" in quiet.output
    write_night(tmp_path, run, "slow", len(SCALES), 1.5)
    slow = cli.invoke(app, ["verdicts", "--run", "slow", "--run", "night5"])
    assert slow.exit_code == 1, slow.output
    assert "regression" in slow.output
    assert cli.invoke(app, ["verdicts", "--run", "nope"]).exit_code == 2
    stored = json.loads((tmp_path / "slow" / "results.json").read_text())
    assert stored["modes"][0]["verdict"] is None  # the command reads, it never rewrites


def test_the_gate_meets_its_targets_at_2_percent_noise_and_1_percent_drift() -> None:
    """The issue's targets, on seeded synthetic nights (simulation.py; the 5 %/2 % figures
    are published by `make bench-verdicts`, not asserted)."""
    figures = simulate(SCENARIOS[0], trials=600, seed=20261123, config=CONFIG)
    assert figures.detected_within_2_nights_pct >= 95.0, figures
    assert figures.false_alarms_per_mode_night_pct <= 2.0, figures
    assert figures.mann_whitney_false_alarms_per_mode_night_pct > 10.0, figures
