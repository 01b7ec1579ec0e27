"""Checks a provisioned dashboard must pass, whoever wrote it (pure, on the JSON).

Grafana cannot run where the lab is developed, so what it would reject or render wrongly
is caught here: uids, datasource references against the provisioning files, queries,
units, variables, and series identity in InfluxDB queries.
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
PER_SERIES_MEASUREMENTS = (Measurement.MODE_SUMMARY, Measurement.ITERATION)
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
