"""The report's fleet-jobs charts, from a fleet sweep's ``fleet-sweep.json`` (SCHEMA.md,
"Fleet sweeps"): the job's time against devices beside the model with its interval, and the
client's CPU against workers with the saturation line and the knee. Pure: a document in, a
``Figure`` out; a sweep without the figures a chart needs gets its note instead."""

from collections.abc import Callable
from typing import Any

import altair as alt

from bench_runner.html_report.charts import WIDTH, Figure, Row, error_bars

Document = dict[str, Any]


def _held(document: Document) -> list[Document]:
    return [step for step in document["steps"] if step["ok"] and step["wall_s"] is not None]


def job_time_rows(document: Document) -> list[Row]:
    """One row per step that held: its wall time, the model's prediction and the ends of its
    interval (the prediction itself where there is none: an error bar of no length)."""
    rows = []
    for step in _held(document):
        predicted = step["predicted_wall_s"]
        low, high = step["predicted_low_s"], step["predicted_high_s"]
        rows.append(
            {
                "profile": step["profile"],
                "devices": step["devices"],
                "workers": f"{step['workers']} workers",
                "wall_s": step["wall_s"],
                "predicted_wall_s": predicted,
                "predicted_low_s": low,
                "predicted_high_s": high,
                "bar_low_s": predicted if low is None else low,
                "bar_high_s": predicted if high is None else high,
                "interval": "95 % CI" if low is not None else "no interval: under 6 devices",
                "verdict": step["model_verdict"],
            }
        )
    return rows


def job_time(document: Document) -> Figure:
    figure = Figure(
        "fleet-job-time",
        "Fleet jobs: the job's time against devices, beside the model",
        f"{document['label']}: the job's wall time (solid line, points) at each devices count, "
        "one colour per workers count, and the model ceil(devices / workers) x the per-device "
        "p50 (dashed), its error bar the rounds times the ends of the p50's 95 % interval "
        "(none under 6 devices). A point above the error bar is slower than the model beyond "
        "the step's own noise. One chart per profile.",
    )
    x = alt.X("devices:Q", title="devices")
    color = _colour("workers:N")
    measured = _lines(
        x,
        alt.Y("wall_s:Q", title="job wall time (s)"),
        color,
        ["profile:N", "devices:Q", "workers:N", "wall_s:Q", "verdict:N"],
    )
    model = (
        alt.Chart()
        .mark_line(strokeDash=[4, 3])
        .encode(
            x=x,
            y="predicted_wall_s:Q",
            color=color,
            tooltip=[
                "devices:Q", "workers:N", "predicted_wall_s:Q", "predicted_low_s:Q",
                "predicted_high_s:Q", "interval:N",
            ],
        )
    )  # fmt: skip
    bars = error_bars("y", ("bar_low_s", "bar_high_s"), x=x)
    return _per_profile(
        figure,
        job_time_rows(document),
        "no step of the sweep held: nothing to chart",
        lambda: alt.layer(measured, model, bars),
    )


def client_cpu_rows(document: Document) -> list[Row]:
    knees = {
        (knee["profile"], knee["devices"]): knee["workers"]
        for knee in document["knees"]
        if knee["status"] == "knee"
    }
    return [
        {
            "profile": step["profile"],
            "devices": f"{step['devices']} devices",
            "workers": step["workers"],
            "client_utilisation": step["client_utilisation"],
            "client_cpu_s": step["client_cpu_s"],
            "knee": knees.get((step["profile"], step["devices"])) == step["workers"],
        }
        for step in _held(document)
        if step["client_utilisation"] is not None
    ]


def client_cpu(document: Document) -> Figure:
    saturation = float(document["saturation"])
    figure = Figure(
        "fleet-client-cpu",
        "Fleet jobs: how busy the client is against workers, and the knee",
        f"{document['label']}: the tool's CPU over the job's wall time per core it can use "
        f"({document['usable_cores']:g} of the client's {document['client_cores']:g}), one "
        f"line per devices count; the dashed rule is saturation ({saturation:.0%}). A ringed "
        "point is the knee: the fewest workers at which the client is saturated and the job "
        "slower than the model's interval. Knees that cannot be called (no interval under 6 "
        "devices) are listed with their reason above.",
    )
    x = alt.X("workers:Q", title="workers (Nornir's num_workers, Ansible's forks)")
    lines = _lines(
        x,
        alt.Y("client_utilisation:Q", title="client CPU (share)", axis=alt.Axis(format="%")),
        _colour("devices:N"),
        ["profile:N", "devices:N", "workers:Q", "client_cpu_s:Q", "knee:N"],
    )
    knee = (
        alt.Chart()
        .transform_filter(alt.datum.knee)
        .mark_point(size=220, shape="circle", filled=False, color="#b42318", strokeWidth=2)
        .encode(x=x, y="client_utilisation:Q")
    )
    rule = alt.Chart().mark_rule(color="#888", strokeDash=[3, 3]).encode(y=alt.datum(saturation))
    return _per_profile(
        figure,
        client_cpu_rows(document),
        "no step of the sweep recorded the client's CPU",
        lambda: alt.layer(lines, knee, rule),
    )


def _colour(series: str) -> Any:
    """A colour per value of ``series``, its legend below the chart."""
    return alt.Color(series, title=None, legend=alt.Legend(orient="bottom"))


def _lines(x: Any, y: Any, color: Any, tooltip: list[str]) -> Any:
    """The measured points, joined per colour."""
    return alt.Chart().mark_line(point=True).encode(x=x, y=y, color=color, tooltip=tooltip)


def _per_profile(figure: Figure, rows: list[Row], empty: str, layers: Callable[[], Any]) -> Figure:
    """``figure`` with one chart per profile of ``rows``, in the sweep's order, each with its
    own scales; with the note ``empty`` instead when there are no rows."""
    if not rows:
        figure.note = empty
        return figure
    figure.rows = rows
    profiles = list(dict.fromkeys(row["profile"] for row in rows))
    charts = [
        layers().properties(
            data=alt.InlineData(values=[row for row in rows if row["profile"] == profile]),
            width=WIDTH,
            title=alt.TitleParams(profile, fontSize=11, anchor="start"),
        )
        for profile in profiles
    ]
    figure.chart = alt.vconcat(*charts)
    return figure


def figures(document: Document) -> list[Figure]:
    return [job_time(document), client_cpu(document)]
