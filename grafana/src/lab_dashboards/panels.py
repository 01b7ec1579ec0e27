"""Panel shapes the dashboards repeat. Every InfluxDB panel that compares series groups by
the ``series`` tag (mode, client and version, parameters), so one bar, row or line is
always one measured series and its label says which."""

from collections.abc import Mapping
from typing import Any

from bench_runner.influx_schema import (
    QUIC_HANDSHAKE_TAGS,
    SSH_HANDSHAKE_TAGS,
    TLS_HANDSHAKE_TAGS,
    Measurement,
    SummaryField,
    Tag,
    time_p50_field,
)
from bench_runner.wire.timeline import PARTS as TIME_PARTS
from grafana_foundation_sdk.builders import barchart, table, timeseries, xychart
from grafana_foundation_sdk.builders.common import VizLegendOptions
from grafana_foundation_sdk.builders.prometheus import Dataquery as PrometheusQuery
from grafana_foundation_sdk.builders.xychart import XychartFieldConfigPointSize
from grafana_foundation_sdk.models.common import (
    LegendDisplayMode,
    LegendPlacement,
    StackingMode,
    VisibilityMode,
    VizOrientation,
)
from grafana_foundation_sdk.models.dashboard import (
    DataTransformerConfig,
    DynamicConfigValue,
)
from grafana_foundation_sdk.models.prometheus import PromQueryFormat as PrometheusFormat
from grafana_foundation_sdk.models.xychart import SeriesMapping, XYShowMode

from lab_dashboards.datasources import INFLUXDB, PROMETHEUS
from lab_dashboards.influxql import Column, InfluxQuery, Select, differs, last, present, raw
from lab_dashboards.intervals import (
    INTERVAL_ENDS_REGEXP,
    P50,
    XY_ENDS,
    band_overrides,
    bar_overrides,
    figures_with_interval,
    point,
    with_interval,
)

FULL, HALF, THIRD = 24, 12, 8
TIMES = "\u00d7"
"""The multiplication sign, for ratios ("3x as long")."""
RATIO_UNIT = f"suffix:{TIMES}"
STREAM_MODES = ("gnmi/stream",)
"""Modes whose figure is an update's delay (a change on the device to its update at the
client), not a request's time: kept out of the panels that compare request times."""


def not_streams() -> tuple[str, ...]:
    """Conditions leaving the ``STREAM_MODES`` out."""
    return tuple(differs(Tag.MODE, mode) for mode in STREAM_MODES)


def transformation(kind: str, options: Mapping[str, object]) -> DataTransformerConfig:
    return DataTransformerConfig(id_val=kind, options=dict(options))


def columns_in_order(first: tuple[str, ...], columns: tuple[Column, ...]) -> DataTransformerConfig:
    """Drop the time column and fix the order: the InfluxDB backend emits tag columns in
    no stable order."""
    names = [*first, *(column.name for column in columns)]
    return transformation(
        "organize",
        {
            "excludeByName": {"Time": True},
            "indexByName": {name: index for index, name in enumerate(names)},
            "renameByName": {},
        },
    )


def sorted_by(field: str) -> DataTransformerConfig:
    return transformation("sortBy", {"fields": {}, "sort": [{"field": field, "desc": False}]})


def config(properties: list[tuple[str, Any]]) -> list[DynamicConfigValue]:
    return [DynamicConfigValue(id_val=key, value=value) for key, value in properties]


def legend(*, show: bool = True) -> VizLegendOptions:
    return (
        VizLegendOptions()
        .show_legend(show)
        .display_mode(LegendDisplayMode.LIST)
        .placement(LegendPlacement.BOTTOM)
        .calcs([])
    )


def series_bars(
    title: str,
    description: str,
    columns: tuple[Column, ...],
    where: tuple[str, ...],
    unit: str,
    *,
    by: str = Tag.SERIES,
    measurement: str = Measurement.MODE_SUMMARY,
    stacked: bool = False,
    height: int = 10,
    width: int = HALF,
) -> barchart.Panel:
    """Horizontal bars, one group per value of the tag ``by`` (each series of the run, or
    each profile in a panel repeated per series), one bar per column; a figure's interval
    ends are lighter bars of its hue either side of it."""
    select = Select(columns, measurement, where, (by,))
    panel = (
        barchart.Panel()
        .title(title)
        .description(description)
        .datasource(INFLUXDB)
        .with_target(InfluxQuery(INFLUXDB, select))
        .with_transformation(columns_in_order((by,), columns))
        .with_transformation(sorted_by(by))
        .x_field(by)
        .orientation(VizOrientation.HORIZONTAL)
        .stacking(StackingMode.NORMAL if stacked else StackingMode.NONE)
        .x_tick_label_max_length(70)
        .unit(unit)
        .legend(legend(show=len(columns) > 1))
        .height(height)
        .span(width)
    )
    for name, properties in bar_overrides([column.name for column in columns]):
        panel.override_by_name(name, config(properties))
    return panel


def series_table(
    title: str,
    description: str,
    columns: tuple[Column, ...],
    where: tuple[str, ...],
    units: Mapping[str, str],
    *,
    group_by: tuple[str, ...] = (Tag.SERIES,),
    measurement: str = Measurement.MODE_SUMMARY,
    height: int = 10,
    width: int = FULL,
) -> table.Panel:
    """One row per series (and whatever else ``group_by`` names), a column per figure."""
    select = Select(columns, measurement, where, group_by)
    panel = (
        table.Panel()
        .title(title)
        .description(description)
        .datasource(INFLUXDB)
        .with_target(InfluxQuery(INFLUXDB, select))
        .with_transformation(columns_in_order(group_by, columns))
        .with_transformation(sorted_by(group_by[0]))
        .unit("none")
        .height(height)
        .span(width)
    )
    for name, unit in units.items():
        panel.override_by_name(name, [DynamicConfigValue(id_val="unit", value=unit)])
    return panel


def xy_points(
    title: str,
    description: str,
    select: Select,
    *,
    x_unit: str,
    y_unit: str,
    partition_by: tuple[str, ...] = (),
    lines: tuple[str, ...] = (),
    log_x: bool = False,
    height: int = 10,
    width: int = HALF,
) -> xychart.Panel:
    """A scatter of the select's first column (x) against the others (y). Without
    ``partition_by`` the query is one frame (one series); with it, the single table frame
    is split into one frame per value of those columns, each its own series. Columns in
    ``lines`` are drawn as lines (a model), the others as points (measurements); the ends of
    a figure's interval as small points above and below it, its error bar."""
    x_name = select.columns[0].name
    panel = (
        xychart.Panel()
        .title(title)
        .description(description)
        .datasource(INFLUXDB)
        .with_target(InfluxQuery(INFLUXDB, select))
        .with_transformation(sorted_by(x_name))
        .mapping(SeriesMapping.AUTO)
        .show(XYShowMode.POINTS_AND_LINES if partition_by else XYShowMode.POINTS)
        .point_size(XychartFieldConfigPointSize().fixed(6))
        .unit(y_unit)
        .legend(legend())
        .height(height)
        .span(width)
        .override_by_name(x_name, [DynamicConfigValue(id_val="unit", value=x_unit)])
    )
    if partition_by:
        panel.with_transformation(
            transformation("partitionByValues", {"fields": list(partition_by), "keepFields": False})
        )
    if log_x:
        panel.override_by_name(
            x_name,
            [
                DynamicConfigValue(
                    id_val="custom.scaleDistribution", value={"type": "log", "log": 2}
                )
            ],
        )
    for name in lines:
        panel.override_by_regexp(
            f"^{name}.*", [DynamicConfigValue(id_val="custom.show", value=XYShowMode.LINES.value)]
        )
    if figures_with_interval([column.name for column in select.columns]):
        panel.override_by_regexp(INTERVAL_ENDS_REGEXP, config(XY_ENDS))
    return panel


def p50_against_rtt(
    title: str, description: str, where: tuple[str, ...], *, rtt_name: str = "verified RTT"
) -> xychart.Panel:
    """Each series' p50, with its interval's ends, against the RTT the runner verified: one
    line per series across the profiles of a sweep."""
    return xy_points(
        title,
        description,
        Select(
            (raw(SummaryField.VERIFIED_RTT_MS, rtt_name), *with_interval(P50, "p50", point)),
            Measurement.MODE_SUMMARY,
            where,
            (Tag.SERIES,),
        ),
        x_unit="ms",
        y_unit="ms",
        partition_by=(Tag.SERIES,),
        width=FULL,
        height=12,
    )


KEY_EXCHANGE_TAGS = (Tag.SERIES, Tag.SSH_KEX, Tag.TLS_GROUP)
"""A series and the key exchange its connections negotiated (the SSH kex or the TLS group:
a series has one of the two): the same series twice when a night negotiated another."""


def handshake_tables(where: tuple[str, ...], *, height: int = 10) -> list[table.Panel]:
    """What each series' connections negotiated: one table for the SSH series (and
    tunnels), one for the TLS ones; several values of a parameter are joined by ``|``."""
    columns = (
        last(SummaryField.HANDSHAKES, "connections"),
        last(SummaryField.N, "iterations"),
    )
    ssh = series_table(
        "What did each SSH connection negotiate?",
        "Read from the handshake on the wire (RFC 4253 section 7.1, from the two KEXINITs), "
        "for every client: key exchange, host key, cipher and MAC each way (`<implicit>` "
        "for an AEAD cipher). Values joined by `|`: the series' connections differed.",
        columns,
        (*where, present(Tag.SSH_KEX)),
        {},
        group_by=(Tag.SERIES, *SSH_HANDSHAKE_TAGS),
        height=height,
    )
    tls = series_table(
        "What did each TLS connection negotiate?",
        "Version, cipher suite, key-share group, resumption and HelloRetryRequest from the "
        "ServerHello on the wire (HTTP/3: from the QUIC Initial packets, whose keys the wire "
        "gives away); the ALPN protocol from the client library (encrypted in TLS 1.3), "
        "`not offered` or `not exposed by <client>` where it cannot say; HTTP/3's early data: "
        "whether the client sent 0-RTT packets.",
        columns,
        (*where, present(Tag.TLS_VERSION)),
        {},
        group_by=(Tag.SERIES, *TLS_HANDSHAKE_TAGS, *QUIC_HANDSHAKE_TAGS),
        height=height,
    )
    return [ssh, tls]


def influx_timeseries(
    title: str,
    description: str,
    select: Select,
    unit: str,
    *,
    alias: str = "$tag_series",
    height: int = 10,
    width: int = FULL,
) -> timeseries.Panel:
    """Points over time, one line per series (the alias names it); a figure's interval as a
    band around its line (its series named by their columns: a repeated panel's alias
    ``$col``)."""
    panel = (
        timeseries.Panel()
        .title(title)
        .description(description)
        .datasource(INFLUXDB)
        .with_target(InfluxQuery(INFLUXDB, select, "time_series", alias=alias))
        .unit(unit)
        .show_points(VisibilityMode.ALWAYS)
        .point_size(6)
        .span_nulls(True)
        .legend(legend())
        .height(height)
        .span(width)
    )
    for name, properties in band_overrides([column.name for column in select.columns]):
        panel.override_by_name(name, config(properties))
    return panel


def prometheus_timeseries(
    title: str,
    description: str,
    expressions: Mapping[str, str],
    unit: str,
    *,
    height: int = 9,
    width: int = HALF,
) -> timeseries.Panel:
    """``expressions``: PromQL -> legend format."""
    panel = (
        timeseries.Panel()
        .title(title)
        .description(description)
        .datasource(PROMETHEUS)
        .unit(unit)
        .legend(legend())
        .height(height)
        .span(width)
    )
    for index, (expression, legend_format) in enumerate(expressions.items()):
        panel.with_target(
            PrometheusQuery()
            .ref_id(chr(ord("A") + index))
            .datasource(PROMETHEUS)
            .expr(expression)
            .legend_format(legend_format)
            .range()
        )
    return panel


PROMETHEUS_LABELS_HIDDEN = (
    "Time",
    "__name__",
    "job",
    "instance",
    "engine",
    "profile",
    "run_id",
    "transport",
)
"""Labels a table of one run's series need not repeat: the variables chose them."""


def prometheus_table(
    title: str,
    description: str,
    expressions: Mapping[str, str],
    labels: tuple[str, ...],
    unit: str,
    *,
    height: int = 10,
    width: int = HALF,
) -> table.Panel:
    """The latest value of each series of instant queries, one row per series and a column
    per query (``expressions``: PromQL -> column name), its ``labels`` first."""
    panel = (
        table.Panel()
        .title(title)
        .description(description)
        .datasource(PROMETHEUS)
        .unit(unit)
        .height(height)
        .span(width)
    )
    names: dict[str, str] = {}
    for index, (expression, name) in enumerate(expressions.items()):
        ref_id = chr(ord("A") + index)
        names[f"Value #{ref_id}"] = name
        panel.with_target(
            PrometheusQuery()
            .ref_id(ref_id)
            .datasource(PROMETHEUS)
            .expr(expression)
            .format(PrometheusFormat.TABLE)
            .instant()
        )
    order = [*labels, *names]
    panel.with_transformation(transformation("merge", {}))
    panel.with_transformation(
        transformation(
            "organize",
            {
                "excludeByName": dict.fromkeys(PROMETHEUS_LABELS_HIDDEN, True),
                "indexByName": {name: index for index, name in enumerate(order)},
                "renameByName": names,
            },
        )
    )
    return panel.with_transformation(sorted_by(labels[0]))


TIME_SPLIT_DESCRIPTION = (
    "The p50 of each part of an iteration, told from its packets: network (one verified RTT "
    "per wait for the device: the round trips), device (the rest of those waits: the device "
    "working, and any delay the engine added beyond the RTT), client (the client library "
    "between an answer and its next send, before the first packet and after the last), "
    "TCP stalls (a segment TCP held until an ACK came: Nagle behind a delayed ACK, a full "
    "window) and recovery (TCP repairing a lost segment: the wait before a segment is sent "
    "again, and what a wait in which one was sent again took beyond its RTT; none for QUIC, "
    "whose retransmissions the capture cannot see). Medians of each part: their sum is "
    "close to, not exactly, the p50."
)


def time_split_bars(
    title: str, where: tuple[str, ...], *, height: int = 12, width: int = FULL
) -> barchart.Panel:
    """Stacked bars of the time split's parts, one bar per series."""
    columns = tuple(last(time_p50_field(part), part) for part in TIME_PARTS)
    return series_bars(
        title,
        TIME_SPLIT_DESCRIPTION,
        columns,
        where,
        "ms",
        stacked=True,
        height=height,
        width=width,
    )
