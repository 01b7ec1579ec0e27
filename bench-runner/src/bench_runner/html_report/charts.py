"""The report's charts: one Vega-Altair chart per question, built from results documents.

Each builder takes the report's runs, each with the label the charts show for it (the
profile in a run's report or a sweep, ``A``/``B`` in a comparison), and returns a
``Figure``: the chart, or none and a note saying which data the runs lack. Data go inline
into the spec (no URL), with explicit field types. Every chart of a p50 draws its 95 %
interval as an error bar (``stats.p50_ci_low_ms`` to ``p50_ci_high_ms``); a series without
one (too few iterations, or results written before intervals existed) has a bar of no length
at its p50, drawn as nothing, and says so in its tooltip.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import altair as alt

from bench_runner.html_report.runs import (
    Document,
    Run,
    is_floor,
    is_stream,
    parameters_label,
    updates_per_second,
)
from bench_runner.reproduce.published import EXPERIMENTS, load_experiment
from bench_runner.reproduce.tables import sections

Labelled = Sequence[tuple[str, Run]]
Row = dict[str, Any]
WIDTH = 560
TOOLTIP_P50 = [
    "series:N", "group:N", "p50_ms:Q", "p50_ci_low_ms:Q", "p50_ci_high_ms:Q", "interval:N"
]  # fmt: skip
ERROR_BAR = "#1d2330"
MAX_SERIES = 12
TIME_PARTS = ("network", "device", "client", "stall", "recovery")


@dataclass
class Figure:
    name: str
    title: str
    caption: str
    chart: alt.TopLevelMixin | None = None
    note: str | None = None
    rows: list[Row] = field(default_factory=list)

    @property
    def present(self) -> bool:
        return self.chart is not None


def _data(rows: list[Row]) -> alt.InlineData:
    return alt.InlineData(values=rows)


def _group_title(labelled: Labelled) -> str:
    return "profile" if all(label == run.profile for label, run in labelled) else "run"


def interval_fields(stats: Document, quantile: str = "p50") -> Row:
    """A quantile's interval (the median's, or ``p95``'s) for a chart's row, and what the
    tooltip says of it."""
    low_key, high_key = f"{quantile}_ci_low_ms", f"{quantile}_ci_high_ms"
    low, high = stats.get(low_key), stats.get(high_key)
    if low is not None and high is not None:
        label = "95 % CI"
    elif low_key in stats:
        label = "no interval: too few iterations"
    else:
        label = "interval unknown"
    value = stats.get(f"{quantile}_ms")
    return {
        low_key: low,
        high_key: high,
        "interval": label,
        "bar_low_ms": value if low is None else low,
        "bar_high_ms": value if high is None else high,
    }


def error_bars(
    orientation: str, ends: tuple[str, str] = ("bar_low_ms", "bar_high_ms"), **encoding: Any
) -> Any:
    """Rules from each row's interval's low end to its high end along ``orientation`` (``x``
    for horizontal bars, ``y`` for lines over an x axis); ``ends`` are the row's fields that
    hold them, the p50's in ms unless told."""
    low, high = ends
    channels = {orientation: f"{low}:Q", f"{orientation}2": f"{high}:Q"}
    return alt.Chart().mark_rule(color=ERROR_BAR, strokeWidth=1.5).encode(**channels, **encoding)


def _panels(rows: list[Row], key: str, panel: Callable[[], Any], columns: int) -> Any:
    """One chart per value of ``key`` (first-seen order), titled with it, each with its own
    scales: a facet would do the same, but a facet of layers (bars and their error bars)
    with independent scales makes Vega-Lite warn that it cannot tell their sources apart."""
    values = list(dict.fromkeys(row[key] for row in rows))
    charts = [
        panel().properties(
            data=_data([row for row in rows if row[key] == value]),
            title=alt.TitleParams(str(value), fontSize=11, anchor="start"),
        )
        for value in values
    ]
    return alt.concat(*charts, columns=columns)


def _measured(mode: Document) -> bool:
    return bool(mode.get("published", True)) and (mode.get("stats") or {}).get("p50_ms") is not None


def mode_rows(labelled: Labelled, *, streams: bool = True) -> list[Row]:
    """One row per measured series; ``streams=False`` leaves out the modes whose figures
    are update delays, not request times."""
    rows = []
    for label, run in labelled:
        for mode in run.modes:
            if not _measured(mode) or (not streams and is_stream(mode)):
                continue
            stats = mode["stats"]
            rows.append(
                {
                    "group": label,
                    "run_id": run.run_id,
                    "profile": run.profile,
                    "rtt_ms": run.document["profile"]["rtt_ms"],
                    "series": mode["series"],
                    "mode": mode["mode"],
                    "client": mode["client"],
                    "transport": mode["transport"],
                    "parameters": parameters_label(mode),
                    "floor": is_floor(mode),
                    "p50_ms": stats["p50_ms"],
                    "p95_ms": stats["p95_ms"],
                    "n": stats["n"],
                    **interval_fields(stats),
                }
            )
    return rows


def _facet(chart: Any, rows: list[Row], column: str, title: str) -> Any:
    return chart.facet(
        data=_data(rows), column=alt.Column(f"{column}:N", title=title)
    ).resolve_scale(x="independent")


def latency(labelled: Labelled) -> Figure:
    figure = Figure(
        "latency",
        "p50 and p95 per mode",
        "Bars: median wall time of one iteration, with its 95 % interval (black); ticks: 95th "
        "percentile. Lower is better; series whose intervals overlap are within noise. "
        "gNMI's stream times no request: its update delay has a chart of its own.",
    )
    rows = mode_rows(labelled, streams=False)
    if not rows:
        figure.note = (
            "no request mode was measured (every mode failed, was refused by the RTT gate, "
            "or measured update delays)"
        )
        return figure
    figure.rows = rows
    # An explicit order (fastest first): layers sorted by a field disagree on the union
    order = sorted(
        {row["series"] for row in rows},
        key=lambda name: min(row["p50_ms"] for row in rows if row["series"] == name),
    )
    y = alt.Y("series:N", sort=order, title=None)
    tooltip = [*TOOLTIP_P50, "p95_ms:Q", "n:Q"]
    bars = (
        alt.Chart()
        .mark_bar(color="#4c78a8")
        .encode(x=alt.X("p50_ms:Q", title="ms per iteration"), y=y, tooltip=tooltip)
    )
    ticks = alt.Chart().mark_tick(color="#e45756", thickness=2).encode(x="p95_ms:Q", y=y)
    layered = alt.layer(bars, ticks, error_bars("x", y=y)).properties(
        width=WIDTH // max(1, len(labelled))
    )
    figure.chart = _facet(layered, rows, "group", _group_title(labelled))
    return figure


def sweep(labelled: Labelled) -> Figure:
    figure = Figure(
        "sweep",
        "Latency sweep and the round-trip model",
        "Points and solid lines: measured p50 at each profile's verified RTT, with its 95 % "
        "interval (vertical bars); dashed: what the series' p50 at local plus its round trips "
        "times the added RTT predicts.",
    )
    profiles = {run.profile for _, run in labelled}
    if len(profiles) < 2:
        figure.note = (
            "not a sweep: the report has one profile (a sweep is several runs of one `sweep`)"
        )
        return figure
    rows = []
    for _, run in labelled:
        for mode in run.modes:
            if not _measured(mode) or is_stream(mode):
                continue
            model = mode.get("rtt_model") or {}
            rows.append(
                {
                    "series": mode["series"],
                    "profile": run.profile,
                    "floor": is_floor(mode),
                    "rtt_ms": mode.get("verified_rtt_ms") or run.document["profile"]["rtt_ms"],
                    "p50_ms": mode["stats"]["p50_ms"],
                    "predicted_p50_ms": model.get("predicted_p50_ms"),
                    **interval_fields(mode["stats"]),
                }
            )
    series = {row["series"] for row in rows}
    if len(series) > MAX_SERIES:
        rows = [row for row in rows if row["floor"]]
        figure.caption += " Floor clients only (the run has more series than a legend can show)."
    figure.rows = rows
    base = alt.Chart().encode(
        x=alt.X("rtt_ms:Q", title="verified RTT (ms)"),
        color=alt.Color("series:N", title=None, legend=alt.Legend(orient="bottom", columns=2)),
    )
    measured = base.mark_line(point=True).encode(
        y=alt.Y("p50_ms:Q", title="p50 (ms)"),
        tooltip=[
            "series:N", "profile:N", "rtt_ms:Q", "p50_ms:Q", "p50_ci_low_ms:Q",
            "p50_ci_high_ms:Q", "interval:N", "predicted_p50_ms:Q",
        ],
    )  # fmt: skip
    model = (
        base.transform_filter("isValid(datum.predicted_p50_ms)")
        .mark_line(strokeDash=[4, 3], opacity=0.7)
        .encode(y="predicted_p50_ms:Q")
    )
    errors = base.mark_rule(strokeWidth=1.5).encode(y="bar_low_ms:Q", y2="bar_high_ms:Q")
    figure.chart = alt.layer(measured, model, errors, data=_data(rows)).properties(
        width=WIDTH, height=320
    )
    return figure


def bad_links(labelled: Labelled) -> Figure:
    figure = Figure(
        "bad-links",
        "p95 against loss",
        "Points and solid lines: measured p95 at each run's loss (each way), with its 95 % "
        "interval (vertical bars; none under 72 iterations); dashed: the loss model's p95 "
        "(none without loss, nor for HTTP/3, whose losses the capture cannot count). One "
        "chart per RTT.",
    )
    losses = {float(run.document["profile"].get("loss_pct") or 0.0) for _, run in labelled}
    if len(losses) < 2:
        figure.note = (
            "one loss rate: the p95 against loss needs runs at several "
            "(make bench-impairment, or a report of its sweep)"
        )
        return figure
    rows = []
    for _, run in labelled:
        profile = run.document["profile"]
        for mode in run.modes:
            if not _measured(mode) or is_stream(mode):
                continue
            rows.append(
                {
                    "series": mode["series"],
                    "profile": run.profile,
                    "floor": is_floor(mode),
                    "latency": f"{profile['rtt_ms']:g} ms RTT",
                    "loss_pct": float(profile.get("loss_pct") or 0.0),
                    "p95_ms": mode["stats"]["p95_ms"],
                    "model_p95_ms": (mode.get("loss_model") or {}).get("p95_ms"),
                    **interval_fields(mode["stats"], "p95"),
                }
            )
    if len({row["series"] for row in rows}) > MAX_SERIES:
        rows = [row for row in rows if row["floor"]]
        figure.caption += " Floor clients only (the runs have more series than a legend can show)."
    figure.rows = rows
    x = alt.X("loss_pct:Q", title="loss each way (%)")
    color = alt.Color("series:N", title=None, legend=alt.Legend(orient="bottom", columns=2))
    measured = (
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("p95_ms:Q", title="p95 (ms)"),
            color=color,
            tooltip=[
                "series:N", "profile:N", "loss_pct:Q", "p95_ms:Q", "p95_ci_low_ms:Q",
                "p95_ci_high_ms:Q", "interval:N", "model_p95_ms:Q",
            ],
        )
    )  # fmt: skip
    model = (
        alt.Chart()
        .transform_filter("isValid(datum.model_p95_ms)")
        .mark_line(strokeDash=[4, 3], opacity=0.7)
        .encode(x=x, y="model_p95_ms:Q", color=color)
    )
    errors = (
        alt.Chart()
        .mark_rule(strokeWidth=1.5)
        .encode(x=x, y="bar_low_ms:Q", y2="bar_high_ms:Q", color=color)
    )
    figure.chart = _panels(
        rows,
        "latency",
        lambda: alt.layer(measured, model, errors).properties(width=WIDTH, height=300),
        1,
    )
    return figure


def libraries(labelled: Labelled) -> Figure:
    figure = Figure(
        "libraries",
        "Client libraries side by side",
        "p50 of every client that ran the same mode and settings, with its 95 % interval, in "
        f"the report's first run ({labelled[0][1].profile}); clients whose intervals overlap "
        "are within noise.",
    )
    label, run = labelled[0]
    rows = mode_rows([(label, run)], streams=False)
    by_mode: dict[str, set[str]] = {}
    for row in rows:
        by_mode.setdefault(f"{row['mode']} {row['parameters']}".strip(), set()).add(row["client"])
    shared = {key for key, clients in by_mode.items() if len(clients) > 1}
    rows = [
        {**row, "case": f"{row['mode']} {row['parameters']}".strip()}
        for row in rows
        if f"{row['mode']} {row['parameters']}".strip() in shared
    ]
    if not rows:
        figure.note = "no mode was measured with more than one client"
        return figure
    figure.rows = rows
    # min: a sort a union of layers' domains keeps
    order = alt.EncodingSortField("p50_ms", op="min")
    y = alt.Y("client:N", title=None, sort=order)
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("p50_ms:Q", title="p50 (ms)"),
            y=y,
            color=alt.Color("floor:N", title="floor client"),
            tooltip=[*TOOLTIP_P50, "p95_ms:Q"],
        )
    )
    figure.chart = _panels(
        rows, "case", lambda: alt.layer(bars, error_bars("x", y=y)).properties(width=220), 3
    )
    return figure


def netconf(labelled: Labelled) -> Figure:
    figure = Figure(
        "netconf",
        "NETCONF: reply size x framing",
        "p50 per reply size with its 95 % interval, one line per framing (1.0 end-of-message, "
        "1.1 chunked).",
    )
    rows = []
    for row, mode in _with_modes(labelled):
        parameters = mode.get("parameters") or {}
        if row["transport"] == "netconf" and "reply_bytes" in parameters:
            rows.append(
                {
                    **row,
                    "reply_bytes": parameters["reply_bytes"],
                    "framing": str(parameters.get("framing")),
                    "case": f"{mode['mode']} · {mode['client']} · {row['group']}",
                }
            )
    if not rows:
        figure.note = "no NETCONF mode measured with a reply size"
        return figure
    figure.rows = rows
    x = alt.X("reply_bytes:Q", title="reply bytes", scale=alt.Scale(type="log"))
    lines = (
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("p50_ms:Q", title="p50 (ms)"),
            color=alt.Color("framing:N"),
            tooltip=TOOLTIP_P50,
        )
    )
    errors = (
        alt.Chart()
        .mark_rule(strokeWidth=1.5)
        .encode(x=x, y="bar_low_ms:Q", y2="bar_high_ms:Q", color="framing:N")
    )
    chart = alt.layer(lines, errors).properties(width=240, height=180)
    figure.chart = chart.facet(
        data=_data(rows), facet=alt.Facet("case:N", title=None), columns=3
    ).resolve_scale(y="independent")
    return figure


def stream(labelled: Labelled) -> Figure:
    figure = Figure(
        "stream",
        "gNMI stream: update delay and updates per second",
        "Left: the delay from a change on the device to its update at the client (bars: "
        "median over the iterations, black: its 95 % interval; red ticks: 95th percentile; "
        "grey ticks: half the verified RTT, one way across the WAN, the floor). Right: "
        "updates per second one STREAM SAMPLE subscription at the lab's 1 ms interval "
        "delivered at the client (none where the client did not record it).",
    )
    rows = []
    for row, mode in _with_modes(labelled):
        if is_stream(mode):
            rtt = mode.get("verified_rtt_ms")
            rows.append(
                {
                    **row,
                    "one_way_ms": None if rtt is None else rtt / 2,
                    "updates_per_second": updates_per_second(mode),
                }
            )
    if not rows:
        figure.note = "no stream mode measured (gnmi/stream)"
        return figure
    figure.rows = rows
    multi = len(labelled) > 1
    y = alt.Y("series:N", title=None)
    offset = alt.YOffset("group:N") if multi else alt.Undefined
    color = alt.Color(
        "group:N", title=_group_title(labelled), legend=alt.Legend() if multi else None
    )
    tooltip = [*TOOLTIP_P50, "p95_ms:Q", "one_way_ms:Q", "n:Q"]
    delay = alt.layer(
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("p50_ms:Q", title="update delay (ms)"),
            y=y,
            yOffset=offset,
            color=color,
            tooltip=tooltip,
        ),
        alt.Chart()
        .mark_tick(color="#e45756", thickness=2)
        .encode(x="p95_ms:Q", y=y, yOffset=offset),
        alt.Chart()
        .transform_filter("isValid(datum.one_way_ms)")
        .mark_tick(color="#667085", thickness=3)
        .encode(x="one_way_ms:Q", y=y, yOffset=offset),
        error_bars("x", y=y, yOffset=offset),
    ).properties(width=WIDTH // 2)
    rate = (
        alt.Chart()
        .transform_filter("isValid(datum.updates_per_second)")
        .mark_bar()
        .encode(
            x=alt.X("updates_per_second:Q", title="updates per second (one stream)"),
            y=y,
            yOffset=offset,
            color=color,
            tooltip=["series:N", "group:N", "updates_per_second:Q"],
        )
        .properties(width=WIDTH // 3)
    )
    figure.chart = alt.hconcat(delay, rate, data=_data(rows))
    return figure


def _with_modes(labelled: Labelled) -> list[tuple[Row, Document]]:
    pairs = []
    for label, run in labelled:
        for mode in run.modes:
            if _measured(mode):
                pairs.append((mode_rows([(label, _single(run, mode))])[0], mode))
    return pairs


def _single(run: Run, mode: Document) -> Run:
    return Run(run.path, {**run.document, "modes": [mode]}, run.manifest)


def tunnel(labelled: Labelled) -> Figure:
    figure = Figure(
        "tunnel",
        "Tunnel throughput against direct HTTPS",
        "Throughput of one download (payload over p50): through an SSH tunnel and straight "
        "over HTTPS (https/bulk), with the 95 % interval the p50's gives it. Higher is better.",
    )
    rows = []
    for row, mode in _with_modes(labelled):
        if mode.get("throughput_mb_s") is not None:
            path = "direct HTTPS" if row["transport"] == "https" else "SSH tunnel"
            size = (mode.get("parameters") or {}).get("bulk_size", "?")
            rows.append(
                {
                    **row,
                    "path": path,
                    "size": f"{size} · {row['group']}",
                    "throughput_mb_s": mode["throughput_mb_s"],
                    **_throughput_interval(mode["throughput_mb_s"], row),
                }
            )
    if not rows:
        figure.note = "no bulk transfer measured (tunnel/bulk, https/bulk)"
        return figure
    figure.rows = rows
    y = alt.Y("series:N", title=None)
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("throughput_mb_s:Q", title="MB/s (10^6 bytes)"),
            y=y,
            color=alt.Color("path:N", title=None),
            tooltip=[
                "series:N", "throughput_mb_s:Q", "throughput_low:Q", "throughput_high:Q",
                "p50_ms:Q", "interval:N",
            ],
        )
    )  # fmt: skip
    errors = error_bars("x", ("bar_low", "bar_high"), y=y)
    figure.chart = _panels(rows, "size", lambda: alt.layer(bars, errors).properties(width=WIDTH), 1)
    return figure


PATHS = {"jump": "jump host", "proxy": "head-end (HTTPS)", "proxy-h3": "head-end (HTTP/3)"}
"""The relayed transports and the path each takes; any other transport goes direct."""


def _site(run: Run) -> str:
    """The WAN profile a run was measured at, and the LAN behind it when it was relayed."""
    profile = run.document["profile"]
    wan = f"WAN {run.profile} ({profile['rtt_ms']:g} ms)"
    relay = run.document.get("relay")
    if not relay:
        return wan
    lan = relay["lan_profile"]
    return f"{wan} · LAN {lan['name']} ({lan['rtt_ms']:g} ms)"


def remote_sites(labelled: Labelled) -> Figure:
    figure = Figure(
        "remote-sites",
        "Direct, through a jump host, through a head-end",
        "The same commands on the same device: p50 of one iteration straight from the runner, "
        "through the jump host (the device's SSH inside the jump host's) and through the "
        "head-end (one request carrying the commands, SSH on the LAN), with its 95 % interval; "
        "one chart per WAN profile. Paths whose intervals overlap are within noise.",
    )
    runs = [run for _, run in labelled]
    if not any(run.document.get("relay") for run in runs):
        figure.note = "no relayed mode was measured (jump/*, proxy/*, proxy-h3/*)"
        return figure
    lans = {run.profile: _site(run) for run in runs if run.document.get("relay")}
    rows = [
        {**row, "path": PATHS.get(row["transport"], "direct"), "wan": lans[row["profile"]]}
        for row in mode_rows([(run.profile, run) for run in runs], streams=False)
        if row["profile"] in lans
    ]
    figure.rows = rows
    order = sorted(
        {row["series"] for row in rows},
        key=lambda name: min(row["p50_ms"] for row in rows if row["series"] == name),
    )
    y = alt.Y("series:N", sort=order, title=None)
    bars = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("p50_ms:Q", title="ms per iteration (p50)"),
            y=y,
            color=alt.Color("path:N", title=None, legend=alt.Legend(orient="bottom")),
            tooltip=[*TOOLTIP_P50, "path:N", "n:Q"],
        )
    )
    figure.chart = _panels(
        rows, "wan", lambda: alt.layer(bars, error_bars("x", y=y)).properties(width=WIDTH), 1
    )
    return figure


def _throughput_interval(throughput: float, row: Row) -> Row:
    """Payload over p50, at the ends of the p50's interval (a slower end, a lower rate);
    ``bar_*`` the error bar's ends (of no length without an interval)."""
    low, high = row["p50_ci_low_ms"], row["p50_ci_high_ms"]
    if low is None or high is None or low <= 0:
        ends: Row = {"throughput_low": None, "throughput_high": None}
        return {**ends, "bar_low": throughput, "bar_high": throughput}
    slow, fast = throughput * row["p50_ms"] / high, throughput * row["p50_ms"] / low
    return {"throughput_low": slow, "throughput_high": fast, "bar_low": slow, "bar_high": fast}


def resources(labelled: Labelled) -> Figure:
    figure = Figure(
        "resources",
        "Resources per mode",
        "CPU per measured iteration (runner process and children; device container) and the "
        "runner's peak resident memory, over the measured iterations.",
    )
    rows = []
    for row, mode in _with_modes(labelled):
        used = mode.get("resources")
        n = row["n"]
        if not used or not n:
            continue
        values = {
            "runner CPU (ms per iteration)": 1000 * used["runner_cpu_s"] / n,
            "device CPU (ms per iteration)": (
                1000 * used["device_cpu_s"] / n if used.get("device_cpu_s") is not None else None
            ),
            "runner peak RSS (MB)": used["runner_rss_peak_bytes"] / 1e6,
        }
        for metric, value in values.items():
            if value is not None:
                rows.append({**row, "metric": metric, "value": value})
    if not rows:
        figure.note = "no mode recorded its resources"
        return figure
    figure.rows = rows
    multi = len(labelled) > 1
    chart = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("value:Q", title=None),
            y=alt.Y("series:N", title=None),
            color=alt.Color(
                "group:N", title=_group_title(labelled), legend=None if not multi else alt.Legend()
            ),
            yOffset=alt.YOffset("group:N") if multi else alt.Undefined,
            tooltip=["series:N", "group:N", "metric:N", "value:Q"],
        )
        .properties(width=200)
    )
    figure.chart = chart.facet(
        data=_data(rows), column=alt.Column("metric:N", title=None)
    ).resolve_scale(x="independent")
    return figure


def time_accounting(labelled: Labelled) -> Figure:
    figure = Figure(
        "time-accounting",
        "Where an iteration's time goes",
        "Median of each part of an iteration's wall time, from its packets: network (one RTT "
        "per wait for the device), device, client, TCP stalls, and recovery (TCP repairing "
        "a loss).",
    )
    rows = []
    for row, mode in _with_modes(labelled):
        split = (mode.get("time_split") or {}).get("p50_ms")
        if split:
            for order, part in enumerate(TIME_PARTS):
                rows.append({**row, "part": part, "order": order, "ms": split.get(part, 0.0)})
    if not rows:
        figure.note = "no time split: nothing was captured (the runner lacked CAP_NET_RAW?)"
        return figure
    figure.rows = rows
    figure.chart = _stacked(rows, "part", labelled, order="order:Q")
    return figure


def phases(labelled: Labelled) -> Figure:
    figure = Figure(
        "phases",
        "Client phases per iteration",
        "Median of each phase the client library reports (TCP connect, key exchange, auth, "
        "commands, ...); clients that expose none are left out.",
    )
    rows = []
    for row, mode in _with_modes(labelled):
        medians = (mode.get("phases") or {}).get("p50_ms") or {}
        for order, (name, ms) in enumerate(medians.items()):
            rows.append({**row, "part": name, "order": order, "ms": ms})
    if not rows:
        figure.note = "no client in these runs reports its phases"
        return figure
    figure.rows = rows
    figure.chart = _stacked(rows, "part", labelled, order="order:Q")
    return figure


def _stacked(rows: list[Row], part: str, labelled: Labelled, order: str) -> Any:
    chart = (
        alt.Chart()
        .mark_bar()
        .encode(
            x=alt.X("sum(ms):Q", title="ms (median per part)"),
            y=alt.Y("series:N", title=None),
            color=alt.Color(f"{part}:N", title=None, legend=alt.Legend(orient="bottom", columns=4)),
            order=alt.Order(order),
            tooltip=["series:N", f"{part}:N", "ms:Q"],
        )
        .properties(width=WIDTH // max(1, len(labelled)))
    )
    return _facet(chart, rows, "group", _group_title(labelled))


LOAD_METRICS = {
    "Requests/s": "requests/s",
    "Failures/s": "failures/s",
    "50%": "p50 response (ms)",
    "95%": "p95 response (ms)",
    "User Count": "users",
}


def load(labelled: Labelled, histories: Sequence[list[dict[str, str]]]) -> Figure:
    figure = Figure(
        "load",
        "Load curves",
        "The load run's aggregated figures over its duration (Locust's stats history).",
    )
    rows = []
    for (label, _), history in zip(labelled, histories, strict=True):
        if not history:
            continue
        start = min(float(entry["Timestamp"]) for entry in history)
        for entry in history:
            for column, metric in LOAD_METRICS.items():
                value = _number(entry.get(column))
                if value is not None:
                    rows.append(
                        {
                            "group": label,
                            "metric": metric,
                            "value": value,
                            "elapsed_s": float(entry["Timestamp"]) - start,
                        }
                    )
    if not rows:
        figure.note = "no load run: results/<run>/load/ holds no Locust stats history"
        return figure
    figure.rows = rows
    chart = (
        alt.Chart()
        .mark_line()
        .encode(
            x=alt.X("elapsed_s:Q", title="seconds into the load run"),
            y=alt.Y("value:Q", title=None),
            color=alt.Color("group:N", title=_group_title(labelled)),
            tooltip=["metric:N", "elapsed_s:Q", "value:Q"],
        )
        .properties(width=WIDTH, height=110)
    )
    figure.chart = chart.facet(data=_data(rows), row=alt.Row("metric:N", title=None)).resolve_scale(
        y="independent"
    )
    return figure


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "", "N/A") else None
    except ValueError:
        return None


def trends(nights: Sequence[Run], current: Run) -> Figure:
    figure = Figure(
        "trends",
        "Trends across runs of the same plan",
        f"p50 of each series, with its 95 % interval, over the runs of plan "
        f"{current.document.get('plan')!r} at profile {current.profile!r} against the same "
        "target, up to this one.",
    )
    if len(nights) < 2:
        figure.note = "no earlier run of the same plan, profile and target"
        return figure
    wanted = {mode["series"] for mode in current.modes if _measured(mode)}
    if len(wanted) > MAX_SERIES:
        wanted = {mode["series"] for mode in current.modes if _measured(mode) and is_floor(mode)}
        figure.caption += " Floor clients only."
    rows = []
    for night in nights:
        for mode in night.modes:
            if mode["series"] in wanted and _measured(mode):
                verdict = (mode.get("verdict") or {}).get("verdict")
                rows.append(
                    {
                        "series": mode["series"],
                        "run_id": night.run_id,
                        "started_at": night.document["started_at"],
                        "p50_ms": mode["stats"]["p50_ms"],
                        "verdict": verdict or "none",
                        **interval_fields(mode["stats"]),
                    }
                )
    figure.rows = rows
    x = alt.X("started_at:T", title="run started (UTC)")
    color = alt.Color("series:N", title=None, legend=alt.Legend(orient="bottom", columns=2))
    lines = (
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("p50_ms:Q", title="p50 (ms)"),
            color=color,
            tooltip=[
                "series:N", "run_id:N", "p50_ms:Q", "p50_ci_low_ms:Q", "p50_ci_high_ms:Q",
                "interval:N", "verdict:N",
            ],
        )
    )  # fmt: skip
    errors = (
        alt.Chart()
        .mark_rule(strokeWidth=1.5)
        .encode(x=x, y="bar_low_ms:Q", y2="bar_high_ms:Q", color=color)
    )
    figure.chart = alt.layer(lines, errors, data=_data(rows)).properties(width=WIDTH, height=300)
    return figure


def published(runs: Sequence[Run]) -> Figure:
    figure = Figure(
        "published",
        "Published benchmarks beside the lab's",
        "Each reproduced publication's figure and the lab's for the same subject and case "
        "(make reproduce), the lab's with its 95 % interval where its metric has one (a p50); "
        "the points of one panel share its metric, on a log scale.",
    )
    documents = [run.document for run in runs]
    plans = {document.get("plan") for document in documents}
    rows = []
    for name in EXPERIMENTS:
        experiment = load_experiment(name)
        if experiment.plan not in plans:
            continue
        for section in sections(experiment, documents):
            case = " ".join(f"{key}={value}" for key, value in section.case.items())
            panel = f"{experiment.experiment} · {case} · {section.metric}"
            for entry in section.rows:
                if entry.lab is None:
                    continue
                interval = entry.lab.interval
                for source, value in (("published", entry.published), ("lab", entry.lab.value)):
                    low, high = interval if source == "lab" and interval else (None, None)
                    rows.append(
                        {
                            "panel": panel,
                            "subject": entry.subject.name,
                            "source": source,
                            "value": value,
                            "low": low,
                            "high": high,
                            "bar_low": value if low is None else low,
                            "bar_high": value if high is None else high,
                        }
                    )
    if not rows:
        figure.note = "no reproduction run (make reproduce) among these runs"
        return figure
    figure.rows = rows
    y = alt.Y("subject:N", title=None)
    # Points, not bars: a bar on a log scale starts at 0, which the scale cannot hold
    points = (
        alt.Chart()
        .mark_point(filled=True, size=60)
        .encode(
            x=alt.X("value:Q", title=None, scale=alt.Scale(type="log")),
            y=y,
            yOffset="source:N",
            color=alt.Color("source:N", title=None),
            tooltip=["panel:N", "subject:N", "source:N", "value:Q", "low:Q", "high:Q"],
        )
    )
    errors = error_bars("x", ("bar_low", "bar_high"), y=y, yOffset="source:N")
    figure.chart = _panels(
        rows, "panel", lambda: alt.layer(points, errors).properties(width=260), 2
    )
    return figure


def started(run: Run) -> datetime:
    return run.started_at


Builder = Callable[[Labelled], Figure]
RUN_CHARTS: tuple[Builder, ...] = (
    latency,
    stream,
    sweep,
    bad_links,
    libraries,
    netconf,
    tunnel,
    remote_sites,
    resources,
    time_accounting,
    phases,
)


def differences(rows: list[Row]) -> Figure:
    """Compare: each series' median difference B - A with its bootstrap interval."""
    figure = Figure(
        "differences",
        "What changed: median difference B - A",
        "Points: difference of the medians (ms, B - A; right of 0 means B is slower); bars: its "
        "95 % bootstrap interval. Colour: the verdict (interval and Mann-Whitney test).",
    )
    rows = [row for row in rows if row["ci_low_ms"] is not None]
    if not rows:
        figure.note = "no series measured in both runs with enough samples"
        return figure
    figure.rows = rows
    y = alt.Y("series:N", title=None)
    bars = (
        alt.Chart()
        .mark_rule(strokeWidth=2)
        .encode(
            x=alt.X("ci_low_ms:Q", title="median difference B - A (ms)"),
            x2="ci_high_ms:Q",
            y=y,
            color=alt.Color("verdict:N", title=None),
        )
    )
    points = (
        alt.Chart()
        .mark_point(filled=True, size=50)
        .encode(
            x="difference_ms:Q",
            y=y,
            color="verdict:N",
            tooltip=[
                "series:N",
                "difference_ms:Q",
                "ci_low_ms:Q",
                "ci_high_ms:Q",
                "p_value:Q",
                "change_pct:Q",
            ],
        )
    )
    zero = alt.Chart().mark_rule(color="#888", strokeDash=[3, 3]).encode(x=alt.datum(0))
    figure.chart = alt.layer(bars, points, zero, data=_data(rows)).properties(width=WIDTH)
    return figure
