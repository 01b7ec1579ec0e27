"""A run's verdicts: every published series with samples judged against its earlier
nights (``gate``), a regression or improvement dated by the change-point search on the
nightly medians (``changepoint``), and the one-line summary the run prints."""

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from bench_runner import store
from bench_runner.results import ModeResult, RunResult
from bench_runner.verdicts.changepoint import change_points
from bench_runner.verdicts.config import VerdictConfig
from bench_runner.verdicts.gate import gate, night_of
from bench_runner.verdicts.history import (
    NightRecord,
    SeriesId,
    nights_by_series,
    series_id,
)
from bench_runner.verdicts.model import Verdict


def history_for(
    run: RunResult, results_dir: Path, config: VerdictConfig
) -> dict[SeriesId, list[NightRecord]]:
    """The earlier nights ``run`` is judged against, as many as either method uses."""
    keep = max(config.baseline_nights + 1, config.changepoint_nights - 1)
    return nights_by_series(run, store.runs(results_dir), keep)


def judge_run(
    run: RunResult, history: Mapping[SeriesId, list[NightRecord]], config: VerdictConfig
) -> None:
    """Set ``verdict`` on every published mode of ``run`` with samples."""
    for mode in run.modes:
        if mode.published and mode.samples_ms:
            key = series_id(run.profile.name, run.profile.engine, mode)
            mode.verdict = judge_mode(run, mode, history.get(key, []), config)


def judge_mode(
    run: RunResult, mode: ModeResult, records: list[NightRecord], config: VerdictConfig
) -> Verdict:
    tonight = night_of(mode.samples_ms)
    result = gate([record.night for record in records], tonight, config)
    interval = tonight.p50_ci
    verdict = Verdict(
        verdict=result.verdict,
        median_ms=tonight.median_ms,
        nights=len(records),
        p50_ci_low_ms=interval[0] if interval else None,
        p50_ci_high_ms=interval[1] if interval else None,
    )
    judgement = result.judgement
    if judgement is not None:
        verdict = verdict.model_copy(
            update={
                "baseline_nights": judgement.baseline_nights,
                "baseline_median_ms": judgement.baseline_median_ms,
                "baseline_mad_ms": judgement.baseline_mad_ms,
                "noise_floor_pct": judgement.noise_floor_pct,
                "threshold_pct": judgement.threshold_pct,
                "change_pct": judgement.change_pct,
                "robust_z": judgement.robust_z,
                "rule": judgement.rule,
            }
        )
    noise = result.noise
    if noise is not None:
        baseline_ci = noise.baseline
        verdict = verdict.model_copy(
            update={
                "baseline_ci_low_ms": baseline_ci[0] if baseline_ci else None,
                "baseline_ci_high_ms": baseline_ci[1] if baseline_ci else None,
                "intervals": noise.outcome,
            }
        )
    if result.verdict in ("regression", "improved"):
        window = records[-(config.changepoint_nights - 1) :]
        medians = [record.night.median_ms for record in window] + [tonight.median_ms]
        points = change_points(medians, config.changepoint_permutations, config.changepoint_alpha)
        if points:
            first = points[-1]
            if first == len(window):
                run_id, started_at = run.run_id, run.started_at
            else:
                run_id, started_at = window[first].run_id, window[first].started_at
            verdict = verdict.model_copy(
                update={"changepoint_run_id": run_id, "changepoint_started_at": started_at}
            )
    return verdict


def _named(mode: ModeResult) -> str:
    verdict = mode.verdict
    change = f" {verdict.change_pct:+.1f} %" if verdict and verdict.change_pct is not None else ""
    parameters = " ".join(f"{key}={value}" for key, value in mode.parameter_tags().items())
    return " ".join(part for part in (mode.mode, mode.client, parameters) if part) + change


def summary_line(run: RunResult, config: VerdictConfig) -> str:
    """``verdicts: 2 regressed (ssh/fresh-conn asyncssh +12.3 %, ...), 1 improved (...),
    25 within noise, 5 unchanged, 4 new, 1 with insufficient history (< 5 nights)``; a
    series judged without intervals (``intervals: unknown``) is counted at the end."""
    judged = [mode for mode in run.modes if mode.verdict is not None]
    if not judged:
        return "verdicts: none (no published series with samples)"
    counts: Counter[str] = Counter(mode.verdict.verdict for mode in judged if mode.verdict)
    parts = []
    for kind, label in (("regression", "regressed"), ("improved", "improved")):
        if counts[kind]:
            named = ", ".join(
                _named(mode) for mode in judged if mode.verdict and mode.verdict.verdict == kind
            )
            parts.append(f"{counts[kind]} {label} ({named})")
    quiet = (("within_noise", "within noise"), ("unchanged", "unchanged"), ("new", "new"))
    for kind, label in quiet:
        if counts[kind]:
            parts.append(f"{counts[kind]} {label}")
    if counts["insufficient_history"]:
        parts.append(
            f"{counts['insufficient_history']} with insufficient history "
            f"(< {config.min_nights} nights)"
        )
    unknown = sum(bool(mode.verdict and mode.verdict.intervals == "unknown") for mode in judged)
    if unknown:
        parts.append(f"{unknown} judged without intervals (under 6 samples or 6 nights)")
    return "verdicts: " + ", ".join(parts)
