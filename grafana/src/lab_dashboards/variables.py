"""Template variables: each lists the values of one InfluxDB tag, narrowed by the ones
chosen before it (profile, then run, then transport, then client, then parameters)."""

from bench_runner.influx_schema import Measurement, Tag
from grafana_foundation_sdk.builders.dashboard import QueryVariable
from grafana_foundation_sdk.models.dashboard import (
    VariableOption,
    VariableRefresh,
    VariableSort,
)

from lab_dashboards.datasources import INFLUXDB
from lab_dashboards.influxql import matches, quoted

ALL = "$__all"
ALL_VALUE = ".*"
"""Put in raw by Grafana: every value, and points that lack the tag (modes without that
parameter) as well."""


def _tag_values(tag: str, where: tuple[str, ...], measurement: str) -> str:
    query = f"SHOW TAG VALUES FROM {quoted(measurement)} WITH KEY = {quoted(tag)}"
    if where:
        query += " WHERE " + " AND ".join(where)
    return query


def _tag_variable(
    name: str,
    label: str,
    tag: str,
    where: tuple[str, ...],
    description: str,
    measurement: str,
    sort: VariableSort,
) -> QueryVariable:
    """A variable listing one tag's values, refreshed with the time range."""
    return (
        QueryVariable(name)
        .label(label)
        .description(description)
        .datasource(INFLUXDB)
        .query(_tag_values(tag, where, measurement))
        .refresh(VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(sort)
        .allow_custom_value(False)
    )


def choice(
    name: str,
    label: str,
    tag: str,
    where: tuple[str, ...] = (),
    *,
    description: str,
    newest_first: bool = False,
    default: str | None = None,
    measurement: str = Measurement.MODE_SUMMARY,
) -> QueryVariable:
    """One value at a time (a profile, a run)."""
    order = VariableSort.ALPHABETICAL_DESC if newest_first else VariableSort.ALPHABETICAL_ASC
    variable = _tag_variable(name, label, tag, where, description, measurement, order)
    variable.multi(False).include_all(False)
    if default is not None:
        variable.current(VariableOption(selected=True, text=default, value=default))
    return variable


def narrowing(
    name: str,
    label: str,
    tag: str,
    where: tuple[str, ...] = (),
    *,
    description: str,
    measurement: str = Measurement.MODE_SUMMARY,
    custom_all: bool = True,
) -> QueryVariable:
    """Any number of values, all by default. ``custom_all`` puts All in as ``.*`` (one
    regex); without it All is every value, which is what a repeated panel needs: each
    of its copies gets one real value."""
    variable = _tag_variable(
        name, label, tag, where, description, measurement, VariableSort.NATURAL_ASC
    )
    variable.multi(True).include_all(True)
    if custom_all:
        variable.all_value(ALL_VALUE)
    return variable.current(VariableOption(selected=True, text=["All"], value=[ALL]))


def profile(default: str = "regional") -> QueryVariable:
    return choice(
        "profile",
        "Profile",
        Tag.PROFILE,
        default=default,
        description="netem latency profile the runs were measured under",
    )


def run(where: tuple[str, ...] = (matches(Tag.PROFILE, "profile"),)) -> QueryVariable:
    return choice(
        "run_id",
        "Run",
        Tag.RUN_ID,
        where,
        newest_first=True,
        description="bench-runner run (one profile of one `bench-runner run`); "
        "generated run ids sort newest first",
    )


def sweep(where: tuple[str, ...] = (), *, description: str) -> QueryVariable:
    """One `bench-runner run` (its runs: a profile, a device, direct or relayed, each), newest
    first."""
    return choice("sweep", "Sweep", Tag.SWEEP, where, newest_first=True, description=description)


RUN_SCOPE: tuple[str, ...] = (matches(Tag.PROFILE, "profile"), matches(Tag.RUN_ID, "run_id"))
"""Points of the selected run."""


def transport(where: tuple[str, ...] = RUN_SCOPE) -> QueryVariable:
    return narrowing(
        "transport",
        "Transport",
        Tag.TRANSPORT,
        where,
        description="ssh, https, h3 (HTTP/3 over QUIC), gnmi, restconf, netconf or tunnel",
    )


def client(
    where: tuple[str, ...] = (*RUN_SCOPE, matches(Tag.TRANSPORT, "transport")),
) -> QueryVariable:
    return narrowing(
        "client",
        "Client library",
        Tag.CLIENT,
        where,
        description="the library that did the mode; floor clients: asyncssh, httpx, "
        "python-ssl, quic-go, grpc-go",
    )


def mode(
    where: tuple[str, ...] = (*RUN_SCOPE, matches(Tag.TRANSPORT, "transport")),
) -> QueryVariable:
    return narrowing(
        "mode", "Mode", Tag.MODE, where, description="what one iteration does (bench-runner modes)"
    )
