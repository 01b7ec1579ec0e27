"""The report's bad-links section and chart: shown for runs under loss only, each mode's tail
with its intervals beside the loss model and judged against it, dashes (never zeros) for what
a mode or older results lack."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench_runner.html_report import build_comparison, build_report, charts
from bench_runner.html_report.bad_links import NOT_JUDGED, loss_row, under_loss
from bench_runner.html_report.build import format_number
from bench_runner.html_report.runs import find_run, sweep_runs
from bench_runner.stats import summarize
from test_html_report import check_report, drawn, mode_doc, run_doc

CLEAN_MS, RECOVERY_MS = 100.0, 230.0
ITERATIONS = 80
"""Enough for a p95's interval (72), not a p99's (368)."""


def lossy(
    mode: str,
    client: str,
    recovered: int,
    *,
    model_p95: str = "inside",
    quic: bool = False,
) -> dict[str, Any]:
    """``mode`` measured under loss: ``recovered`` of its iterations met a retransmission
    (one of them after a timeout), which cost ``RECOVERY_MS``; the model's p95 lies
    ``inside``, ``under`` or ``over`` the measured p95's interval. QUIC's counters are null
    and it has no model, as the runner writes them."""
    flags = [index % (ITERATIONS // recovered) == 0 for index in range(ITERATIONS)]
    samples = [
        CLEAN_MS + index * 0.1 + (RECOVERY_MS if flag else 0.0) for index, flag in enumerate(flags)
    ]
    document = mode_doc(mode, client, samples)
    stats = summarize(samples, 0).model_dump()
    document["stats"] = stats
    counted = None if quic else 0

    def counters(flag: bool, index: int) -> dict[str, Any]:
        resent = None if quic else int(flag)
        first = flag and index == flags.index(True)
        return {
            "round_trips": 10, "connects": 1, "data_segments_out": counted if quic else 40,
            "data_segments_in": counted if quic else 40, "retransmits_out": resent,
            "retransmits_in": counted, "timeouts": None if quic else int(first),
            "syn_retries": counted, "spurious": counted, "reordered_in": counted,
        }  # fmt: skip

    document["wire"] = {
        "available": True,
        "per_iteration": [counters(flag, index) for index, flag in enumerate(flags)],
        "recovered_iterations": None if quic else sum(flags),
    }
    document["time_split"] = {
        "p50_ms": {"network": 60.0, "device": 5.0, "client": 35.0, "stall": 0.0, "recovery": 0.0},
        "per_iteration": [
            {"recovery_ms": 0.0 if quic or not flag else RECOVERY_MS - 30.0} for flag in flags
        ],
    }
    if quic:
        document["loss_model"] = None
        return document
    low, high = stats["p95_ci_low_ms"], stats["p95_ci_high_ms"]
    document["loss_model"] = {
        "loss_pct": 1.0, "data_segments_p50": 80.0, "connects_p50": 1.0,
        "round_trips_p50": 10.0, "p_meet": 0.553, "expected_extra_ms": 25.0,
        "one_loss_ms": 45.0, "clean_p50_ms": CLEAN_MS,
        "p95_ms": {"inside": (low + high) / 2, "under": low - 50.0, "over": high + 50.0}[model_p95],
        "p99_ms": CLEAN_MS + 45.0, "measured_share": sum(flags) / ITERATIONS,
    }  # fmt: skip
    return document


def lossy_modes() -> list[dict[str, Any]]:
    return [
        lossy("ssh/fresh-conn", "asyncssh", 10),
        lossy("ssh/pty-fresh", "asyncssh", 10, model_p95="under"),
        lossy("https/keep-alive", "httpx", 5, model_p95="over"),
        lossy("h3/keep-alive", "quic-go", 10, quic=True),
    ]


def lossy_run(results: Path, run_id: str, loss_pct: float, modes: list[dict[str, Any]]) -> Path:
    path = run_doc(results, run_id, f"regional-loss-{loss_pct:g}", 30.0, modes, sweep="imp")
    document = json.loads((path / "results.json").read_text())
    document["profile"]["loss_pct"] = loss_pct
    (path / "results.json").write_text(json.dumps(document))
    return path


def section(html: str, run_id: str) -> str:
    [found] = re.findall(rf'<table class="bad-links" data-run="{run_id}">(.*?)</table>', html, re.S)
    return str(found)


def row_of(table: str, series: str) -> str:
    [found] = [row for row in table.split("<tr>") if f"<td>{series}</td>" in row]
    return found


def test_a_run_under_loss_has_the_section_each_mode_judged_against_the_model(
    tmp_path: Path,
) -> None:
    path = lossy_run(tmp_path, "lossy", 1.0, lossy_modes())
    files = build_report(tmp_path, [find_run(tmp_path, "lossy")])
    check_report(files.directory)
    html = files.html.read_text()
    assert 'id="bad-links"' in html
    table = section(html, "lossy")
    modes = {
        mode["series"]: mode for mode in json.loads((path / "results.json").read_text())["modes"]
    }
    fresh = row_of(table, "ssh/fresh-conn · asyncssh 1.0")
    stats = modes["ssh/fresh-conn · asyncssh 1.0"]["stats"]
    for q in ("p50", "p95", "p99"):
        assert f'data-path="stats.{q}_ms" data-value="{json.dumps(stats[q + "_ms"])}"' in fresh
    assert 'data-path="stats.p95_ci_low_ms"' in fresh  # 80 samples: p95 has its interval
    assert "no interval: too few iterations" in fresh  # and p99 none
    assert 'data-path="wire.recovered_iterations" data-value="10">10</span> of 80' in fresh
    assert f"({format_number(12.5, ' %')})" in fresh
    assert format_number(55.3, " %") in fresh  # the model's P(meet), in percent
    assert 'data-path="time_split.p50_ms.recovery" data-value="0.0">' in fresh
    assert f"/ {format_number(RECOVERY_MS - 30.0)}" in fresh  # over the iterations that had some
    assert format_number(100 / ITERATIONS) in fresh  # one timeout in 80 iterations, per 100
    assert 'data-path="loss_model.p95_ms"' in fresh
    verdicts = {
        series: re.findall(r'<td class="verdict[^"]*">([^<]*)</td>', row_of(table, series))
        for series in modes
    }
    assert verdicts == {
        "ssh/fresh-conn · asyncssh 1.0": ["follows", NOT_JUDGED],
        "ssh/pty-fresh · asyncssh 1.0": ["above", NOT_JUDGED],  # the model under the interval
        "https/keep-alive · httpx 1.0": ["below", NOT_JUDGED],
        "h3/keep-alive · quic-go 1.0": ["—", "—"],  # no model for QUIC
    }


def test_quic_shows_dashes_not_zeros(tmp_path: Path) -> None:
    lossy_run(tmp_path, "quic", 1.0, [lossy("h3/keep-alive", "quic-go", 10, quic=True)])
    row = loss_row(find_run(tmp_path, "quic").modes[0])
    assert (row.recovered, row.met_pct, row.p_meet_pct, row.timeouts_per_100) == (None,) * 4
    assert row.judged == {"p95": None, "p99": None}
    html = build_report(tmp_path, [find_run(tmp_path, "quic")]).html.read_text()
    cells = re.findall(
        r"<td[^>]*>(.*?)</td>", row_of(section(html, "quic"), "h3/keep-alive · quic-go 1.0")
    )
    # met a retransmission, the model's P(meet), recovery (unseen, not 0), timeouts
    assert cells[5:9] == ["—"] * 4


def test_quic_counted_by_its_client_shows_the_counts_but_no_recovery_time(
    tmp_path: Path,
) -> None:
    """quic-go's own counts fill the counters and the model; the capture still cannot place
    QUIC's recovery in time."""
    lossy_run(tmp_path, "quic", 1.0, [lossy("h3/keep-alive", "quic-go", 10)])
    row = loss_row(find_run(tmp_path, "quic").modes[0])
    assert (row.recovered, row.timeouts_per_100) == (10, 1.25)
    assert (row.recovery_p50_ms, row.recovered_recovery_p50_ms) == (None, None)


def test_no_section_for_runs_without_loss(tmp_path: Path) -> None:
    """Results written before the loss counters: the section is absent, nothing breaks."""
    modes = [
        mode_doc("ssh/pty-fresh", "asyncssh", [120.0, 125.0, 123.0]),
        mode_doc("https/keep-alive", "httpx", [31.0, 32.0, 33.0]),
    ]
    run_doc(tmp_path, "old", "regional", 30.0, modes)
    run = find_run(tmp_path, "old")
    assert not under_loss(run)
    files = build_report(tmp_path, [run])
    summary = check_report(files.directory)
    assert "bad-links" not in drawn(summary)
    html = files.html.read_text()
    assert 'id="bad-links"' not in html
    assert 'class="bad-links"' not in html


def test_older_results_under_loss_show_dashes(tmp_path: Path) -> None:
    """A lossy profile measured by a runner older than the loss counters: the section lists
    the modes with their tails, and a dash where a figure was not recorded."""
    modes = [mode_doc("ssh/pty-fresh", "asyncssh", [120.0, 125.0, 123.0, 400.0, 126.0, 124.0])]
    lossy_run(tmp_path, "older", 2.0, modes)
    run = find_run(tmp_path, "older")
    assert under_loss(run)
    html = build_report(tmp_path, [run]).html.read_text()
    row = row_of(section(html, "older"), "ssh/pty-fresh · asyncssh 1.0")
    assert 'data-path="stats.p50_ms"' in row
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
    assert cells[4:] == ["—"] * 9  # p99, the counters, recovery, the model and its verdicts


def test_a_loss_model_shows_the_section_whatever_the_profile_says(tmp_path: Path) -> None:
    run_doc(tmp_path, "modelled", "regional", 30.0, [lossy("ssh/fresh-conn", "asyncssh", 10)])
    assert under_loss(find_run(tmp_path, "modelled"))
    html = build_report(tmp_path, [find_run(tmp_path, "modelled")]).html.read_text()
    assert "follows" in section(html, "modelled")


def test_p95_against_loss_across_a_sweep(tmp_path: Path) -> None:
    clean = [mode_doc("ssh/fresh-conn", "asyncssh", [100.0 + i for i in range(ITERATIONS)])]
    run_doc(tmp_path, "imp-regional", "regional", 30.0, clean, sweep="imp")
    lossy_run(tmp_path, "imp-regional-loss-1", 1.0, [lossy("ssh/fresh-conn", "asyncssh", 10)])
    lossy_run(tmp_path, "imp-regional-loss-2", 2.0, [lossy("ssh/fresh-conn", "asyncssh", 20)])
    runs = sweep_runs(tmp_path, find_run(tmp_path, "imp-regional-loss-2"))
    figure = charts.bad_links([(run.profile, run) for run in runs])
    assert figure.present
    assert sorted((row["loss_pct"], row["model_p95_ms"] is None) for row in figure.rows) == [
        (0.0, True),
        (1.0, False),
        (2.0, False),
    ]
    for row in figure.rows:
        assert row["bar_low_ms"] <= row["p95_ms"] <= row["bar_high_ms"]
        assert row["latency"] == "30 ms RTT"
    files = build_report(tmp_path, runs)
    assert "bad-links" in drawn(check_report(files.directory))
    html = files.html.read_text()
    assert 'class="bad-links" data-run="imp-regional"' not in html  # no loss: no table
    for run_id in ("imp-regional-loss-1", "imp-regional-loss-2"):
        assert section(html, run_id)


@pytest.mark.parametrize("losses", [(0.0,), (1.0, 1.0)])
def test_one_loss_rate_draws_no_chart_and_says_why(
    tmp_path: Path, losses: tuple[float, ...]
) -> None:
    for index, loss in enumerate(losses):
        lossy_run(tmp_path, f"r{index}", loss, [lossy("ssh/fresh-conn", "asyncssh", 10)])
    labelled = [(f"r{index}", find_run(tmp_path, f"r{index}")) for index in range(len(losses))]
    figure = charts.bad_links(labelled)
    assert not figure.present
    assert figure.note is not None
    assert figure.note.startswith("one loss rate")


def test_a_comparison_of_two_loss_rates(tmp_path: Path) -> None:
    lossy_run(tmp_path, "a", 0.5, [lossy("ssh/fresh-conn", "asyncssh", 5)])
    lossy_run(tmp_path, "b", 2.0, [lossy("ssh/fresh-conn", "asyncssh", 20)])
    files = build_comparison(tmp_path, find_run(tmp_path, "a"), find_run(tmp_path, "b"))
    assert "bad-links" in drawn(check_report(files.directory))
    html = files.html.read_text()
    assert section(html, "a")
    assert section(html, "b")
