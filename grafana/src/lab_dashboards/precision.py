"""How precise each series' p50 is (its interval's half-width against the target, the
iterations it took and why they stopped), and comparisons that say "within noise" where two
figures' intervals overlap instead of ranking them."""

from collections.abc import Mapping
from typing import Any

from bench_runner.influx_schema import Measurement, SummaryField, Tag
from grafana_foundation_sdk.builders import table

from lab_dashboards.influxql import Column, last
from lab_dashboards.intervals import (
    P50,
    Interval,
    noise_mappings,
    units,
    with_interval,
    within_noise,
)
from lab_dashboards.panels import FULL, config, series_table

ACHIEVED = "± % reached"
TARGET = "± % target"
PRECISE = "precise"
STOPPED = "stopped"
STOP_REASONS = {
    "precise": "target reached",
    "max": "max iterations",
    "cap": "time cap",
    "fixed": "fixed count",
    "aborted": "aborted",
}
"""The runner's stop reasons (precision.py), in words."""


def _texts(texts: Mapping[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """A value mapping: value -> (text, colour)."""
    options = {
        value: {"text": text, "color": color, "index": index}
        for index, (value, (text, color)) in enumerate(texts.items())
    }
    return [{"type": "value", "options": options}]


def precision_table(
    where: tuple[str, ...],
    *,
    group_by: tuple[str, ...] = (Tag.SERIES,),
    height: int = 10,
    width: int = FULL,
) -> table.Panel:
    """One row per series: its p50 and interval, the half-width reached against the target,
    the iterations it took and why it stopped."""
    columns = (
        *with_interval(P50, "p50"),
        last(SummaryField.P50_CI_HALF_WIDTH_PCT, ACHIEVED),
        last(SummaryField.PRECISION_TARGET_PCT, TARGET),
        last(SummaryField.PRECISE, PRECISE),
        last(SummaryField.N, "iterations"),
        last(SummaryField.ERRORS, "failed"),
        last(SummaryField.STOP_REASON, STOPPED),
    )
    panel = series_table(
        "How precise is each p50? (95 % interval, iterations, why they stopped)",
        "The p50 between the ends of its 95 % confidence interval (order statistics, "
        "distribution-free), the interval's half-width in percent of the p50 (the larger "
        "side) against the plan's target, whether it got there, the measured iterations "
        "(successful, and failed) and why the runner stopped: the target reached, the "
        "maximum count, the mode's time cap, a fixed count (`--iterations`) or aborted. "
        "A p50 that is not precise is published all the same, its interval saying how far "
        "to trust it.",
        columns,
        where,
        units({"p50": "ms"}) | {ACHIEVED: "percent", TARGET: "percent"},
        group_by=group_by,
        measurement=Measurement.MODE_SUMMARY,
        height=height,
        width=width,
    )
    panel.override_by_name(
        PRECISE,
        config([("mappings", _texts({"1": ("yes", "green"), "0": ("no", "red")}))]),
    )
    stop_texts = {reason: (text, "text") for reason, text in STOP_REASONS.items()}
    panel.override_by_name(STOPPED, config([("mappings", _texts(stop_texts))]))
    return panel


def ratio_columns(interval: Interval, name: str, verdict: str) -> tuple[Column, ...]:
    """A ratio between its interval's ends, and ``verdict``: where the interval lies
    against 1."""
    return (*with_interval(interval, name), within_noise(interval, verdict))


def mark_noise(panel: table.Panel, verdict: str, above: str, below: str) -> table.Panel:
    """The ``verdict`` column in words: ``above`` or ``below`` 1 beyond noise, or within it."""
    return panel.override_by_name(verdict, config([("mappings", noise_mappings(above, below))]))
