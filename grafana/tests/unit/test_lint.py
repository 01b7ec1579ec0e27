"""The lint catches what Grafana would reject or render wrongly."""

import copy
import re
from typing import Any

import pytest

from lab_dashboards.boards import nightly_trends, transport_comparison
from lab_dashboards.lint import lint_dashboard

DATASOURCES = {"influxdb-transport": "influxdb", "prometheus-transport": "prometheus"}


@pytest.fixture
def document() -> dict[str, Any]:
    return transport_comparison.build()


def _first_panel(document: dict[str, Any]) -> dict[str, Any]:
    panel: dict[str, Any] = next(p for p in document["panels"] if p["type"] != "row")
    return panel


def test_the_generated_dashboard_is_clean(document: dict[str, Any]) -> None:
    assert lint_dashboard(document, DATASOURCES) == []


def test_a_datasource_that_is_not_provisioned(document: dict[str, Any]) -> None:
    _first_panel(document)["datasource"] = {"type": "influxdb", "uid": "other"}
    assert any("not provisioned" in p for p in lint_dashboard(document, DATASOURCES))


def test_an_exported_datasource_input(document: dict[str, Any]) -> None:
    _first_panel(document)["targets"][0]["datasource"] = {
        "type": "influxdb",
        "uid": "${DS_INFLUXDB}",
    }
    assert any("${DS_" in p for p in lint_dashboard(document, DATASOURCES))


def test_a_panel_without_a_query_or_unit(document: dict[str, Any]) -> None:
    panel = _first_panel(document)
    panel["targets"][0]["query"] = " "
    del panel["fieldConfig"]["defaults"]["unit"]
    problems = lint_dashboard(document, DATASOURCES)
    assert any("needs a query" in p for p in problems)
    assert any("no unit" in p for p in problems)


def test_an_unknown_variable(document: dict[str, Any]) -> None:
    panel = _first_panel(document)
    panel["targets"][0]["query"] += ' AND "x" =~ /^$nope$/'
    assert any("$nope is not a variable" in p for p in lint_dashboard(document, DATASOURCES))


def test_a_query_that_merges_series(document: dict[str, Any]) -> None:
    """GROUP BY "mode" alone merges clients and parameter variants into one bar."""
    panel = _first_panel(document)
    panel["targets"][0]["query"] = panel["targets"][0]["query"].replace(
        'GROUP BY "series"', 'GROUP BY "mode"'
    )
    assert any("series would merge" in p for p in lint_dashboard(document, DATASOURCES))


def test_duplicate_panel_ids(document: dict[str, Any]) -> None:
    panels = [p for p in document["panels"] if p["type"] != "row"]
    panels[1]["id"] = panels[0]["id"]
    assert any("panel ids not unique" in p for p in lint_dashboard(document, DATASOURCES))


def test_an_old_plugin_version_would_be_migrated(document: dict[str, Any]) -> None:
    modified = copy.deepcopy(document)
    _first_panel(modified)["pluginVersion"] = ""
    assert any("pluginVersion" in p for p in lint_dashboard(modified, DATASOURCES))


def _panel(document: dict[str, Any], title: str) -> dict[str, Any]:
    panel: dict[str, Any] = next(p for p in document["panels"] if p.get("title") == title)
    return panel


def test_a_p50_without_its_interval(document: dict[str, Any]) -> None:
    target = _panel(document, "Every figure of the run")["targets"][0]
    target["query"] = re.sub(r'last\("p50_ci_(low|high)_ms"\) AS "[^"]+", ', "", target["query"])
    problems = lint_dashboard(document, DATASOURCES)
    assert any("p50_ms without its 95 % interval" in p for p in problems)


def test_a_time_series_without_its_band() -> None:
    document = nightly_trends.build()
    [panel] = [p for p in document["panels"] if p["type"] == "timeseries" and p.get("repeat")]
    for override in panel["fieldConfig"]["overrides"]:
        override["properties"] = [
            prop for prop in override["properties"] if prop["id"] != "custom.fillBelowTo"
        ]
    problems = lint_dashboard(document, DATASOURCES)
    assert any("p50's interval is not drawn as a band" in p for p in problems)
    assert any("p95's interval is not drawn as a band" in p for p in problems)


def test_a_prometheus_figure_without_its_interval(document: dict[str, Any]) -> None:
    panel = _panel(document, "How many round trips of the verified RTT is each p50?")
    panel["targets"] = [t for t in panel["targets"] if "_ci_" not in t["expr"]]
    problems = lint_dashboard(document, DATASOURCES)
    assert any("transport_bench_mode_p50_seconds without its 95 % interval" in p for p in problems)
