import csv
import json
from pathlib import Path

from bench_runner.outputs import write_outputs
from bench_runner.results import RunResult
from bench_runner.runner import ModeRun
from bench_runner.sinks.publish import published_only


def test_csv_and_manifest(tmp_path: Path, sample_run: tuple[RunResult, list[ModeRun]]) -> None:
    run, mode_runs = sample_run
    paths = write_outputs(run, mode_runs, tmp_path, ["bench-runner", "run"])
    assert [p.name for p in paths] == ["iterations.csv", "modes.csv", "manifest.json"]
    with (tmp_path / run.run_id / "iterations.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4
    assert rows[3]["mode"] == "ssh/reuse-conn"
    assert rows[3]["ok"] == "False"
    assert rows[3]["error"] == "show clock: % Invalid x"
    with (tmp_path / run.run_id / "modes.csv").open() as handle:
        modes = list(csv.DictReader(handle))
    assert [m["mode"] for m in modes] == ["https/keep-alive", "ssh/reuse-conn"]
    assert float(modes[0]["p50_ms"]) == 32.0
    manifest = json.loads((tmp_path / run.run_id / "manifest.json").read_text())
    assert manifest["lab"]["commit"] == "deadbeef"
    assert manifest["netem"]["engine"] == "nfq"
    assert manifest["command"] == ["bench-runner", "run"]
    for library in ("asyncssh", "httpx", "paramiko", "netmiko", "scrapli", "requests",
                    "openssh", "python-ssl", "openssl"):
        assert manifest["libraries"][library], library


def test_modes_refused_by_the_rtt_gate_are_not_published(
    sample_run: tuple[RunResult, list[ModeRun]],
) -> None:
    run, mode_runs = sample_run
    mode_runs[1].result.published = False
    published_run, published_mode_runs = published_only(run, mode_runs)
    assert [m.mode for m in published_run.modes] == ["https/keep-alive"]
    assert [r.result.mode for r in published_mode_runs] == ["https/keep-alive"]
    assert len(run.modes) == 2  # results.json keeps both
