"""The Bad links dashboard: each figure of a lossy sweep where the panels promise it, the
measured tail judged against the loss model, and series kept apart in every chart."""

import re
from typing import Any

import pytest
from bench_runner.influx_schema import SummaryField, time_field, time_p50_field, wire_field

from lab_dashboards.boards import bad_links
from lab_dashboards.influxql import differs, matches, quoted
from lab_dashboards.intervals import P95, P99, against, latest
from lab_dashboards.panels import STREAM_MODES

MODEL_P95 = latest(SummaryField.LOSS_MODEL_P95_MS)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return bad_links.build()


def _panels(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [panel for panel in document["panels"] if panel["type"] != "row"]


def _query(panel: dict[str, Any]) -> str:
    [target] = panel["targets"]
    return str(target["query"])


def _panel_reading(document: dict[str, Any], kind: str, *fields: str) -> dict[str, Any]:
    """The one panel of type ``kind`` whose query reads every one of ``fields``."""
    [panel] = [
        panel
        for panel in _panels(document)
        if panel["type"] == kind and all(quoted(field) in _query(panel) for field in fields)
    ]
    return panel


def test_the_tails_are_charted_per_series_against_the_profiles(document: dict[str, Any]) -> None:
    """One chart per series, its bar groups the profiles: InfluxDB has no loss rate to put
    on an axis, and the description says the profile stands for it."""
    panel = _panel_reading(
        document, "barchart", SummaryField.P50_MS, SummaryField.P95_MS, SummaryField.P99_MS
    )
    assert panel["repeat"] == "series"
    assert matches("series", "series") in _query(panel)
    assert _query(panel).endswith('GROUP BY "profile"')
    assert panel["options"]["xField"] == "profile"
    assert "no loss rate" in panel["description"]


def test_the_measured_share_stands_beside_the_models_probability(
    document: dict[str, Any],
) -> None:
    panel = _panel_reading(
        document, "barchart", SummaryField.RECOVERED_SHARE, SummaryField.LOSS_MODEL_P_MEET
    )
    assert panel["repeat"] == "profile"
    assert panel["fieldConfig"]["defaults"]["unit"] == "percentunit"


def test_recovery_is_shown_per_iteration_and_as_its_p50(document: dict[str, Any]) -> None:
    per_iteration = _panel_reading(document, "barchart", time_field("recovery"))
    assert 'FROM "iteration"' in _query(per_iteration)
    assert f"mean({quoted(time_field('recovery'))})" in _query(per_iteration)
    summary = _panel_reading(
        document, "table", time_p50_field("recovery"), SummaryField.LOSS_MODEL_EXTRA_MS
    )
    assert 'FROM "mode_summary"' in _query(summary)


def test_retransmissions_and_timeouts_per_iteration(document: dict[str, Any]) -> None:
    panel = _panel_reading(
        document,
        "barchart",
        wire_field("retransmits_out"),
        wire_field("retransmits_in"),
        wire_field("timeouts"),
    )
    assert 'FROM "iteration"' in _query(panel)
    assert _query(panel).endswith('GROUP BY "series"')


def test_the_measured_tail_is_judged_against_the_model(document: dict[str, Any]) -> None:
    """p95 and p99 beside the model's, each with the number that says where the measured
    interval lies against the model's value, in words."""
    panel = _panel_reading(
        document,
        "table",
        SummaryField.P95_MS,
        SummaryField.LOSS_MODEL_P95_MS,
        SummaryField.P99_MS,
        SummaryField.LOSS_MODEL_P99_MS,
    )
    query = _query(panel)
    assert against(P95, MODEL_P95, "p95 against the model").text() in query
    p99_model = latest(SummaryField.LOSS_MODEL_P99_MS)
    assert against(P99, p99_model, "p99 against the model").text() in query
    words = {
        override["matcher"]["options"]: override["properties"][0]["value"]
        for override in panel["fieldConfig"]["overrides"]
        if override["properties"][0]["id"] == "mappings"
    }
    assert set(words) == {"p95 against the model", "p99 against the model"}
    for mappings in words.values():
        assert mappings[0]["options"]["0"]["text"] == "follows"
        assert [mapping["options"]["result"]["text"] for mapping in mappings[1:3]] == [
            "above",
            "below",
        ]


def _evaluate(expression: str, low: float, high: float, model: float) -> float:
    """The InfluxQL expression with the interval's ends and the model's value put in."""
    for field, value in ((P95.low, low), (P95.high, high), (SummaryField.LOSS_MODEL_P95_MS, model)):
        expression = expression.replace(latest(field), repr(value))
    assert not re.search(r"[a-z_]+\(\"", expression), expression
    return float(eval(expression))


@pytest.mark.parametrize(
    ("low", "high", "model", "verdict"),
    [
        (400.0, 450.0, 420.0, "follows"),
        (400.0, 450.0, 400.0, "follows"),
        (400.0, 450.0, 450.0, "follows"),
        (400.0, 450.0, 380.0, "above"),
        (400.0, 450.0, 470.0, "below"),
    ],
)
def test_the_verdict_follows_exactly_when_the_interval_holds_the_model(
    low: float, high: float, model: float, verdict: str
) -> None:
    value = _evaluate(against(P95, MODEL_P95, "v").expression, low, high, model)
    found = "follows" if value == 0 else "above" if value > 0 else "below"
    assert found == verdict


def test_every_request_panel_leaves_the_stream_out(document: dict[str, Any]) -> None:
    for panel in _panels(document):
        assert differs("mode", STREAM_MODES[0]) in _query(panel), panel["title"]


def test_every_panel_says_how_its_figure_is_made_and_its_caveat(document: dict[str, Any]) -> None:
    """Figures the capture cannot see for QUIC say so where they are shown."""
    for panel in _panels(document):
        query = _query(panel)
        if "wire_" in query or "recovered_share" in query or "time_recovery" in query:
            assert "QUIC" in panel["description"], panel["title"]


def test_profile_names_sort_in_loss_order_within_a_latency() -> None:
    """The charts order their profiles by name (Grafana's sortBy): the lab's loss profiles
    must come in loss order for that to read as loss on an axis."""
    for latency in ("regional", "continental"):
        by_loss = [latency, *(f"{latency}-loss-{pct}" for pct in ("0.1", "0.5", "1", "2"))]
        assert sorted(reversed(by_loss)) == by_loss
