"""What every Transport Lab dashboard shares: tags and links to the others, UTC, the runs
as annotations, and the JSON details Grafana 12.2 provisioning needs."""

import json
from typing import Any

from bench_runner.influx_schema import Measurement, RunField, Tag, VerdictField
from grafana_foundation_sdk.builders.dashboard import Dashboard, DashboardLink
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import DashboardLinkType

from lab_dashboards.datasources import INFLUXDB
from lab_dashboards.influxql import equals, matches, quoted

TAG = "transport-lab"
GRAFANA_VERSION = "12.2.1"
"""The Grafana the lab runs (compose.yaml's GRAFANA_IMAGE). Panels carry it as their plugin
version: Grafana migrates the options of a panel saved by an older version, and would
rewrite the XY chart's current options as if they were old ones."""
SCHEMA_VERSION = 41
"""The dashboard schema Grafana 12.2 writes; Grafana migrates older ones when it loads
them, never newer ones back."""


def dashboard(uid: str, title: str, description: str, *, time_from: str = "now-7d") -> Dashboard:
    return (
        Dashboard(title)
        .uid(uid)
        .description(description)
        .tags([TAG])
        .timezone("utc")
        .time(time_from, "now")
        .refresh("")
        .readonly()
        .link(
            DashboardLink("Transport Lab")
            .type(DashboardLinkType.DASHBOARDS)
            .tags([TAG])
            .as_dropdown(True)
            .include_vars(True)
            .keep_time(True)
        )
    )


def runs_annotation(
    profile_variable: str | None,
    runs: tuple[str, str] = (Measurement.RUN, RunField.TITLE),
) -> dict[str, Any]:
    """Each run of the time range (and profile) marked where it started, titled with its
    run id, plan, modes, failed iterations and commit; ``runs``: the measurement and title
    field the runs are read from (a fleet job step's point has its own)."""
    measurement, title = runs
    where = ["$timeFilter"]
    if profile_variable is not None:
        where.append(matches(Tag.PROFILE, profile_variable))
    return {
        "name": "Runs",
        "datasource": INFLUXDB.to_json(),
        "enable": True,
        "iconColor": "#8AB8FF",
        "query": f"SELECT {quoted(title)} FROM {quoted(measurement)} WHERE {' AND '.join(where)}",
        "textColumn": title,
    }


def verdicts_annotation(profile_variable: str) -> dict[str, Any]:
    """Each regression or improvement the runs of the time range (and profile) were judged
    to have, marked at the run's start and titled with the series and its change."""
    where = (
        "$timeFilter",
        matches(Tag.PROFILE, profile_variable),
        f"({equals(VerdictField.VERDICT, 'regression')} OR "
        f"{equals(VerdictField.VERDICT, 'improved')})",
    )
    return {
        "name": "Verdicts",
        "datasource": INFLUXDB.to_json(),
        "enable": True,
        "iconColor": "#F2495C",
        "query": f"SELECT {quoted(VerdictField.TITLE)} FROM {quoted(Measurement.VERDICT)} "
        f"WHERE {' AND '.join(where)}",
        "textColumn": VerdictField.TITLE,
    }


def render(
    built: Dashboard,
    *,
    profile_variable: str | None = "profile",
    annotations: tuple[dict[str, Any], ...] = (),
    runs: tuple[str, str] = (Measurement.RUN, RunField.TITLE),
) -> dict[str, Any]:
    """The dashboard as provisioning JSON: panel ids in order, the plugin and schema
    versions above, the runs annotation (from ``runs``) and ``annotations``."""
    document: dict[str, Any] = json.loads(json.dumps(built.build(), cls=JSONEncoder))
    document["schemaVersion"] = SCHEMA_VERSION
    document["annotations"] = {"list": [runs_annotation(profile_variable, runs), *annotations]}
    next_id = 1
    for panel in document["panels"]:
        for item in [panel, *panel.get("panels", [])]:
            item["id"] = next_id
            next_id += 1
            if item["type"] != "row":
                item["pluginVersion"] = GRAFANA_VERSION
    return document
