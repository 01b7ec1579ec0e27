"""The precision table (``bench-runner precision-table``): per run, how long it took, how
many iterations it ran and how many of its p50s are within the target half-width, so an
adaptive run can be set beside a fixed-count one of the same plan (docs/precision.md).

Runs written before schema version 5 carry no interval: their half-widths are computed here
from ``samples_ms`` with the same order statistics (``stats.median_half_width_pct``), judged
against the default target, and their rule shown as ``fixed``.
"""

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from statistics import median
from typing import Any

from bench_runner.precision import DEFAULT_TARGET_PCT
from bench_runner.stats import median_half_width_pct

Document = dict[str, Any]

HEADER = (
    "| run | plan | profile | rule | minutes | series | iterations | within target "
    "| stops | median ± | widest ± |"
)


def _half_width(mode: Document) -> float | None:
    stats = mode.get("stats") or {}
    recorded = stats.get("p50_ci_half_width_pct")
    if recorded is not None:
        return float(recorded)
    return median_half_width_pct(mode.get("samples_ms") or [])


def _target(mode: Document) -> float:
    precision = mode.get("precision") or {}
    return float(precision.get("target_half_width_pct", DEFAULT_TARGET_PCT))


def _stop(mode: Document) -> str:
    precision = mode.get("precision")
    return str(precision["stop_reason"]) if precision else "fixed"


def _minutes(run: Document) -> float:
    started = datetime.fromisoformat(run["started_at"])
    finished = datetime.fromisoformat(run["finished_at"])
    return (finished - started).total_seconds() / 60


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} %"


def run_row(run: Document) -> str:
    """One run's line of the table: measured series only (the RTT gate's refusals and modes
    without samples have no median to be precise about)."""
    modes = [mode for mode in run.get("modes", []) if mode.get("samples_ms")]
    widths = [(_half_width(mode), mode) for mode in modes]
    known = [(width, mode) for width, mode in widths if width is not None]
    within = sum(1 for width, mode in known if width <= _target(mode))
    stops = Counter(_stop(mode) for mode in modes)
    rules = sorted({(mode.get("precision") or {}).get("rule", "fixed") for mode in modes})
    widest = max(known, key=lambda pair: pair[0], default=None)
    widest_text = "-" if widest is None else f"{widest[0]:.1f} % ({widest[1]['series']})"
    return (
        f"| {run['run_id']} | {run.get('plan') or 'default'} | {run['profile']['name']} "
        f"| {', '.join(rules) or '-'} | {_minutes(run):.1f} | {len(modes)} "
        f"| {sum(int(mode['iterations']) for mode in modes)} | {within} of {len(modes)} "
        f"| {', '.join(f'{reason} {count}' for reason, count in sorted(stops.items()))} "
        f"| {_pct(median([width for width, _ in known]) if known else None)} | {widest_text} |"
    )


def precision_markdown(runs: Sequence[Document], command: str, made_at: str) -> str:
    """The table of ``runs`` in the order given, with the command that made it."""
    lines = [
        "# Precision of runs",
        "",
        f"Made by `{command}` on {made_at}. Half-widths: the larger distance from a p50 to an "
        "end of its 95 % interval, in percent of the p50; the target is the run's "
        f"(`precision_pct`; {DEFAULT_TARGET_PCT:g} % for runs written before the intervals).",
        "",
        HEADER,
        "|" + " --- |" * HEADER.count(" | ") + " --- |",
        *(run_row(run) for run in runs),
        "",
    ]
    return "\n".join(lines)
