"""Intervals beside their figures: the columns, how each chart draws them, and the
within-noise verdict of a ratio."""

import re

import pytest
from bench_runner.influx_schema import SummaryField

from lab_dashboards.intervals import (
    P50,
    SPEEDUP,
    band_overrides,
    bar_overrides,
    noise_mappings,
    point,
    units,
    with_interval,
    within_noise,
)


def test_a_figure_stands_between_its_interval_ends() -> None:
    columns = with_interval(P50, "p50")
    assert [column.name for column in columns] == ["p50 CI low", "p50", "p50 CI high"]
    assert [column.expression for column in columns] == [
        f'last("{SummaryField.P50_CI_LOW_MS}")',
        f'last("{SummaryField.P50_MS}")',
        f'last("{SummaryField.P50_CI_HIGH_MS}")',
    ]


def test_a_derived_figure_derives_its_ends_alike() -> None:
    low, _, high = with_interval(P50, "per RPC", lambda field: f'{point(field)} / "n"')
    assert low.expression == f'"{SummaryField.P50_CI_LOW_MS}" / "n"'
    assert high.expression == f'"{SummaryField.P50_CI_HIGH_MS}" / "n"'


def test_the_ends_take_the_figures_unit() -> None:
    assert units({"p50": "ms"}) == {"p50 CI low": "ms", "p50": "ms", "p50 CI high": "ms"}


def test_bars_of_an_interval_share_the_figures_hue_lighter() -> None:
    names = ["p50 CI low", "p50", "p50 CI high", "p95 CI low", "p95", "p95 CI high", "other"]
    overrides = dict(bar_overrides(names))
    assert set(overrides) == set(names) - {"other"}
    p50_color = dict(overrides["p50"])["color"]
    assert dict(overrides["p50 CI low"])["color"] == p50_color
    assert dict(overrides["p95"])["color"] != p50_color
    assert "custom.fillOpacity" in dict(overrides["p50 CI high"])


def test_a_time_series_fills_from_the_high_end_down_to_the_low_end() -> None:
    overrides = {
        name: dict(properties)
        for name, properties in band_overrides(["p50 CI low", "p50", "p50 CI high"])
    }
    assert overrides["p50 CI high"]["custom.fillBelowTo"] == "p50 CI low"
    assert overrides["p50 CI low"]["custom.lineWidth"] == 0
    assert "custom.fillBelowTo" not in overrides["p50"]


def test_no_band_without_both_ends() -> None:
    assert band_overrides(["p50", "p50 CI low"]) == []


def _evaluate(expression: str, low: float, high: float) -> float:
    """The InfluxQL expression with the interval's ends put in (abs is Python's too)."""
    text = expression.replace(f'last("{SPEEDUP.low}")', repr(low))
    text = text.replace(f'last("{SPEEDUP.high}")', repr(high))
    assert not re.search(r"[a-z_]+\(\"", text), text
    return float(eval(text))


@pytest.mark.parametrize(
    ("low", "high", "verdict"),
    [
        (0.9, 1.1, 0.0),
        (1.0, 1.0, 0.0),
        (1.0, 2.0, 0.0),
        (0.5, 1.0, 0.0),
        (1.2, 1.5, 0.2),
        (0.5, 0.8, -0.2),
    ],
)
def test_within_noise_is_zero_exactly_when_the_interval_holds_one(
    low: float, high: float, verdict: float
) -> None:
    value = _evaluate(within_noise(SPEEDUP, "vs").expression, low, high)
    assert value == pytest.approx(verdict)
    assert (value == 0) == (low <= 1 <= high)


def test_within_noise_is_named_before_the_ranges_that_rank() -> None:
    """Grafana takes the first mapping that matches: 0 lies in both ranges' bounds."""
    mappings = noise_mappings("faster", "slower")
    assert mappings[0] == {
        "type": "value",
        "options": {"0": {"text": "within noise", "color": "text"}},
    }
    assert [mapping["type"] for mapping in mappings[1:]] == ["range", "range", "special"]
    assert mappings[1]["options"]["result"]["text"] == "faster"
    assert mappings[2]["options"]["result"]["text"] == "slower"
