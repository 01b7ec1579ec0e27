"""Renders a report: the charts to PNG (2x) and SVG with vl-convert, the page with Jinja2.

``build_report`` makes one run's report (with the other runs of its sweep, or the last n
runs); ``build_comparison`` two runs side by side; ``build_fleet_report`` a fleet sweep's
(its steps, knees and fleet-jobs charts). Each writes ``index.html`` (self-contained:
the Vega bundle and every spec inline), ``charts/<name>.png`` and ``.svg``, and
``report.json`` (what the page holds: charts present and skipped, render time), which the
browser test reads.
"""

import dataclasses
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import altair as alt
import jinja2
import vl_convert

from bench_runner.html_report import charts, fleet_jobs, handshakes
from bench_runner.html_report.bad_links import LossRow, loss_rows, under_loss
from bench_runner.html_report.compare import ALPHA, RESAMPLES, changes
from bench_runner.html_report.intervals import (
    from_bounds,
    interval_of,
    order_marks,
    p50_interval,
    pair_interval,
    ratio_within_noise,
)
from bench_runner.html_report.runs import (
    Document,
    FleetSweep,
    Run,
    comparison_markdown,
    is_stream,
    load_history,
    reproduce_runs,
    trend_runs,
)
from bench_runner.reproduce.tables import client_label
from bench_runner.stats import ratio_interval

PNG_SCALE = 2


@dataclass(frozen=True)
class RenderedChart:
    name: str
    title: str
    caption: str
    note: str | None
    spec: str | None
    png: str | None
    svg: str | None
    seconds: float


@dataclass(frozen=True)
class ReportFiles:
    directory: Path
    html: Path
    charts: list[RenderedChart]
    render_seconds: float


def format_number(value: float | int | None, unit: str = "") -> str:
    """How the page writes a figure (the browser test formats results.json's with it)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value}{unit}"
    magnitude = abs(value)
    digits = 0 if magnitude >= 1000 else 1 if magnitude >= 100 else 2 if magnitude >= 1 else 3
    return f"{value:,.{digits}f}{unit}"


@cache
def javascript_bundle() -> str:
    """Vega, Vega-Lite and vega-embed as one script (vl-convert's bundle, made offline), safe
    to inline in a <script> element."""
    snippet = "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;"
    return vl_convert.javascript_bundle(snippet).replace("</script", "<\\/script")


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("bench_runner.html_report", "templates"),
        autoescape=jinja2.select_autoescape(default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["num"] = format_number
    environment.globals.update(interval_of=interval_of, bounds_interval=from_bounds)
    return environment


SUBTITLE_WIDTH = 110


def chart_subtitle(runs: Sequence[Run]) -> list[str]:
    """What a chart pasted on its own must say: the runs' profiles, dates and lab commits,
    and every client with its version (lines of at most ``SUBTITLE_WIDTH`` characters)."""
    profiles = ", ".join(dict.fromkeys(run.profile for run in runs))
    dates = ", ".join(dict.fromkeys(f"{run.started_at:%Y-%m-%d}" for run in runs))
    commits = ", ".join(
        dict.fromkeys(
            str((run.document.get("lab") or {}).get("commit") or "unknown") for run in runs
        )
    )
    clients = dict.fromkeys(
        client_label(mode["client"], mode["client_version"]) for run in runs for mode in run.modes
    )
    heading = f"profile {profiles} · {dates} · lab {commits} · clients:"
    words = [heading, *(f"{client}," for client in clients)]
    words[-1] = words[-1].rstrip(",")
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 1 + len(word) <= SUBTITLE_WIDTH:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def render_chart(figure: charts.Figure, directory: Path, subtitle: list[str]) -> RenderedChart:
    """The chart's spec for the page, and its PNG and SVG, titled with its context so a copy
    pasted elsewhere still says what it shows."""
    start = time.perf_counter()
    if figure.chart is None:
        return RenderedChart(
            figure.name, figure.title, figure.caption, figure.note, None, None, None, 0.0
        )
    spec = (
        figure.chart.properties(
            title=alt.TitleParams(figure.title, subtitle=subtitle, anchor="start")
        )
        .configure(background="white")
        .configure_axis(labelLimit=360)
        .configure_legend(labelLimit=420)
        .to_dict()
    )
    spec.pop("$schema", None)  # vega-embed is told the mode; no URL in the page
    (directory / "charts").mkdir(parents=True, exist_ok=True)
    png, svg = f"charts/{figure.name}.png", f"charts/{figure.name}.svg"
    (directory / png).write_bytes(vl_convert.vegalite_to_png(spec, scale=PNG_SCALE))
    (directory / svg).write_text(vl_convert.vegalite_to_svg(spec), encoding="utf-8")
    return RenderedChart(
        figure.name,
        figure.title,
        figure.caption,
        None,
        json.dumps(spec, separators=(",", ":")),
        png,
        svg,
        time.perf_counter() - start,
    )


def context(run: Run) -> dict[str, Any]:
    """What the figures of ``run`` depend on, from results.json and manifest.json."""
    document, manifest = run.document, run.manifest or {}
    profile = document["profile"]
    device = manifest.get("device") or document.get("device") or {}
    modes = run.modes
    verified = [m["verified_rtt_ms"] for m in modes if m.get("verified_rtt_ms") is not None]
    return {
        "run_id": run.run_id,
        "sweep": document.get("sweep"),
        "plan": document.get("plan"),
        "started_at": document["started_at"],
        "finished_at": document["finished_at"],
        "commit": (document.get("lab") or {}).get("commit"),
        "images": (document.get("lab") or {}).get("images") or None,
        "runner": document.get("runner") or {},
        "host": manifest.get("runner") or {},
        "device": {k: v for k, v in device.items() if k != "raw"},
        "libraries": manifest.get("libraries") or {},
        "profile": profile,
        "target": document.get("target") or {},
        "verified_rtt_min": min(verified) if verified else None,
        "verified_rtt_max": max(verified) if verified else None,
        "iterations": sorted({m["iterations"] for m in modes}),
        "warmup": sorted({m["warmup"] for m in modes}),
        "precision": precision_summary(modes),
        "command": " ".join(manifest.get("command") or []),
        "key_exchanges": handshakes.key_exchanges(modes),
        "ok": document.get("ok"),
        "load": document.get("load"),
    }


def speedup_rows(run: Run, baseline: str | None) -> tuple[str | None, list[dict[str, Any]]]:
    """The speedup table: the run's own (``speedup_vs_baseline`` and its interval), or
    against the p50 of mode ``baseline`` (its floor client's, else its first) when one is
    asked for, its interval from both modes' samples (``stats.ratio_interval``). Stream
    modes' rows (``stream``: their p50 is an update delay) are tabled apart, never rebased.
    Rows come fastest first; ``order`` says whether each is told apart from the row above
    it in its table (``intervals.order_marks``)."""
    reference: Document | None = None
    if baseline:
        candidates = [m for m in run.modes if m["mode"] == baseline and m["stats"]["p50_ms"]]
        floor = [m for m in candidates if m.get("p50_vs_floor") == 1.0]
        chosen = floor or candidates
        reference = chosen[0] if chosen else None
    rows: list[dict[str, Any]] = []
    for mode in run.modes:
        p50 = mode["stats"]["p50_ms"]
        stream = is_stream(mode)
        rebased = rebased_interval = None
        if reference is not None and p50 and not stream:
            rebased = reference["stats"]["p50_ms"] / p50
            rebased_interval = from_bounds(
                (1.0, 1.0)
                if mode is reference
                else ratio_interval(reference.get("samples_ms") or [], mode.get("samples_ms") or [])
            )
        speedup = rebased_interval or pair_interval(mode, "speedup_vs_baseline_ci")
        floor_ratio = pair_interval(mode, "p50_vs_floor_ci")
        rows.append(
            {
                "mode": mode,
                "rebased": rebased,
                "speedup_ci": speedup,
                "speedup_noise": ratio_within_noise(speedup),
                "floor_ci": floor_ratio,
                "floor_noise": ratio_within_noise(floor_ratio),
                "p50_ci": p50_interval(mode),
                "negotiated": handshakes.mode_lines(mode.get("handshakes")),
                "stream": stream,
            }
        )
    rows.sort(
        key=lambda row: (
            row["mode"]["stats"]["p50_ms"] is None,
            row["mode"]["stats"]["p50_ms"] or 0.0,
        )
    )
    for stream in (False, True):
        table = [row for row in rows if row["stream"] is stream and row["mode"]["stats"]["p50_ms"]]
        for row, mark in zip(table, order_marks([row["p50_ci"] for row in table]), strict=True):
            row["order"] = mark
    for row in rows:
        row.setdefault("order", None)
    label = baseline if baseline and reference else (run.document.get("baseline") or {}).get("mode")
    return label, rows


def precision_summary(modes: Sequence[Document]) -> str:
    """How the run counted its iterations: the rules and targets of its modes, or
    ``unknown`` for results written before precision was recorded (schema version 4)."""
    recorded = [mode["precision"] for mode in modes if mode.get("precision")]
    if not recorded:
        return "unknown (recorded from results schema version 5)"
    rules = dict.fromkeys(
        f"{item['rule']}, target ±{format_number(item['target_half_width_pct'])} %"
        for item in recorded
    )
    reached = sum(bool(item["precise"]) for item in recorded)
    return f"{'; '.join(rules)}: {reached} of {len(recorded)} modes reached it"


def _bad_links(labelled: Sequence[tuple[str, Run]]) -> list[tuple[str, Run, list[LossRow]]]:
    """The bad-links section's table of each run under loss (none for a run without loss)."""
    return [(label, run, loss_rows(run)) for label, run in labelled if under_loss(run)]


def _verdicts(run: Run) -> list[Document]:
    return [m for m in run.modes if m.get("verdict")]


def _write(
    directory: Path, template: str, rendered: list[RenderedChart], started: float, **values: Any
) -> ReportFiles:
    directory.mkdir(parents=True, exist_ok=True)
    render_seconds = time.perf_counter() - started
    page = (
        _environment()
        .get_template(template)
        .render(
            charts=rendered,
            bundle=javascript_bundle(),
            format_number=format_number,
            made_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            **values,
        )
    )
    html = directory / "index.html"
    html.write_text(page, encoding="utf-8")
    summary = {
        "charts": [
            {key: value for key, value in dataclasses.asdict(chart).items() if key != "spec"}
            for chart in rendered
        ],
        "render_seconds": render_seconds,
    }
    (directory / "report.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return ReportFiles(directory, html, rendered, render_seconds)


def build_report(
    results_dir: Path,
    runs: Sequence[Run],
    baseline: str | None = None,
    output: Path | None = None,
) -> ReportFiles:
    """The report of ``runs`` (one run, a sweep, or the last n runs; the last is the main
    one), written to ``output`` (default ``<last run>/report/``)."""
    started = time.perf_counter()
    main = runs[-1]
    directory = output or main.path / "report"
    labels = [run.profile for run in runs]
    if len(set(labels)) < len(labels):
        labels = [run.run_id for run in runs]
    labelled = list(zip(labels, runs, strict=True))
    figures = [builder(labelled) for builder in charts.RUN_CHARTS]
    figures.append(charts.load(labelled, [load_history(run) for run in runs]))
    figures.append(charts.trends(trend_runs(results_dir, main), main))
    figures.append(charts.published(reproduce_runs(results_dir, main)))
    rendered = [render_chart(figure, directory, chart_subtitle(runs)) for figure in figures]
    comparison = comparison_markdown(results_dir, main)
    return _write(
        directory,
        "report.html.j2",
        rendered,
        started,
        title=f"Transport Lab report · {main.run_id}",
        runs=[(label, run, context(run), *speedup_rows(run, baseline)) for label, run in labelled],
        bad_links=_bad_links(labelled),
        verdicts=[(run, _verdicts(run)) for run in runs if _verdicts(run)],
        comparison=(str(comparison[0].relative_to(results_dir)), comparison[1])
        if comparison
        else None,
        compare=None,
    )


def fleet_subtitle(document: Document) -> list[str]:
    """A fleet chart's context: the sweep, its profiles, date and lab commit, the tool and
    its versions."""
    versions = sorted({step["tool_version"] for step in document["steps"] if step["tool_version"]})
    tool = f"{document['tool']} {'|'.join(versions) or 'version unknown'}"
    return [
        f"fleet sweep {document['sweep']} · profile {', '.join(document['profiles'])} · "
        f"{document['started_at'][:10]} · lab {(document.get('lab') or {}).get('commit')}",
        f"{tool} · {document['label']}",
    ]


def build_fleet_report(sweep: FleetSweep, output: Path | None = None) -> ReportFiles:
    """A fleet sweep's report: its context, knees, steps and fleet-jobs charts, written to
    ``output`` (default ``<sweep>/report/``)."""
    started = time.perf_counter()
    directory = output or sweep.path / "report"
    subtitle = fleet_subtitle(sweep.document)
    figures = fleet_jobs.figures(sweep.document)
    rendered = [render_chart(figure, directory, subtitle) for figure in figures]
    return _write(
        directory,
        "fleet.html.j2",
        rendered,
        started,
        title=f"Transport Lab fleet sweep · {sweep.sweep_id}",
        sweep=sweep.document,
        tool_line=subtitle[1],
    )


def build_comparison(
    results_dir: Path, run_a: Run, run_b: Run, output: Path | None = None
) -> ReportFiles:
    """Two runs side by side: every chart with both, and what changed with its confidence,
    written to ``output`` (default ``<run B>/report/compare-<run A>/``)."""
    started = time.perf_counter()
    directory = output or run_b.path / "report" / f"compare-{run_a.run_id}"
    labelled = [(f"A · {run_a.run_id}", run_a), (f"B · {run_b.run_id}", run_b)]
    found, only_a, only_b = changes(run_a, run_b)
    change_rows = [dataclasses.asdict(item) for item in found]
    figures = [charts.differences(change_rows)]
    figures += [builder(labelled) for builder in charts.RUN_CHARTS if builder is not charts.sweep]
    figures.append(charts.load(labelled, [load_history(run) for run in (run_a, run_b)]))
    subtitle = chart_subtitle((run_a, run_b))
    rendered = [render_chart(figure, directory, subtitle) for figure in figures]
    context_a, context_b = context(run_a), context(run_b)
    return _write(
        directory,
        "report.html.j2",
        rendered,
        started,
        title=f"Transport Lab comparison · {run_a.run_id} → {run_b.run_id}",
        runs=[(label, run, context(run), *speedup_rows(run, None)) for label, run in labelled],
        bad_links=_bad_links(labelled),
        verdicts=[],
        comparison=None,
        compare={
            "changes": found,
            "only_a": only_a,
            "only_b": only_b,
            "resamples": RESAMPLES,
            "alpha": ALPHA,
            "differences": _context_differences(context_a, context_b),
        },
    )


def _flatten(prefix: str, value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, inner in value.items():
            flat.update(_flatten(f"{prefix}.{key}" if prefix else str(key), inner))
        return flat
    return {prefix: value}


IGNORED_CONTEXT = (
    "run_id",
    "sweep",
    "started_at",
    "finished_at",
    "profile.applied_at",
    "profile.readback",
    "command",
    "verified_rtt_min",
    "verified_rtt_max",
)


def _context_differences(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """Context fields that differ between the runs (commit, versions, profile, ...)."""
    flat_a, flat_b = _flatten("", a), _flatten("", b)
    keys = sorted(set(flat_a) | set(flat_b))
    return [
        (key, flat_a.get(key), flat_b.get(key))
        for key in keys
        if flat_a.get(key) != flat_b.get(key) and not key.startswith(IGNORED_CONTEXT)
    ]
