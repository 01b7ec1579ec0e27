"""A stream's figures are update delays: no panel charts them beside request times."""

from typing import Any

from lab_dashboards.boards import gnmi, transport_comparison
from lab_dashboards.influxql import differs, equals
from lab_dashboards.panels import STREAM_MODES

LEFT_OUT = differs("mode", STREAM_MODES[0])
SELECTED = equals("mode", STREAM_MODES[0])


def _influx_queries(document: dict[str, Any]) -> dict[str, str]:
    return {
        panel["title"]: target["query"]
        for panel in document["panels"]
        for target in panel.get("targets", [])
        if panel["datasource"]["type"] == "influxdb"
    }


def test_every_gnmi_panel_shows_requests_or_the_stream_never_both() -> None:
    queries = _influx_queries(gnmi.build())
    assert queries
    for title, query in queries.items():
        assert (LEFT_OUT in query) != (SELECTED in query), title
    assert sum(SELECTED in query for query in queries.values()) == 2


def test_the_comparisons_request_times_leave_the_stream_out() -> None:
    queries = _influx_queries(transport_comparison.build())
    assert LEFT_OUT in queries["How long does one iteration take? (p50 and p95, ms)"]
    assert LEFT_OUT in queries["How many times faster than the run's baseline?"]
