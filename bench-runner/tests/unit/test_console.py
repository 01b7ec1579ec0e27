"""The terminal's time split table."""

from rich.console import Console

from bench_runner.console import time_split_table
from bench_runner.results import ModeRun, RunResult
from bench_runner.wire.timeline import TimeSplit, summarize_splits


def test_time_split_table_shows_each_part_and_the_stalls_per_iteration(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, _ = sample_run
    split = TimeSplit(
        network_ms=30.0,
        device_ms=5.0,
        client_ms=1.5,
        stall_ms=70.0,
        stalls=1,
        device_stalls=1,
        client_stalls=0,
        unaccounted_ms=0.0,
    )
    run.modes[0].time_split = summarize_splits(30.0, [split, split])
    console = Console(width=200, record=True)
    console.print(time_split_table(run))
    text = console.export_text()
    assert "https/keep-alive" in text
    assert "ssh/reuse-conn" not in text  # no split: not counted, not shown as zeros
    row = next(line for line in text.splitlines() if "https/keep-alive" in line)
    assert all(figure in row for figure in ("30.0", "5.0", "1.5", "70.0", "1.0"))
