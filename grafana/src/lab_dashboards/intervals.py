"""Figures with their 95 % confidence intervals: the columns that put a figure's interval
beside it, and how each visualization draws it (a band on a time series, lighter bars on
either side of a bar, small points above and below a point of an XY chart), so that no panel
shows a p50, a p95 or a ratio without the interval it is known to.

The runner writes the ends of each interval as fields of ``mode_summary`` (stats.py: order
statistics, distribution-free; absent where too few iterations give one). A ratio's interval
(speedup, times the floor) comes from both medians' intervals at 97.5 %, so that the two hold
together at 95 %. Two figures whose intervals overlap are "within noise": never ranked.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench_runner.influx_schema import SummaryField

from lab_dashboards.influxql import Column, quoted


@dataclass(frozen=True)
class Interval:
    """A ``mode_summary`` figure and the fields of its interval's ends."""

    figure: str
    low: str
    high: str


P50 = Interval(SummaryField.P50_MS, SummaryField.P50_CI_LOW_MS, SummaryField.P50_CI_HIGH_MS)
P95 = Interval(SummaryField.P95_MS, SummaryField.P95_CI_LOW_MS, SummaryField.P95_CI_HIGH_MS)
SPEEDUP = Interval(
    SummaryField.SPEEDUP_VS_BASELINE,
    SummaryField.SPEEDUP_VS_BASELINE_CI_LOW,
    SummaryField.SPEEDUP_VS_BASELINE_CI_HIGH,
)
VS_FLOOR = Interval(
    SummaryField.P50_VS_FLOOR, SummaryField.P50_VS_FLOOR_CI_LOW, SummaryField.P50_VS_FLOOR_CI_HIGH
)
INTERVALS = (P50, P95, SPEEDUP, VS_FLOOR)
"""Every figure a panel may show only with its interval (the lint holds panels to it)."""
P99 = Interval(SummaryField.P99_MS, SummaryField.P99_CI_LOW_MS, SummaryField.P99_CI_HIGH_MS)
"""Not in ``INTERVALS``: a p99's interval needs 368 iterations, which few runs measure, so a
p99 may be shown alone; a panel that judges a model against it reads its ends."""

PROMETHEUS_INTERVALS = {
    "transport_bench:mode_p50_round_trips:ratio": (
        "transport_bench_mode_p50_ci_low_seconds",
        "transport_bench_mode_p50_ci_high_seconds",
    ),
    "transport_bench_mode_p50_seconds": (
        "transport_bench_mode_p50_ci_low_seconds",
        "transport_bench_mode_p50_ci_high_seconds",
    ),
    "transport_bench_mode_p95_seconds": (
        "transport_bench_mode_p95_ci_low_seconds",
        "transport_bench_mode_p95_ci_high_seconds",
    ),
}
"""The Pushgateway's figures (and the recording rule of p50 in round trips) and the gauges of
their intervals' ends."""

LOW = "CI low"
HIGH = "CI high"
COLORS = ("blue", "orange", "green", "purple")
"""One hue per figure of a panel; its interval's ends are drawn in the same hue, lighter."""
ENDS_OPACITY = 25
BAND_OPACITY = 20


def low_name(name: str) -> str:
    return f"{name} {LOW}"


def high_name(name: str) -> str:
    return f"{name} {HIGH}"


def latest(field: str) -> str:
    """A per-series figure of a table result: the series' latest value."""
    return f"last({quoted(field)})"


def point(field: str) -> str:
    """A figure of every point (time series, XY charts)."""
    return quoted(field)


def with_interval(
    interval: Interval, name: str, expression: Callable[[str], str] = latest
) -> tuple[Column, Column, Column]:
    """The figure as ``name`` between its interval's low and high end. ``expression`` makes
    a field into the column's expression: a share per command divides every end alike."""
    return (
        Column(expression(interval.low), low_name(name)),
        Column(expression(interval.figure), name),
        Column(expression(interval.high), high_name(name)),
    )


def units(names_units: dict[str, str]) -> dict[str, str]:
    """``names_units`` with the same unit for the ends of each name's interval."""
    expanded: dict[str, str] = {}
    for name, unit in names_units.items():
        expanded |= {low_name(name): unit, name: unit, high_name(name): unit}
    return expanded


def figures_with_interval(names: Sequence[str]) -> list[str]:
    """The column names whose interval's ends are columns too, in order."""
    ordered = list(names)
    return [name for name in ordered if low_name(name) in ordered and high_name(name) in ordered]


def _fixed(color: str) -> dict[str, str]:
    return {"mode": "fixed", "fixedColor": color}


def bar_overrides(names: Sequence[str]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """Per column name, the field config that draws a figure's interval ends as lighter bars
    of its own hue either side of it (Grafana's bar chart has no error bars)."""
    overrides: list[tuple[str, list[tuple[str, Any]]]] = []
    for name, color in zip(figures_with_interval(names), COLORS, strict=False):
        overrides.append((name, [("color", _fixed(color))]))
        for end in (low_name(name), high_name(name)):
            overrides.append(
                (end, [("color", _fixed(color)), ("custom.fillOpacity", ENDS_OPACITY)])
            )
    return overrides


def band_overrides(names: Sequence[str]) -> list[tuple[str, list[tuple[str, Any]]]]:
    """Per series name of a time series, the field config that fills between a figure's
    interval ends (the high end's ``fillBelowTo`` the low end, both without a line) in the
    figure's hue."""
    overrides: list[tuple[str, list[tuple[str, Any]]]] = []
    no_line = [("custom.lineWidth", 0), ("custom.showPoints", "never")]
    for name, color in zip(figures_with_interval(names), COLORS, strict=False):
        overrides.append((name, [("color", _fixed(color))]))
        overrides.append(
            (
                high_name(name),
                [
                    ("color", _fixed(color)),
                    ("custom.fillBelowTo", low_name(name)),
                    ("custom.fillOpacity", BAND_OPACITY),
                    *no_line,
                ],
            )
        )
        overrides.append(
            (
                low_name(name),
                [
                    ("color", _fixed(color)),
                    ("custom.hideFrom", {"legend": True, "tooltip": False, "viz": False}),
                    *no_line,
                ],
            )
        )
    return overrides


INTERVAL_ENDS_REGEXP = f".*({LOW}|{HIGH}).*"
"""Every interval end of an XY chart, whatever series it belongs to."""
XY_ENDS = [("custom.show", "points"), ("custom.pointSize", {"fixed": 3})]
"""Small points above and below each measured point: its error bar's ends."""


def against(interval: Interval, reference: str, name: str) -> Column:
    """Where a figure's interval lies against ``reference`` (an expression), as one number:
    its distance above the reference when the whole interval is above, minus its distance
    below when the whole interval is below, so 0 exactly when the interval holds the
    reference; null without an interval or a reference."""
    low, high = latest(interval.low), latest(interval.high)
    above = f"({low} - {reference} + abs({low} - {reference})) / 2"
    below = f"({reference} - {high} + abs({reference} - {high})) / 2"
    return Column(f"{above} - {below}", name)


def within_noise(interval: Interval, name: str) -> Column:
    """Where a ratio's interval lies against 1: 0 exactly when it holds 1 (the two figures
    overlap: within noise)."""
    return against(interval, "1", name)


def against_mappings(
    inside: str, above: tuple[str, str], below: tuple[str, str], missing: str
) -> list[dict[str, Any]]:
    """The ``against`` number as words: ``inside`` for 0 (named first: Grafana takes the first
    mapping that matches, and 0 lies in both ranges' bounds), ``above`` or ``below`` (text,
    colour) beyond it, ``missing`` without an interval or a reference."""

    def result(text: str, color: str) -> dict[str, str]:
        return {"text": text, "color": color}

    return [
        {"type": "value", "options": {"0": result(inside, "text")}},
        {"type": "range", "options": {"from": 0, "to": None, "result": result(*above)}},
        {"type": "range", "options": {"from": None, "to": 0, "result": result(*below)}},
        {"type": "special", "options": {"match": "null", "result": result(missing, "text")}},
    ]


def noise_mappings(above: str, below: str) -> list[dict[str, Any]]:
    """The ``within_noise`` number as words: 0 within noise, above or below 1 beyond it; no
    interval (too few iterations, no baseline) is never ranked either."""
    return against_mappings(
        "within noise", (above, "green"), (below, "red"), "not ranked: no interval"
    )
