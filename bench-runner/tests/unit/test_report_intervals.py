"""The report's 95 % intervals: beside every p50, p95 and ratio of its tables, as error bars
in its charts, "within noise" wherever it orders figures or names a winner, and "interval
unknown" for results written before intervals existed."""

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from bench_runner.html_report import build_comparison, build_report, charts
from bench_runner.html_report.build import format_number, speedup_rows
from bench_runner.html_report.compare import change
from bench_runner.html_report.intervals import Shown, order_marks
from bench_runner.html_report.runs import find_run
from bench_runner.stats import quantile_interval, ratio_interval, summarize
from test_html_report import check_report, drawn, mode_doc, run_doc

TARGET_PCT = 3.0
DASH, TIMES = "\N{EN DASH}", "\N{MULTIPLICATION SIGN}"


def with_intervals(mode: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """``mode`` as results.json schema 5 writes it: stats with intervals, precision."""
    stats = summarize(mode["samples_ms"], 0).model_dump()
    achieved = stats["p50_ci_half_width_pct"]
    mode["stats"] = stats
    mode["precision"] = {
        "rule": "adaptive", "target_half_width_pct": TARGET_PCT, "min_iterations": 10,
        "max_iterations": 200, "time_cap_s": 180.0, "achieved_half_width_pct": achieved,
        "stop_reason": "precise" if achieved <= TARGET_PCT else "max",
        "precise": achieved <= TARGET_PCT,
    }  # fmt: skip
    mode.update(extra)
    return mode


def spread(center: float, count: int, width: float) -> list[float]:
    """``count`` samples evenly over ``center`` ± ``width``, shuffled (a fixed order)."""
    values = list(np.linspace(center - width, center + width, count))
    return [values[(7 * index) % count] for index in range(count)]


def modes_with_intervals() -> list[dict[str, Any]]:
    """Three request modes: two within noise of each other, one told apart (80 samples: a
    p95 interval too); the baseline ssh/pty-fresh, whose speedup of 1 is exact."""
    pty = with_intervals(mode_doc("ssh/pty-fresh", "asyncssh", spread(150.0, 20, 6.0)))
    close = with_intervals(mode_doc("ssh/reuse-conn", "asyncssh", spread(148.0, 20, 6.0)))
    apart = with_intervals(mode_doc("https/keep-alive", "httpx", spread(31.0, 80, 1.0)))
    for mode in (pty, close, apart):
        interval = ratio_interval(pty["samples_ms"], mode["samples_ms"])
        mode["speedup_vs_baseline"] = pty["stats"]["p50_ms"] / mode["stats"]["p50_ms"]
        mode["speedup_vs_baseline_ci"] = [1.0, 1.0] if mode is pty else list(interval or [])
        mode["p50_vs_floor"], mode["p50_vs_floor_ci"] = 1.0, [1.0, 1.0]
    return [pty, close, apart]


def table(html: str, kind: str, run_id: str) -> str:
    [found] = re.findall(rf'<table class="{kind}" data-run="{run_id}">(.*?)</table>', html, re.S)
    return str(found)


def row_of(html_table: str, series: str) -> str:
    [found] = [row for row in html_table.split("<tr>") if f"<td>{series}</td>" in row]
    return found


def test_every_p50_p95_and_ratio_of_the_table_has_its_interval(tmp_path: Path) -> None:
    path = run_doc(tmp_path, "v5", "regional", 30.0, modes_with_intervals())
    files = build_report(tmp_path, [find_run(tmp_path, "v5")])
    check_report(files.directory)
    html = files.html.read_text()
    speedups = table(html, "speedups", "v5")
    document = json.loads((path / "results.json").read_text())
    for mode in document["modes"]:
        stats, series = mode["stats"], mode["series"]
        row = row_of(speedups, series)
        low, high = stats["p50_ci_low_ms"], stats["p50_ci_high_ms"]
        # "155.9 [154.2-157.8]" (an en dash): each end a figure the browser test checks
        assert (
            f'{format_number(stats["p50_ms"])}</span> <span class="ci">['
            f'<span class="fig" data-run="v5" data-series="{series}" '
            f'data-path="stats.p50_ci_low_ms" data-value="{json.dumps(low)}">'
            f"{format_number(low)}</span>{DASH}"
        ) in row
        assert f'data-path="stats.p50_ci_high_ms" data-value="{json.dumps(high)}"' in row
        achieved = mode["precision"]["achieved_half_width_pct"]
        assert f'data-path="precision.achieved_half_width_pct" data-value="{achieved}"' in row
        assert f"({mode['precision']['stop_reason']})" in row
        speedup = mode["speedup_vs_baseline_ci"]
        assert (
            f"[{format_number(speedup[0])}{TIMES}{DASH}{format_number(speedup[1])}{TIMES}]" in row
        )
    keep_alive = row_of(speedups, "https/keep-alive · httpx 1.0")
    assert 'data-path="stats.p95_ci_low_ms"' in keep_alive  # 80 samples: p95 has one
    reuse = row_of(speedups, "ssh/reuse-conn · asyncssh 1.0")
    assert "no interval: too few iterations" in reuse  # 20 samples: p95 has none
    assert "±" in reuse
    assert "of ±3.00 %" in reuse
    assert "precision" in html
    assert "adaptive, target ±3.00 %" in html


def test_rows_whose_intervals_overlap_are_within_noise_never_ranked(tmp_path: Path) -> None:
    run_doc(tmp_path, "noise", "regional", 30.0, modes_with_intervals())
    run = find_run(tmp_path, "noise")
    _, rows = speedup_rows(run, None)
    assert [(row["mode"]["mode"], row["order"]) for row in rows] == [
        ("https/keep-alive", None),  # the fastest: nothing above it
        ("ssh/reuse-conn", "slower"),  # told apart from keep-alive's interval
        ("ssh/pty-fresh", "within noise"),  # 150 against 148 ms: not ranked
    ]
    # The speedup of reuse-conn over pty-fresh holds 1: within noise; keep-alive's not.
    noise = {row["mode"]["mode"]: row["speedup_noise"] for row in rows}
    assert noise == {"https/keep-alive": False, "ssh/reuse-conn": True, "ssh/pty-fresh": False}
    html = build_report(tmp_path, [run]).html.read_text()
    speedups = table(html, "speedups", "noise")
    pty = row_of(speedups, "ssh/pty-fresh · asyncssh 1.0")
    assert '<td class="order noise">within noise</td>' in pty
    assert '<span class="noise">within noise</span>' not in pty  # the baseline itself
    reuse = row_of(speedups, "ssh/reuse-conn · asyncssh 1.0")
    assert '<span class="noise">within noise</span>' in reuse


def test_a_speedup_rebased_on_another_mode_gets_its_interval_from_the_samples(
    tmp_path: Path,
) -> None:
    modes = modes_with_intervals()
    run_doc(tmp_path, "rebased", "regional", 30.0, modes)
    _, rows = speedup_rows(find_run(tmp_path, "rebased"), "https/keep-alive")
    by_mode = {row["mode"]["mode"]: row for row in rows}
    expected = ratio_interval(modes[2]["samples_ms"], modes[0]["samples_ms"])
    assert expected is not None
    assert by_mode["ssh/pty-fresh"]["speedup_ci"] == Shown("known", *expected)
    assert by_mode["https/keep-alive"]["speedup_ci"] == Shown("known", 1.0, 1.0)


def test_results_without_intervals_still_render_with_interval_unknown(tmp_path: Path) -> None:
    """floor_modes are written as schema 3 wrote them: no interval fields, no precision."""
    modes = [mode_doc("ssh/pty-fresh", "asyncssh", [120.0, 125.0, 123.0, 130.0, 128.0, 126.0])]
    modes[0]["verdict"] = {"verdict": "unchanged", "median_ms": 124.0, "nights": 9,
                           "baseline_median_ms": 121.0}  # fmt: skip
    run_doc(tmp_path, "old", "regional", 30.0, modes)
    files = build_report(tmp_path, [find_run(tmp_path, "old")])
    assert "latency" in drawn(check_report(files.directory))
    html = files.html.read_text()
    speedups = table(html, "speedups", "old")
    assert speedups.count("interval unknown") == 3  # p50, p95, p50 over the floor client's
    assert "within noise" not in speedups  # unknown precision ranks nothing and claims nothing
    assert '<span class="muted">unknown</span>' in speedups  # the precision
    assert "unknown (recorded from results schema version 5)" in html
    verdicts = table(html, "verdicts", "old")
    assert verdicts.count("interval unknown") == 2  # tonight's and the baseline's
    [row] = charts.latency([("regional", find_run(tmp_path, "old"))]).rows
    assert (row["p50_ci_low_ms"], row["interval"]) == (None, "interval unknown")
    assert row["bar_low_ms"] == row["bar_high_ms"] == row["p50_ms"]  # an error bar of no length


def test_every_chart_of_a_p50_draws_its_interval(tmp_path: Path) -> None:
    modes = modes_with_intervals()
    modes.append(with_intervals(mode_doc("ssh/pty-fresh", "paramiko", spread(190.0, 20, 8.0))))
    run_doc(tmp_path, "bars", "regional", 30.0, modes)
    labelled = [("regional", find_run(tmp_path, "bars"))]
    for builder in (charts.latency, charts.libraries):
        figure = builder(labelled)
        spec = json.dumps(figure.chart.to_dict() if figure.chart else None)
        assert '"x2": {"field": "bar_high_ms"' in spec, builder
        assert all(row["interval"] == "95 % CI" for row in figure.rows)
        for row in figure.rows:
            assert row["p50_ci_low_ms"] <= row["p50_ms"] <= row["p50_ci_high_ms"]
    files = build_report(tmp_path, [labelled[0][1]])
    assert {"latency", "libraries"} <= drawn(check_report(files.directory))


def test_order_marks() -> None:
    known = [Shown("known", 1.0, 2.0), Shown("known", 1.5, 3.0), Shown("known", 3.5, 4.0)]
    assert order_marks(known) == [None, "within noise", "slower"]
    assert order_marks([known[0], Shown("unknown")]) == [None, "interval unknown"]
    assert order_marks([]) == []


def test_compare_never_ranks_overlapping_intervals() -> None:
    """Both tests of the difference say slower, but the medians' intervals overlap."""
    a = [100 + 0.5 * index for index in range(30)]
    close = change(mode_doc("m/x", "c", a), mode_doc("m/x", "c", [x + 5 for x in a]))
    assert close.p_value is not None
    assert close.p_value < 0.001
    assert close.ci_low_ms is not None
    assert close.ci_low_ms > 0
    assert close.p50_a_ci is not None
    assert close.p50_b_ci is not None
    assert close.p50_b_ci[0] <= close.p50_a_ci[1]
    assert close.verdict == "within noise"
    wide = [100 + 10 * index / 40 for index in range(40)]
    apart = change(mode_doc("m/x", "c", wide), mode_doc("m/x", "c", [x + 4 for x in wide]))
    assert apart.p50_a_ci == quantile_interval(wide, 0.5)
    assert apart.verdict == "slower"
    # Under 6 samples a median has no interval: unknown precision never ranks.
    few = change(mode_doc("m/x", "c", [1.0, 1.1, 1.2]), mode_doc("m/x", "c", [5.0, 5.1, 5.2]))
    assert (few.p50_a_ci, few.verdict) == (None, "within noise")


def test_the_comparison_page_shows_both_intervals_and_within_noise(tmp_path: Path) -> None:
    a = [100 + 0.5 * index for index in range(30)]
    run_doc(tmp_path, "a", "regional", 30.0, [mode_doc("ssh/pty-fresh", "asyncssh", a)])
    run_doc(tmp_path, "b", "regional", 30.0,
            [mode_doc("ssh/pty-fresh", "asyncssh", [x + 5 for x in a])])  # fmt: skip
    files = build_comparison(tmp_path, find_run(tmp_path, "a"), find_run(tmp_path, "b"))
    check_report(files.directory)
    [changes] = re.findall(r'<table class="changes">(.*?)</table>', files.html.read_text(), re.S)
    low_a, high_a = quantile_interval(a, 0.5) or (0.0, 0.0)
    assert (
        f'<span class="ci">[{format_number(low_a)}{DASH}{format_number(high_a)}]</span>' in changes
    )
    assert '<td class="noise">within noise</td>' in changes
