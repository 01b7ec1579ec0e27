"""``bench-runner verdicts``: the verdicts of runs read back from their results.json, as a
table, each median beside its 95 % interval and the baseline's. A run written before
verdicts existed is judged on the spot, against the nights before it, with the settings of
its plan when it is a built-in one (else the defaults)."""

from pathlib import Path

from rich.table import Table

from bench_runner import store
from bench_runner.plan import BUILTIN_PLANS, load_plan
from bench_runner.results import RunResult
from bench_runner.store import RunNotFoundError, UnreadableRunError
from bench_runner.verdicts.config import VerdictConfig
from bench_runner.verdicts.judge import history_for, judge_run


def latest_run_id(results_dir: Path) -> str:
    """The runner's run that started last (store.py's order)."""
    measured = [run for run in store.runs(results_dir) if run.kind == "runner"]
    if not measured:
        raise RunNotFoundError(f"no run under {results_dir}")
    return measured[-1].run_id


def plan_config(plan: str | None) -> VerdictConfig:
    return load_plan(plan).verdicts if plan in BUILTIN_PLANS else VerdictConfig()


def load_judged(results_dir: Path, name: str) -> RunResult:
    """The run ``name`` (its id, or a prefix of only its id) with its verdicts, judged now
    if it has none."""
    try:
        run = store.find_run(results_dir, name).result()
    except UnreadableRunError as exc:
        raise RunNotFoundError(str(exc)) from exc
    judged = [mode for mode in run.modes if mode.published and mode.samples_ms]
    if any(mode.verdict is None for mode in judged):
        config = plan_config(run.plan)
        judge_run(run, history_for(run, results_dir, config), config)
    return run


def _number(value: float | None, digits: int = 1, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


STYLES = {"regression": "red", "improved": "green", "new": "cyan", "within_noise": "dim"}


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"{low:.1f}-{high:.1f}"


def verdicts_table(runs: list[RunResult]) -> Table:
    table = Table(title="verdicts: each series against the earlier nights of its plan")
    for header in (
        "run",
        "profile",
        "mode",
        "client",
        "parameters",
        "verdict",
        "median ms",
        "95 % CI",
        "baseline ms",
        "baseline CI",
        "intervals",
        "MAD ms",
        "change %",
        "threshold %",
        "z",
        "nights",
        "shift since",
    ):
        table.add_column(header, justify="left" if header[0].isalpha() else "right")
    for run in runs:
        for mode in run.modes:
            verdict = mode.verdict
            if verdict is None:
                continue
            style = STYLES.get(verdict.verdict, "")
            table.add_row(
                run.run_id,
                run.profile.name,
                mode.mode,
                mode.client,
                " ".join(f"{key}={value}" for key, value in mode.parameter_tags().items()),
                f"[{style}]{verdict.verdict}[/{style}]" if style else verdict.verdict,
                _number(verdict.median_ms),
                _interval(verdict.p50_ci_low_ms, verdict.p50_ci_high_ms),
                _number(verdict.baseline_median_ms),
                _interval(verdict.baseline_ci_low_ms, verdict.baseline_ci_high_ms),
                verdict.intervals or "-",
                _number(verdict.baseline_mad_ms, 2),
                _number(verdict.change_pct, signed=True),
                _number(verdict.threshold_pct),
                _number(verdict.robust_z, signed=True),
                str(verdict.nights),
                verdict.changepoint_run_id or "",
            )
    return table
