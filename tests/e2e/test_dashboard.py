"""Every dashboard, against the real InfluxDB and Prometheus after real runs.

Grafana cannot run where the lab is developed, so each dashboard is checked the way a user
would look at it: every variable's query is run and offers the run under test, the
variables are set to that run (the others to All), and every panel's query, resolved as
Grafana resolves it (grafana_templating.py), must return data. Panels that compare series
must show each measured (mode, client and version, parameters) once, and only those.
Every figure shown with its 95 % interval (a p50, a p95, a ratio) is checked once more after
a run long enough for every interval to exist: each interval column returns values, and each
interval holds its figure. The generator's own tests (make test-dashboards) check the JSON
itself.
"""

import json
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from conftest import BenchRun, FleetSweep, bench, influx_query, prom_query, relayed_job
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
# plan (every library), the sweep of every mode with NETCONF framings x reply sizes, and a run
# of direct and relayed modes (two jobs of one sweep).
CONTEXTS: dict[str, tuple[str, ...]] = {
    "transport-comparison": ("regional_run", "smoke_run", "every_mode_regional"),
    "client-libraries": ("smoke_run",),
    "netconf": ("every_mode_local", "every_mode_regional"),
    "gnmi": ("every_mode_local", "every_mode_regional", "smoke_run"),
    "model-driven": ("every_mode_regional", "smoke_run"),
    "tunnels": ("every_mode_local", "every_mode_regional"),
    "remote-sites": ("remote_site_run",),
    "fleet-jobs": ("fleet_sweep_run",),
    "latency-sweep": ("every_mode_regional",),
    "bad-links": ("lossy_run",),
    "resources": ("regional_run", "smoke_run"),
    "nightly-trends": ("regional_run", "smoke_run"),
}
# Dashboards whose panels span every run of the time range: series of other runs are
# expected there.
ACROSS_RUNS = {"nightly-trends"}
PROMETHEUS_WAIT_S = 60.0
# A run in which every interval exists: a p95's needs about 72 iterations (the chance that
# all of them fall below the p95, 0.95^n, under 2.5 %). One series of each dashboard's modes,
# https/keep-alive with a second library for the times-the-floor ratio, the baseline for the
# speedup; two commands, as the smoke plan, to keep it short.
PRECISION_ITERATIONS = 80
PRECISION_MODES = (
    "ssh/pty-fresh",
    "https/keep-alive",
    "netconf/reuse-session",
    "netconf/edit-commit",
    "gnmi/reuse-conn",
    "gnmi/set-batch",
    "gnmi/stream",
    "tunnel/bulk",
    "tunnel/request",
    "proxy/keep-alive",
)
PRECISION_CLIENTS = ("asyncssh", "httpx", "requests", "grpc-go")
INTERVAL_LOW, INTERVAL_HIGH = " CI low", " CI high"
WITHOUT_INTERVALS = {"resources"}
"""Dashboards of no figure with an interval: CPU and memory, not times."""
INTERVALS_NEED_A_LARGER_FLEET = {"fleet-jobs"}
"""A fleet job's per-device p50 has its interval from 6 devices on; the test lab's fleet has 3
(its panels' queries are checked against the fleet sweep all the same)."""
STOP_REASONS = {"precise", "max", "cap", "fixed", "aborted"}
NOISE_VERDICTS = {"speedup": "vs baseline", "\u00d7 floor": "vs floor client"}
"""A ratio's column and the column saying whether its interval holds 1 (0: within noise)."""


def _has_intervals(run: BenchRun) -> bool:
    """Some published p50 of the run has its 95 % interval (6 iterations or more)."""
    return any(
        mode["stats"]["p50_ci_low_ms"] is not None
        for mode in run.results["modes"]
        if mode["published"]
    )


def may_be_empty(expression: str, run: BenchRun) -> bool:
    """Prometheus panels that are empty by design for this run: round trips of the RTT
    (figures over a configured RTT above 0) without added delay, the ends of the p50's
    interval in a run too short for any, and the nfq delayer's counters under the tc engine
    or at `local` (nothing to delay: netem stops the delayers)."""
    if "configured_rtt_seconds" in expression:
        return run.profile == "local" or ("_ci_" in expression and not _has_intervals(run))
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


@pytest.fixture
def fleet_sweep_run(fleet_sweep: FleetSweep) -> BenchRun:
    """The fleet sweep as the Fleet jobs dashboard's variables and checks see a run: its first
    step's run id (each step is annotated), profile and sweep, and its steps' series (one per
    step that held) where a run has its modes."""
    summary = fleet_sweep.summary
    first = summary["steps"][0]
    results = {
        "sweep": summary["sweep"],
        "started_at": summary["started_at"],
        "modes": [
            {"series": summary["label"], "published": step["ok"]} for step in summary["steps"]
        ],
    }
    return BenchRun(
        first["profile"], first["run_id"], fleet_sweep.exit_code, fleet_sweep.output, results, None
    )


@pytest.fixture
def remote_site_run(remote_site_runs: tuple[BenchRun, BenchRun]) -> BenchRun:
    """The relayed job: the Remote sites dashboard lists only sweeps that have one."""
    return remote_site_runs[1]


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
def sweep_runs(
    every_mode_sweep: dict[str, BenchRun], remote_site_runs: tuple[BenchRun, BenchRun]
) -> list[BenchRun]:
    """Runs of the sweeps: the every-mode sweep's profiles, the remote site's two jobs."""
    return [*every_mode_sweep.values(), *remote_site_runs]


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


@pytest.fixture(scope="module")
def precision_run(
    every_mode_sweep: dict[str, BenchRun], remote_site_runs: tuple[BenchRun, BenchRun]
) -> BenchRun:
    """After the shared runs (never beside them): every interval of every dashboard exists.
    Its relayed mode makes it two jobs: the direct one is returned, relayed_job finds the other."""
    run = bench(
        "local",
        "--modes",
        ",".join(PRECISION_MODES),
        "--clients",
        ",".join(PRECISION_CLIENTS),
        "--commands",
        "show version;show clock",
        name="e2e-precision",
        iterations=PRECISION_ITERATIONS,
        warmup=1,
    )
    assert run.exit_code == 0, run.output[-3000:]
    return run


def _interval_figures(row: dict[str, Any]) -> list[str]:
    return [
        name for name in row if f"{name}{INTERVAL_LOW}" in row and f"{name}{INTERVAL_HIGH}" in row
    ]


def _at_most(a: float, b: float) -> bool:
    """a <= b, but for the last bits of a figure the runner and InfluxDB computed apart."""
    return a <= b + 1e-9 * abs(b)


def _check_intervals(title: str, rows: list[dict[str, Any]]) -> None:
    """Each interval column has values, each interval holds its figure, and a ratio's verdict
    says within noise exactly when its interval holds 1."""
    figures = _interval_figures(rows[0])
    assert figures, (title, "no interval in its columns", sorted(rows[0]))
    for name in figures:
        low, high = f"{name}{INTERVAL_LOW}", f"{name}{INTERVAL_HIGH}"
        complete = [row for row in rows if None not in (row[low], row[name], row[high])]
        assert complete, (title, name, "no interval returned")
        for row in complete:
            assert _at_most(row[low], row[name]), (title, row)
            assert _at_most(row[name], row[high]), (title, row)
            verdict = NOISE_VERDICTS.get(name)
            if verdict in row:
                assert (row[verdict] == 0) == (row[low] <= 1 <= row[high]), (title, row)
    if "stopped" in rows[0]:
        assert {row["stopped"] for row in rows} <= STOP_REASONS, title
        assert {row["iterations"] for row in rows} == {PRECISION_ITERATIONS}, title


def _of_run(
    rows: list[dict[str, Any]], run: BenchRun, series: frozenset[str]
) -> list[dict[str, Any]]:
    """The rows of ``run``'s series: a dashboard across runs returns other runs' too."""
    return [
        row
        for row in rows
        if row.get("run_id", run.run_id) == run.run_id and row.get("series", "") in series | {""}
    ]


def _shows_intervals(target: dict[str, Any]) -> bool:
    return INTERVAL_LOW in str(target.get("query") or "")


@pytest.mark.parametrize(
    "name", sorted(set(DASHBOARDS) - WITHOUT_INTERVALS - INTERVALS_NEED_A_LARGER_FLEET)
)
def test_every_interval_is_shown(name: str, precision_run: BenchRun) -> None:
    looked_at = view(name, precision_run, [precision_run, relayed_job(precision_run)])
    checked = 0
    for panel in _panels(looked_at.dashboard):
        repeat = panel.get("repeat")
        for target in filter(_shows_intervals, panel["targets"]):
            clones = looked_at.selections[repeat].options if repeat else (None,)
            if repeat == "series":
                clones = tuple(value for value in clones if value in looked_at.series)
            for value in clones:
                selections = dict(looked_at.selections)
                if repeat:
                    selections[repeat] = Selection((str(value),), (str(value),))
                scoped = View(looked_at.dashboard, selections, looked_at.series)
                query = scoped.resolve(target["query"], "influxdb", repeat)
                rows = _of_run(_influx_rows(query), precision_run, looked_at.series)
                assert rows, (panel["title"], value, query)
                _check_intervals(panel["title"], rows)
                checked += 1
    assert checked, name
