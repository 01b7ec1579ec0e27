"""The precision table: a run with intervals and precision, and one written before them."""

import json

from bench_runner.precision_table import precision_markdown, run_row
from bench_runner.results import ModeRun, RunResult
from bench_runner.stats import median_half_width_pct, summarize

Sample = tuple[RunResult, list[ModeRun]]


def test_a_run_with_precision_counts_its_stops_and_the_targets_met(sample_run: Sample) -> None:
    run = sample_run[0].model_copy(deep=True)
    quiet, noisy = run.modes
    quiet.samples_ms = [100.0 + index * 0.01 for index in range(10)]
    noisy.samples_ms = [100.0 * (1 + index % 2) for index in range(30)]
    for mode, reason, count in ((quiet, "precise", 10), (noisy, "cap", 30)):
        mode.stats = summarize(mode.samples_ms, errors=0)
        mode.iterations = count
        assert mode.precision is not None
        mode.precision = mode.precision.model_copy(update={"stop_reason": reason})
    row = run_row(json.loads(run.model_dump_json()))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[2:8] == ["regional", "fixed", "1.0", "2", "40", "1 of 2"]
    assert cells[8] == "cap 1, precise 1"
    assert cells[10].endswith(f"({noisy.series})")


def test_a_run_from_before_the_intervals_is_judged_from_its_samples(sample_run: Sample) -> None:
    document = json.loads(sample_run[0].model_dump_json())
    samples = [30.0 + index for index in range(20)]
    for mode in document["modes"]:
        mode["samples_ms"] = samples
        del mode["precision"]
        mode["stats"] = {k: v for k, v in mode["stats"].items() if "_ci_" not in k}
    page = precision_markdown([document], "bench-runner precision-table x", "2026-11-27 22:00 UTC")
    width = median_half_width_pct(samples)
    assert width is not None
    assert f"| {width:.1f} % |" in page
    assert "| fixed | 1.0 | 2 | 4 | 0 of 2 | fixed 2 |" in page
