"""Every dashboard, against the real InfluxDB and Prometheus after real runs.

Grafana cannot run where the lab is developed, so each dashboard is checked the way a user
would look at it: every variable's query is run and offers the run under test, the
variables are set to that run (the others to All), and every panel's query, resolved as
Grafana resolves it (grafana_templating.py), must return data. Panels that compare series
must show each measured (mode, client and version, parameters) once, and only those.
The generator's own tests (make test-dashboards) check the JSON itself.
"""

import json
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from conftest import BenchRun, influx_query, prom_query
from grafana_templating import Selection, interpolate

GRAFANA_DIR = Path("/grafana")
# Dashboards of other tools' data, checked against their own runs: Load after a real Locust
# run (make test-load, load/tests/e2e/).
CHECKED_ELSEWHERE = {"load"}
DASHBOARDS: dict[str, dict[str, Any]] = {
    path.stem: json.loads(path.read_text())
    for path in sorted((GRAFANA_DIR / "dashboards").glob("*.json"))
    if path.stem not in CHECKED_ELSEWHERE
}
# Which runs each dashboard is looked at with: the default plan (floor clients), the smoke
# plan (every library), and the sweep of every mode with NETCONF framings x reply sizes.
CONTEXTS: dict[str, tuple[str, ...]] = {
    "transport-comparison": ("regional_run", "smoke_run", "every_mode_regional"),
    "client-libraries": ("smoke_run",),
    "netconf": ("every_mode_local", "every_mode_regional"),
    "gnmi": ("every_mode_local", "every_mode_regional", "smoke_run"),
    "model-driven": ("every_mode_regional", "smoke_run"),
    "tunnels": ("every_mode_local", "every_mode_regional"),
    "latency-sweep": ("every_mode_regional",),
    "resources": ("regional_run", "smoke_run"),
    "nightly-trends": ("regional_run", "smoke_run"),
}
# Dashboards whose panels span every run of the time range: series of other runs are
# expected there.
ACROSS_RUNS = {"nightly-trends"}
PROMETHEUS_WAIT_S = 60.0


def may_be_empty(expression: str, run: BenchRun) -> bool:
    """Prometheus panels that are empty by design for this run: round trips of the RTT
    without added delay, and the nfq delayer's counters under the tc engine or at `local`
    (nothing to delay: netem stops the delayers)."""
    if "round_trips:ratio" in expression:
        return run.profile == "local"
    if "netem_delayer_" in expression:
        return run.results["profile"]["engine"] != "nfq" or run.profile == "local"
    return False


@dataclass(frozen=True)
class View:
    """A dashboard with its variables set to one run, and the series that run measured."""

    dashboard: dict[str, Any]
    selections: dict[str, Selection]
    series: frozenset[str]
    """Published series of the run, or of every run of its sweep on sweep dashboards (a run
    that is its own sweep: the run's)."""

    @property
    def variables(self) -> list[dict[str, Any]]:
        variables: list[dict[str, Any]] = self.dashboard["templating"]["list"]
        return variables

    def resolve(self, text: str, datasource: str, repeated: str | None = None) -> str:
        return interpolate(
            text,
            datasource,
            self.variables,
            self.selections,
            self.dashboard["time"]["from"],
            repeated,
        )


@pytest.fixture
def every_mode_local(every_mode_sweep: dict[str, BenchRun]) -> BenchRun:
    return every_mode_sweep["local"]


@pytest.fixture
def every_mode_regional(every_mode_sweep: dict[str, BenchRun]) -> BenchRun:
    return every_mode_sweep["regional"]


def _tag_values(query: str) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(row[1] for series in influx_query(query) for row in series["values"])
    )


def _published_series(run: BenchRun) -> set[str]:
    return {mode["series"] for mode in run.results["modes"] if mode["published"]}


def view(name: str, run: BenchRun, sweep_runs: list[BenchRun]) -> View:
    """Set every variable the way a user looking at ``run`` would, checking on the way that
    each variable's query offers what the run needs."""
    dashboard = DASHBOARDS[name]
    chosen = {"profile": run.profile, "run_id": run.run_id, "sweep": run.results["sweep"]}
    selections: dict[str, Selection] = {}
    partial = View(dashboard, selections, frozenset())
    for variable in dashboard["templating"]["list"]:
        options = _tag_values(partial.resolve(variable["query"], "influxdb"))
        assert options, (name, variable["name"], "offers nothing")
        if variable["name"] in chosen:
            value = chosen[variable["name"]]
            assert value in options, (name, variable["name"], value, options)
            selections[variable["name"]] = Selection((value,), options)
        else:
            selections[variable["name"]] = Selection((), options, all_selected=True)
    runs = [run]
    if "sweep" in selections:
        runs = [other for other in sweep_runs if other.results["sweep"] == chosen["sweep"]] or runs
    return View(
        dashboard, selections, frozenset(set().union(*(_published_series(r) for r in runs)))
    )


def _cases() -> list[tuple[str, str]]:
    return [(name, context) for name in DASHBOARDS for context in CONTEXTS[name]]


@pytest.fixture
def sweep_runs(every_mode_sweep: dict[str, BenchRun]) -> list[BenchRun]:
    return list(every_mode_sweep.values())


def _panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for panel in dashboard["panels"]:
        found.extend(p for p in [panel, *panel.get("panels", [])] if p["type"] != "row")
    return found


def _influx_rows(query: str) -> list[dict[str, Any]]:
    """Rows of a result: tags and columns of every returned series, one dict per row."""
    rows = []
    for series in influx_query(query):
        for values in series["values"]:
            rows.append(
                {**series.get("tags", {}), **dict(zip(series["columns"], values, strict=True))}
            )
    return rows


def _prometheus_count(expression: str, run: BenchRun) -> int:
    """Series the panel draws from the run's start on: the lab's state now is not the run's
    (a run puts netem's profile back when it ends)."""
    since = datetime.fromisoformat(run.results["started_at"]).timestamp()
    # Recording rules and scrapes lag a push by up to two 5 s intervals.
    deadline = time.monotonic() + PROMETHEUS_WAIT_S
    while not (data := prom_query(expression, since)) and time.monotonic() < deadline:
        time.sleep(2)
    return len(data)


def _check_series_identity(
    title: str, query: str, rows: list[dict[str, Any]], expected: frozenset[str]
) -> None:
    """Panels grouped by series show measured series only; those that select every
    published series' p50 show each of them."""
    if 'GROUP BY "series"' not in query:
        return
    shown = {row["series"] for row in rows}
    assert shown <= expected, (title, sorted(shown - expected))
    fixed_filter = re.search(r"= '|=~ /\^\(", query)
    if '"p50_ms"' in query and not fixed_filter:
        assert shown == expected, (title, sorted(expected - shown))


@pytest.mark.parametrize(("name", "context"), _cases(), ids=[f"{n}@{c}" for n, c in _cases()])
def test_every_panel_shows_the_run(
    name: str, context: str, request: pytest.FixtureRequest, sweep_runs: list[BenchRun]
) -> None:
    run: BenchRun = request.getfixturevalue(context)
    looked_at = view(name, run, sweep_runs)
    for panel in _panels(looked_at.dashboard):
        repeat = panel.get("repeat")
        clones = looked_at.selections[repeat].options if repeat else (None,)
        for value in clones:
            scoped = looked_at
            if repeat:
                scoped = View(
                    looked_at.dashboard,
                    {**looked_at.selections, repeat: Selection((str(value),), (str(value),))},
                    looked_at.series,
                )
            for target in panel["targets"]:
                datasource = panel["datasource"]["type"]
                if datasource == "prometheus":
                    expression = scoped.resolve(target["expr"], datasource, repeat)
                    if not may_be_empty(expression, run):
                        assert _prometheus_count(expression, run) > 0, (panel["title"], expression)
                    continue
                query = scoped.resolve(target["query"], datasource, repeat)
                rows = _influx_rows(query)
                assert rows, (panel["title"], query)
                if name not in ACROSS_RUNS:
                    _check_series_identity(panel["title"], target["query"], rows, scoped.series)


@pytest.mark.parametrize("name", sorted(DASHBOARDS))
def test_runs_are_annotated(
    name: str, request: pytest.FixtureRequest, sweep_runs: list[BenchRun]
) -> None:
    run: BenchRun = request.getfixturevalue(CONTEXTS[name][0])
    looked_at = view(name, run, sweep_runs)
    annotations = looked_at.dashboard["annotations"]["list"]
    [annotation] = [annotation for annotation in annotations if annotation["name"] == "Runs"]
    rows = _influx_rows(looked_at.resolve(annotation["query"], "influxdb"))
    assert any(row["title"].startswith(f"{run.run_id}: ") for row in rows), name


def test_every_dashboard_is_looked_at() -> None:
    assert set(DASHBOARDS) == set(CONTEXTS)
