"""Grafana cannot run on every machine, so its dashboards are tested offline: structure and
datasource uids against the provisioning files, then every panel and variable query against the
real InfluxDB and Prometheus after a real bench run."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from conftest import BenchRun, influx_query, prom_query

GRAFANA_DIR = Path("/grafana")
DASHBOARDS = sorted((GRAFANA_DIR / "dashboards").glob("*.json"))


def provisioned_datasources() -> dict[str, str]:
    """uid -> type, from grafana/provisioning/datasources/*.yml."""
    found: dict[str, str] = {}
    for path in (GRAFANA_DIR / "provisioning" / "datasources").glob("*.yml"):
        for ds in yaml.safe_load(path.read_text())["datasources"]:
            assert ds["uid"] not in found, f"duplicate datasource uid {ds['uid']}"
            found[ds["uid"]] = ds["type"]
    return found


def load(path: Path) -> dict[str, Any]:
    dashboard: dict[str, Any] = json.loads(path.read_text())
    return dashboard


def datasource_refs(node: Any) -> Iterator[dict[str, Any]]:
    """Every {"type", "uid"} datasource reference anywhere in a dashboard."""
    if isinstance(node, dict):
        ds = node.get("datasource")
        if isinstance(ds, dict):
            yield ds
        for value in node.values():
            yield from datasource_refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from datasource_refs(item)


def test_dashboards_exist_and_are_provisioned() -> None:
    assert DASHBOARDS, "no dashboards"
    provider = yaml.safe_load((GRAFANA_DIR / "provisioning" / "dashboards" / "dashboards.yml").read_text())
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"
    titles = {load(p)["title"] for p in DASHBOARDS}
    assert "Transport comparison" in titles


def test_dashboard_uids_and_panel_ids_are_unique() -> None:
    uids = [load(p)["uid"] for p in DASHBOARDS]
    assert len(uids) == len(set(uids))
    for path in DASHBOARDS:
        ids = [panel["id"] for panel in load(path)["panels"]]
        assert len(ids) == len(set(ids)), path.name


def test_datasource_uids_match_provisioning() -> None:
    provisioned = provisioned_datasources()
    for path in DASHBOARDS:
        refs = list(datasource_refs(load(path)))
        assert refs, path.name
        for ref in refs:
            assert provisioned.get(ref["uid"]) == ref["type"], (path.name, ref)


def substitute(query: str, run: BenchRun) -> str:
    """Grafana's template and macro substitution, for the variables these dashboards use."""
    return (
        query.replace("$profile", run.profile)
        .replace("$run_id", run.run_id)
        .replace("$timeFilter", "time > now() - 7d")
        .replace("$__rate_interval", "30s")
        .replace("$__interval", "5s")
    )


def run_query(ds_type: str, target: dict[str, Any], run: BenchRun) -> int:
    """Runs one target against the real datasource; returns how many series/rows came back."""
    if ds_type == "influxdb":
        return len(influx_query(substitute(target["query"], run)))
    expr = substitute(target["expr"], run)
    return len(prom_query(expr))


def panel_targets() -> list[tuple[str, str, dict[str, Any]]]:
    cases = []
    for path in DASHBOARDS:
        for panel in load(path)["panels"]:
            for target in panel["targets"]:
                cases.append((f"{path.stem}:{panel['title']}:{target['refId']}", panel["datasource"]["type"], target))
    return cases


@pytest.mark.parametrize(("name", "ds_type", "target"), panel_targets(), ids=[c[0] for c in panel_targets()])
def test_panel_query_returns_data(name: str, ds_type: str, target: dict[str, Any], regional_run: BenchRun) -> None:
    # Recording rules and scrapes lag the push by up to two 5 s intervals.
    deadline = time.monotonic() + 60
    while (count := run_query(ds_type, target, regional_run)) == 0 and time.monotonic() < deadline:
        time.sleep(2)
    assert count > 0, f"{name} returned no data"


def test_variable_queries_offer_the_run(regional_run: BenchRun) -> None:
    for path in DASHBOARDS:
        for variable in load(path)["templating"]["list"]:
            if variable["type"] != "query":
                continue
            assert variable["datasource"]["type"] == "influxdb"
            series = influx_query(substitute(variable["query"], regional_run))
            values = {row[1] for s in series for row in s["values"]}
            expected = regional_run.run_id if variable["name"] == "run_id" else regional_run.profile
            assert expected in values, (variable["name"], values)


def test_panel_queries_are_scoped_to_the_selected_run() -> None:
    """Every InfluxDB panel query filters on the dashboard's profile and run variables."""
    for path in DASHBOARDS:
        for panel in load(path)["panels"]:
            for target in panel["targets"]:
                if panel["datasource"]["type"] == "influxdb":
                    assert re.search(r'"run_id" =~ /\^\$run_id\$/', target["query"]), panel["title"]


def _panel_query(title: str, run: BenchRun) -> list[dict[str, Any]]:
    [panel] = [p for path in DASHBOARDS for p in load(path)["panels"] if p["title"] == title]
    return influx_query(substitute(panel["targets"][0]["query"], run))


def test_wire_panel_has_round_trips_for_every_mode(regional_run: BenchRun) -> None:
    series = _panel_query("Counted on the wire per iteration (p50)", regional_run)
    modes = {s["tags"]["mode"] for s in series}
    assert modes == {m["mode"] for m in regional_run.results["modes"]}
    for s in series:
        row = dict(zip(s["columns"], s["values"][0], strict=True))
        assert row["round trips"] >= 1, s["tags"]


def test_phase_panel_has_phases_for_every_mode(regional_run: BenchRun) -> None:
    """The default plan's floor clients all expose phases; each mode shows at least one."""
    series = _panel_query("Where an iteration's time goes (p50 per phase, ms)", regional_run)
    assert {s["tags"]["mode"] for s in series} == {m["mode"] for m in regional_run.results["modes"]}
    for s in series:
        row = dict(zip(s["columns"], s["values"][0], strict=True))
        assert any(value for column, value in row.items() if column != "time"), s["tags"]
