"""Checks a provisioned dashboard must pass, whoever wrote it (pure, on the JSON).

Grafana cannot run where the lab is developed, so what it would reject or render wrongly
is caught here: uids, datasource references against the provisioning files, queries,
units, variables, series identity in InfluxDB queries, and every p50, p95 or ratio with its
95 % interval.
"""

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from bench_runner.influx_schema import Measurement, Tag

from lab_dashboards.board import GRAFANA_VERSION, SCHEMA_VERSION, TAG
from lab_dashboards.influxql import matches
from lab_dashboards.intervals import (
    INTERVALS,
    PROMETHEUS_INTERVALS,
    figures_with_interval,
    high_name,
    low_name,
)

BUILTIN_VARIABLES = {
    "timeFilter",
    "__rate_interval",
    "__interval",
    "__interval_ms",
    "__range",
    "__all",
}
IDENTITY_TAGS = ({Tag.SERIES}, {Tag.MODE, Tag.CLIENT, Tag.CLIENT_VERSION})
"""A query of per-series measurements keeps series apart by grouping on one of these, or
is repeated per value of the series variable."""
PER_SERIES_MEASUREMENTS = (
    Measurement.MODE_SUMMARY,
    Measurement.ITERATION,
    Measurement.FLEET_JOB,
    Measurement.FLEET_KNEE,
)
UNITLESS_PANELS = {"row", "text"}


def provisioned_datasources(provisioning: Path) -> dict[str, str]:
    """uid -> type, from ``provisioning/datasources/*.yml``."""
    found: dict[str, str] = {}
    for path in sorted((provisioning / "datasources").glob("*.yml")):
        for source in yaml.safe_load(path.read_text(encoding="utf-8"))["datasources"]:
            found[source["uid"]] = source["type"]
    return found


def datasource_refs(node: object) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        reference = node.get("datasource")
        if isinstance(reference, dict):
            yield reference
        for value in node.values():
            yield from datasource_refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from datasource_refs(item)


def panels(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in document.get("panels", []):
        yield panel
        yield from panel.get("panels", [])


def query_text(target: dict[str, Any]) -> str:
    return str(target.get("query") or target.get("expr") or "")


def _group_by_tags(query: str) -> set[str]:
    match = re.search(r"GROUP BY (.+)$", query)
    return set(re.findall(r'"([^"]+)"', match.group(1))) if match else set()


def _selected(query: str) -> tuple[set[str], list[str]]:
    """The fields a SELECT reads and the names of its columns, in order."""
    match = re.search(r"SELECT (.+?) FROM ", query)
    if match is None:
        return set(), []
    columns = match.group(1)
    names = re.findall(r' AS "([^"]+)"', columns)
    fields = set(re.findall(r'"([^"]+)"', re.sub(r' AS "[^"]+"', "", columns)))
    return fields, names


def _fill_below_to(panel: dict[str, Any]) -> dict[str, str]:
    """Series name -> the series its band fills down to (time series overrides)."""
    bands: dict[str, str] = {}
    for override in panel.get("fieldConfig", {}).get("overrides", []):
        for prop in override.get("properties", []):
            if prop.get("id") == "custom.fillBelowTo":
                bands[str(override["matcher"]["options"])] = str(prop["value"])
    return bands


def lint_intervals(panel: dict[str, Any]) -> list[str]:
    """A figure with a known interval is never shown without it: an InfluxDB query that
    reads a p50, p95 or ratio field reads its interval's ends too, a time series fills the
    band between them, and a Prometheus figure comes with its interval's gauges."""
    title = panel.get("title") or f"panel {panel.get('id')}"
    problems = []
    targets = panel.get("targets") or []
    expressions = " ".join(query_text(target) for target in targets)
    for target in targets:
        query = query_text(target)
        if f'FROM "{Measurement.MODE_SUMMARY}"' not in query:
            continue
        fields, names = _selected(query)
        for interval in INTERVALS:
            if interval.figure in fields and not {interval.low, interval.high} <= fields:
                problems.append(f"{title}: {interval.figure} without its 95 % interval")
        if panel["type"] == "timeseries":
            bands = _fill_below_to(panel)
            for name in figures_with_interval(names):
                if bands.get(high_name(name)) != low_name(name):
                    problems.append(f"{title}: {name}'s interval is not drawn as a band")
    for figure, ends in PROMETHEUS_INTERVALS.items():
        if re.search(rf"{re.escape(figure)}\b", expressions) and not all(
            end in expressions for end in ends
        ):
            problems.append(f"{title}: {figure} without its 95 % interval")
    return problems


def lint_panel(panel: dict[str, Any], variables: set[str]) -> list[str]:
    title = panel.get("title") or f"panel {panel.get('id')}"
    if panel["type"] == "row":
        return []
    problems = []
    if not panel.get("description"):
        problems.append(f"{title}: no description")
    if panel.get("pluginVersion") != GRAFANA_VERSION:
        problems.append(f"{title}: pluginVersion is not {GRAFANA_VERSION}")
    targets = panel.get("targets") or []
    if not targets or not all(query_text(target).strip() for target in targets):
        problems.append(f"{title}: a panel needs a query in every target")
    if panel["type"] not in UNITLESS_PANELS and not panel.get("fieldConfig", {}).get(
        "defaults", {}
    ).get("unit"):
        problems.append(f"{title}: no unit")
    for target in targets:
        text = query_text(target)
        for name in set(re.findall(r"\$\{?(\w+)", text)) - variables - BUILTIN_VARIABLES:
            problems.append(f"{title}: ${name} is not a variable of the dashboard")
        measurement = re.search(r'FROM "(\w+)"', text)
        repeated = panel.get("repeat")
        one_series = repeated and matches(Tag.SERIES, repeated) in text
        if measurement and measurement.group(1) in PER_SERIES_MEASUREMENTS and not one_series:
            grouped = _group_by_tags(text)
            if not any(identity <= grouped for identity in IDENTITY_TAGS):
                problems.append(f"{title}: groups {sorted(grouped)}: series would merge")
    return problems


def lint_dashboard(document: dict[str, Any], datasources: dict[str, str]) -> list[str]:
    name = document.get("title", "?")
    return [f"{name}: {problem}" for problem in _lint(document, datasources)]


def _lint(document: dict[str, Any], datasources: dict[str, str]) -> list[str]:
    problems = []
    if not document.get("uid"):
        problems.append("no uid")
    if document.get("schemaVersion") != SCHEMA_VERSION:
        problems.append(f"schemaVersion is not {SCHEMA_VERSION}")
    if TAG not in document.get("tags", []):
        problems.append(f"not tagged {TAG} (the dashboards link each other by it)")
    if document.get("editable") is not False:
        problems.append("editable: provisioned dashboards are changed in code")
    text = json.dumps(document)
    if "${DS_" in text:
        problems.append("an exported ${DS_...} datasource input: use the provisioned uids")
    for reference in datasource_refs(document):
        if datasources.get(str(reference.get("uid"))) != reference.get("type"):
            problems.append(f"datasource {reference} is not provisioned")
    variables = {variable["name"] for variable in document.get("templating", {}).get("list", [])}
    ids = [panel.get("id") for panel in panels(document)]
    if len(ids) != len(set(ids)) or None in ids:
        problems.append(f"panel ids not unique: {ids}")
    for panel in panels(document):
        problems.extend(lint_panel(panel, variables))
        problems.extend(lint_intervals(panel))
    return problems


def lint_directory(dashboards: Path, provisioning: Path) -> list[str]:
    datasources = provisioned_datasources(provisioning)
    problems: list[str] = []
    uids: dict[str, str] = {}
    for path in sorted(dashboards.glob("*.json")):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            problems.append(f"{path.name}: not JSON: {exc}")
            continue
        uid = str(document.get("uid"))
        if uid in uids:
            problems.append(f"{path.name}: uid {uid} also in {uids[uid]}")
        uids[uid] = path.name
        problems.extend(
            f"{path.name}: {problem}" for problem in lint_dashboard(document, datasources)
        )
    if not uids:
        problems.append(f"no dashboards in {dashboards}")
    return problems
